"""The system bench/idle_streams.py measures: the match service (one replica or two), the
relay and, with bots at the tables, the bot service, as ``services.common.supervisor``
starts them (NATS with JetStream under them), and what the bench reads of each process.

A waiting table costs more than its streams: the relay follows the store, the bots wait on
NATS for their turns, PostgreSQL answers everyone's polls. So the idle window's CPU is read
for every process, not only the match service's.
"""

from __future__ import annotations

from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

from bench.procfs import cpu_seconds, tree_cpu_seconds
from services.common.supervisor import LocalSystem, Ports

MATCH_REPLICAS = ("match", "match-2")


class IdleSystem(LocalSystem):
    """match (and ``match-2``), relay, and bots when asked for, on free ports."""

    def __init__(self, var_dir: Path, extra_env: dict[str, str], replicas: int, bots: bool) -> None:
        services = ("match", "relay") + (("bots",) if bots else ())
        super().__init__(var_dir, Ports.free(), services=services, match_replicas=replicas, extra_env=extra_env)

    @property
    def replica_names(self) -> tuple[str, ...]:
        return MATCH_REPLICAS[:self.match_replicas]

    def targets(self) -> list[str]:
        """Each replica's own gRPC address (the bench chooses the replica of every stream)."""
        return [str(self.grpc_address(name)) for name in self.replica_names]

    def metrics_ports(self) -> list[int]:
        return [self.ports.match_metrics] + ([self._second_match[1]] if self.match_replicas > 1 else [])

    def replica_pids(self) -> list[int]:
        return [self.processes[name].pid for name in self.replica_names]

    def pids(self, postgres_pid: int | None) -> dict[str, int]:
        """Every process of the system by name (PostgreSQL's postmaster under ``postgres``)."""
        pids = {name: proc.pid for name, proc in self.processes.items()}
        if self.nats is not None:
            pids["nats"] = self.nats.pid
        if postgres_pid:
            pids["postgres"] = postgres_pid
        return pids


def cpu_by_process(pids: dict[str, int]) -> dict[str, float]:
    """CPU seconds so far of each named process; PostgreSQL's with its backends."""
    return {name: tree_cpu_seconds(pid) if name == "postgres" else cpu_seconds(pid) for name, pid in pids.items()}


def metric_total(text: str, name: str, **labels: str) -> float:
    """The sum of the samples called ``name`` whose labels include ``labels``, in Prometheus text."""
    total = 0.0
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == name and all(sample.labels.get(k) == v for k, v in labels.items()):
                total += sample.value
    return total


def scrape(port: int) -> str:
    """A metrics port's text; empty when it does not answer."""
    import urllib.request

    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as reply:
            return reply.read().decode()
    except OSError:
        return ""
