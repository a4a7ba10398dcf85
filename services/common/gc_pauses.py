"""The garbage collector's pauses, as a metric of every service process.

A collection stops the whole process: every call and stream of a server waits for it. In a
match replica holding a thousand streams, each with its own copy of its match, a full
collection walks every object and takes tens of milliseconds, which shows at the phones as
latency the handlers' own timings never see (docs/operations.md, "Capacity"). So each
process observes its collections' durations by generation.
"""

from __future__ import annotations

import gc
import time
from typing import Any, Callable

from prometheus_client import REGISTRY, CollectorRegistry, Histogram

BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0)


def observe_pauses(registry: CollectorRegistry = REGISTRY) -> Callable[[str, dict[str, Any]], None]:
    """Install the gc callback (once per process) that observes each collection; returns it."""
    pauses = Histogram("domino_gc_pause_seconds", "Garbage collections of this process and how long each "
                       "stopped it, by generation (2: a full collection)", ["generation"], buckets=BUCKETS,
                       registry=registry)
    by_generation = [pauses.labels(str(g)) for g in range(3)]
    began = [0.0]

    def on_gc(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            began[0] = time.perf_counter()
        else:
            by_generation[info["generation"]].observe(time.perf_counter() - began[0])

    gc.callbacks.append(on_gc)
    return on_gc


# Collect the youngest generation after 20,000 new objects, not 700: a server makes and frees
# objects by the thousand a second (messages, futures, frames), nearly all freed by their
# reference counts. Two match replicas at 500 human-paced tables (bench/load.py --paced
# --match-replicas 2, command_hops_ms): at 700, 739 collections a minute in a replica, 4% of
# its time stopped, full collections of 70-140 ms, phones' p99 135 ms; at these, 10-11 and
# none full, 0.6%, p99 104 and 124 ms. (10,000/10/10 gave p99 345 and 379 ms in two runs,
# with pauses of 240 ms. Runs on this shared VM vary by tens of percent: docs/operations.md.)
THRESHOLDS = (20_000, 20, 10)


def freeze_what_started() -> None:
    """Leave everything the process made to start (modules, protobuf descriptors, the
    engine's tables: most of its objects) out of every later collection: they live as long
    as the process, and a full collection walking them again each time is pause for
    nothing. Only the cyclic collector ignores them; reference counting still frees. From
    then on the collector runs at THRESHOLDS."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*THRESHOLDS)
