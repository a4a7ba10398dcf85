"""How many bytes a match leaves in the event store: plays matches in-process with
MatchApplication on a temporary SQLite file, then sums what the store holds.

    .venv/bin/python scripts/measure_event_size.py            # 200 matches, ~15 s
    .venv/bin/python scripts/measure_event_size.py --matches 40 --json

The matches are those of bench/match_service.py: Egyptian rules, alternately block-4 and
draw-2 at the default target, no turn timer, every seat making its first legal move, with
fixed server seeds (the same deals every run). It
reports the events per match, the stored `state` bytes per event (the JSON payload; the
store does not compress it), the SQLite file's size per match (payload, topic, ids and
indexes) and the size of each event's JSON as the relay publishes it to NATS, which
docs/operations.md uses for its capacity model.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import itertools
import json
import os
import sqlite3
import statistics
import tempfile
import time

from services.common.config import SQLITE_MODULE
from services.match.application import MatchApplication, SeatSpec
from services.match.public_events import public_event
from services.rules.moves import legal_moves

PLAYERS = {"draw-2": ["ann", "bob"], "block-4": ["ann", "bob", "cat", "dan"]}


async def play(app: MatchApplication, n: int) -> int:
    """Play match ``n`` to its end; returns the commands (plays and draws) it took."""
    variant = "block-4" if n % 2 == 0 else "draw-2"
    match = await app.create_match(f"size-{n}", "egyptian", variant, None, None, 0,
                                   [SeatSpec(p, f"seed-{p}-{n}") for p in PLAYERS[variant]])
    commands = 0
    while not match.finished:
        rnd = match.state.round
        move = legal_moves(rnd)[0]
        player = match.seats[rnd.turn]
        if move.kind == "draw":
            match = (await app.draw_tile(match.id, player, f"r{commands}")).match
        else:
            match = (await app.play_tile(match.id, player, move.tile, move.end, f"r{commands}")).match
        commands += 1
    return commands


async def measure(matches: int, path: str) -> dict:
    seeds = itertools.count()  # the server seeds, hence the deals, are the same every run
    app = MatchApplication(env={"PERSISTENCE_MODULE": SQLITE_MODULE, "SQLITE_DBNAME": path},
                           seed_source=lambda: hashlib.sha256(b"size-%d" % next(seeds)).digest())
    start = time.perf_counter()
    commands = [await play(app, n) for n in range(matches)]
    elapsed = time.perf_counter() - start
    notes = app.recorder.select_notifications(0, 10**9, inclusive_of_start=False)
    published = [len(json.dumps(public_event(app.mapper.to_domain_event(note))).encode()) for note in notes]
    await app.aclose()
    app.close()
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        events, state_bytes, topic_bytes = db.execute(
            "SELECT count(*), sum(length(state)), sum(length(topic)) FROM stored_events").fetchone()
        sizes = [row[0] for row in db.execute("SELECT length(state) FROM stored_events")]
    db.close()
    file_bytes = os.path.getsize(path)
    return {
        "matches": matches,
        "commands_per_match": statistics.mean(commands),
        "events": events,
        "events_per_match": events / matches,
        "state_bytes_per_event_mean": state_bytes / events,
        "state_bytes_per_event_p50": statistics.median(sizes),
        "state_bytes_per_event_max": max(sizes),
        "topic_bytes_per_event_mean": topic_bytes / events,
        "state_bytes_per_match": state_bytes / matches,
        "sqlite_file_bytes_per_match": file_bytes / matches,
        "published_bytes_per_event_mean": statistics.mean(published),
        "elapsed_s": elapsed,
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--matches", type=int, default=200, help="matches to play (default 200, ~15 s)")
    p.add_argument("--json", action="store_true", help="one JSON object on stdout")
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        result = asyncio.run(measure(args.matches, os.path.join(tmp, "match.sqlite")))
    if args.json:
        print(json.dumps(result, sort_keys=True))
    else:
        for key, value in result.items():
            print(f"{key:32} {value:,.1f}" if isinstance(value, float) else f"{key:32} {value:,}")


if __name__ == "__main__":
    main()
