"""What a refused call's rich status says (services/common/grpc_status.py): the ErrorInfo
reason and domain, the BadRequest's fields, the RetryInfo's wait, read as a client does."""

from __future__ import annotations

from dataclasses import dataclass

import grpc
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from services.common import grpc_status


@dataclass(frozen=True)
class Refusal:
    code: grpc.StatusCode
    message: str
    reason: str
    domain: str
    fields: tuple[str, ...] = ()
    retry_after: float | None = None
    metadata: tuple[tuple[str, str], ...] = ()


def refusal(error: grpc.RpcError) -> Refusal:
    """The details of ``error``; a status without any reads reason ""."""
    status = rpc_status.from_call(error)  # type: ignore[arg-type]
    reason = domain = ""
    fields: tuple[str, ...] = ()
    retry: float | None = None
    metadata: tuple[tuple[str, str], ...] = ()
    for detail in status.details if status is not None else ():
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            reason, domain, metadata = info.reason, info.domain, tuple(sorted(info.metadata.items()))
        elif detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
            bad = error_details_pb2.BadRequest()
            detail.Unpack(bad)
            fields = tuple(v.field for v in bad.field_violations)
        elif detail.Is(error_details_pb2.RetryInfo.DESCRIPTOR):
            wait = error_details_pb2.RetryInfo()
            detail.Unpack(wait)
            retry = wait.retry_delay.ToNanoseconds() / 1e9
    return Refusal(error.code(), error.details() or "", reason, domain, fields, retry, metadata)


def reason_of(call) -> str:
    """The ErrorInfo reason ``call()`` is refused with ("" when it succeeds)."""
    try:
        call()
    except grpc.RpcError as error:
        return refusal(error).reason
    return ""


class RefusedCall(grpc.RpcError):
    """A refused call as a client's fake stub raises it: its code, its message and, in its
    trailers, the rich status a server sends (services/common/grpc_status.py)."""

    def __init__(self, code: grpc.StatusCode, message: str, reason: str = "", domain: str = "domino.match",
                 retry_after: float | None = None) -> None:
        self._code, self._message = code, message
        status = grpc_status.status_of(code, message, reason, domain, retry_after=retry_after) if reason else None
        self._trailers = ((grpc_status.DETAILS_KEY, status.SerializeToString()),) if status is not None else ()

    def code(self) -> grpc.StatusCode:
        return self._code

    def details(self) -> str:
        return self._message

    def trailing_metadata(self):
        return self._trailers
