"""Typed errors to gRPC statuses, with the details a client tells failures apart by.

Every error leaves with a `google.rpc.Status` in `grpc-status-details-bin` (gRPC's rich error
model): an `ErrorInfo` whose `reason` is stable and documented (docs/api.md, "Errors"; every
reason is a value of `domino.errors.v1.ErrorReason`, less its prefix), a `BadRequest` naming
the field for a malformed request, and a `RetryInfo` saying how long to wait where waiting
helps (rate limits, a lost race, a service away). A client never has to read the message,
which is for people.

Each adapter lists its own mapping of error classes to status codes; the reason comes from
the error (its class's `error_reason` and `final`, when no wait would help, and optionally
`bad_field`, `retry_after` and `error_metadata` on the instance), so one refusal has one reason
wherever it is raised.
"""

from __future__ import annotations

import asyncio
import logging
import time
import traceback
from types import TracebackType
from typing import Mapping, Sequence

import grpc
from google.protobuf import any_pb2, duration_pb2
from google.rpc import error_details_pb2, status_pb2

from .auth import STREAM_EXPIRED

MAX_DETAILS = 300  # characters of an error message sent back: what a caller sent is never echoed in full
DETAILS_KEY = "grpc-status-details-bin"
INTERNAL = "INTERNAL"
# What a call that raised no reason of its own is said to have met, by code: a safety net,
# since every error class a service maps names its own (tests/unit/test_error_reasons.py).
_BY_CODE = {
    grpc.StatusCode.INVALID_ARGUMENT: "INVALID_REQUEST",
    grpc.StatusCode.UNAUTHENTICATED: "TOKEN_INVALID",
    grpc.StatusCode.PERMISSION_DENIED: "WRONG_CALLER",
    grpc.StatusCode.NOT_FOUND: "INVALID_REQUEST",
    grpc.StatusCode.RESOURCE_EXHAUSTED: "RATE_LIMITED",
    grpc.StatusCode.ABORTED: "CONFLICT",
    grpc.StatusCode.UNAVAILABLE: "UNAVAILABLE",
    grpc.StatusCode.DEADLINE_EXCEEDED: "DEADLINE_EXCEEDED",
    grpc.StatusCode.INTERNAL: INTERNAL,
    grpc.StatusCode.DATA_LOSS: "MATCH_FROZEN",
}
# How long a caller should wait before trying again, where the error does not say.
_RETRY_BY_CODE = {grpc.StatusCode.RESOURCE_EXHAUSTED: 1.0, grpc.StatusCode.ABORTED: 0.1,
                  grpc.StatusCode.UNAVAILABLE: 1.0}


def details(error: BaseException) -> str:
    text = str(error)
    return text if len(text) <= MAX_DETAILS else text[: MAX_DETAILS - 1] + "…"


def reason_of(error: BaseException, code: grpc.StatusCode) -> str:
    reason = getattr(error, "error_reason", None)
    return reason if isinstance(reason, str) and reason else _BY_CODE.get(code, INTERNAL)


def status_of(code: grpc.StatusCode, message: str, reason: str, domain: str, *, field: str | None = None,
              retry_after: float | None = None, metadata: Mapping[str, str] | None = None) -> status_pb2.Status:
    """The rich status of a refusal: ErrorInfo always, BadRequest with ``field``, RetryInfo
    with ``retry_after`` (seconds)."""
    found: list = [error_details_pb2.ErrorInfo(reason=reason, domain=domain, metadata=dict(metadata or {}))]
    if field:
        found.append(error_details_pb2.BadRequest(field_violations=[
            error_details_pb2.BadRequest.FieldViolation(field=field, description=message, reason=reason)]))
    if retry_after is not None:
        delay = duration_pb2.Duration()
        delay.FromNanoseconds(int(max(0.0, retry_after) * 1e9))
        found.append(error_details_pb2.RetryInfo(retry_delay=delay))
    packed = []
    for detail in found:
        holder = any_pb2.Any()
        holder.Pack(detail)
        packed.append(holder)
    return status_pb2.Status(code=code.value[0], message=message, details=packed)


async def abort(context, code: grpc.StatusCode, message: str, reason: str, domain: str, *,
                field: str | None = None, retry_after: float | None = None,
                metadata: Mapping[str, str] | None = None, final: bool = False) -> None:
    """Ends the call with ``code`` and the rich status (raises, as context.abort does); a
    ``final`` refusal says no wait, since no wait would help."""
    if retry_after is None and not final:
        retry_after = _RETRY_BY_CODE.get(code)
    status = status_of(code, message, reason, domain, field=field, retry_after=retry_after, metadata=metadata)
    await context.abort(code, message, trailing_metadata=((DETAILS_KEY, status.SerializeToString()),))


def abort_error(context, code: grpc.StatusCode, error: BaseException, domain: str):
    """``abort`` for a typed error: its message, its reason, its field and its wait."""
    return abort(context, code, details(error), reason_of(error, code), domain,
                 field=getattr(error, "bad_field", None), retry_after=getattr(error, "retry_after", None),
                 metadata=getattr(error, "error_metadata", None), final=getattr(error, "final", False))


async def end_at_expiry(context, who, domain: str) -> None:
    """A stream lives no longer than the token that opened it: past its expiry the stream
    ends UNAUTHENTICATED, and the client reconnects with a fresh token."""
    if time.time() >= who.expires_at:
        await abort(context, grpc.StatusCode.UNAUTHENTICATED, STREAM_EXPIRED, "TOKEN_EXPIRED", domain)


class ErrorStatuses:
    """``async with ErrorStatuses(context, MAPPING, domain):`` ends the call with the status
    mapped to the first matching error class, its message and its details. Anything unmapped
    is logged by its type and where it was raised, never its message (a driver's message may
    quote the row it refused, personal data included), and the call ends INTERNAL."""

    def __init__(self, context, mapping: Sequence[tuple[type[BaseException], grpc.StatusCode]], domain: str,
                 unexpected: logging.Logger | None = None) -> None:
        self.context = context
        self.mapping = mapping
        self.domain = domain
        self.unexpected = unexpected or logging.getLogger(f"{domain}.errors")

    async def __aenter__(self) -> "ErrorStatuses":
        return self

    async def __aexit__(self, kind: type[BaseException] | None, error: BaseException | None,
                        tb: TracebackType | None) -> None:
        """Never swallows: a mapped error aborts the call (which raises), any other too."""
        if error is None or not isinstance(error, Exception):
            return
        if isinstance(error, (asyncio.CancelledError, grpc.aio.AbortError)):
            return
        for cls, code in self.mapping:
            if isinstance(error, cls):
                await abort_error(self.context, code, error, self.domain)
        where = "".join(traceback.format_tb(tb)[-3:]) if tb is not None else ""
        self.unexpected.error("a call failed with an unexpected error", extra={
            "error": f"{type(error).__module__}.{type(error).__qualname__}", "where": where})
        await abort(self.context, grpc.StatusCode.INTERNAL, "something went wrong on the server; try again",
                    INTERNAL, self.domain)
