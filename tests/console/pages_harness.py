"""The console app in process, spoken to over httpx's ASGI transport, its gRPC clients dialing
a real match service on loopback; a member of staff signed in through a test-only route
that opens their session as the sign-in pages would (sign-in itself is tested elsewhere)."""

from __future__ import annotations

import socket
from contextlib import asynccontextmanager, contextmanager
from typing import AsyncIterator, Iterator

import httpx
from prometheus_client import CollectorRegistry, start_http_server
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from services.common.auth import STAFF_ROLES
from services.console.app import create_app
from services.console.clients import Clients
from services.console.metrics_settings import NowSettings
from services.console.metrics_watch import MetricsWatch
from services.console.pages.now import NowState
from services.console.sessions import start_session
from services.console.settings import ConsoleSettings
from services.console.staff import Staff
from tests.support.keys import KEYS


def staff_with(*roles: str) -> Staff:
    return Staff(f"test|{'-'.join(roles) or 'none'}", "Tess Staff", frozenset(roles or STAFF_ROLES))


def console_app(clients: Clients, now: NowSettings | None, staff: Staff | None) -> Starlette:
    """The app, scraping where ``now`` says, with ``GET /test/sign-in`` opening ``staff``'s session."""
    app = create_app(ConsoleSettings(), clients, session_secret="test-session-secret")
    if now is not None:
        app.state.now = NowState(now, MetricsWatch(now))

    async def sign_in(request: Request) -> Response:
        start_session(request, request.app.state.test_staff)
        return Response("signed in")

    app.state.test_staff = staff
    app.router.routes.append(Route("/test/sign-in", sign_in, methods=["GET"]))
    return app


@asynccontextmanager
async def console(match_port: int, now: NowSettings | None = None, staff: Staff | None = None
                  ) -> AsyncIterator[httpx.AsyncClient]:
    """An httpx client of the console with ``staff`` signed in (None: nobody); ``now``: where
    its Now page scrapes."""
    clients = Clients("127.0.0.1:1", f"127.0.0.1:{match_port}", KEYS, deadline=5.0)
    app = console_app(clients, now, staff)
    transport = httpx.ASGITransport(app=app)
    try:
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8090") as client:
            if staff is not None:
                assert (await client.get("/test/sign-in")).status_code == 200
            yield client
    finally:
        await clients.close()


@contextmanager
def metrics_endpoint(registry: CollectorRegistry) -> Iterator[str]:
    """A real Prometheus endpoint serving ``registry``: its URL."""
    server, thread = start_http_server(0, addr="127.0.0.1", registry=registry)
    try:
        yield f"http://127.0.0.1:{server.server_port}/metrics"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


@contextmanager
def silent_endpoint() -> Iterator[str]:
    """A port that takes connections and never answers: a hung service."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/metrics"
    finally:
        sock.close()


def closed_endpoint() -> str:
    """A port nothing listens on: a service that is not running."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    return f"http://127.0.0.1:{port}/metrics"


@contextmanager
def serving_console(match_port: int, now: NowSettings | None, staff: Staff) -> Iterator[str]:
    """The console served by uvicorn on a free port, on an event loop of its own (its gRPC
    channels belong to it): its base URL. ``/test/sign-in`` signs ``staff`` in."""
    import asyncio
    import threading

    import uvicorn

    from services.common.servers import free_ports

    port = free_ports(1)[0]
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()

    async def start() -> tuple[uvicorn.Server, Clients, asyncio.Task]:
        clients = Clients("127.0.0.1:1", f"127.0.0.1:{match_port}", KEYS, deadline=5.0)
        app = console_app(clients, now, staff)
        server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, lifespan="off", access_log=False,
                                               log_config=None))
        task = asyncio.ensure_future(server.serve())
        while not server.started:
            await asyncio.sleep(0.02)
        return server, clients, task

    async def stop(server: uvicorn.Server, clients: Clients, task: asyncio.Task) -> None:
        server.should_exit = True
        await task
        await clients.close()

    try:
        running = asyncio.run_coroutine_threadsafe(start(), loop).result(10)
        try:
            yield f"http://127.0.0.1:{port}"
        finally:
            asyncio.run_coroutine_threadsafe(stop(*running), loop).result(15)
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
