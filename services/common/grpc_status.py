"""Typed errors to gRPC statuses: each adapter lists its own mapping, this applies it."""

from __future__ import annotations

import asyncio
import logging
import time
import traceback
from types import TracebackType
from typing import Sequence

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
    propagates (gRPC answers UNKNOWN and the server logs it), unless ``unexpected`` is given:
    then it is logged there by its type and where it was raised, never its message (a
    driver's message may quote the row it refused, personal data included), and the call
    ends INTERNAL with a message of ours."""

    def __init__(self, context, mapping: Sequence[tuple[type[BaseException], grpc.StatusCode]],
                 unexpected: logging.Logger | None = None) -> None:
        self.context = context
        self.mapping = mapping
        self.unexpected = unexpected

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
        if self.unexpected is not None and not isinstance(error, (asyncio.CancelledError, grpc.aio.AbortError)):
            where = "".join(traceback.format_tb(tb)[-3:]) if tb is not None else ""
            self.unexpected.error("a call failed with an unexpected error", extra={
                "error": f"{type(error).__module__}.{type(error).__qualname__}", "where": where})
            await self.context.abort(grpc.StatusCode.INTERNAL, "something went wrong on the server; try again")
