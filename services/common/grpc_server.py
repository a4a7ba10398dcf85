"""The gRPC server every service runs: its API plus health checking, reflection and RPC
metrics, marked serving and drained the same way, so operators meet one behaviour.

Its connections follow one policy (services/common/config.py, `DOMINO_GRPC_*`): the server
pings every connection each minute, lets clients ping every 30 s at most (with or without
calls: phones keep their connection alive through NATs and carrier proxies), and asks a
connection older than 30 minutes to go away, so clients behind a connection-level balancer
(kube-proxy) spread over the replicas added since. Reflection can be turned off
(production), and TLS on for a server that clients reach directly.

What a client may hold open is bounded three ways, so that calls opened and never sent
(HTTP/2 HEADERS without DATA, no token needed) cannot grow the process without bound: a
connection may have 100 calls open (advertised in SETTINGS; more are refused with
RST_STREAM), the process serves 2500 calls at once (the 2000 streams of
services/common/limits.py and room for unary calls; more get RESOURCE_EXHAUSTED), and a call
whose request message does not come within 10 s is ended (RequestWaitInterceptor).
bench/h2_flood.py measures what they save (docs/operations.md, "Capacity")."""

from __future__ import annotations

import asyncio
import inspect
import logging
from pathlib import Path
from typing import Any, Callable, Sequence

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from .changes import ChangeFeed
from . import free_memory
from .config import Settings
from .grpc_metrics import MetricsInterceptor, RpcMetrics
from .grpc_status import abort
from .grpc_wrapping import WrappingInterceptor
from .logs import Warnings

log = logging.getLogger("domino.grpc")
MAX_REQUEST_BYTES = 64 * 1024  # our largest request is a few hundred bytes: anything bigger is refused


def _ms(seconds: float) -> int:
    return max(1, round(seconds * 1000))


def server_options(settings: Settings) -> list[tuple[str, int]]:
    """The server's channel arguments: request size, keepalive, ping policy, connection age,
    streams per connection, handshake time."""
    return [
        ("grpc.max_receive_message_length", MAX_REQUEST_BYTES),
        # The server's own pings: find connections whose client is gone (a phone that lost
        # its network leaves no FIN), with or without calls open.
        ("grpc.keepalive_time_ms", _ms(settings.grpc_keepalive_seconds)),
        ("grpc.keepalive_timeout_ms", _ms(settings.grpc_keepalive_timeout_seconds)),
        ("grpc.keepalive_permit_without_calls", 1),
        ("grpc.http2.max_pings_without_data", 0),  # keep pinging a quiet stream (a watch with no news)
        # The clients' pings: accepted every grpc_min_ping_interval_seconds, also on a
        # connection with no call (permit_without_calls above); more often is a strike, and
        # after two strikes the server sends GOAWAY ENHANCE_YOUR_CALM ("too_many_pings").
        ("grpc.http2.min_ping_interval_without_data_ms", _ms(settings.grpc_min_ping_interval_seconds)),
        ("grpc.http2.max_ping_strikes", 2),
        # Old connections go away (gRPC adds +-10% jitter), their open calls get the grace.
        ("grpc.max_connection_age_ms", _ms(settings.grpc_max_connection_age_seconds)),
        ("grpc.max_connection_age_grace_ms", _ms(settings.grpc_max_connection_age_grace_seconds)),
        # A connection that has not finished its handshake (TLS, the HTTP/2 preface) in time goes.
        ("grpc.server_handshake_timeout_ms", _ms(settings.grpc_handshake_timeout_seconds)),
        # Streams a connection may have open, told to the client in SETTINGS: beyond it, HEADERS
        # get RST_STREAM REFUSED_STREAM (ENHANCE_YOUR_CALM from a client that never acknowledged
        # the SETTINGS) and cost the server nothing. grpc clients queue their calls instead.
        *([("grpc.max_concurrent_streams", settings.grpc_max_concurrent_streams)]
          if settings.grpc_max_concurrent_streams else []),
    ]


