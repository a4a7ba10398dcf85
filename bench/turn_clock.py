"""How much of a turn's clock runs before the seat sees its turn (issue 34, finding 13).

    .venv/bin/python bench/turn_clock.py --json                    # the match service alone, ~1 minute
    .venv/bin/python bench/turn_clock.py --json --mode system      # practice against paced bots, ~3 minutes
    .venv/bin/python bench/turn_clock.py --json --mode system --rules sports --variant ""   # Sports' own timers

A turn's clock starts when its deadline is set: when the previous seat's command (or the
deal, or the server's own move) is applied, ``turn_deadline - turn_seconds`` on the server's
clock (or the round's ``round_starts_at`` during the pause between rounds, which a view
reaches before its clocks start). What is measured is the time from that moment to the
seat's view arriving on its WatchMatch stream; this process and the services share one
machine, so one clock.

``--mode service`` (default): the real match service (`domino serve match`, SQLite) and
``--tables`` block-4 tables of four seats played by this process, each seat on its own
stream, moving ``--think`` seconds after its turn arrives, until ``--turns`` turns were
seen. ``--mode system``: the whole local system as `domino up` runs it (NATS, relay, bots,
matchmaking), one person in practice against greedy bots at the bots' human pace
(``--bot-think``) and with the pause between rounds (``--round-pause``): besides the
person's figures, how long each bot took (its turn's start to its move) and how long before
a round's clocks start its first view arrived.

Also ``render_ms``: what the client itself takes to draw a turn's screen (services/client's
game screen, at 80x24, into a terminal Output), the last step before a player sees it.
Keys: ``person_lag_ms`` {count, p50, p99, max}; ``shown_seconds_min`` (the lowest countdown
a seat's first screen of a turn would show by the server's time in the view, and
``turn_seconds``); ``render_ms`` {p50, p99}; system mode adds ``bot_turn_s`` {count, p50,
max}, ``round_start_lead_s`` (min) and ``person_timeouts``.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import math
import os
import secrets
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import grpc  # noqa: E402
from rich.console import Console  # noqa: E402

from bench.procfs import pct  # noqa: E402
from domino.match.v1 import match_service_pb2 as pb  # noqa: E402
from domino.match.v1 import match_service_pb2_grpc as pb_grpc  # noqa: E402
from services.common.error_details import details_of  # noqa: E402

Metadata = Callable[[str, str], tuple]  # (subject, role) -> gRPC metadata with its token
RENDERED = 200  # turn screens drawn for render_ms


def seconds(ts) -> float:
    return ts.ToNanoseconds() / 1e9


@dataclass
class Figures:
    lags: list[float] = field(default_factory=list)  # a person's turn: clock start -> view on the stream
    shown: list[tuple[int, int]] = field(default_factory=list)  # (seconds a first screen shows, turn seconds)
    views: list[pb.MatchView] = field(default_factory=list)  # drawn after the run, off the measured path
    bot_turns: list[float] = field(default_factory=list)
    round_leads: list[float] = field(default_factory=list)
    timeouts: int = 0

    def summary(self) -> dict:
        out = {"person_lag_ms": _spread([x * 1000 for x in self.lags]),
               "shown_seconds_min": min(self.shown) if self.shown else None,
               "render_ms": _spread([_render_seconds(view) * 1000 for view in self.views]),
               "round_start_lead_s": _round(min(self.round_leads)) if self.round_leads else None}
        if self.bot_turns:
            out["bot_turn_s"] = _spread(self.bot_turns)
            out["person_timeouts"] = self.timeouts
        return out


def _spread(values: list[float]) -> dict:
    return {"count": len(values), "p50": _round(pct(values, 50)), "p99": _round(pct(values, 99)),
            "max": _round(max(values) if values else None)}


def _round(x: float | None) -> float | None:
    return None if x is None else round(x, 3)


def arrived(figures: Figures, view: pb.MatchView, at: float) -> bool:
    """Notes a view that gives its seat a move; True when it does."""
    mine = (view.HasField("turn") and view.HasField("your_seat") and view.turn == view.your_seat
            and any(m.kind != pb.MOVE_KIND_PASS for m in view.legal_moves))
    if not mine or not view.HasField("turn_deadline") or not view.turn_seconds:
        return mine
    began = seconds(view.turn_deadline) - view.turn_seconds
    if view.HasField("round_starts_at") and began <= seconds(view.round_starts_at) + 1e-6 and began > at:
        figures.round_leads.append(began - at)  # the round's pause: its clocks have not started
    else:
        figures.lags.append(at - began)
    left = seconds(view.turn_deadline) - seconds(view.server_time)
    figures.shown.append((min(view.turn_seconds, math.ceil(left)), view.turn_seconds))
    if len(figures.views) < RENDERED:
        figures.views.append(view)
    return True


def _render_seconds(view: pb.MatchView) -> float:
    from services.client import render
    from services.client.terminal import Output

    out = Output(Console(file=io.StringIO(), width=80, height=24, force_terminal=True), redraw=True)
    started = time.perf_counter()
    out.screen(render.game_screen(view, seconds(view.server_time)), with_prompt=True)
    return time.perf_counter() - started


async def _move(stub, match_id: str, view: pb.MatchView, metadata: tuple) -> None:
    move = next((m for m in view.legal_moves if m.kind == pb.MOVE_KIND_PLAY), view.legal_moves[0])
    try:
        if move.kind == pb.MOVE_KIND_DRAW:
            await stub.DrawTile(pb.DrawTileRequest(match_id=match_id, request_id=secrets.token_hex(8)),
                                metadata=metadata)
        else:
            await stub.PlayTile(pb.PlayTileRequest(match_id=match_id, request_id=secrets.token_hex(8), tile=move.tile,
                                                   end=move.end), metadata=metadata)
    except grpc.aio.AioRpcError as e:
        if details_of(e).reason not in ("NOT_YOUR_TURN", "ROUND_OVER", "MATCH_ENDED"):  # the turn timed out meanwhile
            raise


async def seat(stub, match_id: str, player: str, metadata: Metadata, figures: Figures, think: float,
               enough: Callable[[], bool]) -> None:
    """One seat: its stream, and a move ``think`` seconds after each turn of its arrives."""
    token = metadata(player, "player")
    stream = stub.WatchMatch(pb.WatchMatchRequest(match_id=match_id), metadata=token)
    async for update in stream:
        at = time.time()
        if not update.HasField("view"):
            continue
        view = update.view
        if view.status != pb.MATCH_STATUS_IN_PROGRESS or enough():
            stream.cancel()
            return
        if arrived(figures, view, at):
            await asyncio.sleep(think)
            await _move(stub, match_id, view, token)


async def measure_service(target: str, metadata: Metadata, tables: int = 6, turns: int = 600, think: float = 0.05,
                          timer: int = 30) -> Figures:
    """``tables`` block-4 tables played by their four seats until ``turns`` turns were seen."""
    figures = Figures()
    enough = lambda: len(figures.lags) >= turns  # noqa: E731
    async with grpc.aio.insecure_channel(target) as channel:
        stub = pb_grpc.MatchServiceStub(channel)

        async def table(n: int) -> None:
            while not enough():
                players = [f"p{n}-{s}-{secrets.token_hex(3)}" for s in range(4)]
                created = await stub.CreateMatch(pb.CreateMatchRequest(
                    request_id=secrets.token_hex(8), rules="egyptian", variant="block-4", turn_timer_seconds=timer,
                    seats=[pb.SeatSpec(player_id=p) for p in players]), metadata=metadata("bench", "service"))
                await asyncio.gather(*(seat(stub, created.match_id, p, metadata, figures, think, enough)
                                       for p in players))

        await asyncio.gather(*(table(n) for n in range(tables)))
    return figures


async def measure_practice(system, metadata: Metadata, turns: int, rules: str, variant: str, timer: int,
                           think: float) -> Figures:
    """One person in practice against greedy bots through matchmaking, as `domino play` plays."""
    from domino.matchmaking.v1 import matchmaking_service_pb2 as mm
    from domino.matchmaking.v1 import matchmaking_service_pb2_grpc as mm_grpc

    figures = Figures()
    async with grpc.aio.insecure_channel(system.matchmaking_address) as mm_channel, \
            grpc.aio.insecure_channel(system.match_address) as channel:
        stub = pb_grpc.MatchServiceStub(channel)
        while len(figures.lags) < turns:
            token = metadata(f"person-{secrets.token_hex(3)}", "player")  # one a match: freed when it ends
            request = mm.StartPracticeRequest(request_id=secrets.token_hex(8), bot_strength=pb.BOT_STRENGTH_GREEDY,
                                              rules=rules, variant=variant, turn_timer_seconds=timer)
            started = await mm_grpc.MatchmakingServiceStub(mm_channel).StartPractice(request, metadata=token)
            await stub.SubmitSeed(pb.SubmitSeedRequest(match_id=started.match_id, seed=secrets.token_hex(16)),
                                  metadata=token)
            await _practice(stub, started.match_id, token, figures, think, turns)
    return figures


async def _practice(stub, match_id: str, token: tuple, figures: Figures, think: float, turns: int) -> None:
    began: dict[int, float] = {}  # version of a view giving a bot its turn -> when that turn's clock started
    stream = stub.WatchMatch(pb.WatchMatchRequest(match_id=match_id), metadata=token)
    async for update in stream:
        at = time.time()
        if not update.HasField("view"):
            continue
        view, event = update.view, update.event
        mine = event.HasField("seat") and event.seat == view.your_seat
        if event.kind in (pb.EVENT_KIND_TILE_PLAYED, pb.EVENT_KIND_TILE_DRAWN, pb.EVENT_KIND_TURN_PASSED) and not mine:
            start = began.pop(event.version - 1, None)
            if start is not None:
                figures.bot_turns.append(seconds(event.occurred_at) - start)
        if mine and event.cause == pb.MOVE_CAUSE_TIMEOUT:
            figures.timeouts += 1
        if view.status == pb.MATCH_STATUS_WAITING_FOR_SEEDS:
            continue  # the stream begins before the first deal
        if view.status != pb.MATCH_STATUS_IN_PROGRESS or len(figures.lags) >= turns:
            stream.cancel()
            return
        if view.HasField("turn") and view.turn != view.your_seat and view.HasField("turn_deadline"):
            began[view.version] = seconds(view.turn_deadline) - view.turn_seconds
        if arrived(figures, view, at):
            await asyncio.sleep(think)
            await _move(stub, match_id, view, token)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mode", choices=("service", "system"), default="service")
    parser.add_argument("--tables", type=int, default=6)
    parser.add_argument("--turns", type=int, default=None, help="a person's turns to see (600; system mode: 40)")
    parser.add_argument("--think", type=float, default=0.05, help="seconds a seat of this process waits to move")
    parser.add_argument("--timer", type=int, default=30)
    parser.add_argument("--rules", default="egyptian")
    parser.add_argument("--variant", default="block-4")
    parser.add_argument("--bot-think", default="0.6,1.5", help="system mode: the bots' think time, least,most")
    parser.add_argument("--round-pause", type=float, default=8.0, help="system mode: the pause between rounds")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    args.turns = args.turns or (600 if args.mode == "service" else 40)
    from services.common.auth import mint_token
    from services.common.supervisor import LocalSystem, Ports

    least, most = args.bot_think.split(",")
    env = {"DOMINO_COMMAND_RATE": "1000000", "DOMINO_COMMAND_BURST": "1000000",
           "DOMINO_BOT_THINK_MIN_SECONDS": least, "DOMINO_BOT_THINK_MAX_SECONDS": most,
           "DOMINO_ROUND_PAUSE_SECONDS": str(args.round_pause)}
    services = ("match",) if args.mode == "service" else ("match", "relay", "accounts", "bots", "matchmaking")
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="turn-clock-") as tmp:
        system = LocalSystem(Path(tmp) / "var", Ports.free(), services=services, extra_env=env)
        system.start(timeout=90)
        try:
            keys = system.keys()

            def metadata(subject: str, role: str) -> tuple:
                return (("authorization", f"Bearer {mint_token(subject, keys, role)}"),)

            if args.mode == "service":
                figures = asyncio.run(measure_service(system.match_address, metadata, args.tables, args.turns,
                                                      args.think, args.timer))
            else:
                figures = asyncio.run(measure_practice(system, metadata, args.turns, args.rules, args.variant,
                                                       args.timer, args.think))
        finally:
            system.stop()
    result = {"mode": args.mode, **figures.summary(), "turns": args.turns, "timer": args.timer,
              "elapsed_s": round(time.perf_counter() - started, 1), "loadavg_1m": os.getloadavg()[0]}
    if args.mode == "system":
        result.update(rules=args.rules, variant=args.variant, bot_think=args.bot_think, round_pause=args.round_pause)
    print(json.dumps(result) if args.json else json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
