"""The edge as one ASGI application: the forwarded RPCs, the head keys, health and the page.

    request ─► routes ─┬─ [/web]/<service>/<method> ─► CORS ─► origin guard ─► request wait
                       │                            ─► gRPC-Web text ─► Connect server ─► upstream
                       ├─ /.well-known/domino/head-keys.json
                       ├─ /healthz
                       └─ anything else: the static files (the test page), if any
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from connectrpc.server import ConnectASGIApplication
from starlette.middleware.cors import CORSMiddleware
from starlette.responses import PlainTextResponse, Response
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send

from .admission import PROTOCOL, Admission, protocol_of
from .forwarding import RawCodec
from .grpc_web_text import GrpcWebText
from .head_keys import PATH as HEAD_KEYS_PATH
from .head_keys import HeadKeysSource, HeadKeysUnavailable
from .request_wait import RequestWait

MAX_REQUEST_BYTES = 64 * 1024  # as the gRPC servers (services/common/grpc_server.py): our requests are small
HEALTH_PATH = "/healthz"
BROWSER_PREFIX = "/web"  # everything is served under it too: a client's base URL may be https://HOST/web
# What browsers may send and read (connect-web, grpc-web and Google's grpc-web client).
ALLOWED_HEADERS = ("authorization", "content-type", "x-grpc-web", "x-user-agent", "grpc-timeout",
                   "connect-protocol-version", "connect-timeout-ms", "connect-content-encoding",
                   "connect-accept-encoding", "grpc-accept-encoding", "grpc-encoding", "x-request-id",
                   "accept-language", "traceparent")
EXPOSED_HEADERS = ("grpc-status", "grpc-message", "grpc-status-details-bin", "grpc-encoding",
                   "connect-content-encoding")
PREFLIGHT_MAX_AGE = 7200  # Chromium caps it at 2 h


@dataclass
class Health:
    """Serving until the process starts stopping: the load balancer then sends no new calls."""
    stopping: bool = False


@dataclass
class EdgeParts:
    endpoints: Mapping[str, Any]  # connectrpc's endpoints, by HTTP path
    admission: Admission
    origins: frozenset[str]
    head_keys: HeadKeysSource
    request_wait_seconds: float
    static_dir: Path | None = None
    health: Health = field(default_factory=Health)


class ForwardingServer(ConnectASGIApplication):
    """connectrpc's server (gRPC-Web and Connect framing, deadlines, errors), over our endpoints."""

    path = "/"

    def __init__(self, endpoints: Mapping[str, Any], admission: Admission) -> None:
        super().__init__(service=None, endpoints=lambda _service: endpoints, interceptors=[admission],
                         codecs=[RawCodec()], read_max_bytes=MAX_REQUEST_BYTES)


class OriginGuard:
    """A call from a page of an origin not allowed is refused, not forwarded: a browser would
    not let the page read the answer, but the call would still have acted."""

    def __init__(self, app: ASGIApp, origins: frozenset[str]) -> None:
        self.app, self.origins = app, origins

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        origin = _header(scope, b"origin")
        if origin is not None and origin not in self.origins and "*" not in self.origins \
                and scope["method"] != "OPTIONS":
            await PlainTextResponse("origin not allowed", status_code=403)(scope, receive, send)
            return
        await self.app(scope, receive, send)


def build(parts: EdgeParts) -> ASGIApp:
    rpc: ASGIApp = ForwardingServer(parts.endpoints, parts.admission)
    rpc = RequestWait(GrpcWebText(rpc), parts.request_wait_seconds)
    rpc = CORSMiddleware(OriginGuard(rpc, parts.origins), allow_origins=sorted(parts.origins),
                         allow_methods=("POST", "GET"), allow_headers=ALLOWED_HEADERS,
                         expose_headers=EXPOSED_HEADERS, max_age=PREFLIGHT_MAX_AGE)
    static = StaticFiles(directory=parts.static_dir, html=True) if parts.static_dir else None
    rpc_paths = frozenset(parts.endpoints)

    async def route(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        path = scope["path"]
        if path.startswith(BROWSER_PREFIX + "/"):  # the public host's browser path (deploy/k8s public-edge)
            path = path[len(BROWSER_PREFIX):]
            scope = {**scope, "path": path, "raw_path": path.encode()}
        if path in rpc_paths:
            PROTOCOL.set(protocol_of((_header(scope, b"content-type") or "").lower()))
            await rpc(scope, receive, send)
        elif path == HEAD_KEYS_PATH and scope["method"] in ("GET", "HEAD"):
            await (await _head_keys(parts.head_keys))(scope, receive, send)
        elif path == HEALTH_PATH:
            status = 503 if parts.health.stopping else 200
            await PlainTextResponse("stopping" if status == 503 else "serving", status)(scope, receive, send)
        elif static is not None and scope["method"] in ("GET", "HEAD"):
            await static(scope, receive, send)
        else:
            await PlainTextResponse("not found", 404)(scope, receive, send)
    return route


async def _head_keys(source: HeadKeysSource) -> Response:
    try:
        document = await source()
    except HeadKeysUnavailable:
        return PlainTextResponse("the head keys cannot be had now; try again shortly", 503,
                                 headers={"retry-after": "5", "access-control-allow-origin": "*"})
    return Response(document, media_type="application/json",
                    headers={"access-control-allow-origin": "*", "cache-control": "public, max-age=300"})


async def _lifespan(receive: Receive, send: Send) -> None:
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope["headers"]:
        if key.lower() == name:
            return value.decode("latin-1")
    return None


def default_origins(address: str) -> frozenset[str]:
    """The edge's own origin (the page it serves) and the same port as localhost."""
    host, _, port = address.rpartition(":")
    return frozenset({f"http://{host}:{port}", f"http://localhost:{port}"})


def origins_of(setting: str, address: str) -> frozenset[str]:
    listed = frozenset(o.strip().rstrip("/") for o in setting.split(",") if o.strip())
    return listed or default_origins(address)