def server_interceptors(settings: Settings, metrics: RpcMetrics | None) -> list[grpc.aio.ServerInterceptor]:
    """The request wait first (outermost: it reads the request before anything else runs),
    then the RPC metrics."""
    interceptors: list[grpc.aio.ServerInterceptor] = []
    if settings.grpc_request_wait_seconds:
        interceptors.append(RequestWaitInterceptor(settings.grpc_request_wait_seconds))
    if metrics:
        interceptors.append(MetricsInterceptor(metrics))
    return interceptors


class RequestWaitInterceptor(WrappingInterceptor):
    """Ends a call whose request message does not arrive in time.

    Every RPC of ours takes one request message. A client may open a call (an HTTP/2 HEADERS
    frame) and never send it: grpc then holds the call, its HTTP/2 stream and one of the
    process's call places (`maximum_concurrent_rpcs`) until the connection ends, which a client
    answering pings can put off for the connection's age and its grace (hours). Thousands of
    such half-open calls held a match service's memory past its pod's limit.

    grpc's aio server runs an interceptor before it reads the message, but runs a unary
    handler only after: so this interceptor hands grpc the same handler as one that reads its
    request stream, reads the one message itself within ``seconds``, and calls the original
    handler with it. A call without its message by then is answered DEADLINE_EXCEEDED and
    freed. Clients do not see the difference: the wire protocol of a unary request is a request
    stream with one message. Handlers that already read a stream, and synchronous ones, are
    left as they are.

    The calls reading their message are timed by one sweeper for all of them, not a timer
    each: every call pays a dict entry (about 0.3 µs) instead of an ``asyncio.timeout`` (about
    3.5 µs, and a cancelled timer left in the loop's heap), and the sweeper, awake every quarter
    of ``seconds`` while any call is reading, ends a call between ``seconds`` and 1.25 times it."""

    domain = "domino"  # requests come before any service reads them: no API of its own

    def __init__(self, seconds: float, warnings: Warnings | None = None) -> None:
        super().__init__()
        self.seconds = seconds
        self.warnings = warnings or Warnings(log)
        self._reading: dict[asyncio.Task, float] = {}  # calls reading their request -> when they began (loop time)
        self._expired: set[asyncio.Task] = set()  # calls the sweeper cancelled for want of their request
        self._sweeper: asyncio.Task | None = None

    def wraps(self, handler, method: str) -> bool:
        return not handler.request_streaming

    async def _request(self, context, method: str) -> Any:
        """The call's one request message, or the call ends (DEADLINE_EXCEEDED, or
        INVALID_ARGUMENT when the client closed its side without sending one)."""
        task = asyncio.current_task()
        assert task is not None
        self._reading[task] = task.get_loop().time()
        if self._sweeper is None:
            self._sweeper = asyncio.create_task(self._sweep())
        expired = False
        try:
            request = await context.read()
        except asyncio.CancelledError:
            if task not in self._expired:
                raise  # the call was cancelled (the client went away, the server stops)
            task.uncancel()
            expired = True
        finally:
            self._reading.pop(task, None)
            self._expired.discard(task)
        if expired:
            self.warnings.warn("request-wait", "calls ended: no request message in time",
                               method=method, seconds=self.seconds)
            await abort(context, grpc.StatusCode.DEADLINE_EXCEEDED,
                        f"no request message within {self.seconds:g} s of the call's start", "DEADLINE_EXCEEDED",
                        self.domain)
        if request is grpc.aio.EOF:
            await abort(context, grpc.StatusCode.INVALID_ARGUMENT, "the call carried no request message",
                        "INVALID_REQUEST", self.domain)
        return request

    async def _sweep(self) -> None:
        """Cancels each call still reading its request ``seconds`` after it began; ends when
        no call is reading (the next call starts it again)."""
        try:
            while self._reading:
                await asyncio.sleep(self.seconds / 4)
                due = asyncio.get_running_loop().time() - self.seconds
                for task, began in list(self._reading.items()):
                    if began <= due:
                        del self._reading[task]
                        self._expired.add(task)
                        task.cancel()
        finally:
            self._sweeper = None

    def _wrap(self, handler, method: str):
        read = self._request
        if handler.unary_unary is not None:
            inner = handler.unary_unary
            if not inspect.iscoroutinefunction(inner):
                return handler

            async def unary(requests, context):
                return await inner(await read(context, method), context)

            return grpc.stream_unary_rpc_method_handler(unary, handler.request_deserializer,
                                                        handler.response_serializer)
        stream: Callable = handler.unary_stream
        if inspect.isasyncgenfunction(stream):
            async def generator(requests, context):
                async for reply in stream(await read(context, method), context):
                    yield reply

            return grpc.stream_stream_rpc_method_handler(generator, handler.request_deserializer,
                                                         handler.response_serializer)
        if inspect.iscoroutinefunction(stream):  # writes its replies itself (grpc_health's Watch)
            async def writer(requests, context):
                await stream(await read(context, method), context)

            return grpc.stream_stream_rpc_method_handler(writer, handler.request_deserializer,
                                                         handler.response_serializer)
        return handler


