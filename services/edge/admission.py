"""Who may open a call through the edge, counted before its request is read.

One process holds only so many calls (each an upstream call and its buffers), and one
client only so many of them, so a browser tab that opens streams in a loop, or a script,
fills its own share and never the edge. The client is the address the trusted hops
forwarded (`DOMINO_TRUSTED_PROXIES`, services/common/client_address.py), as for the
account service's sign-in limits: behind the gateway every TCP peer is the gateway.
"""

from __future__ import annotations

import contextvars
import time
from collections import Counter
from dataclasses import dataclass
from typing import Sequence

from connectrpc.code import Code
from connectrpc.errors import ConnectError
from connectrpc.method import StreamType
from connectrpc.request import RequestContext

from services.common.client_address import Network, client_key

from .metrics import EdgeMetrics

# Set by the outermost middleware from the request as the browser sent it (grpc-web-text is
# turned into binary before the Connect server sees it).
PROTOCOL: contextvars.ContextVar[str] = contextvars.ContextVar("edge_protocol", default="connect")


def protocol_of(content_type: str) -> str:
    if content_type.startswith("application/grpc-web-text"):
        return "grpc-web-text"
    if content_type.startswith("application/grpc-web"):
        return "grpc-web"
    return "connect"


@dataclass
class Admitted:
    client: str
    protocol: str
    started: float
    stream: bool


class Admission:
    """A Connect metadata interceptor: bounds, then metrics of every call it let in."""

    def __init__(self, per_process: int, per_client: int, trusted: Sequence[Network], metrics: EdgeMetrics) -> None:
        self.per_process, self.per_client = per_process, per_client
        self.trusted = tuple(trusted)
        self.metrics = metrics
        self.open = 0
        self.by_client: Counter[str] = Counter()

    async def on_start(self, ctx: RequestContext) -> Admitted:
        client = self.client_of(ctx)
        protocol = PROTOCOL.get()
        if self.open >= self.per_process:
            self._refuse(ctx, protocol, "edge", "the edge is serving as many calls as it can; try again shortly")
        if self.by_client[client] >= self.per_client:
            self._refuse(ctx, protocol, "client", f"this client has {self.per_client} calls open through the edge, "
                                                  "the most it may; close some first")
        self.open += 1
        self.by_client[client] += 1
        self.metrics.open_calls.inc()
        stream = ctx.method.stream_type is StreamType.SERVER_STREAM
        if stream:
            self.metrics.open_streams.inc()
        return Admitted(client, protocol, time.perf_counter(), stream)

    async def on_end(self, token: Admitted, ctx: RequestContext, error: Exception | None) -> None:
        self.open -= 1
        self.by_client[token.client] -= 1
        if self.by_client[token.client] <= 0:
            del self.by_client[token.client]
        self.metrics.open_calls.dec()
        if token.stream:
            self.metrics.open_streams.dec()
        self.metrics.observe(_method(ctx), token.protocol, _code(error), time.perf_counter() - token.started)

    def client_of(self, ctx: RequestContext) -> str:
        host, _, port = (ctx.client_address or "").rpartition(":")
        peer = f"ipv6:[{host}]:{port}" if ":" in host else f"ipv4:{host}:{port}"
        return client_key(peer, ctx.request_headers.allitems(), self.trusted)

    def _refuse(self, ctx: RequestContext, protocol: str, reason: str, message: str) -> None:
        self.metrics.refused.labels(reason).inc()
        self.metrics.observe(_method(ctx), protocol, "RESOURCE_EXHAUSTED", 0.0)
        raise ConnectError(Code.RESOURCE_EXHAUSTED, message)


def _method(ctx: RequestContext) -> str:
    return f"{ctx.method.service_name}/{ctx.method.name}"


def _code(error: Exception | None) -> str:
    if error is None:
        return "OK"
    if isinstance(error, ConnectError):
        return "CANCELLED" if error.code is Code.CANCELED else error.code.name
    return "UNKNOWN"
