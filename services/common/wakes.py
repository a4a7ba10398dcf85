"""Waiting for the first of two events, or a timeout: the loops that follow the store (the
turn timer, the history projection) sleep until something was stored, not on a clock."""

from __future__ import annotations

import asyncio


async def first_set(stopping: asyncio.Event, other: asyncio.Event | None, seconds: float) -> asyncio.Event | None:
    """Which of the two events was set within ``seconds`` (``stopping`` first; None: neither)."""
    if stopping.is_set() or seconds <= 0:
        return stopping if stopping.is_set() else None
    if other is not None and other.is_set():
        return other
    waits = {asyncio.ensure_future(e.wait()): e for e in (stopping, other) if e is not None}
    try:
        done, _ = await asyncio.wait(waits, timeout=seconds, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in waits:
            task.cancel()
    return stopping if stopping.is_set() else next((waits[t] for t in done), None)
