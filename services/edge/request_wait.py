"""A call whose request has not arrived in time is ended, so it frees its place.

The gRPC servers end a call whose request has not come 10 s after it opened
(`DOMINO_GRPC_REQUEST_WAIT_SECONDS`, docs/security.md "Calls opened and never sent"); the
edge holds a browser's call to the same wait, or a client could hold every place the edge
has with headers and no body. A late body is reported to the app as a disconnect, which
ends the call as a vanished client's.
"""

from __future__ import annotations

import asyncio

from starlette.types import ASGIApp, Message, Receive, Scope, Send


class RequestWait:
    def __init__(self, app: ASGIApp, seconds: float) -> None:
        self.app, self.seconds = app, seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not self.seconds:
            await self.app(scope, receive, send)
            return
        deadline = asyncio.get_running_loop().time() + self.seconds
        body_done = False

        async def timed() -> Message:
            nonlocal body_done
            if body_done:
                return await receive()
            remaining = deadline - asyncio.get_running_loop().time()
            try:
                message = await asyncio.wait_for(receive(), max(remaining, 0.0))
            except asyncio.TimeoutError:
                body_done = True
                return {"type": "http.disconnect"}
            if message["type"] != "http.request" or not message.get("more_body", False):
                body_done = True
            return message
        await self.app(scope, timed, send)
