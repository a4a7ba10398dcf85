"""What the match service spends per move on the streams watching the match.

    .venv/bin/python bench/watchers.py --json                      # 6 pairs of block-4 matches (~1 minute)
    .venv/bin/python bench/watchers.py --json --pairs 2 --target 51     # quicker

One move is read by many: each seat's phone holds a WatchMatch stream (often two, an old
one not yet gone), and spectators watch the public view one turn behind. This bench plays
whole matches against the real match service (``domino serve match`` on SQLite, started as
bench/match_service.py starts it) in pairs: one match with nobody watching, then one with
``--streams-per-seat`` streams for each of the four seats and ``--spectators`` spectator
streams, and so on, alternating. The server's CPU (utime+stime from /proc) per move in the
watched matches minus that in the bare ones is what the watchers cost per move
(``fanout_cpu_ms_per_move``), and over the stream messages sent per move, per message.

A match is played one command at a time: the player to act asks GetMatch for its legal
moves and sends the first one (PlayTile or DrawTile). In a watched match the next command
waits until every seated stream has received the version of the last reply, so the
fan-out of each move is done before the next one starts. The CPU window opens once every
stream has its first message and closes when every stream has ended (streams end by
themselves after MatchEnded), and then counts everything the server did for those moves.

``--server-env KEY=VALUE`` passes environment to the server (e.g. ``PYTHONPATH=<a tree>``
to measure another version of the code with the same client); ``--profile-dir DIR`` runs it
under cProfile (bench/match_service.py ``--profile-server cprofile``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

import grpc  # noqa: E402

import match_service as ms  # noqa: E402

SEATS = 4


class Watched:
    """The streams of one match, each counting its messages and the newest version it saw."""

    def __init__(self, client: ms.Client, match_id: str, players: list[str], per_seat: int, spectators: int) -> None:
        pb = client.pb
        self.seen: list[int] = []  # newest version per stream (seated streams first)
        self.messages = 0
        self.seated = per_seat * len(players)
        self.changed = asyncio.Event()
        self.first = asyncio.Event()
        who = [p for p in players for _ in range(per_seat)] + [f"{client.run}-fan{i}" for i in range(spectators)]
        self.tasks = []
        for i, player in enumerate(who):
            self.seen.append(-1)
            call = client.stub.WatchMatch(pb.WatchMatchRequest(match_id=match_id), metadata=client.md(player))
            self.tasks.append(asyncio.create_task(self._read(i, call)))

    async def _read(self, i: int, call) -> None:
        async for update in call:
            self.messages += 1
            if update.HasField("view"):
                self.seen[i] = max(self.seen[i], update.view.version)
                self.changed.set()
            if all(v >= 0 for v in self.seen):
                self.first.set()

    async def reached(self, version: int) -> None:
        """Until every seated stream has seen ``version``."""
        while min(self.seen[:self.seated]) < version:
            self.changed.clear()
            await self.changed.wait()

    async def ended(self, timeout: float = 60.0) -> None:
        await asyncio.wait_for(asyncio.gather(*self.tasks), timeout)


async def play(client: ms.Client, server_pid: int, per_seat: int, spectators: int, target: int | None) -> dict:
    """One whole block-4 match, watched by ``per_seat`` streams per seat and ``spectators``
    (none: a bare match); its moves, stream messages and the server's CPU."""
    pb = client.pb
    players = [f"{client.run}-{client.rid()}-s{s}" for s in range(SEATS)]
    req = pb.CreateMatchRequest(request_id=client.rid(), rules="egyptian", variant="block-4", turn_timer_seconds=0,
                                spectators=True, seats=[pb.SeatSpec(player_id=p, client_seed=p) for p in players])
    if target is not None:
        req.target = target
    created = await client.stub.CreateMatch(req, metadata=client.service_md)
    watched = Watched(client, created.match_id, players, per_seat, spectators) if per_seat or spectators else None
    if watched is not None:
        await asyncio.wait_for(watched.first.wait(), 30)
    messages_before = watched.messages if watched else 0
    cpu = ms.cpu_seconds(server_pid)
    view, moves = created.view, 0
    while view.status != pb.MATCH_STATUS_ENDED:
        player = players[view.turn]
        own = (await client.stub.GetMatch(pb.GetMatchRequest(match_id=created.match_id),
                                          metadata=client.md(player))).view
        move = own.legal_moves[0]
        if move.kind == pb.MOVE_KIND_DRAW:
            reply = await client.stub.DrawTile(pb.DrawTileRequest(match_id=created.match_id, request_id=client.rid()),
                                               metadata=client.md(player))
        else:
            reply = await client.stub.PlayTile(pb.PlayTileRequest(match_id=created.match_id, request_id=client.rid(),
                                                                  tile=move.tile, end=move.end),
                                               metadata=client.md(player))
        moves += 1
        view = reply.view
        if watched is not None:
            await asyncio.wait_for(watched.reached(view.version), 30)
    if watched is not None:
        await watched.ended()
    return {"moves": moves, "cpu_s": ms.cpu_seconds(server_pid) - cpu,
            "messages": (watched.messages - messages_before) if watched else 0}


