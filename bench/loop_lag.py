"""How late the load generator's own event loop runs, for bench/load.py.

The phones' latency counts everything between sending a command and the loop resuming the
phone with its reply: a busy generator adds its own queueing to the system's. A ticker that
asks to wake every ``period`` seconds and records how late it woke measures that queueing
directly; when its p99 nears the latencies being reported, the figure measures the
generator, not the system.
"""

from __future__ import annotations

import asyncio
import gc
import time

from bench.procfs import pct


LATE = 0.010  # a tick this late (s) counts as late in the on-CPU share


class LoopLag:
    """A task that sleeps ``period`` s again and again and keeps (woke at, seconds late, the
    loop thread's CPU seconds and the wall seconds since the last tick). A late tick whose
    interval the loop thread spent on the CPU was late for this process's own work (phones,
    GC); one it did not was waiting for a core, another thread holding the GIL, or a
    blocking call: more processes would not help the first kind on two busy cores."""

    def __init__(self, period: float = 0.05) -> None:
        self.period = period
        self.samples: list[tuple[float, float, float, float]] = []
        self.gc_pauses: list[tuple[float, float, int]] = []  # (ended at, seconds, generation)
        self._gc_started = 0.0

    async def run(self) -> None:
        gc.callbacks.append(self._on_gc)
        try:
            while True:
                start, cpu = time.monotonic(), time.thread_time()
                await asyncio.sleep(self.period)
                now = time.monotonic()
                self.samples.append((now, max(0.0, now - start - self.period), time.thread_time() - cpu, now - start))
        finally:
            gc.callbacks.remove(self._on_gc)

    def _on_gc(self, phase: str, info: dict) -> None:
        """The collector's pauses: a full collection over many phones' objects stalls the loop."""
        if phase == "start":
            self._gc_started = time.monotonic()
        else:
            now = time.monotonic()
            self.gc_pauses.append((now, now - self._gc_started, info["generation"]))

    def figures(self, t0: float, t1: float) -> dict[str, float | None]:
        """p50, p99 and max of the lateness between ``t0`` and ``t1`` (monotonic), in ms, and
        the garbage collector's pauses in the window (longest, and all of them summed)."""
        pauses = [seconds * 1000 for at, seconds, _ in self.gc_pauses if t0 <= at <= t1]
        window = [s for s in self.samples if t0 <= s[0] <= t1]
        late = [(cpu, wall) for _, lateness, cpu, wall in window if lateness >= LATE]
        return {**summary([lateness * 1000 for _, lateness, _, _ in window]),
                "loadgen_late_ticks_on_cpu_share": (round(sum(c for c, _ in late) / sum(w for _, w in late), 2)
                                                    if late else None),
                "loadgen_gc_pause_max_ms": round(max(pauses), 2) if pauses else 0.0,
                "loadgen_gc_ms": round(sum(pauses), 1)}


def summary(lags_ms: list[float]) -> dict[str, float | None]:
    def r(value: float | None) -> float | None:
        return None if value is None else round(value, 2)
    return {"loadgen_loop_lag_p50_ms": r(pct(lags_ms, 50)), "loadgen_loop_lag_p99_ms": r(pct(lags_ms, 99)),
            "loadgen_loop_lag_max_ms": r(max(lags_ms) if lags_ms else None),
            "loadgen_loop_lag_samples": len(lags_ms)}


def freeze_heap() -> None:
    """Collect once, then move every object alive into the collector's permanent generation
    (``gc.freeze``), before a measured window: the phones, channels and stubs made so far are
    not rescanned by every full collection, which stalls all the phones at once (150 paced
    matches, quiet machine: the longest GC pause 122 ms and loop lag 99 ms without it, 6.4 and
    5.0 ms with it). Objects still die by reference count; only cycles that become garbage
    after it are kept."""
    gc.collect()
    gc.freeze()
