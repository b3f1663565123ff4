"""The operator console's web app (Starlette): the page, its HTTP API and a websocket.

Routes (every refusal is JSON ``{"error": reason}`` with its status code):

- ``GET /``: the page (``static/index.html``); ``/static/...``: its script and style.
- ``GET /api/info``, ``/api/state``, ``/api/cards``: the console's settings, the cell's
  snapshot (:meth:`~miles_ros.console.port.CellPort.snapshot`), the skill cards.
- ``POST /api/goal`` ``{"goal": TEXT}`` (token): the goal to the manager, 202.
- ``POST /api/estop`` (no token, no rate limit, no body read): every arm's e-stop, 200
  when every supervisor answered that it is latched.
- ``POST /api/reset`` (token): every arm's reset, 200, or 409 with the supervisor's
  reason when it refuses.
- ``WS /ws?token=TOKEN``: the snapshot, then each newer one.
- ``GET /metrics``: Prometheus text, when a registry is given (no token).

Security: the token (``Authorization: Bearer TOKEN``; the websocket's ``token`` query
parameter, since a browser cannot set its headers) is compared with
:func:`hmac.compare_digest`: none is 401, a wrong one 403. A request whose ``Host`` or
``Origin`` is not the console's own address is refused 403 (a foreign page, DNS
rebinding). Bodies are bounded before they are read (413), goals in length and to
printable text, and every route but the e-stop passes a token bucket per client and one
for all clients (429 with ``Retry-After``). The e-stop does the least work possible: it
checks nothing, reads nothing and calls the port at once from the event loop (the
port's :meth:`~miles_ros.console.port.CellPort.estop` never blocks), so a flood of
other requests, refused by the bucket before any work, cannot hold it up.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import math
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import anyio
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from miles_ros.console.port import CellPort

STATIC = Path(__file__).resolve().parent / "static"
"""The page's files (package data)."""
ESTOP_PATH = "/api/estop"
"""The one route without a token or a rate limit."""


@dataclass(frozen=True)
class Limits:
    """The console's bounds on what clients send."""

    goal_chars: int = 500
    """The longest goal (characters)."""
    body_bytes: int = 4096
    """The largest request body (bytes), checked before it is read."""
    client_rate: float = 5.0
    """Requests per second one client (address) may make, on average..."""
    client_burst: int = 40
    """...and at once (opening the page takes about ten)."""
    total_rate: float = 50.0
    """Requests per second of all clients together..."""
    total_burst: int = 200
    """...and at once."""
    websockets: int = 8
    """Websockets open at once."""
    estop_timeout_s: float = 2.0
    """How long /api/estop waits for the supervisors' answers."""
    reset_timeout_s: float = 5.0
    """How long /api/reset waits for the supervisors' answers."""
    ws_wait_s: float = 1.0
    """How long one wait of a websocket for a newer snapshot lasts (s)."""


class TokenBucket:
    """``rate`` tokens a second up to ``burst``; :meth:`take` spends one."""

    def __init__(self, rate: float, burst: int, clock: Callable[[], float]) -> None:
        self.rate, self.burst, self.clock = rate, burst, clock
        self.tokens, self.stamp = float(burst), clock()

    def take(self) -> float:
        """0 when a token was spent, else the seconds until one is there."""
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return 0.0
        return (1.0 - self.tokens) / self.rate if self.rate > 0 else math.inf


class RateLimit:
    """One bucket per client address and one for all; thread-safe."""

    MAX_CLIENTS = 1024
    """Client buckets kept; past it the full ones (idle clients) are dropped."""

    def __init__(self, limits: Limits, clock: Callable[[], float]) -> None:
        self.limits, self.clock = limits, clock
        self.total = TokenBucket(limits.total_rate, limits.total_burst, clock)
        self.clients: dict[str, TokenBucket] = {}
        self.lock = threading.Lock()

    def take(self, client: str) -> float:
        """0 when the request may go on, else the seconds to wait (Retry-After)."""
        with self.lock:
            bucket = self.clients.get(client)
            if bucket is None:
                if len(self.clients) >= self.MAX_CLIENTS:
                    self.clients = {
                        k: b for k, b in self.clients.items() if b.tokens < b.burst - 1
                    }
                bucket = TokenBucket(self.limits.client_rate, self.limits.client_burst, self.clock)
                self.clients[client] = bucket
            wait = bucket.take()
            return wait or self.total.take()


def refusal(status: int, reason: str, headers: dict | None = None) -> JSONResponse:
    """A refusal: ``{"error": reason}`` with its status."""
    return JSONResponse({"error": reason}, status_code=status, headers=headers)


def too_many(wait: float) -> JSONResponse:
    retry = str(max(1, math.ceil(wait))) if math.isfinite(wait) else "60"
    return refusal(429, "too many requests: rate limit", {"Retry-After": retry})


