"""A gateway in front of a gRPC service, as the public edge is in production: it forwards
every call to the service over one connection and appends the address it got the call
from to `x-forwarded-for` (Envoy's `use_remote_address`), keeping whatever the client wrote
there itself. Phones reach it from addresses of their own through `from_address`: a TCP
relay whose outgoing connection is bound to a chosen loopback address (all of 127/8 is
this machine's), so the edge sees each phone as a different client, as it would on the
internet."""

from __future__ import annotations

import asyncio
import socket
import threading
from contextlib import contextmanager
from typing import Any, Iterator

import grpc

from services.common.client_address import FORWARDED_FOR, peer_address


class _Forward(grpc.GenericRpcHandler):
    def __init__(self, target: str) -> None:
        self.target = target
        self.channel: grpc.aio.Channel | None = None

    def service(self, details: grpc.HandlerCallDetails) -> grpc.RpcMethodHandler:
        method = details.method

        async def forward(request: bytes, context: grpc.aio.ServicerContext) -> bytes:
            if self.channel is None:
                self.channel = grpc.aio.insecure_channel(self.target)
            kept = [(k, v) for k, v in context.invocation_metadata() if k != FORWARDED_FOR]
            written = [v for k, v in context.invocation_metadata() if k == FORWARDED_FOR]
            client = peer_address(context.peer())
            metadata = kept + [(FORWARDED_FOR, ", ".join([*written, str(client)]))]
            call = self.channel.unary_unary(method, request_serializer=None, response_deserializer=None)
            try:
                return await call(request, metadata=metadata, timeout=10)
            except grpc.aio.AioRpcError as error:
                await context.abort(error.code(), error.details() or "")
                raise  # unreachable: abort raises

        return grpc.unary_unary_rpc_method_handler(forward)


@contextmanager
def forwarding_edge(target_port: int) -> Iterator[int]:
    """The edge's port; it forwards unary calls to 127.0.0.1:``target_port``."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    handler = _Forward(f"127.0.0.1:{target_port}")

    async def start() -> tuple[Any, int]:
        server = grpc.aio.server()
        server.add_generic_rpc_handlers((handler,))
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        return server, port

    server, port = asyncio.run_coroutine_threadsafe(start(), loop).result(10)
    try:
        yield port
    finally:
        async def stop() -> None:
            await server.stop(0)
            if handler.channel is not None:
                await handler.channel.close()

        asyncio.run_coroutine_threadsafe(stop(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)


@contextmanager
def from_address(source: str, edge_port: int) -> Iterator[int]:
    """A local port whose connections reach the edge from ``source`` (e.g. 127.0.0.7)."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.2)
    stopping = threading.Event()

    def pipe(a: socket.socket, b: socket.socket) -> None:
        try:
            while data := a.recv(65536):
                b.sendall(data)
        except OSError:
            pass
        finally:
            for end in (a, b):
                try:
                    end.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def accept() -> None:
        while not stopping.is_set():
            try:
                phone, _ = listener.accept()
            except (socket.timeout, OSError):
                continue
            edge = socket.create_connection(("127.0.0.1", edge_port), source_address=(source, 0))
            for a, b in ((phone, edge), (edge, phone)):
                threading.Thread(target=pipe, args=(a, b), daemon=True).start()

    acceptor = threading.Thread(target=accept, daemon=True)
    acceptor.start()
    try:
        yield listener.getsockname()[1]
    finally:
        stopping.set()
        acceptor.join(2)
        listener.close()
