"""The relay's ceiling: how many events one relay publishes to JetStream a second, and its CPU
per event, when nothing else limits it.

In the system the relay only ever publishes what the match service has just stored, so its
throughput there is the commands' rate, never its own limit. The capacity model needs the
limit: past it the relay's lag grows without bound and every reader of the stream (bots,
notifier, watchers) falls behind with it. So the store is filled first with no relay running
(whole block-4 matches played in this process through the match servicer, as
``bench/command_cost.py`` plays them), then ``domino serve relay`` is started as the system
starts it (``LocalSystem`` with only NATS set up) from position 0, and it is timed until it
has published every stored event.

The window runs from the first scrape of its metrics that shows publishing under way to the
scrape that shows every event published, so its start-up (imports, connections) is not
counted; events, CPU (relay, nats-server, PostgreSQL's backends; /proc) and seconds are all
taken over that window. The relay process also runs the history projection, as it does in
production, so its CPU includes that. The metrics are scraped every 0.2 s, a small cost
inside the relay's figure.

Run: ``.venv/bin/python bench/relay_ceiling.py --json`` (default 50,000 events, PostgreSQL;
``--stores sqlite postgres`` for both).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

import command_cost  # noqa: E402
from procfs import cpu_seconds, git_commit, tree_cpu_seconds  # noqa: E402

EVENTS_PER_MATCH_GUESS = 160  # a block-4 match stores about 165 events: only to size the batch played


def stored_events(env: dict[str, str]) -> int:
    from services.match.application import MatchApplication

    app = MatchApplication(env=env)
    try:
        return app.recorder.max_notification_id() or 0
    finally:
        app.close()


def fill(env: dict[str, str], events: int) -> tuple[int, int]:
    """Play matches until the store holds at least ``events`` events; (matches, events)."""
    matches, stored = 0, 0
    while stored < events:
        batch = max(1, (events - stored) // EVENTS_PER_MATCH_GUESS + 1)
        asyncio.run(command_cost.application_cost(env, batch, None))
        matches += batch
        stored = stored_events(env)
        print(f"  stored {stored} events from {matches} matches", file=sys.stderr)
    return matches, stored


def published(port: int) -> float:
    """domino_relay_published_total, first publications and duplicates together."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as reply:
        text = reply.read().decode()
    return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
               if line.startswith("domino_relay_published_total{"))


def measure(store: str, store_env: dict[str, str], events: int, tmp: Path, pg_pid: int | None,
            timeout: float) -> dict:
    from services.common.supervisor import LocalSystem, Ports

    print(f"{store}: filling the store", file=sys.stderr)
    t = time.monotonic()
    matches, stored = fill(store_env, events)
    fill_seconds = time.monotonic() - t
    system = LocalSystem(tmp / f"var-{store}", Ports.free(), services=(),
                         extra_env={**store_env, "DOMINO_LOG_FORMAT": "json"})
    try:
        system.start()
        assert system.nats is not None
        print(f"{store}: starting the relay over {stored} events", file=sys.stderr)
        relay = system.start_service("relay")
        port = system.ports.relay_metrics
        # the window opens at the first scrape that sees publishing under way
        deadline = time.monotonic() + timeout
        while (first := published(port)) == 0 and time.monotonic() < deadline:
            time.sleep(0.02)
        t0 = time.monotonic()
        cpu0 = (cpu_seconds(relay.pid), cpu_seconds(system.nats.pid), tree_cpu_seconds(pg_pid) if pg_pid else 0.0)
        last = first
        while last < stored and time.monotonic() < deadline:
            time.sleep(0.2)
            last = published(port)
        seconds = time.monotonic() - t0
        cpu1 = (cpu_seconds(relay.pid), cpu_seconds(system.nats.pid), tree_cpu_seconds(pg_pid) if pg_pid else 0.0)
    finally:
        system.stop()
    counted = last - first
    if last < stored or counted <= 0:
        raise RuntimeError(f"{store}: the relay published {last} of {stored} events in {timeout} s")
    out = {"store": store, "matches": matches, "stored_events": stored, "fill_seconds": round(fill_seconds, 1),
           "relay_events": int(counted), "relay_seconds": round(seconds, 3),
           "relay_events_per_s": round(counted / seconds, 1),
           "relay_cpu_ms_per_event": round(1000 * (cpu1[0] - cpu0[0]) / counted, 4),
           "nats_cpu_ms_per_event": round(1000 * (cpu1[1] - cpu0[1]) / counted, 4),
           "relay_cores": round((cpu1[0] - cpu0[0]) / seconds, 2)}
    if pg_pid:
        out["postgres_cpu_ms_per_event"] = round(1000 * (cpu1[2] - cpu0[2]) / counted, 4)
    return out


def run(args) -> dict:
    from services.common.servers import sqlite_env, start_postgres

    results: dict = {"events": args.events, "git_commit": git_commit(), "stores": {}}
    with tempfile.TemporaryDirectory(prefix="relay-ceiling-") as d:
        tmp = Path(d)
        if "postgres" in args.stores:
            pg = start_postgres(tmp / "pg")
            try:
                pg.create_database("relay")
                results["stores"]["postgres"] = measure("postgres", pg.eventsourcing_env("relay"), args.events, tmp,
                                                        pg.pid, args.timeout)
            finally:
                pg.stop()
        if "sqlite" in args.stores:
            results["stores"]["sqlite"] = measure("sqlite", sqlite_env(tmp / "relay.sqlite"), args.events, tmp,
                                                  None, args.timeout)
    return results


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--events", type=int, default=50_000, help="events to store before the relay starts (default 50000)")
    p.add_argument("--stores", nargs="+", choices=("postgres", "sqlite"), default=["postgres"])
    p.add_argument("--timeout", type=float, default=900.0, help="seconds the relay is given to publish them all")
    args = p.parse_args()
    results = run(args)
    if args.json:
        print(json.dumps(results, indent=2))
        return
    for store, r in results["stores"].items():
        print(f"{store:9} one relay: {r['relay_events']} events in {r['relay_seconds']:.1f} s = "
              f"{r['relay_events_per_s']:.0f} events/s at {r['relay_cores']:.2f} cores; CPU per event: relay "
              f"{r['relay_cpu_ms_per_event']:.3f} ms, nats-server {r['nats_cpu_ms_per_event']:.3f} ms"
              + (f", postgres {r['postgres_cpu_ms_per_event']:.3f} ms" if "postgres_cpu_ms_per_event" in r else ""))


if __name__ == "__main__":
    main()
