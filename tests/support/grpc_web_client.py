"""A gRPC-Web and Connect client over plain HTTP/1.1, as a browser's fetch speaks them:
frames of a flag byte and a 4-byte length, trailers in the last frame, base64 in text mode."""

from __future__ import annotations

import base64
import http.client
import struct
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from google.rpc import status_pb2

TRAILER_FLAG = 0x80


@dataclass
class Answer:
    http_status: int
    headers: dict[str, str]
    messages: list[bytes] = field(default_factory=list)
    trailers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""

    @property
    def grpc_status(self) -> int | None:
        value = self.trailers.get("grpc-status", self.headers.get("grpc-status"))
        return None if value is None else int(value)

    @property
    def grpc_message(self) -> str:
        from urllib.parse import unquote

        return unquote(self.trailers.get("grpc-message", self.headers.get("grpc-message", "")))

    def status_details(self) -> status_pb2.Status:
        value = self.trailers.get("grpc-status-details-bin", self.headers.get("grpc-status-details-bin", ""))
        return status_pb2.Status.FromString(base64.b64decode(value + "=" * (-len(value) % 4)))


def frame(message: bytes, flag: int = 0) -> bytes:
    return bytes([flag]) + struct.pack(">I", len(message)) + message


def unframe(data: bytes) -> tuple[list[bytes], dict[str, str]]:
    messages, trailers, i = [], {}, 0
    while i + 5 <= len(data):
        flag, length = data[i], struct.unpack(">I", data[i + 1:i + 5])[0]
        body = data[i + 5:i + 5 + length]
        i += 5 + length
        if flag & TRAILER_FLAG:
            for line in body.decode().split("\r\n"):
                if line:
                    key, _, value = line.partition(":")
                    trailers[key.strip().lower()] = value.strip()
        else:
            messages.append(body)
    return messages, trailers


def post(url: str, path: str, body: bytes, headers: dict[str, str], timeout: float = 15) -> Answer:
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
    try:
        connection.request("POST", path, body=body, headers=headers)
        response = connection.getresponse()
        return Answer(response.status, {k.lower(): v for k, v in response.getheaders()}, body=response.read())
    finally:
        connection.close()


def grpc_web(url: str, path: str, message: bytes, text: bool = False, **headers: str) -> Answer:
    body = frame(message)
    content_type = "application/grpc-web-text" if text else "application/grpc-web+proto"
    answer = post(url, path, base64.b64encode(body) if text else body,
                  {"content-type": content_type, "x-grpc-web": "1", **_headers(headers)})
    data = base64.b64decode(answer.body) if text and answer.body else answer.body
    answer.messages, answer.trailers = unframe(data)
    return answer


def connect_unary(url: str, path: str, message: bytes, **headers: str) -> Answer:
    return post(url, path, message, {"content-type": "application/proto", "connect-protocol-version": "1",
                                     **_headers(headers)})


def _headers(given: dict[str, str]) -> dict[str, str]:
    return {key.replace("_", "-"): value for key, value in given.items()}
