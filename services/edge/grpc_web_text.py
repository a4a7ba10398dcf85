"""gRPC-Web's text mode (`application/grpc-web-text`): the same frames, base64 encoded.

Some gRPC-Web clients (grpc-web's `mode=grpcwebtext`, the default of Google's) send and
expect base64, for browsers that cannot stream binary responses. The Connect server
speaks binary gRPC-Web, so this middleware decodes the request as it arrives and encodes
the response as it leaves; everything else (size bounds, deadlines, errors) stays the
server's.
"""

from __future__ import annotations

import base64
import binascii
import re

from starlette.types import ASGIApp, Message, Receive, Scope, Send

TEXT = b"application/grpc-web-text"
BINARY = b"application/grpc-web+proto"
_SEGMENT_END = re.compile(rb"(?<==)(?=[^=])")  # padded messages may follow one another


class GrpcWebText:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not _content_type(scope).startswith(TEXT):
            await self.app(scope, receive, send)
            return
        scope = dict(scope)
        scope["headers"] = [(k, BINARY if k.lower() == b"content-type" else v) for k, v in scope["headers"]]
        await self.app(scope, _decoding(receive), _encoding(send))


def _content_type(scope: Scope) -> bytes:
    for key, value in scope["headers"]:
        if key.lower() == b"content-type":
            return value.lower()
    return b""


def _decoding(receive: Receive) -> Receive:
    pending = bytearray()

    async def decoded() -> Message:
        message = await receive()
        if message["type"] != "http.request":
            return message
        pending.extend(re.sub(rb"\s", b"", message.get("body", b"")))
        more = message.get("more_body", False)
        cut = len(pending) - len(pending) % 4 if more else len(pending)
        chunk = bytes(pending[:cut])
        del pending[:cut]
        try:
            body = b"".join(base64.b64decode(s + b"=" * (-len(s) % 4)) for s in _SEGMENT_END.split(chunk) if s)
        except (binascii.Error, ValueError):
            body = b"\xff"  # no frame starts so: the server refuses the request as malformed
        return {"type": "http.request", "body": body, "more_body": more}
    return decoded


def _encoding(send: Send) -> Send:
    pending = bytearray()

    async def encoded(message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = [(k, v) for k, v in message.get("headers", [])
                       if k.lower() not in (b"content-type", b"content-length")]
            headers.append((b"content-type", TEXT + b"+proto"))
            message = {**message, "headers": headers}
        elif message["type"] == "http.response.body":
            pending.extend(message.get("body", b""))
            more = message.get("more_body", False)
            cut = len(pending) - len(pending) % 3 if more else len(pending)
            body = base64.b64encode(bytes(pending[:cut]))
            del pending[:cut]
            message = {**message, "body": body}
        await send(message)
    return encoded
