"""Each public method as an endpoint of the Connect server, forwarding raw bytes upstream.

The request and the response stay the bytes on the wire (`RawCodec`): the edge parses no
message, so it forwards any message of any version of the API, and the service is the one
that validates. Headers the services read go along as gRPC metadata, with the browser's
address appended to `x-forwarded-for` (the account service counts sign-ins by it,
docs/security.md); the client's deadline becomes the upstream deadline.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterable
from typing import Any

import grpc
from connectrpc.code import Code
from connectrpc.errors import ConnectError
from connectrpc.method import IdempotencyLevel, MethodInfo, StreamType
from connectrpc.request import Headers, RequestContext
from connectrpc.server import Endpoint

from .methods import ForwardedMethod
from .upstream_errors import DETAILS_KEY, connect_error
from .upstreams import Upstreams

log = logging.getLogger("domino.edge")

# Request headers a service may read; every other x-* header goes too (not the browser
# protocols' own, and not x-forwarded-for, which the edge writes itself).
FORWARDED_HEADERS = frozenset({"authorization", "accept-language", "traceparent", "tracestate", "x-request-id"})
NOT_FORWARDED = frozenset({"x-grpc-web", "x-user-agent", "x-forwarded-for", "x-forwarded-proto", "x-forwarded-host",
                           "x-real-ip"})
FORWARDED_FOR = "x-forwarded-for"
# Metadata the protocols write themselves: never copied from the service's answer.
RESERVED_RESPONSE = frozenset({"content-type", "content-length", "grpc-status", "grpc-message", DETAILS_KEY,
                               "grpc-encoding", "grpc-accept-encoding", "date", "server"})
STREAM_DEADLINE_SECONDS = 3660.0  # past every token's longest life (1 h): the service ends a stream first


class RawCodec:
    """The `proto` codec that leaves a message as its bytes."""

    def name(self) -> str:
        return "proto"

    def encode(self, message: bytes) -> bytes:
        return bytes(message)

    def decode(self, data: bytes | bytearray, message_class: type) -> bytes:
        return bytes(data)


def endpoints(methods: Iterable[ForwardedMethod], upstreams: Upstreams,
              unary_deadline: float) -> dict[str, Any]:
    """{HTTP path: endpoint} for every forwarded method."""
    found: dict[str, Any] = {}
    for method in methods:
        kind = StreamType.SERVER_STREAM if method.server_streaming else StreamType.UNARY
        info: MethodInfo = MethodInfo(name=method.name, service_name=method.service, input=bytes, output=bytes,
                                      idempotency_level=IdempotencyLevel.UNKNOWN, stream_type=kind)
        if method.server_streaming:
            found[method.path] = Endpoint.server_stream(info, _server_stream(upstreams, method))
        else:
            found[method.path] = Endpoint.unary(info, _unary(upstreams, method, unary_deadline))
    return found


def _unary(upstreams: Upstreams, method: ForwardedMethod, default_deadline: float):
    async def forward(request: bytes, ctx: RequestContext) -> bytes:
        multi: grpc.aio.UnaryUnaryMultiCallable = upstreams.channel(method.service).unary_unary(method.path)
        call = multi(request, metadata=upstream_metadata(ctx), timeout=deadline_of(ctx, default_deadline))
        try:
            response = await call
            _copy(await call.initial_metadata(), ctx.response_headers)
            _copy(await call.trailing_metadata(), ctx.response_trailers)
        except grpc.aio.AioRpcError as e:
            raise _answered(e, ctx) from None
        except Exception:
            log.exception("forwarding failed", extra={"method": method.path})
            raise ConnectError(Code.INTERNAL, "the edge could not forward the call") from None
        return response
    return forward


def _server_stream(upstreams: Upstreams, method: ForwardedMethod):
    async def forward(request: bytes, ctx: RequestContext) -> AsyncIterator[bytes]:
        multi: grpc.aio.UnaryStreamMultiCallable = upstreams.channel(method.service).unary_stream(method.path)
        call = multi(request, metadata=upstream_metadata(ctx), timeout=deadline_of(ctx, STREAM_DEADLINE_SECONDS))
        try:
            first = True
            async for message in call:
                if first:
                    _copy(await call.initial_metadata(), ctx.response_headers)
                    first = False
                yield message
            _copy(await call.trailing_metadata(), ctx.response_trailers)
        except grpc.aio.AioRpcError as e:
            raise _answered(e, ctx) from None
        finally:
            call.cancel()  # nothing once it ended; else the browser went away: so does the upstream call
    return forward


def upstream_metadata(ctx: RequestContext) -> list[tuple[str, str]]:
    metadata = []
    forwarded_for = []
    for key, value in ctx.request_headers.allitems():
        key = key.lower()
        if key == FORWARDED_FOR:
            forwarded_for.append(value)
        elif (key in FORWARDED_HEADERS or (key.startswith("x-") and key not in NOT_FORWARDED)) \
                and not key.endswith("-bin") and _sendable(value):
            metadata.append((key, value))
    peer = _host_of(ctx.client_address)
    if peer:
        forwarded_for.append(peer)
    if forwarded_for:
        metadata.append((FORWARDED_FOR, ", ".join(v for v in forwarded_for if _sendable(v))))
    return metadata


def deadline_of(ctx: RequestContext, default: float) -> float:
    """The client's deadline (grpc-timeout, connect-timeout-ms), else ``default``; never more."""
    if ctx.timeout_ms is None:
        return default
    return min(max(ctx.timeout_ms / 1000.0, 0.001), default)


def _answered(error: grpc.aio.AioRpcError, ctx: RequestContext) -> ConnectError:
    _copy(error.initial_metadata(), ctx.response_headers)
    _copy(error.trailing_metadata(), ctx.response_trailers)
    return connect_error(error)


def _copy(metadata, into: Headers) -> None:
    for key, value in metadata or ():
        if key not in RESERVED_RESPONSE and isinstance(value, str) and not key.startswith("grpc-"):
            into.add(key, value)


def _host_of(client_address: str | None) -> str:
    """`1.2.3.4:5` -> `1.2.3.4`; `::1:5` -> `::1` (ASGI gives a v6 host without brackets)."""
    if not client_address:
        return ""
    return client_address.rsplit(":", 1)[0]


def _sendable(value: str) -> bool:
    return value.isascii() and value.isprintable()
