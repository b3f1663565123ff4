"""Where the view goes: a Rerun recording file, the web viewer on localhost, the native
viewer (``miles up --view``, ``--view-web``, ``--record FILE.rrd``).

The web viewer is the one shipped inside the rerun-sdk wheel (HTML, JS and Wasm, served
from this process: no network needed). It reads the live stream from a Rerun gRPC
server that this process also hosts on 127.0.0.1 (it keeps what was logged, so a browser
opened late still gets the static cell). The native viewer is the ``rerun`` executable of
the same wheel, spawned only when a display exists (:func:`has_display`).
"""

from __future__ import annotations

import os
import socket
import sys
from dataclasses import dataclass, field
from urllib.parse import quote

import rerun as rr

from miles_ros.view.options import DEFAULT_GRPC_PORT, DEFAULT_WEB_PORT, HOST

SERVER_MEMORY_LIMIT = "1GiB"
"""What the gRPC server keeps for viewers that connect late (the oldest data goes first;
static data such as the meshes is never dropped)."""
RRD_SUFFIX = ".rrd"
"""``--record`` files with this suffix are Rerun recordings (others: MCAP)."""


def has_display() -> bool:
    """Whether a native window can open: macOS and Windows always, elsewhere an X11 or
    Wayland display in the environment."""
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def free_port(host: str = HOST) -> int:
    """A TCP port free on ``host`` now (the OS's pick)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def port_is_free(port: int, host: str = HOST) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind((host, port))
        except OSError:
            return False
        return True


def grpc_url(port: int, host: str = HOST) -> str:
    """The Rerun gRPC stream at ``host:port``, as viewers address it."""
    return f"rerun+http://{host}:{port}/proxy"


def web_viewer_url(web_port: int, stream: str, host: str = HOST) -> str:
    """The web viewer's page that opens ``stream`` live:
    ``http://127.0.0.1:WEB/?url=rerun%2Bhttp://127.0.0.1:GRPC/proxy`` (the form Rerun
    itself opens; the ``+`` is escaped so the query keeps it)."""
    return f"http://{host}:{web_port}/?url={quote(stream, safe=':/')}"


@dataclass
class ViewOutputs:
    """The sinks for :class:`~miles_ros.view.cell_view.CellView`, what to tell the user,
    and the web viewer's URL (None without one)."""

    sinks: list = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    url: str | None = None
    web_port: int | None = None
    stream: str | None = None


def plan_outputs(
    record: str | None = None,
    view: bool = False,
    web: bool = False,
    web_port: int = DEFAULT_WEB_PORT,
) -> ViewOutputs:
    """Sinks for a recording file (``record``), the native viewer (``view`` with a
    display; without one the web viewer, said in :attr:`ViewOutputs.lines`) and the web
    viewer (``web``) on ``web_port`` (0: a free port). Starts the native viewer; the web
    viewer starts in :func:`start_web_viewer`, once the stream's server exists."""
    out = ViewOutputs()
    if record:
        out.sinks.append(rr.FileSink(record))
        out.lines.append(f"view: recording to {record} (open it with `rerun {record}`)")
    if view and not has_display():
        out.lines.append(
            "view: no display here (DISPLAY and WAYLAND_DISPLAY unset): serving the web "
            "viewer instead; open the URL below in a browser"
        )
        web = True
    elif view:
        port = DEFAULT_GRPC_PORT if port_is_free(DEFAULT_GRPC_PORT) else free_port()
        rr.spawn(port=port, connect=False)
        out.sinks.append(rr.GrpcSink(grpc_url(port)))
        out.lines.append(f"view: native Rerun viewer on {grpc_url(port)}")
    if web:
        port = free_port()
        server = rr.GrpcServerSink(HOST, port, server_memory_limit=SERVER_MEMORY_LIMIT)
        out.sinks.append(server)
        out.stream = server.uri
        out.web_port = web_port if web_port else free_port()
    return out


def start_web_viewer(out: ViewOutputs) -> None:
    """Serve the web viewer for ``out``'s stream (after the recording's sinks are set,
    so the stream's server runs) and add its URL to ``out``; nothing without one."""
    if out.web_port is None or out.stream is None:
        return
    rr.serve_web_viewer(web_port=out.web_port, open_browser=False, connect_to=out.stream)
    out.url = web_viewer_url(out.web_port, out.stream)
    out.lines.append(f"view: {out.url}")
