"""The operator console in a process of its own beside a graph: :class:`ConsoleProcess`.

``miles up --console`` serves the console this way (``--operator-in-process``: in the
graph's process instead). In the graph's own process the console's web server threads,
its bridge node and the metrics' monitor node share the interpreter's lock and the
executor with the 250 Hz loop, and that sharing is what is left of the loop's jitter under
SCHED_FIFO, and more of it without (docs/console.md, "Measured"). Here
``miles console --metrics`` runs in a child process on the graph's ``ROS_DOMAIN_ID``: its
e-stop reaches each arm's safety node through the same ``trigger_estop`` service the
in-process bridge calls, and its goals through ``/miles/goal``.

The child is a :class:`~miles_ros.ros.processes.CommandProcess` (started as node
processes are: this checkout first on ``PYTHONPATH``, a process group of its own, stopping
by itself when the parent dies; ``miles view`` is started the same way). The parent
chooses the token and hands it over in the environment
(:data:`miles_ros.console.server.TOKEN_ENV`), never on the command line. "Up" is the
child's own ``console: URL`` line, printed once uvicorn serves and every arm's e-stop
service is discovered (``--wait-services``); the child's later output is copied to this
process's stdout.
"""

from __future__ import annotations

from miles_ros.console.server import DEFAULT_HOST, TOKEN_ENV, new_token
from miles_ros.ros.processes import UP_TIMEOUT_S, CommandProcess

URL_PREFIX = "console: "
"""The line :class:`~miles_ros.console.server.ConsoleServer` prints once it serves."""


class ConsoleProcess(CommandProcess):
    """``miles console --metrics`` for the graph on ``domain_id`` in a child process,
    serving on ``host:port`` (0: a free one). The constructor returns once the child
    serves (RuntimeError with its exit status if it exits first, or after ``timeout``
    s); ``url`` is the page with its token, ``base_url`` and ``token`` its parts.
    ``module``: what the child runs (bench/ros.py times the e-stop with its own wrapper
    of ``miles console``)."""

    def __init__(
        self,
        domain_id: int,
        scene_file: str | None = None,
        host: str = DEFAULT_HOST,
        port: int = 0,
        view_url: str | None = None,
        timeout: float = UP_TIMEOUT_S,
        module: str = "miles_ros.commands.console",
    ) -> None:
        self.token = new_token()
        args = ["--metrics", "--host", host, "--port", str(port), "--wait-services", str(timeout)]
        if scene_file:
            args += ["--scene", scene_file]
        if view_url:
            args += ["--view-url", view_url]
        super().__init__(
            "console",
            module,
            args,
            domain_id,
            URL_PREFIX,
            env={TOKEN_ENV: self.token},
            timeout=timeout,
        )
        self.url = self.ready_line
        self.base_url = self.url.split("/?token=")[0]


def start_console(
    graph,
    scene_file: str | None,
    port: int = 0,
    metrics_registry=None,
    view_url: str | None = None,
    own_process: bool = False,
):
    """The console of ``miles up --console``: in a process of its own when
    ``own_process`` (the default; its metrics from a monitor there), else on
    ``graph``'s executor with ``metrics_registry``
    (:func:`~miles_ros.ros.console_node.attach_console`). Either has ``url``,
    ``base_url``, ``token`` and ``stop()``."""
    if own_process:
        return ConsoleProcess(graph.domain_id, scene_file, port=port, view_url=view_url)
    from miles_ros.ros.console_node import attach_console

    return attach_console(
        graph, scene_file, port=port, metrics_registry=metrics_registry, view_url=view_url
    )
