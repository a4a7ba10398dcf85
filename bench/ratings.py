"""How long a rating update and a leaderboard query take with 100,000 rated players, on SQLite
and on PostgreSQL (the history view, services/history/view.py).

    .venv/bin/python bench/ratings.py --json                 # both stores, 100,000 players
    .venv/bin/python bench/ratings.py --players 10000 --stores sqlite

Seeded: the players' ratings come from ``random.Random(--seed)``. Each store gets the same
players in one family ("egyptian/solo"), then ``--repeat`` times: a two-player match is
started and ended through ``View.apply`` (one transaction: the history rows, both players'
ratings read and written, the tracking position), a ``GetLeaderboard`` (top 10 and the
caller's rank and the rated count: ``View.leaderboard`` + ``View.rating``), and a
``GetRating`` of a random player. Prints p50 / p99 milliseconds of each.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from services.history.summary import Ended, Started, fresh  # noqa: E402
from services.history.view import View  # noqa: E402


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 3)


def seed_players(view: View, players: int, rng: random.Random) -> float:
    started = time.perf_counter()
    base = fresh()
    rows = []
    for i in range(players):
        mu = rng.gauss(base.mu, 4.0)
        sigma = rng.uniform(1.5, base.sigma)
        rows.append(("egyptian/solo", f"player-{i}", mu, sigma, mu - 3 * sigma, rng.randint(1, 200)))
    with view._transaction() as execute:
        for row in rows:
            execute("INSERT INTO domino_ratings (rating_key, player_id, mu, sigma, ordinal, matches) "
                    "VALUES (?, ?, ?, ?, ?, ?)", *row)
        execute("INSERT INTO domino_rated_players (rating_key, players) VALUES (?, ?)", "egyptian/solo", players)
    with view._transaction() as execute:
        execute("ANALYZE")  # as autovacuum would have by then (PostgreSQL's statistics; SQLite's too)
    return time.perf_counter() - started


def measure(view: View, players: int, repeat: int, rng: random.Random) -> dict:
    update, board, single = [], [], []
    position = view.position()
    for n in range(repeat):
        a, b = rng.sample(range(players), 2)
        match_id = f"00000000-0000-0000-0000-{n:012d}"
        position += 1
        view.apply([Started(match_id, "egyptian", "draw-2", False, (f"player-{a}", f"player-{b}"), 1.0 + n)],
                   position)
        position += 1
        t = time.perf_counter()
        view.apply([Ended(match_id, rng.randint(0, 1), (rng.randint(0, 100), rng.randint(0, 100)), False, 2.0 + n)],
                   position)
        update.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        view.leaderboard("egyptian", False, 10)
        view.rating("egyptian", False, f"player-{a}")
        board.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        view.rating("egyptian", False, f"player-{rng.randrange(players)}")
        single.append((time.perf_counter() - t) * 1000)
    return {"rating_update_ms": {"p50": percentile(update, 0.5), "p99": percentile(update, 0.99)},
            "leaderboard_query_ms": {"p50": percentile(board, 0.5), "p99": percentile(board, 0.99)},
            "get_rating_ms": {"p50": percentile(single, 0.5), "p99": percentile(single, 0.99)}}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--players", type=int, default=100_000)
    p.add_argument("--repeat", type=int, default=200)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--stores", nargs="+", choices=["sqlite", "postgres"], default=["sqlite", "postgres"])
    p.add_argument("--json", action="store_true", help="one JSON object on stdout")
    args = p.parse_args()
    out: dict = {"players": args.players, "repeat": args.repeat, "seed": args.seed}
    tmp = Path(tempfile.mkdtemp(prefix="domino-bench-ratings-"))
    try:
        for store in args.stores:
            rng = random.Random(args.seed)
            pg = None
            if store == "postgres":
                from services.common.servers import start_postgres

                pg = start_postgres(tmp / "pgdata")
                view = View.for_env(pg.eventsourcing_env())
            else:
                view = View.for_env({}, sqlite_path=str(tmp / "history.sqlite"))
            try:
                view.create()
                seeded = seed_players(view, args.players, rng)
                out[store] = {"seed_seconds": round(seeded, 2), **measure(view, args.players, args.repeat, rng)}
            finally:
                view.close()
                if pg is not None:
                    pg.stop()
            if not args.json:
                print(store, json.dumps(out[store]), file=sys.stderr)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(json.dumps(out) if args.json else json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