async def run(args) -> dict:
    tmp = Path(tempfile.mkdtemp(prefix="bench-watchers-"))
    server_args = argparse.Namespace(server_env=args.server_env, json=args.json,
                                     profile_server="cprofile" if args.profile_dir else "none",
                                     profile_dir=str(Path(args.profile_dir).resolve()) if args.profile_dir else "")
    server = ms.MatchServer("sqlite", server_args, tmp)
    started = time.perf_counter()
    load_before = os.getloadavg()[0]
    try:
        await server.start()
        pid = server.cpu_pids["server"][0]
        async with grpc.aio.insecure_channel(server.target) as channel:
            client = ms.Client(channel, server.secret, os.urandom(3).hex())
            await play(client, pid, 0, 0, 51)  # warm-up
            bare, watched = [], []
            for n in range(args.pairs):
                order = [(bare, 0, 0), (watched, args.streams_per_seat, args.spectators)]
                for into, per_seat, spectators in order if n % 2 == 0 else order[::-1]:
                    into.append(await play(client, pid, per_seat, spectators, args.target))
                    ms.log(f"  pair {n}: {'watched' if per_seat or spectators else 'bare'} "
                           f"{into[-1]['cpu_s'] * 1000 / into[-1]['moves']:.3f} ms/move", args.json)
    finally:
        server.stop()
    per_move = [1000 * m["cpu_s"] / m["moves"] for m in watched]
    bare_per_move = [1000 * m["cpu_s"] / m["moves"] for m in bare]
    fanout = [w - b for w, b in zip(per_move, bare_per_move)]
    messages_per_move = sum(m["messages"] for m in watched) / sum(m["moves"] for m in watched)
    streams = args.streams_per_seat * SEATS + args.spectators
    return {
        "bench": "watchers", "streams": streams, "streams_per_seat": args.streams_per_seat,
        "spectators": args.spectators, "pairs": args.pairs, "target": args.target,
        "moves_watched": sum(m["moves"] for m in watched), "moves_bare": sum(m["moves"] for m in bare),
        "server_cpu_ms_per_move_watched": statistics.median(per_move),
        "server_cpu_ms_per_move_bare": statistics.median(bare_per_move),
        "fanout_cpu_ms_per_move": statistics.median(fanout), "fanout_cpu_ms_per_move_per_pair": fanout,
        "stream_messages_per_move": messages_per_move,
        "fanout_cpu_us_per_message": 1000 * statistics.median(fanout) / messages_per_move,
        "server_env": args.server_env, "loadavg_1m_before": load_before, "loadavg_1m_after": os.getloadavg()[0],
        "wall_seconds": time.perf_counter() - started, "python": platform.python_version(), "cpus": os.cpu_count(),
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--json", action="store_true", help="one JSON object on stdout (progress goes nowhere)")
    p.add_argument("--pairs", type=int, default=6, help="pairs of matches, one bare and one watched (default 6)")
    p.add_argument("--streams-per-seat", type=int, default=2, help="WatchMatch streams per seat (default 2)")
    p.add_argument("--spectators", type=int, default=10, help="spectator streams (default 10)")
    p.add_argument("--target", type=int, default=None, help="the matches' target (default: block-4's)")
    p.add_argument("--server-env", action="append", default=[], metavar="KEY=VALUE",
                   help="extra environment for the match server (repeatable)")
    p.add_argument("--profile-dir", default="", help="run the server under cProfile, its pstat file here")
    args = p.parse_args()
    if args.profile_dir:
        Path(args.profile_dir).mkdir(parents=True, exist_ok=True)
    result = asyncio.run(run(args))
    if args.json:
        print(json.dumps(result, sort_keys=True))
    else:
        for key, value in result.items():
            print(f"{key}: {value}")


if __name__ == "__main__":
    main()
