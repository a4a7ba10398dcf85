"""Typed errors to gRPC statuses: each adapter lists its own mapping, this applies it."""

from __future__ import annotations

from types import TracebackType
from typing import Sequence

import time

import grpc

MAX_DETAILS = 300  # characters of an error message sent back: what a caller sent is never echoed in full


def details(error: BaseException) -> str:
    text = str(error)
    return text if len(text) <= MAX_DETAILS else text[: MAX_DETAILS - 1] + "…"


async def end_at_expiry(context, who) -> None:
    """A stream lives no longer than the token that opened it: past its expiry the stream
    ends UNAUTHENTICATED, and the client reconnects with a fresh token."""
    if time.time() >= who.expires_at:
        await context.abort(grpc.StatusCode.UNAUTHENTICATED, "the token has expired; reconnect with a fresh one")


class ErrorStatuses:
    """``async with ErrorStatuses(context, MAPPING):`` aborts the call with the status mapped to
    the first matching error class, and the error's own message; anything unmapped
    propagates (gRPC answers UNKNOWN and the server logs it)."""

    def __init__(self, context, mapping: Sequence[tuple[type[BaseException], grpc.StatusCode]]) -> None:
        self.context = context
        self.mapping = mapping

    async def __aenter__(self) -> "ErrorStatuses":
        return self

    async def __aexit__(self, kind: type[BaseException] | None, error: BaseException | None,
                        tb: TracebackType | None) -> None:
        """Never swallows: a mapped error aborts the call (which raises), any other propagates."""
        if error is None or not isinstance(error, Exception):
            return
        for cls, code in self.mapping:
            if isinstance(error, cls):
                await self.context.abort(code, details(error))
