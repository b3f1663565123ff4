"""The operator console in a process of its own beside a graph: :class:`ConsoleProcess`.

``miles up --console --rt-priority N`` serves the console this way. In the graph's own
process the console's web server threads, its bridge node and the metrics' monitor node
share the interpreter's lock and the executor with the 250 Hz loop, and under SCHED_FIFO
that sharing is what is left of the loop's jitter (docs/console.md, "Measured"). Here
``miles console --metrics`` runs in a child process on the graph's ``ROS_DOMAIN_ID``: its
e-stop reaches each arm's safety node through the same ``trigger_estop`` service the
in-process bridge calls, and its goals through ``/miles/goal``.

The child is started as :class:`~miles_ros.ros.processes.NodeProcess` children are (this
checkout first on ``PYTHONPATH``, a process group of its own, stopping by itself when the
parent dies). The parent chooses the token and hands it over in the environment
(:data:`miles_ros.console.server.TOKEN_ENV`), never on the command line. "Up" is the
child's own ``console: URL`` line, printed once uvicorn serves and every arm's e-stop
service is discovered (``--wait-services``); the child's later output is copied to this
process's stdout.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading

from miles_ros.console.server import DEFAULT_HOST, TOKEN_ENV, new_token
from miles_ros.ros.processes import (
    PARENT_PID_ENV,
    SOURCE_ROOT,
    STOP_TIMEOUT_S,
    UP_TIMEOUT_S,
    interrupt,
)

URL_PREFIX = "console: "
"""The line :class:`~miles_ros.console.server.ConsoleServer` prints once it serves."""


class ConsoleProcess:
    """``miles console --metrics`` for the graph on ``domain_id`` in a child process,
    serving on ``host:port`` (0: a free one). The constructor returns once the child
    serves (RuntimeError with its exit status if it exits first, or after ``timeout``
    s); ``url`` is the page with its token, ``base_url`` and ``token`` its parts."""

    def __init__(
        self,
        domain_id: int,
        scene_file: str | None = None,
        host: str = DEFAULT_HOST,
        port: int = 0,
        view_url: str | None = None,
        timeout: float = UP_TIMEOUT_S,
    ) -> None:
        self.token = new_token()
        env = {
            **os.environ,
            "ROS_DOMAIN_ID": str(domain_id),
            PARENT_PID_ENV: str(os.getpid()),
            TOKEN_ENV: self.token,
        }
        path = env.get("PYTHONPATH", "")
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(SOURCE_ROOT), path) if p)
        self.command = [sys.executable, "-m", "miles_ros.commands.console", "--metrics"]
        self.command += ["--host", host, "--port", str(port), "--wait-services", str(timeout)]
        if scene_file:
            self.command += ["--scene", scene_file]
        if view_url:
            self.command += ["--view-url", view_url]
        self.proc = subprocess.Popen(
            self.command,
            env=env,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
            process_group=0,
        )
        self.url = self._wait_for_url(timeout)
        self.base_url = self.url.split("/?token=")[0]
        self._copy = threading.Thread(target=self._copy_output, daemon=True, name="console_out")
        self._copy.start()

    @property
    def pid(self) -> int:
        return self.proc.pid

    def _wait_for_url(self, timeout: float) -> str:
        """The child's ``console: URL`` line (the lines before it are copied through);
        a reader thread, so the deadline holds even while the child prints nothing."""
        found: list[str] = []
        done = threading.Event()

        def read() -> None:
            for line in self.proc.stdout:
                if line.startswith(URL_PREFIX):
                    found.append(line[len(URL_PREFIX) :].strip())
                    print(line, end="", flush=True)
                    break
                print(line, end="", flush=True)
            done.set()

        threading.Thread(target=read, daemon=True, name="console_up").start()
        if not done.wait(timeout) or not found:
            self.stop()
            raise RuntimeError(
                f"the console ({' '.join(self.command)}) did not serve within {timeout:g} s "
                f"(exit status {self.proc.returncode})"
            )
        return found[0]

    def _copy_output(self) -> None:
        for line in self.proc.stdout:
            print(line, end="", flush=True)

    def running(self) -> bool:
        return self.proc.poll() is None

    def stop(self, timeout: float = STOP_TIMEOUT_S) -> int:
        """SIGINT (the console stops its server and graph), SIGKILL after ``timeout`` s;
        returns its exit status."""
        return interrupt(self.proc, timeout)


def start_console(
    graph,
    scene_file: str | None,
    port: int = 0,
    metrics_registry=None,
    view_url: str | None = None,
    own_process: bool = False,
):
    """The console of ``miles up --console``: in a process of its own when
    ``own_process`` (``--rt-priority``; its metrics from a monitor there), else on
    ``graph``'s executor with ``metrics_registry``
    (:func:`~miles_ros.ros.console_node.attach_console`). Either has ``url``,
    ``base_url``, ``token`` and ``stop()``."""
    if own_process:
        return ConsoleProcess(graph.domain_id, scene_file, port=port, view_url=view_url)
    from miles_ros.ros.console_node import attach_console

    return attach_console(
        graph, scene_file, port=port, metrics_registry=metrics_registry, view_url=view_url
    )
