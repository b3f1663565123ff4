"""The view's drawing in a process of its own, so that it takes nothing from the graph's.

The graph of ``miles up`` runs every node on one single-threaded executor; its 250 Hz
loops must not wait behind the view's forward kinematics and Rerun logging (about 1.7 ms
per arm and update). The view node (:mod:`miles_ros.ros.view_node`) stays in the graph
(``miles demo``, ``miles up --operator-in-process``; plain ``miles up`` runs it in
``miles view`` instead, drawing there through a :class:`LocalView`), where it reads the
topics cheaply (sampled, in-process),
and hands one batch of decoded calls per update to :meth:`ViewProcess.apply`; a sender
thread writes the batches to a pipe (the executor never waits on it: while the child is
behind, batches queue, up to :data:`MAX_PENDING_CALLS`, the oldest dropped beyond), and
the child applies them to a :class:`LocalView` (a
:class:`~miles_ros.view.cell_view.CellView` with its outputs). The child runs at a lower
priority (:data:`NICENESS`), ignores SIGINT (Ctrl-C reaches the whole process group: the
parent decides when the view ends) and ends on :meth:`ViewProcess.close`, or when its
pipe closes because the parent is gone, finishing the recording either way.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import sys
import threading
import traceback
from collections.abc import Sequence
from dataclasses import dataclass

from miles_ros.view.options import DEFAULT_RATE_HZ, DEFAULT_WEB_PORT

START_TIMEOUT_S = 60.0
"""How long the child may take to import Rerun, load the meshes and start its sinks."""
CLOSE_TIMEOUT_S = 30.0
"""How long the child may take to log what is pending and finish the recording."""
NICENESS = 10
"""The child's niceness: on a loaded machine the graph's control loops get the CPU first
(the view draws a little later, never the loops)."""

MAX_PENDING_CALLS = 2000
"""Calls queued for a child that is behind (about a minute of a quiet cell, some seconds
of a busy one); older ones are dropped."""

Call = tuple[str, tuple]
"""One call of a :class:`~miles_ros.view.cell_view.CellView` method: (name, args)."""


@dataclass(frozen=True)
class ViewSpec:
    """What the view draws and where: the cell, the supervisor's zones and the outputs."""

    scene_file: str | None = None
    params_file: str | None = None
    """A ROS parameter file whose ``safety_node`` section overrides config/safety.yaml."""
    record: str | None = None
    """A Rerun recording (.rrd) to write."""
    native: bool = False
    """The native viewer (the web viewer instead when there is no display)."""
    web: bool = False
    """The web viewer on 127.0.0.1."""
    web_port: int = DEFAULT_WEB_PORT
    rate_hz: float = DEFAULT_RATE_HZ


class LocalView:
    """A :class:`~miles_ros.view.cell_view.CellView` with the outputs of ``spec``, in this
    process: :meth:`apply` runs a batch of calls and draws (:meth:`CellView.tick`).
    ``lines`` say where the view goes; ``url`` is the web viewer's page (None without)."""

    def __init__(self, spec: ViewSpec) -> None:
        from miles_ros.view.cell_geometry import safety_config
        from miles_ros.view.cell_view import CellView
        from miles_ros.view.sinks import plan_outputs, start_web_viewer

        outputs = plan_outputs(spec.record, spec.native, spec.web, spec.web_port)
        self.view = CellView(
            outputs.sinks, spec.scene_file, safety_config(spec.params_file), spec.rate_hz
        )
        start_web_viewer(outputs)
        self.lines, self.url = outputs.lines, outputs.url

    def apply(self, batch: Sequence[Call]) -> None:
        for method, args in batch:
            try:
                getattr(self.view, method)(*args)
            except Exception:  # a malformed message: say so, keep drawing the rest
                print(f"view: {method} failed:\n{traceback.format_exc()}", file=sys.stderr)
        self.view.tick()

    def close(self) -> None:
        self.view.close()


def child_setup() -> None:
    """What every view child does first: leave SIGINT to the parent, yield the CPU."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    os.nice(NICENESS)


def serve_view(conn, spec: ViewSpec) -> None:
    """The child: a :class:`LocalView` of ``spec``; answers ``("ok", lines, url)`` (or
    ``("error", text)``), then applies each batch received until ``None`` (answered
    ``("closed",)``) or a closed pipe."""
    child_setup()
    try:
        view = LocalView(spec)
    except Exception:
        conn.send(("error", traceback.format_exc()))
        conn.close()
        return
    conn.send(("ok", view.lines, view.url))
    try:
        while True:
            try:
                batch = conn.recv()
            except (EOFError, OSError):
                break
            if batch is None:
                view.close()
                conn.send(("closed",))
                break
            view.apply(batch)
    finally:
        view.close()
        conn.close()


class ViewProcess:
    """The parent's side of :func:`serve_view`: :meth:`apply` queues a batch for the
    child (never blocks), :meth:`close` ends the view. ``lines`` and ``url`` as
    :class:`LocalView`'s."""

    def __init__(self, spec: ViewSpec, start_method: str = "spawn") -> None:
        ctx = mp.get_context(start_method)
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(
            target=serve_view, args=(child, spec), daemon=True, name="miles-view"
        )
        self.proc.start()
        child.close()
        self._open = True
        try:
            if not self.conn.poll(START_TIMEOUT_S):
                raise RuntimeError(f"the view process did not start in {START_TIMEOUT_S:g} s")
            answer = self.conn.recv()
        except (EOFError, OSError) as exc:
            self._reap()
            raise RuntimeError(f"the view process died (exit code {self.proc.exitcode})") from exc
        except BaseException:
            self._reap()
            raise
        if answer[0] != "ok":
            self._reap()
            raise RuntimeError(f"the view process failed:\n{answer[1]}")
        _, self.lines, self.url = answer
        self.dropped = 0
        """Calls dropped because the child was too far behind."""
        self._pending: list[Call] = []
        self._cond = threading.Condition()
        self._stopping = False
        self._sender = threading.Thread(
            target=self._send_loop, daemon=True, name="miles-view-send"
        )
        self._sender.start()

    def apply(self, batch: Sequence[Call]) -> None:
        """Queue ``batch`` for the child; returns at once."""
        with self._cond:
            if not self._open or self._stopping:
                return
            self._pending.extend(batch)
            excess = len(self._pending) - MAX_PENDING_CALLS
            if excess > 0:
                del self._pending[:excess]
                self.dropped += excess
            self._cond.notify()

    def _send_loop(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._pending or self._stopping)
                batch, self._pending = self._pending, []
                stopping = self._stopping
            if batch:
                try:
                    self.conn.send(batch)
                except (OSError, ValueError):
                    return  # the child is gone: close() reaps it
            if stopping:
                return

    @property
    def alive(self) -> bool:
        return self._open and self.proc.is_alive()

    def close(self) -> None:
        """Send what is queued, ask the child to finish the recording and wait for it;
        idempotent."""
        if self._open:
            with self._cond:
                self._stopping = True
                self._cond.notify()
            self._sender.join(timeout=CLOSE_TIMEOUT_S)
            try:
                self.conn.send(None)
                if self.conn.poll(CLOSE_TIMEOUT_S):
                    self.conn.recv()
            except (EOFError, OSError, ValueError):
                pass
        self._reap()

    def _reap(self) -> None:
        self._open = False
        self.proc.join(timeout=CLOSE_TIMEOUT_S)
        if self.proc.is_alive():
            self.proc.terminate()
            self.proc.join(timeout=5.0)
        self.conn.close()
