"""What a refusal says beyond its status code, as the API's own clients read it (the terminal
client, the bots): the ``google.rpc.Status`` in the ``grpc-status-details-bin`` trailer,
with an ``ErrorInfo`` whose ``reason`` is stable (a name of domino.errors.v1.ErrorReason
without its prefix), a ``BadRequest`` naming the field of a malformed request, and a
``RetryInfo`` saying how long to wait. A client tells failures apart by the reason, never by
the message, which is for people and may change. (services/common/grpc_status.py writes
them; this reads them, from a sync or an asyncio call alike.)"""

from __future__ import annotations

from dataclasses import dataclass

from typing import Any

from google.rpc import error_details_pb2
from grpc_status import rpc_status


@dataclass(frozen=True)
class Details:
    reason: str = ""  # "" when the server sent none (a transport failure: no server answered)
    domain: str = ""
    fields: tuple[str, ...] = ()
    retry_after: float | None = None  # seconds


def details_of(error: Any) -> Details:
    """The details of a refused call or ended stream; empty ones when it carries none, or
    carries a status that is not its own."""
    try:
        status = rpc_status.from_call(error)  # a grpc.RpcError: its code, details and trailers
    except (ValueError, AttributeError):  # a status whose code or message is not the call's
        return Details()
    if status is None:
        return Details()
    reason = domain = ""
    fields: tuple[str, ...] = ()
    retry: float | None = None
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            reason, domain = info.reason, info.domain
        elif detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
            bad = error_details_pb2.BadRequest()
            detail.Unpack(bad)
            fields = tuple(v.field for v in bad.field_violations)
        elif detail.Is(error_details_pb2.RetryInfo.DESCRIPTOR):
            wait = error_details_pb2.RetryInfo()
            detail.Unpack(wait)
            retry = wait.retry_delay.ToNanoseconds() / 1e9
    return Details(reason, domain, fields, retry)
