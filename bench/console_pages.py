"""Page loads of the staff's console with a store of 1,000 matches (issue 39's figures): the
*Now* page, a *Players* search and an account's page, and a 300-move match's replay.

    .venv/bin/python bench/console_pages.py --json              # 1,000 matches, 30 loads a page
    .venv/bin/python bench/console_pages.py --smoke --json      # 60 matches, 5 loads (under 3 minutes)

It starts PostgreSQL (``services.common.servers.start_postgres``), NATS and the match service,
the relay, the account service and the console as ``domino up`` does
(``services.common.supervisor.LocalSystem``, the console's rate limit lifted), signs
``--players`` players up (SignInWithDevice), then fills the store through the match service's
own write path (``MatchApplication``, the application its gRPC adapter calls, on the same
PostgreSQL; the relay publishes every event and feeds the history the admin APIs read):
``--matches`` matches of every family between those players, most abandoned after a few
moves, one in twenty played to the end and one in twenty left in play, and ``--long``
Sports matches at four seats (its default target: 330-540 moves) played to the end with at
least ``--long-moves`` moves each, for the replay. Once the history has caught up (the relay's
``domino_history_lag_events`` is 0), it signs in with the console's one-time local link (a
local operator with all four roles) and loads, ``--loads`` times each, one after another:

* ``now``: ``GET /now`` and its figures fragment ``GET /now/figures`` (loads close together
  share the console's last scrape of the services' metrics);
* ``now_fresh``: the same, each load ``DOMINO_CONSOLE_SCRAPE_EVERY_SECONDS`` after the last, so
  that each waits for a fresh scrape of every service (``--fresh-loads`` of them);
* ``players``: ``GET /players?q=<a display name>`` and the account page ``GET /players/<id>``;
* ``replay_first``: the first ``GET /matches/<id>?move=0`` of each long match: the export
  (ExportMatch), the head keys, the witness read from NATS, the checks `domino audit verify`
  makes and the page (the console then keeps the replay for the next steps);
* ``replay``: ``GET /matches/<id>?move=N`` of a long match already opened, N spread over its
  moves;
* ``replay_step``: ``GET /matches/<id>/step?move=N``, the fragment a step forward loads.

A load's time is the client's, from the first request's start to the last response's end
(the server's time to full HTML and its fragments, over loopback). CPU per load is read from
/proc (utime + stime) for the console, the match service and the account service, over each
kind's loads. Timed assertions never go in tests: this prints figures, it judges nothing.

Keys: ``pages`` (per kind ``p50_ms``, ``p95_ms``, ``max_ms``, ``console_cpu_ms``,
``match_cpu_ms``, ``account_cpu_ms``, ``bytes``, ``loads``, ``errors``), ``matches``,
``long_matches`` (their ids and moves), ``fill_seconds``, ``players``, ``loadavg_1m_before``,
``loadavg_1m_after``, ``commit``, ``elapsed_s``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import secrets
import shutil
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import grpc  # noqa: E402
import httpx  # noqa: E402

from bench.procfs import cpu_seconds, git_commit, loadavg, pct  # noqa: E402
from domino.account.v1 import account_service_pb2 as account_pb  # noqa: E402
from domino.account.v1 import account_service_pb2_grpc as account_grpc  # noqa: E402
from services.common.servers import start_postgres  # noqa: E402
from services.common.supervisor import LocalSystem, Ports  # noqa: E402
from services.match.application import MatchApplication, SeatSpec  # noqa: E402
from tests.support.matches import Matches, random_move  # noqa: E402

SERVICES = ("match", "relay", "accounts", "console")
# (rules, variant, seats): every family, as ListMatches and the Now page show them
FAMILIES = [("egyptian", "draw-2", 2), ("egyptian", "block-4", 4), ("all-fives", "", 3), ("goat", "koza", 4),
            ("classic", "", 3), ("sports", "", 4), ("egyptian", "block-3", 3)]
LONG = ("sports", "", 4)  # the family whose matches run longest at their default target (330-540 moves)
PLAYED_OUT = ("egyptian", "draw-2", 2)  # the quickest whole match (target 51)
KINDS = ("now", "now_fresh", "players", "replay_first", "replay", "replay_step")
SCRAPE_EVERY_SECONDS = 2.0  # the console's DOMINO_CONSOLE_SCRAPE_EVERY_SECONDS in this run


def log(message: str) -> None:
    print(f"[console_pages {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def sign_up(address: str, count: int) -> list[tuple[str, str]]:
    """``count`` guest accounts (player id, display name), as phones make them."""
    players = []
    with grpc.insecure_channel(address) as channel:
        stub = account_grpc.AccountServiceStub(channel)
        for n in range(count):
            reply = stub.SignInWithDevice(account_pb.SignInWithDeviceRequest(
                device_id=f"bench-console-{n}-{secrets.token_hex(4)}", device_secret=secrets.token_hex(32),
                display_name=f"Bencher{n:03d}"), timeout=10)
            players.append((reply.session.player_id, reply.session.display_name))
    return players


def play_to_end(app: Matches, match: Any, rng: random.Random, tag: str) -> tuple[Any, int]:
    moves = 0
    while not match.finished:
        moves += 1
        match = random_move(app, match, rng, f"{tag}-{moves}")
    return match, moves


def fill(env: dict[str, str], players: list[str], matches: int, long: int, long_moves: int,
         seed: int) -> list[tuple[str, int]]:
    """``matches`` matches in the store, the last ``long`` of them finished with at least
    ``long_moves`` moves: [(id, moves)] of those."""
    rng = random.Random(seed)
    app = Matches(MatchApplication(env=env, seed_source=lambda: rng.randbytes(32)))

    def create(n: int, family: tuple[str, str, int]) -> Any:
        rules, variant, seats = family
        chosen = rng.sample(players, seats)
        return app.create_match(f"bench-console-{seed}-{n}", rules, variant, None, None, 0,
                                [SeatSpec(player, f"seed-{n}-{s}") for s, player in enumerate(chosen)])

    try:
        for n in range(matches - long):
            if n % 20 == 1:
                play_to_end(app, create(n, PLAYED_OUT), rng, f"{n}")
                continue
            match = create(n, FAMILIES[n % len(FAMILIES)])
            for k in range(rng.randrange(1, 12)):
                if match.finished:
                    break
                match = random_move(app, match, rng, f"{n}-{k}")
            if n % 20 != 0 and not match.finished:
                app.abandon_match(match.id, match.version, 600.0)
            if n and n % 200 == 0:
                log(f"{n} matches stored")
        made: list[tuple[str, int]] = []
        attempt = 0
        while len(made) < long:
            match, moves = play_to_end(app, create(matches + attempt, LONG), rng, f"long-{attempt}")
            attempt += 1
            if moves >= long_moves:
                made.append((str(match.id), moves))
        return made
    finally:
        app.close()


def metric(port: int, name: str) -> float | None:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as reply:
        text = reply.read().decode()
    found = re.search(rf"^{name}(?:{{[^}}]*}})? ([0-9.e+-]+)$", text, re.M)
    return float(found.group(1)) if found else None


def wait_for_history(system: LocalSystem, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if metric(system.ports.relay_metrics, "domino_history_lag_events") == 0:
            return
        time.sleep(0.5)
    raise TimeoutError(f"the history did not catch up in {timeout} s")


def measure(client: httpx.Client, pids: dict[str, int], kind: str, requests: list[list[str]],
            pause: float = 0.0) -> dict[str, Any]:
    """Each entry of ``requests`` is one load: its URLs, fetched one after another, each
    answering 200 with the text after its ``#`` (when it has one) or counted in ``errors``; ``pause``
    seconds before each load, outside its time; the CPU of the pauses is counted, so a pause
    is only for what a load must wait for)."""
    times, sizes, errors = [], [], 0
    cpu_before = {name: cpu_seconds(pid) for name, pid in pids.items()}
    for urls in requests:
        time.sleep(pause)
        started = time.perf_counter()
        size = 0
        for url in urls:
            path, _, expected = url.partition("#")
            reply = client.get(path)
            size += len(reply.content)
            if reply.status_code != 200 or expected not in reply.text:
                errors += 1
                log(f"{kind}: {path} answered {reply.status_code}"
                    + (f" without {expected!r}" if expected not in reply.text else ""))
        times.append((time.perf_counter() - started) * 1000)
        sizes.append(size)
    loads = len(requests)
    cpu = {f"{name}_cpu_ms": round((cpu_seconds(pid) - cpu_before[name]) * 1000 / loads, 2)
           for name, pid in pids.items()}
    return {"p50_ms": round(pct(times, 50) or 0, 2), "p95_ms": round(pct(times, 95) or 0, 2),
            "max_ms": round(max(times), 2), **cpu, "bytes": int(sum(sizes) / loads), "loads": loads, "errors": errors}


def run_pages(system: LocalSystem, players: list[tuple[str, str]], long: list[tuple[str, int]], loads: int,
              fresh_loads: int, rng: random.Random) -> dict[str, Any]:
    pids = {"console": system.processes["console"].pid, "match": system.processes["match"].pid,
            "account": system.processes["accounts"].pid}
    with httpx.Client(base_url=system.console_url, follow_redirects=True, timeout=60) as client:
        link = system.console_sign_in_link()
        signed = client.get(link)
        if signed.status_code != 200:
            raise RuntimeError(f"the local link answered {signed.status_code}")
        # a first load of the pages, not measured: the console's first scrape, templates compiled
        client.get("/now"), client.get("/now/figures"), client.get(f"/players?q={players[0][1]}")
        picked = [rng.choice(players) for _ in range(loads)]
        long_id, long_moves = long[0]
        moves = [round(i * long_moves / max(1, loads - 1)) for i in range(loads)]
        plan = {
            "now": [["/now", "/now/figures"] for _ in range(loads)],
            "now_fresh": [["/now", "/now/figures"] for _ in range(fresh_loads)],
            "players": [[f"/players?q={name}#{player_id}", f"/players/{player_id}#{name}"]
                        for player_id, name in picked],
            "replay_first": [[f"/matches/{match_id}?move=0#{match_id}"] for match_id, _ in long],
            "replay": [[f"/matches/{long_id}?move={n}"] for n in moves],
            "replay_step": [[f"/matches/{long_id}/step?move={n}"] for n in moves],
        }
        return {kind: measure(client, pids, kind, plan[kind], SCRAPE_EVERY_SECONDS + 0.2 if kind == "now_fresh"
                              else 0.0) for kind in KINDS}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=1000)
    parser.add_argument("--players", type=int, default=60)
    parser.add_argument("--loads", type=int, default=30, help="loads of each page")
    parser.add_argument("--long", type=int, default=10, help="long finished matches (each replayed once cold)")
    parser.add_argument("--long-moves", type=int, default=300, help="at least this many moves in each long match")
    parser.add_argument("--fresh-loads", type=int, default=10, help="loads of the Now page each on a fresh scrape")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--smoke", action="store_true", help="60 matches, 20 players, 5 loads a page, 3 long "
                                                            "matches, 3 fresh Now loads")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.smoke:
        args.matches, args.players, args.loads, args.long, args.fresh_loads = 60, 20, 5, 3, 3
    started = time.monotonic()
    load_before = loadavg()
    tmp = Path(tempfile.mkdtemp(prefix="domino-bench-console-"))
    log(f"starting PostgreSQL and the system in {tmp}")
    pg = start_postgres(tmp / "pg")
    store_env = pg.eventsourcing_env()
    system = LocalSystem(tmp / "var", Ports.free(), services=SERVICES, extra_env={
        # one member of staff loading pages back to back calls the services faster than the
        # per-caller limit lets anyone (20 a second): lifted, so the figures are the pages' own
        **store_env, "DOMINO_LOG_FORMAT": "json", "DOMINO_SIGN_INS_PER_MINUTE": "1000000",
        "DOMINO_COMMAND_RATE": "1000000", "DOMINO_COMMAND_BURST": "1000000",
        "DOMINO_CONSOLE_ACTIONS_PER_MINUTE": "1000000", "DOMINO_CONSOLE_SCRAPE_EVERY_SECONDS": str(SCRAPE_EVERY_SECONDS)})
    result: dict[str, Any] = {"bench": "console_pages"}
    try:
        system.start()
        players = sign_up(system.account_address, args.players)
        log(f"{len(players)} players signed up; storing {args.matches} matches")
        fill_started = time.monotonic()
        long = fill(store_env, [p for p, _ in players], args.matches, args.long, args.long_moves, args.seed)
        result["fill_seconds"] = round(time.monotonic() - fill_started, 1)
        log(f"stored in {result['fill_seconds']} s; the long matches have {[m for _, m in long]} moves")
        wait_for_history(system, 120)
        result["pages"] = run_pages(system, players, long, args.loads, args.fresh_loads, random.Random(args.seed))
        result.update({"matches": args.matches, "players": args.players,
                       "long_matches": [{"id": match_id, "moves": moves} for match_id, moves in long]})
    finally:
        system.stop()
        pg.stop()
        if args.keep:
            log(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    result.update({"loadavg_1m_before": load_before, "loadavg_1m_after": loadavg(), "commit": git_commit(),
                   "elapsed_s": round(time.monotonic() - started, 1)})
    if args.json:
        print(json.dumps(result))
    else:
        for kind, figures in result["pages"].items():
            print(f"{kind:12} p50 {figures['p50_ms']:8.1f} ms  p95 {figures['p95_ms']:8.1f} ms  console "
                  f"{figures['console_cpu_ms']:7.1f} ms CPU a load  ({figures['loads']} loads, {figures['errors']} errors)")
    return 0


if __name__ == "__main__":
    asyncio.set_event_loop_policy(None)
    sys.exit(main())