def server_credentials(settings: Settings) -> grpc.ServerCredentials | None:
    """TLS credentials from DOMINO_TLS_CERT_FILE / DOMINO_TLS_KEY_FILE, or None (plaintext)."""
    if not settings.tls_cert_file:
        return None
    chain = Path(settings.tls_cert_file).read_bytes()
    key = Path(settings.tls_key_file).read_bytes()
    return grpc.ssl_server_credentials([(key, chain)])


def new_server(address: str, service_name: str, add_servicer: Callable[[grpc.aio.Server], None],
               metrics: RpcMetrics | None = None, settings: Settings | None = None,
               interceptors: Sequence[grpc.aio.ServerInterceptor] = (),
               also_serves: Sequence[str] = ()) -> tuple[grpc.aio.Server, int]:
    """(server, port) with the service, health and (unless turned off) reflection; bind
    port 0 to let the OS choose (tests). Health says NOT_SERVING until ``mark_serving``.
    ``settings``: the connection policy, reflection and TLS (default: the defaults, not the
    environment). ``interceptors``: the service's own (authentication), inside the common
    ones, so the metrics count what they refuse. ``also_serves``: the full names of other
    services ``add_servicer`` adds (the staff's), for reflection to list them too."""
    settings = settings if settings is not None else Settings.model_construct()
    server = grpc.aio.server(interceptors=[*server_interceptors(settings, metrics), *interceptors],
                             options=server_options(settings),
                             maximum_concurrent_rpcs=settings.grpc_max_concurrent_calls or None)
    add_servicer(server)
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    if settings.grpc_reflection:
        reflection.enable_server_reflection((service_name, *also_serves, health.SERVICE_NAME, reflection.SERVICE_NAME),
                                            server)
    credentials = server_credentials(settings)
    port = server.add_insecure_port(address) if credentials is None else server.add_secure_port(address, credentials)
    server.health = health_servicer  # type: ignore[attr-defined]
    server.service_name = service_name  # type: ignore[attr-defined]
    server.memory_release_seconds = settings.memory_release_seconds  # type: ignore[attr-defined]
    return server, port


async def mark_serving(server: grpc.aio.Server) -> None:
    """Health SERVING; and from now until the server stops, freed memory goes back to the
    system every DOMINO_MEMORY_RELEASE_SECONDS (services/common/free_memory.py)."""
    for name in (server.service_name, ""):  # type: ignore[attr-defined]
        await server.health.set(name, health_pb2.HealthCheckResponse.SERVING)  # type: ignore[attr-defined]
    seconds = getattr(server, "memory_release_seconds", 0)
    if seconds and getattr(server, "releasing_memory", None) is None:
        task = asyncio.create_task(release_memory_while_serving(server, seconds))
        server.releasing_memory = task  # type: ignore[attr-defined]


async def release_memory_while_serving(server: grpc.aio.Server, seconds: float) -> int:
    """Every ``seconds`` until the server has stopped; returns how many times it released."""
    released = 0
    while await server.wait_for_termination(seconds):  # True: the time ran out, still serving
        released += free_memory.release()
    return released


async def drain(server: grpc.aio.Server, grace_seconds: float, changes: ChangeFeed | None = None) -> None:
    """Health NOT_SERVING first (balancers stop sending), then end the open streams (they
    would hold the grace period to its end) and finish in-flight calls."""
    await server.health.enter_graceful_shutdown()  # type: ignore[attr-defined]
    if changes is not None:
        if changes.waiting:
            log.info("stopping: closing open streams, clients reconnect", extra={"streams": changes.waiting})
        changes.close()
    await server.stop(grace_seconds)
