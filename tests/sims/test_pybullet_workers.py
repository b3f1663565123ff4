"""The PyBullet worker loop (:func:`sims.backends.pybullet.workers.serve`) when its parent
goes away while a request is being served, as at a Ctrl-C shutdown: the loop ends and closes
its target without a traceback (a broken pipe used to escape and print one)."""

from __future__ import annotations

import threading
from multiprocessing import Pipe

from sims.backends.pybullet.workers import serve


class Target:
    def __init__(self):
        self.started, self.release, self.closed = threading.Event(), threading.Event(), False

    def slow(self):
        self.started.set()
        self.release.wait(timeout=30.0)
        return "done"

    def close(self):
        self.closed = True


def test_a_parent_gone_mid_request_ends_the_loop_quietly():
    target, errors = Target(), []
    parent, child = Pipe()

    def run():
        try:
            serve(child, lambda: target)
        except BaseException as exc:  # what would have been printed as a traceback
            errors.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    assert parent.recv() == ("ok", None)  # built
    parent.send(("slow", ()))
    assert target.started.wait(timeout=30.0)
    parent.close()  # the parent shuts down while the request runs
    target.release.set()
    thread.join(timeout=30.0)
    assert not thread.is_alive() and errors == [] and target.closed


def test_requests_are_answered_in_order_and_close_ends_the_loop():
    target = Target()
    target.release.set()
    parent, child = Pipe()
    thread = threading.Thread(target=serve, args=(child, lambda: target))
    thread.start()
    assert parent.recv() == ("ok", None)
    parent.send(("slow", ()))
    parent.send(("missing", ()))
    assert parent.recv() == ("ok", "done")
    kind, text = parent.recv()
    assert kind == "error" and "AttributeError" in text
    parent.send(("close", ()))
    assert parent.recv() == ("ok", None)
    thread.join(timeout=30.0)
    assert not thread.is_alive() and target.closed
