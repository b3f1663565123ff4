"""The console's server: uvicorn on a daemon thread, on 127.0.0.1 unless told otherwise.

:class:`ConsoleServer` binds its socket itself (port 0: a free port, known at once),
serves :func:`miles_ros.console.app.build_app` on it, prints where to find it (one line
each, flushed: ``console: http://HOST:PORT/?token=TOKEN`` and, when metrics are served,
``metrics: http://HOST:PORT/metrics``) and stops cleanly.
"""

from __future__ import annotations

import secrets
import socket
import sys
import threading
import time

import uvicorn

from miles_ros.console.app import Limits, build_app
from miles_ros.console.port import CellPort

DEFAULT_HOST = "127.0.0.1"
"""The console listens on loopback only unless told otherwise."""
WS_MAX_BYTES = 4096
"""The largest websocket message the server accepts (clients only listen)."""


TOKEN_ENV = "MILES_CONSOLE_TOKEN"
"""The console's token, when the process that starts ``miles console`` chose one (never
on the command line, where any local user's ``ps`` reads it); taken out of the
environment at start."""


def new_token() -> str:
    """A fresh token for goals and resets (printed at start)."""
    return secrets.token_urlsafe(24)


class ConsoleServer:
    """The console over ``port`` on ``host:port_number`` (0: a free port)."""

    def __init__(
        self,
        port: CellPort,
        host: str = DEFAULT_HOST,
        port_number: int = 0,
        token: str | None = None,
        metrics_registry=None,
        view_url: str | None = None,
        limits: Limits | None = None,
    ) -> None:
        self.token = token or new_token()
        self.metrics = metrics_registry is not None
        self.app = build_app(
            port,
            token=self.token,
            metrics_registry=metrics_registry,
            view_url=view_url,
            limits=limits or Limits(),
        )
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self.socket = socket.socket(family, socket.SOCK_STREAM)
        self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.socket.bind((host, port_number))
        self.socket.listen(128)
        self.host = host
        self.port = self.socket.getsockname()[1]
        config = uvicorn.Config(
            self.app,
            log_level="warning",
            access_log=False,
            lifespan="off",
            ws_max_size=WS_MAX_BYTES,
            timeout_graceful_shutdown=2,
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.socket]}, daemon=True,
            name="miles_console",
        )  # fmt: skip

    @property
    def base_url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    @property
    def url(self) -> str:
        """The page, with its token."""
        return f"{self.base_url}/?token={self.token}"

    def start(self, timeout: float = 10.0, out=None) -> ConsoleServer:
        """Serve, wait until uvicorn runs (RuntimeError after ``timeout`` s) and print the
        console's (and the metrics') URL to ``out`` (None: stdout)."""
        self.thread.start()
        deadline = time.monotonic() + timeout
        while not self.server.started:  # uvicorn offers no event to wait on
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the console did not start on {self.base_url}")
            time.sleep(0.01)
        out = out or sys.stdout
        print(f"console: {self.url}", file=out, flush=True)
        if self.metrics:
            print(f"metrics: {self.base_url}/metrics", file=out, flush=True)
        return self

    def stop(self, timeout: float = 5.0) -> None:
        """Stop serving and close the socket."""
        self.server.should_exit = True
        if self.thread.is_alive():
            self.thread.join(timeout)
        self.socket.close()

    def __enter__(self) -> ConsoleServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
