"""What taking each match's result from its replay costs the history projection
(services/match/history_projection.py): `domino projections rebuild` over a SQLite store of
finished matches, and one replay of a finished match to its end, which the projection now
does for every MatchEnded instead of reading the stored winner and totals.

    .venv/bin/python bench/history_rebuild.py --json                # 60 matches, every family
    .venv/bin/python bench/history_rebuild.py --matches 200

Seeded: the moves are ``random.Random(--seed)``'s choice among the legal ones. Prints the
rebuild's seconds, events read and milliseconds per finished match, and the p50 / p99
milliseconds of one replay (``MatchApplication.match_at`` at the MatchEnded's version).
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

from services.match.history_projection import rebuild  # noqa: E402
from services.history.view import View  # noqa: E402
from services.match.application import MatchApplication, SeatSpec  # noqa: E402
from tests.support.matches import Matches, random_move  # noqa: E402

FAMILIES = [("egyptian", "draw-2", 2, None), ("egyptian", "block-4", 4, None), ("all-fives", "", 3, None),
            ("goat", "koza", 4, None), ("classic", "", 3, None), ("sports", "", 4, None)]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 3)


def play(env: dict, matches: int, rng: random.Random) -> list:
    app = Matches(MatchApplication(env=env, seed_source=lambda: rng.randbytes(32)))
    ended = []
    try:
        for n in range(matches):
            rules, variant, seats, options = FAMILIES[n % len(FAMILIES)]
            match = app.create_match(f"bench-{n}", rules, variant, None, None, 0,
                                     [SeatSpec(f"p{rng.randrange(50)}-{s}", f"s{s}") for s in range(seats)], options)
            moves = 0
            while not match.finished:
                moves += 1
                match = random_move(app, match, rng, f"{n}-{moves}")
            ended.append((match.id, match.version))
    finally:
        app.close()
    return ended


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=60)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    directory = Path(tempfile.mkdtemp(prefix="domino-bench-rebuild-"))
    try:
        env = {"PERSISTENCE_MODULE": "services.common.sqlite_store", "SQLITE_DBNAME": str(directory / "events.sqlite")}
        ended = play(env, args.matches, random.Random(args.seed))
        app = MatchApplication(env=env)
        view = View.for_env(env)
        try:
            built = rebuild(app, view)
            replays = []
            for match_id, version in ended:
                started = time.perf_counter()
                app.match_at(match_id, version)
                replays.append((time.perf_counter() - started) * 1000)
        finally:
            view.close()
            app.close()
        out = {"matches": args.matches, "events_read": built["events_read"], "rebuild_seconds": built["seconds"],
               "rebuild_ms_per_match": round(built["seconds"] * 1000 / args.matches, 2),
               "replay_ms": {"p50": percentile(replays, 0.5), "p99": percentile(replays, 0.99)},
               "results_refused": len(built["results_refused"])}
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    print(json.dumps(out) if args.json else "\n".join(f"{k}: {v}" for k, v in out.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
