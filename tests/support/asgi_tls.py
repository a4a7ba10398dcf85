"""An ASGI app served by hypercorn over TLS on loopback, HTTP/2 by ALPN, on a thread of its
own: the tests' fake push providers (fake_apns.py, fake_fcm.py)."""

from __future__ import annotations

import asyncio
import socket
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from hypercorn.asyncio import serve
from hypercorn.config import Config

from .tls import Pki, make_pki


@contextmanager
def serving_tls(app, directory: Path, name: str) -> Iterator[tuple[int, Pki]]:
    """(port, the PKI whose CA a client must trust) while ``app`` is served."""
    pki = make_pki(directory, name)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    port = sock.getsockname()[1]
    config = Config()
    config.bind = [f"fd://{sock.detach()}"]
    config.certfile, config.keyfile = str(pki.cert), str(pki.key)
    config.alpn_protocols = ["h2", "http/1.1"]
    config.accesslog = None
    config.errorlog = None
    loop = asyncio.new_event_loop()
    stop = asyncio.Event()
    started = threading.Event()

    def quiet_when_stopping(loop, context) -> None:
        if not stop.is_set():  # a connection torn down by the stop is no fault of the test's
            loop.default_exception_handler(context)

    def run() -> None:
        asyncio.set_event_loop(loop)
        loop.set_exception_handler(quiet_when_stopping)
        loop.call_soon(started.set)
        loop.run_until_complete(serve(app, config, shutdown_trigger=stop.wait))

    thread = threading.Thread(target=run, daemon=True, name=f"fake-{name}")
    thread.start()
    started.wait(10)
    try:
        yield port, pki
    finally:
        loop.call_soon_threadsafe(stop.set)
        thread.join(10)
        loop.close()


async def read_body(receive, limit: int = 1 << 20) -> bytes:
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if len(body) > limit or not message.get("more_body"):
            return body


async def respond(send, status: int, body: bytes = b"", headers: dict[str, str] | None = None) -> None:
    raw = [(k.encode(), v.encode()) for k, v in (headers or {}).items()]
    if body:
        raw.append((b"content-type", b"application/json"))
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": body})
