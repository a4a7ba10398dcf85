"""The browsers' edge (services/edge/) served by uvicorn on loopback, on an event loop in a
background thread, in front of whatever upstream addresses the test gives it."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from prometheus_client import CollectorRegistry

from services.common.config import Settings
from services.edge.bootstrap import Edge, EdgeServer, create_edge, server_config
from services.edge.metrics import EdgeMetrics


@dataclass
class RunningEdge:
    port: int
    edge: Edge
    registry: CollectorRegistry

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def metric(self, name: str, **labels: str) -> float:
        return self.registry.get_sample_value(name, labels) or 0.0


@contextmanager
def running_edge(settings: Settings, static_dir: str | None = None,
                 clock: Callable[[], float] = time.monotonic) -> Iterator[RunningEdge]:
    registry = CollectorRegistry()
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    edge = create_edge(settings, EdgeMetrics(registry), static_dir=static_dir, clock=clock)
    server = EdgeServer(server_config(settings, edge, port=0), edge.health)
    serving = asyncio.run_coroutine_threadsafe(server.serve(), loop)
    deadline = time.monotonic() + 10
    while not server.started:
        if serving.done() or time.monotonic() > deadline:
            serving.result(0)
            raise TimeoutError("the edge did not start")
        time.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield RunningEdge(port, edge, registry)
    finally:
        server.should_exit = True
        serving.result(15)
        asyncio.run_coroutine_threadsafe(edge.upstreams.close(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
