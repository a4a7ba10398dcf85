"""What the social service's RPC modules share: its errors' status codes, the ErrorInfo
domain, running blocking use cases off the event loop, timestamps. Only the RPC modules
(grpc_adapter.py and its mixins) know status codes."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any, Callable, TypeVar

import grpc
from google.protobuf.timestamp_pb2 import Timestamp

from services.common.auth import AuthError
from services.common.grpc_status import ErrorStatuses
from services.common.limits import TooMany

from .errors import AccountsUnavailable, Busy, Exhausted, InvalidRequest, NotFound, Refused, RequestIdReused

if TYPE_CHECKING:
    from typing import TypeAlias

    Context: TypeAlias = grpc.aio.ServicerContext[Any, Any]  # what every RPC module's handlers take

DOMAIN = "domino.social"
log = logging.getLogger("domino.social")
STATUS = [
    (AuthError, grpc.StatusCode.UNAUTHENTICATED),
    (InvalidRequest, grpc.StatusCode.INVALID_ARGUMENT),
    (RequestIdReused, grpc.StatusCode.INVALID_ARGUMENT),
    (NotFound, grpc.StatusCode.NOT_FOUND),
    (Refused, grpc.StatusCode.FAILED_PRECONDITION),
    (Exhausted, grpc.StatusCode.RESOURCE_EXHAUSTED),
    (TooMany, grpc.StatusCode.RESOURCE_EXHAUSTED),
    (Busy, grpc.StatusCode.ABORTED),
    (AccountsUnavailable, grpc.StatusCode.UNAVAILABLE),
]
T = TypeVar("T")


async def run(call: Callable[..., T], *args: Any) -> T:
    """The store and the other services' clients are blocking: the use cases run on threads."""
    return await asyncio.to_thread(call, *args)


def statuses(context: Any) -> ErrorStatuses:
    return ErrorStatuses(context, STATUS, DOMAIN, unexpected=log)


def timestamp(seconds: float) -> Timestamp:
    stamp = Timestamp()
    stamp.FromNanoseconds(int(seconds * 1e9))
    return stamp
