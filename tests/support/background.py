"""A grpc.aio server on its own event loop in a background thread, for sync tests: the
in-process services of tests/service start and stop this one way."""

from __future__ import annotations

import asyncio
import threading
from contextlib import contextmanager
from typing import Any, Callable, Iterator


@contextmanager
def serving_in_background(create: Callable[[], tuple[Any, int]],
                          mark_serving: bool = False) -> Iterator[tuple[int, asyncio.AbstractEventLoop]]:
    """Calls ``create() -> (server, port)`` on the new loop (a grpc.aio server belongs to
    the loop it is made on), starts the server and yields (port, loop); stops both after."""
    from services.common.grpc_server import mark_serving as serving

    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()

    async def start() -> tuple[Any, int]:
        server, port = create()
        await server.start()
        if mark_serving:
            await serving(server)
        return server, port

    try:
        server, port = asyncio.run_coroutine_threadsafe(start(), loop).result(10)
        try:
            yield port, loop
        finally:
            asyncio.run_coroutine_threadsafe(server.stop(0), loop).result(10)
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
