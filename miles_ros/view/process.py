"""The view in a child process, so that drawing the cell never holds this process's GIL.

The graph of ``miles up`` runs every node on one single-threaded executor; a 250 Hz
safety loop there must not wait behind the view's forward kinematics and Rerun logging
(about 1.4 ms per arm and update). :class:`ViewProcess` starts a child that owns the
:class:`~miles_ros.view.cell_view.CellView` and its sinks (the recording file, the web
viewer and its stream server, or the native viewer's connection); the parent sends it,
at the view's rate, one batch of decoded calls (``(method, args)``: the newest joint
state per arm, new events) over a pipe, one write per batch. The child applies them and
logs (:meth:`CellView.tick`). It ignores SIGINT (Ctrl-C reaches the whole process group:
the parent decides when the view ends) and ends on :meth:`ViewProcess.close`, or when the
pipe closes because the parent is gone, finishing the recording either way.
"""

from __future__ import annotations

import multiprocessing as mp
import signal
import sys
import traceback
from collections.abc import Sequence
from dataclasses import dataclass

from miles_ros.view.options import DEFAULT_RATE_HZ, DEFAULT_WEB_PORT

START_TIMEOUT_S = 60.0
"""How long the child may take to import Rerun, load the meshes and start its sinks."""
CLOSE_TIMEOUT_S = 30.0
"""How long the child may take to log what is pending and finish the recording."""

Call = tuple[str, tuple]
"""One call of a :class:`~miles_ros.view.cell_view.CellView` method: (name, args)."""


@dataclass(frozen=True)
class ViewSpec:
    """What the child builds: the cell, the supervisor's zones and the sinks."""

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


def _serve(conn, spec: ViewSpec) -> None:
    """The child: build the view, answer ``("ok", lines, url)`` (or ``("error", text)``),
    then apply batches until ``None`` (answered ``("closed",)``) or a closed pipe."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        from miles_ros.view.cell_view import CellView, safety_config
        from miles_ros.view.sinks import plan_outputs, start_web_viewer

        outputs = plan_outputs(spec.record, spec.native, spec.web, spec.web_port)
        view = CellView(
            outputs.sinks, spec.scene_file, safety_config(spec.params_file), spec.rate_hz
        )
        start_web_viewer(outputs)
    except Exception:
        conn.send(("error", traceback.format_exc()))
        conn.close()
        return
    conn.send(("ok", outputs.lines, outputs.url))
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
            for method, args in batch:
                try:
                    getattr(view, method)(*args)
                except Exception:  # a malformed message: say so, keep drawing the rest
                    print(f"view: {method} failed:\n{traceback.format_exc()}", file=sys.stderr)
            view.tick()
    finally:
        view.close()
        conn.close()


class ViewProcess:
    """The parent's side: :meth:`apply` sends a batch of calls, :meth:`close` ends the
    view. ``lines`` are what to tell the user (the recording file, the web viewer's URL,
    why there is no native window); ``url`` is the web viewer's page (None without)."""

    def __init__(self, spec: ViewSpec, start_method: str = "spawn") -> None:
        ctx = mp.get_context(start_method)
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_serve, args=(child, spec), daemon=True, name="miles-view")
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

    def apply(self, batch: Sequence[Call]) -> None:
        """Send one batch (one pipe write); a view that has died is closed and ignored
        (the graph goes on without it)."""
        if not self._open:
            return
        try:
            self.conn.send(list(batch))
        except (OSError, ValueError):
            self._reap()

    def close(self) -> None:
        """Ask the child to finish the recording and wait for it; idempotent."""
        if self._open:
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

    @property
    def alive(self) -> bool:
        return self._open and self.proc.is_alive()
