"""A real gRPC server on loopback that answers every method of the public services the
edge forwards (by path, from the descriptors), so the edge's tests need no message shape:
it echoes the request's bytes and says, in its response headers, what reached it.

    b"fail"  FAILED_PRECONDITION with a google.rpc.Status of an ErrorInfo (as the services send)
    b"hold"  a stream sends one message, then waits until the call ends
    b"slow"  waits until the call's deadline passes
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import grpc
from google.protobuf import any_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2

from services.edge.methods import forwarded_methods
from tests.support.background import serving_in_background

REASON, DOMAIN = "NOT_YOUR_TURN", "domino.match"


def failure_status() -> status_pb2.Status:
    detail = any_pb2.Any()
    detail.Pack(error_details_pb2.ErrorInfo(reason=REASON, domain=DOMAIN, metadata={"seat": "1"}))
    return status_pb2.Status(code=code_pb2.FAILED_PRECONDITION, message="it is not your turn", details=[detail])


@dataclass
class EchoUpstream:
    port: int = 0
    calls: list[str] = field(default_factory=list)
    ended: list[str] = field(default_factory=list)  # streams whose call ended, cancelled or not

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"


def _seen(context: grpc.aio.ServicerContext) -> tuple[tuple[str, str], ...]:
    metadata = dict(context.invocation_metadata() or ())
    remaining = context.time_remaining()
    return (("seen-x-forwarded-for", str(metadata.get("x-forwarded-for", ""))),
            ("seen-authorization", str(metadata.get("authorization", ""))),
            ("seen-x-request-id", str(metadata.get("x-request-id", ""))),
            ("seen-x-grpc-web", str(metadata.get("x-grpc-web", ""))),
            ("seen-deadline", "none" if remaining is None else f"{remaining:.3f}"))


def _handlers(upstream: EchoUpstream) -> grpc.GenericRpcHandler:
    streaming = {m.path: m.server_streaming for m in forwarded_methods()}

    async def fail(context: grpc.aio.ServicerContext) -> None:
        status = failure_status()
        await context.abort(grpc.StatusCode.FAILED_PRECONDITION, status.message,
                            trailing_metadata=(("grpc-status-details-bin", status.SerializeToString()),))

    def unary(path: str):
        async def answer(request: bytes, context: grpc.aio.ServicerContext) -> bytes:
            upstream.calls.append(path)
            await context.send_initial_metadata(_seen(context))
            if request == b"fail":
                await fail(context)
            if request == b"slow":
                await asyncio.sleep(3600)
            return request
        return grpc.unary_unary_rpc_method_handler(answer)

    def stream(path: str):
        async def answer(request: bytes, context: grpc.aio.ServicerContext):
            upstream.calls.append(path)
            try:
                await context.send_initial_metadata(_seen(context))
                if request == b"fail":
                    yield b"first"
                    await fail(context)
                for i in range(3):
                    yield request + b"#%d" % i
                if request == b"hold":
                    await asyncio.sleep(3600)
            finally:
                upstream.ended.append(path)
        return grpc.unary_stream_rpc_method_handler(answer)

    class Handler(grpc.GenericRpcHandler):
        def service(self, details: grpc.HandlerCallDetails):
            path = details.method
            if path not in streaming:
                return None
            return stream(path) if streaming[path] else unary(path)
    return Handler()


@contextmanager
def echo_upstream() -> Iterator[EchoUpstream]:
    upstream = EchoUpstream()

    def create():
        server = grpc.aio.server(handlers=[_handlers(upstream)])
        return server, server.add_insecure_port("127.0.0.1:0")
    with serving_in_background(create) as (port, _loop):
        upstream.port = port
        yield upstream
