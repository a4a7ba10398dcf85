"""Gives memory that a burst of calls used, and freed, back to the operating system.

glibc's malloc keeps what a process frees for its own reuse; grpc's threads each allocate
from their own arenas, and freed chunks scattered among live ones are never handed back.
After a flood of half-open calls that the servers' bounds ended (services/common/
grpc_server.py), a match service stayed at its peak memory, tens of MB above where it
started, and rose a little with every further flood (bench/h2_flood.py --rounds). glibc's
malloc_trim(0) returns every free page of every arena; on a quiet heap it takes well under
a millisecond, so the servers call it every few seconds while they serve. Where malloc is
not glibc's (musl) there is nothing to call, and nothing is done."""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
from typing import Callable


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    name = ctypes.util.find_library("c")
    try:
        return ctypes.CDLL(name).malloc_trim if name else None
    except (OSError, AttributeError):
        return None


def release() -> bool:
    """Hand freed memory back to the operating system; False where that is not possible."""
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True
