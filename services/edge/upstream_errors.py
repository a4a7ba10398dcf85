"""A service's error as the browser receives it: its code, its message and its details.

What a service said (its status, message and `grpc-status-details-bin`, the ErrorInfo a
client tells failures apart by) passes through unchanged. What the gRPC library said for
it (no connection, a reset, a deadline before any answer) names the edge's upstream
addresses and pods, so it is replaced by words that name none.
"""

from __future__ import annotations

import re

import grpc
from connectrpc.code import Code
from connectrpc.errors import ConnectError, ErrorDetail
from google.rpc import status_pb2
from protobuf.wkt import Any as WireAny

DETAILS_KEY = "grpc-status-details-bin"
# grpc's own messages: "failed to connect to all addresses; last error: ...ipv4:10.1.2.3:50051: ..."
_ADDRESS = re.compile(r"(?:ipv4:|ipv6:|unix:|dns:)\S*|\[[0-9A-Fa-f.%]*:[0-9A-Fa-f:.%]*\](?::\d+)?"
                      r"|\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b")
_OWN_WORDS = {
    grpc.StatusCode.UNAVAILABLE: "the service is unavailable; try again",
    grpc.StatusCode.DEADLINE_EXCEEDED: "the call's deadline passed before the service answered",
    grpc.StatusCode.CANCELLED: "the call was cancelled",
}


def connect_error(error: grpc.aio.AioRpcError) -> ConnectError:
    code = error.code()
    trailers = error.trailing_metadata() or ()
    details: list[ErrorDetail] = []
    for key, value in trailers:
        if key == DETAILS_KEY and isinstance(value, bytes):
            try:
                status = status_pb2.Status.FromString(value)
            except Exception:  # not a Status: passed on without details
                continue
            details = [ErrorDetail(WireAny(type_url=d.type_url, value=d.value)) for d in status.details]
    message = error.details() or ""
    if not trailers and code in _OWN_WORDS:
        message = _OWN_WORDS[code]  # the library's words, not a service's
    return ConnectError(connect_code(code), clean(message), details)


def connect_code(code: grpc.StatusCode) -> Code:
    if code is grpc.StatusCode.CANCELLED:
        return Code.CANCELED
    try:
        return Code[code.name]
    except KeyError:
        return Code.UNKNOWN


def clean(message: str) -> str:
    """The message without any address a gRPC library may have put in it."""
    return _ADDRESS.sub("(address withheld)", message)