class RateLimitMiddleware:
    """Refuses an HTTP request over the rate limit with 429 before any other work; the
    e-stop passes untouched (the websocket route applies the limit itself)."""

    def __init__(self, app, limiter: RateLimit) -> None:
        self.app, self.limiter = app, limiter

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http" and scope["path"] != ESTOP_PATH:
            wait = self.limiter.take(client_of(scope))
            if wait:
                await too_many(wait)(scope, receive, send)
                return
        await self.app(scope, receive, send)


def client_of(scope) -> str:
    client = scope.get("client")
    return str(client[0]) if client else "?"


LOOPBACK = ("127.0.0.1", "localhost", "::1", "[::1]")


def own_hosts(scope) -> set[str]:
    """``host:port`` (and ``host`` on port 80) under which this server was reached: the
    address it listens on (its loopback names when that is loopback)."""
    host, port = scope.get("server") or ("127.0.0.1", 80)
    names = {str(host)}
    if host in LOOPBACK:
        names |= {"127.0.0.1", "localhost", "[::1]"}
    names = {f"[{n}]" if ":" in n and not n.startswith("[") else n for n in names}
    out = {f"{n}:{port}" for n in names}
    if port == 80:
        out |= names
    return out


def foreign(headers, scope, extra_origins: frozenset[str], require_origin: bool) -> str:
    """Why the request's Host or Origin is not this console's ('' when they are)."""
    hosts = own_hosts(scope)
    host = headers.get("host", "")
    if host not in hosts:
        return f"Host {host[:80]!r} is not this console"
    origin = headers.get("origin")
    if origin is None:
        return "no Origin header" if require_origin else ""
    if origin in extra_origins or origin.removeprefix("http://") in hosts:
        return ""
    return f"Origin {origin[:80]!r} is not this console"


def token_refusal(given: str | None, token: str) -> str:
    """'' when ``given`` is the token, else why not (a bearer token is wanted)."""
    if not given:
        return "missing token"
    if not hmac.compare_digest(given.encode(), token.encode()):
        return "wrong token"
    return ""


