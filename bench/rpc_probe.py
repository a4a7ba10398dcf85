"""An empty RPC to each match replica, now and then, for bench/load.py's hops.

The match service's histogram starts at its handler, so what a command waits before it (the
transport, the server's event loop busy with other streams, gRPC's own queue) shows only as
the phones' latency less the server's. A health check does next to no work in the handler
and goes through the same connection machinery and the same event loop as a command: its
round trip is what any call waits on the way in and out, the server's loop included. Probes
pause while nobody moves (the idle window measures the services' own CPU).
"""

from __future__ import annotations

import asyncio
import time

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from bench.procfs import pct


class EmptyRpcProbe:
    """Health.Check to every address in turn every ``period`` s; keeps (done at, seconds)."""

    def __init__(self, addresses: list[str], moving: asyncio.Event, period: float = 0.25) -> None:
        self.addresses = addresses
        self.moving = moving
        self.period = period
        self.samples: list[tuple[float, float]] = []
        self.failures = 0

    async def run(self) -> None:
        channels = [grpc.aio.insecure_channel(a, options=[("grpc.use_local_subchannel_pool", 1)])
                    for a in self.addresses]
        stubs = [health_pb2_grpc.HealthStub(c) for c in channels]
        try:
            while True:
                for stub in stubs:
                    await self.moving.wait()
                    started = time.monotonic()
                    try:
                        await stub.Check(health_pb2.HealthCheckRequest(), timeout=5)
                    except grpc.aio.AioRpcError:
                        self.failures += 1
                    else:
                        done = time.monotonic()
                        self.samples.append((done, done - started))
                    await asyncio.sleep(self.period / len(stubs))
        finally:
            await asyncio.gather(*(c.close() for c in channels), return_exceptions=True)

    def quantiles(self, t0: float, t1: float) -> dict[str, float | None]:
        """p50 and p99 of the round trips that ended between ``t0`` and ``t1``, in ms."""
        ms = [s * 1000 for at, s in self.samples if t0 <= at <= t1]
        return {"p50": None if not ms else round(pct(ms, 50), 2), "p99": None if not ms else round(pct(ms, 99), 2),
                "samples": len(ms)}
