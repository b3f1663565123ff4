"""The view in its own process, so that drawing the cell takes nothing from the graph's.

The graph of ``miles up`` runs every node on one single-threaded executor; its 250 Hz
loops must not wait behind the view, neither behind its forward kinematics and Rerun
logging (about 1.7 ms per arm and update) nor behind its 250 Hz joint-state callbacks.
So the view is a node of its own process (as ``ros2 run`` would start it): the
:class:`ViewProcess` child joins the graph's ROS domain, subscribes there and draws into
a :class:`LocalView`; the graph's process only publishes to one more reader. The child
runs at a lower priority (:data:`NICENESS`), ignores SIGINT (Ctrl-C reaches the whole
process group: the parent decides when the view ends) and ends on
:meth:`ViewProcess.close`, or when its pipe closes because the parent is gone, finishing
the recording either way.

What the child runs (the ROS node) is passed in as ``target``
(:func:`miles_ros.ros.view_node.run_view_process`): this package stays ROS-free.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import sys
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from miles_ros.view.options import DEFAULT_RATE_HZ, DEFAULT_WEB_PORT

START_TIMEOUT_S = 60.0
"""How long the child may take to import Rerun, load the meshes and start its sinks."""
CLOSE_TIMEOUT_S = 30.0
"""How long the child may take to log what is pending and finish the recording."""
NICENESS = 10
"""The child's niceness: on a loaded machine the graph's control loops get the CPU first
(the view draws a little later, never the loops)."""

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
    domain_id: int | None = None
    """The graph's ROS domain (None: ``ROS_DOMAIN_ID``)."""


class LocalView:
    """A :class:`~miles_ros.view.cell_view.CellView` with the outputs of ``spec``, in this
    process: :meth:`apply` runs a batch of calls and draws (:meth:`CellView.tick`).
    ``lines`` say where the view goes; ``url`` is the web viewer's page (None without)."""

    def __init__(self, spec: ViewSpec) -> None:
        from miles_ros.view.cell_view import CellView, safety_config
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


class ViewProcess:
    """The view child: ``target(conn, spec)`` answers ``("ok", lines, url)`` (or
    ``("error", text)``) on ``conn`` once it draws, and finishes when ``conn`` receives
    ``None`` (answering ``("closed",)``) or closes. ``lines`` and ``url`` as
    :class:`LocalView`'s."""

    def __init__(self, spec: ViewSpec, target: Callable, start_method: str = "spawn") -> None:
        ctx = mp.get_context(start_method)
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=target, args=(child, spec), daemon=True, name="miles-view")
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

    @property
    def alive(self) -> bool:
        return self._open and self.proc.is_alive()

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

    def __enter__(self) -> ViewProcess:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