def bearer(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, value = header.partition(" ")
    return value.strip() if scheme.lower() == "bearer" and value.strip() else None


async def bounded_body(request: Request, limit: int) -> bytes | JSONResponse:
    """The body, or a 413 as soon as it is known to exceed ``limit`` bytes."""
    length = request.headers.get("content-length")
    if length is not None:
        if not length.isdigit():
            return refusal(400, "malformed Content-Length")
        if int(length) > limit:
            return refusal(413, f"body too large: {length} bytes, at most {limit}")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            return refusal(413, f"body too large: more than {limit} bytes")
    return bytes(body)


def parse_goal(body: bytes, limits: Limits) -> str | JSONResponse:
    """The goal of a ``{"goal": TEXT}`` body, or its refusal."""
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return refusal(400, 'malformed JSON: send {"goal": TEXT}')
    if not isinstance(data, dict) or set(data) != {"goal"}:
        return refusal(400, 'wrong fields: send exactly {"goal": TEXT}')
    goal = data["goal"]
    if not isinstance(goal, str):
        return refusal(400, "goal must be a string")
    goal = goal.strip()
    if not goal:
        return refusal(400, "empty goal")
    if len(goal) > limits.goal_chars:
        return refusal(413, f"goal too long: {len(goal)} characters, at most {limits.goal_chars}")
    if not goal.isprintable():
        return refusal(400, "goal must be printable text on one line")
    return goal


def build_app(
    port: CellPort,
    *,
    token: str,
    metrics_registry=None,
    view_url: str | None = None,
    limits: Limits = Limits(),
    origins: tuple[str, ...] = (),
    clock: Callable[[], float] = time.monotonic,
) -> Starlette:
    """The console's app over ``port``. ``token``: what goals, resets and the websocket
    need; ``metrics_registry``: a prometheus_client registry served on /metrics;
    ``view_url``: the 3D view the page embeds; ``origins``: more origins the websocket
    and the POSTs accept (a proxy's); ``clock``: the rate limit's (tests)."""
    if not token:
        raise ValueError("the console needs a token")
    limiter = RateLimit(limits, clock)
    extra_origins = frozenset(origins)
    sockets = anyio.CapacityLimiter(limits.websockets)
    waits = anyio.CapacityLimiter(limits.websockets)  # the threads the websockets wait on
    resets = anyio.CapacityLimiter(1)
    cards_cache: list = []

    def local(request: Request) -> JSONResponse | None:
        """403 for a request from a foreign page (its Origin) or name (its Host)."""
        why = foreign(request.headers, request.scope, extra_origins, require_origin=False)
        return refusal(403, why) if why else None

    def guard(request: Request) -> JSONResponse | None:
        """:func:`local`, then the token."""
        refused = local(request)
        if refused is not None:
            return refused
        why = token_refusal(bearer(request), token)
        if why:
            status = 401 if why == "missing token" else 403
            return refusal(status, why, {"WWW-Authenticate": "Bearer"})
        return None

    async def index(request: Request) -> Response:
        if (refused := local(request)) is not None:
            return refused
        frame = "'none'"
        if view_url:
            frame = view_url.split("?", 1)[0]
        headers = {
            # the token is in the page's address: never send it on as a Referer
            "Referrer-Policy": "no-referrer",
            "Content-Security-Policy": (
                "default-src 'self'; connect-src 'self'; img-src 'self' data:; "
                f"frame-src {frame}; frame-ancestors 'none'; base-uri 'none'"
            ),
            "Cache-Control": "no-store",
        }
        return FileResponse(STATIC / "index.html", headers=headers)

    async def info(request: Request) -> Response:
        if (refused := local(request)) is not None:
            return refused
        return JSONResponse(
            {
                "view_url": view_url,
                "metrics": metrics_registry is not None,
                "limits": {"goal_chars": limits.goal_chars},
            }
        )

    async def state(request: Request) -> Response:
        if (refused := local(request)) is not None:
            return refused
        return JSONResponse(port.snapshot())

    async def cards(request: Request) -> Response:
        if (refused := local(request)) is not None:
            return refused
        if not cards_cache:
            cards_cache.append(await anyio.to_thread.run_sync(port.cards))
        return JSONResponse(cards_cache[0])

    async def goal(request: Request) -> Response:
        refused = guard(request)
        if refused is not None:
            return refused
        body = await bounded_body(request, limits.body_bytes)
        if isinstance(body, Response):
            return body
        text = parse_goal(body, limits)
        if isinstance(text, Response):
            return text
        answer = port.send_goal(text)
        return JSONResponse({**answer, "goal": text}, 202 if answer.get("sent") else 503)

    async def estop(request: Request) -> Response:
        received = time.perf_counter()
        future = port.estop()
        try:
            answer = await asyncio.wait_for(asyncio.wrap_future(future), limits.estop_timeout_s)
        except TimeoutError:
            answer = {
                "latched": False,
                "message": f"no answer from every supervisor within {limits.estop_timeout_s} s",
            }
        answer = {**answer, "server_ms": round((time.perf_counter() - received) * 1e3, 3)}
        return JSONResponse(answer, 200 if answer.get("latched") else 503)

    async def reset(request: Request) -> Response:
        refused = guard(request)
        if refused is not None:
            return refused
        answer = await anyio.to_thread.run_sync(port.reset, limits.reset_timeout_s, limiter=resets)
        if answer.get("success"):
            return JSONResponse(answer)
        status = 409 if answer.get("answered", True) else 504
        return JSONResponse({**answer, "error": answer.get("message", "")}, status)

    async def metrics(request: Request) -> Response:
        from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

        data = await anyio.to_thread.run_sync(generate_latest, metrics_registry)
        return Response(data, headers={"Content-Type": CONTENT_TYPE_LATEST})

    async def ws(websocket: WebSocket) -> None:
        why = foreign(websocket.headers, websocket.scope, extra_origins, require_origin=True)
        status = 403
        if not why:
            why = token_refusal(websocket.query_params.get("token"), token)
            status = 401 if why == "missing token" else 403
        wait = 0.0 if why else limiter.take(client_of(websocket.scope))
        if wait:
            why, status = "too many requests: rate limit", 429
        if not why and sockets.borrowed_tokens >= sockets.total_tokens:
            why, status = f"too many websockets (at most {limits.websockets})", 429
        if why:
            await websocket.send_denial_response(refusal(status, why))
            return
        async with sockets:
            await websocket.accept()
            async with anyio.create_task_group() as group:

                async def push() -> None:
                    snapshot = port.snapshot()
                    while True:
                        await websocket.send_json(snapshot)
                        version = snapshot["version"]
                        snapshot = None
                        while snapshot is None:
                            snapshot = await anyio.to_thread.run_sync(
                                port.wait_newer, version, limits.ws_wait_s, limiter=waits
                            )

                async def drain() -> None:  # the client says nothing; see it leave
                    try:
                        while True:
                            await websocket.receive_text()
                    except (WebSocketDisconnect, KeyError, RuntimeError):
                        pass
                    group.cancel_scope.cancel()

                group.start_soon(drain)
                try:
                    await push()
                except (WebSocketDisconnect, RuntimeError):
                    group.cancel_scope.cancel()

    async def http_error(request: Request, exc: HTTPException) -> Response:
        return refusal(exc.status_code, str(exc.detail), getattr(exc, "headers", None))

    routes = [
        Route("/", index),
        Route("/api/info", info),
        Route("/api/state", state),
        Route("/api/cards", cards),
        Route("/api/goal", goal, methods=["POST"]),
        Route(ESTOP_PATH, estop, methods=["POST"]),
        Route("/api/reset", reset, methods=["POST"]),
        WebSocketRoute("/ws", ws),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    if metrics_registry is not None:
        routes.append(Route("/metrics", metrics))
    app = Starlette(
        routes=routes,
        middleware=[Middleware(RateLimitMiddleware, limiter=limiter)],
        exception_handlers={HTTPException: http_error},
    )
    app.state.limits = asdict(limits)
    return app
