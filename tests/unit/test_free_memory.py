"""services/common/free_memory.py: memory freed in the middle of the heap goes back to the
operating system only when asked (glibc keeps it for reuse otherwise)."""

from __future__ import annotations

import ctypes
import ctypes.util
from pathlib import Path

import pytest

from services.common import free_memory


def resident_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


@pytest.mark.skipif(free_memory._malloc_trim() is None, reason="malloc is not glibc's: nothing to release")
def test_memory_freed_between_live_chunks_goes_back_to_the_system_when_released():
    libc = ctypes.CDLL(ctypes.util.find_library("c"))
    libc.malloc.restype = ctypes.c_void_p
    libc.free.argtypes = [ctypes.c_void_p]
    chunks = [libc.malloc(2000) for _ in range(30_000)]  # ~60 MB on the heap, below mmap's threshold
    for pointer in chunks:
        ctypes.memset(pointer, 1, 2000)  # touched: resident
    kept = chunks[::64]  # one live chunk every 128 KB keeps the freed runs between them in the heap
    for i, pointer in enumerate(chunks):
        if i % 64:
            libc.free(pointer)
    try:
        held = resident_mb()
        assert free_memory.release()
        assert held - resident_mb() > 30  # most of the ~59 MB freed
    finally:
        for pointer in kept:
            libc.free(pointer)
