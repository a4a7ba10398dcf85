"""What open WatchMatch streams cost the system while nobody moves, after a real table's life.

    .venv/bin/python bench/idle_streams.py --json                              # 250 matches, SQLite, one replica
    .venv/bin/python bench/idle_streams.py --json --store postgres --replicas 2
    .venv/bin/python bench/idle_streams.py --json --matches 100 --window 15 --store postgres --replicas 2
    .venv/bin/python bench/idle_streams.py --json --no-bots --turn-timer 0 --moves 0 --chats 0 --reconnect-share 0

People are slow: a table of four sits through seconds between moves, and most of the time
every phone at it holds a WatchMatch stream open and waits. So the number of tables one
process can hold is set by what a *waiting* stream costs, in CPU and in memory, not by the
cost of a move. This bench measures exactly that, after the life a table has had by then.

What runs (bench/idle_system.py): ``services.common.supervisor``'s LocalSystem with NATS
(JetStream), the match service (one process, or two with ``--replicas 2``, each on its own
port: on one SQLite file, or on one embedded PostgreSQL with ``--store postgres``), the relay
and, with ``--bots`` (the default), the bot service (bots at their production think time),
development keys made for the run and no other DOMINO_ setting than the bench's. This
process is only the client (grpc.aio). It creates ``--matches`` block-4 matches with a
service token, at the service's default turn clock (45 s; ``--turn-timer``), ``--bot-seats``
(1) of the four seats ``bot:greedy:<n>`` (table_life.bot_seats), and opens one WatchMatch
stream per person from version 0 (the player's own token), spread over channels of
``--streams-per-channel`` streams each (the servers allow 100 calls per HTTP/2 connection),
the streams of one match split over the replicas ((match + seat) mod replicas). A stream is
open when its first update arrived.

Then the tables live (bench/table_life.py): the people make half of ``--moves`` (4) moves
at every table, each through their own replica, the bots answering through the bot service
(so turn deadlines were armed and superseded); ``--chats`` (2) quick-chat phrases a table;
``--reconnect-share`` (a third) of the streams close, as a phone that lost its connection;
the people make the rest of the moves; the closed streams reopen ``from_version`` the version
they had (and receive what they missed). Every table comes to rest at a person's turn.

Then, ``--settle`` seconds later (longer than DOMINO_MEMORY_RELEASE_SECONDS, so the
allocator's trim has run on both sides of the comparison), a window of ``--window`` seconds
in which nobody moves: the match processes' CPU (utime+stime, /proc) over open streams and
seconds is ``idle_stream_cpu_ms_per_s``, every process's CPU is ``window_cpu_ms_per_s``
(each replica, relay, bots, NATS, PostgreSQL), and what the replicas counted in it
(commands, phrases, turns their timers expired, matches those timers read) and the updates
the streams received say whether anything moved. The resting turns' deadlines are compared
with the window's end: a timeout in the window measures a move, not waiting
(``deadlines_in_window``). Their VmRSS before the streams were opened and after the life
with them open, over the streams, is ``stream_rss_kb``.

``--probe`` then makes ``--probes`` moves, one at a time, each in a different match at a
person's turn (a play; ``probe_skipped`` when the hand has none): a GetMatch of the player
to act (for its legal moves), a PlayTile, and the time from sending the PlayTile until each
of the table's other people's streams received that version.

The machine is shared and small: CPU is read from /proc, never from wall-clock time. The
servers run the code beside this file (PYTHONPATH), so to measure a commit, run the bench of
an extracted copy: ``git archive C | tar -x -C /tmp/c; .venv/bin/python /tmp/c/bench/idle_streams.py``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import platform
import random
import resource
import shutil
import sys
import tempfile
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import grpc  # noqa: E402

from domino.match.v1 import match_service_pb2 as pb  # noqa: E402
from domino.match.v1 import match_service_pb2_grpc as pb_grpc  # noqa: E402
from services.common.config import SQLITE_MODULE, Settings  # noqa: E402
from bench.procfs import cpu_seconds, git_commit, loadavg, memory_kb, pct, tree_cpu_seconds  # noqa: E402,F401
from bench.idle_system import IdleSystem, cpu_by_process, metric_total, scrape  # noqa: E402
from bench.table_life import (SEATS, LifeCounts, Table, bot_seats, play_all, reconnecting, seat_specs,  # noqa: E402
                              talk)

COMMANDS = ("PlayTile", "DrawTile")
Streams = dict[tuple[str, int], asyncio.Task]  # (match id, seat) -> the task following its stream
# The settings an idle stream's cost depends on, reported with every run.
REPORTED_SETTINGS = ("watch_poll_seconds", "streams_per_process", "spectator_streams_per_process",
                     "streams_per_caller", "grpc_max_concurrent_calls", "grpc_max_concurrent_streams",
                     "memory_release_seconds", "grpc_keepalive_seconds")
UNARY_HEADROOM = 500  # calls above the streams when the bench must raise DOMINO_GRPC_MAX_CONCURRENT_CALLS


# ---------------------------------------------------------------------------------------
# pure helpers (tests/unit/test_bench_idle_streams.py)


def rnd(value: float | None, digits: int = 3) -> float | None:
    return None if value is None or not math.isfinite(value) else round(value, digits)


def channels_needed(streams: int, per_channel: int) -> int:
    """Channels (HTTP/2 connections) to hold ``streams`` at ``per_channel`` each; at least one."""
    return max(1, math.ceil(streams / per_channel))


def replica_of(match_index: int, seat: int, replicas: int) -> int:
    """Which replica a seat's stream (and its moves) go to: each match's seats alternate, so
    with two replicas every match has streams on both and a move must cross to reach half."""
    return (match_index + seat) % replicas


def limits_env(streams_per_replica: int, defaults: dict[str, Any]) -> dict[str, str]:
    """The service environment that lets one process hold ``streams_per_replica`` streams:
    nothing when the defaults already do, else the process cap just above them and the
    calls cap above that (Settings requires calls > streams)."""
    env: dict[str, str] = {}
    cap = int(defaults["streams_per_process"])
    if streams_per_replica > cap:
        cap = streams_per_replica + 64
        env["DOMINO_STREAMS_PER_PROCESS"] = str(cap)
    calls = int(defaults["grpc_max_concurrent_calls"])
    if calls and calls < cap + UNARY_HEADROOM:
        env["DOMINO_GRPC_MAX_CONCURRENT_CALLS"] = str(cap + UNARY_HEADROOM)
    return env


def settings_used(service_env: dict[str, str]) -> dict[str, Any]:
    """The values the match processes run with for REPORTED_SETTINGS: the code's defaults
    unless the bench's service environment (the only DOMINO_ variables they get) says
    otherwise; the spectators' share is derived as the service derives it when unset."""
    out: dict[str, Any] = {}
    for name in REPORTED_SETTINGS:
        env_name = f"DOMINO_{name.upper()}"
        field_info = Settings.model_fields[name]
        default = field_info.default
        if env_name in service_env:
            out[env_name] = int(service_env[env_name]) if default is None else type(default)(service_env[env_name])
        else:
            out[env_name] = default
    if out["DOMINO_SPECTATOR_STREAMS_PER_PROCESS"] is None:
        out["DOMINO_SPECTATOR_STREAMS_PER_PROCESS"] = f"(unset: {int(out['DOMINO_STREAMS_PER_PROCESS']) // 4})"
    return out


def idle_figures(cpu_seconds: float, streams: int, window_seconds: float, rss_before_kb: int,
                 rss_open_kb: int) -> dict[str, float | None]:
    """CPU per open stream per second of the window (ms/s), and memory per open stream (KB)."""
    if streams <= 0 or window_seconds <= 0:
        return {"idle_stream_cpu_ms_per_s": None, "stream_rss_kb": None}
    return {"idle_stream_cpu_ms_per_s": cpu_seconds * 1000.0 / streams / window_seconds,
            "stream_rss_kb": (rss_open_kb - rss_before_kb) / streams}


# ---------------------------------------------------------------------------------------
# /proc


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def log(msg: str) -> None:
    print(f"[idle_streams {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------
# the client: the people of each table, watching


@dataclass
class Book:
    """What the streams received: when each (match, seat) got each version."""
    opened: set[tuple[str, int]] = field(default_factory=set)
    received: dict[tuple[str, int], dict[int, float]] = field(default_factory=dict)
    ended: Counter = field(default_factory=Counter)  # status code (or OK) of streams that ended
    updates: int = 0
    chats: int = 0  # table talk the streams received
    arrived: dict[tuple[str, int, int], asyncio.Event] = field(default_factory=dict)

    def got(self, key: tuple[str, int], version: int) -> None:
        now = time.perf_counter()
        self.opened.add(key)
        self.updates += 1
        self.received.setdefault(key, {})[version] = now
        waiting = self.arrived.pop((key[0], key[1], version), None)
        if waiting is not None:
            waiting.set()

    async def wait_for(self, key: tuple[str, int], version: int, timeout: float) -> float | None:
        """When the stream ``key`` received ``version`` (perf_counter), None if not in time."""
        if version in self.received.get(key, {}):
            return self.received[key][version]
        event = self.arrived.setdefault((key[0], key[1], version), asyncio.Event())
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(event.wait(), timeout)
        return self.received.get(key, {}).get(version)

    def got_chat(self, key: tuple[str, int]) -> None:
        self.opened.add(key)
        self.updates += 1
        self.chats += 1

    def last_version(self, key: tuple[str, int]) -> int:
        """The newest version stream ``key`` received (0: none), where its reconnect resumes."""
        return max(self.received.get(key, {0: 0.0}))


class Client:
    """Channels to each replica (one per ``per_channel`` streams, plus one for unary calls)
    and the tokens, minted with the run's keys."""

    def __init__(self, keys, targets: list[str], per_channel: int) -> None:
        from services.common.auth import mint_token

        self._mint = mint_token
        self.keys = keys
        self.targets = targets
        self.per_channel = per_channel
        self.stream_channels: list[list[grpc.aio.Channel]] = [[] for _ in targets]
        self.streams_on: list[int] = [0 for _ in targets]
        self._all: list[grpc.aio.Channel] = []
        self.unary = [pb_grpc.MatchServiceStub(self._channel(t)) for t in targets]
        self.service_md = (("authorization", "Bearer " + mint_token("bench-idle-streams", keys, "service")),)
        self._tokens: dict[str, tuple] = {}

    def _channel(self, target: str) -> grpc.aio.Channel:
        # its own connection: channels with the same target otherwise share one subchannel
        channel = grpc.aio.insecure_channel(target, options=[("grpc.use_local_subchannel_pool", 1)])
        self._all.append(channel)
        return channel

    def md(self, player: str) -> tuple:
        md = self._tokens.get(player)
        if md is None:
            md = (("authorization", "Bearer " + self._mint(player, self.keys, "player")),)
            self._tokens[player] = md
        return md

    def unary_for(self, table: Table, seat: int) -> pb_grpc.MatchServiceStub:
        """The stub a seat's phone calls: its stream's replica."""
        return self.unary[replica_of(table.index, seat, len(self.targets))]

    def stream_stub(self, replica: int) -> pb_grpc.MatchServiceStub:
        """A stub on a channel of ``replica`` with room for one more stream."""
        channels = self.stream_channels[replica]
        if self.streams_on[replica] % self.per_channel == 0:
            channels.append(self._channel(self.targets[replica]))
        self.streams_on[replica] += 1
        return pb_grpc.MatchServiceStub(channels[-1])

    @property
    def channels(self) -> int:
        return sum(len(c) for c in self.stream_channels) + len(self.unary)

    async def close(self) -> None:
        for channel in self._all:
            await channel.close()


async def create_tables(client: Client, matches: int, run: str, bots: int, turn_timer: int | None,
                        concurrency: int = 32) -> list[Table]:
    """``matches`` block-4 matches of four seats, ``bots`` of them bots (``bot_seats``),
    created through replica 0 with a service token; ``turn_timer`` None: the default clock."""
    tables: list[Table | None] = [None] * matches
    queue = iter(range(matches))

    async def worker() -> None:
        for i in queue:
            players = [f"idle-{run}-m{i}-s{s}" for s in range(SEATS)]
            robots = bot_seats(i, bots)
            req = pb.CreateMatchRequest(request_id=f"{run}-create-{i}", rules="egyptian", variant="block-4",
                                        seats=seat_specs(players, robots))
            if turn_timer is not None:
                req.turn_timer_seconds = turn_timer
            resp = await client.unary[0].CreateMatch(req, metadata=client.service_md, timeout=60)
            tables[i] = Table(resp.match_id, players, _turn(resp.view), index=i, bots=robots)

    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return [t for t in tables if t is not None]


async def follow(stub: pb_grpc.MatchServiceStub, table: Table, seat: int, md: tuple, book: Book,
                 from_version: int = 0) -> None:
    """One seat's stream until the bench cancels it: from version 0 (the current view first,
    then every event), or, reconnecting, from the version it had (every event after it)."""
    key = (table.match_id, seat)
    call = stub.WatchMatch(pb.WatchMatchRequest(match_id=table.match_id, from_version=from_version), metadata=md)
    try:
        async for update in call:
            if update.HasField("event"):
                book.got(key, update.event.version)
            elif update.HasField("view"):
                book.got(key, update.view.version)
            elif update.HasField("chat"):
                book.got_chat(key)
        book.ended["OK"] += 1
    except grpc.aio.AioRpcError as e:
        if e.code() != grpc.StatusCode.CANCELLED:
            book.ended[e.code().name] += 1
    except asyncio.CancelledError:
        call.cancel()
        raise


async def open_streams(client: Client, tables: list[Table], replicas: int, book: Book, timeout: float,
                       spread: float, seed: int, batch: int = 200) -> tuple[Streams, float]:
    """Open every person's stream, in a shuffled order at a steady pace over at least
    ``spread`` seconds, at most ``batch`` waiting for their first update at a time; the
    tasks and the seconds it took (``timeout`` bounds the wait for the last ones).

    Phones join a table at different moments, so the streams of one match do not wake in
    step: opened together, a timed re-read of one stream would be shared by the match's
    other three (services/match/watch_reads.py) and the bench would flatter the poll."""
    tasks: Streams = {}
    start = time.perf_counter()
    keys = [(i, seat) for i in range(len(tables)) for seat in tables[i].people]
    random.Random(seed).shuffle(keys)

    def waiting() -> int:
        return len(tasks) - len(book.opened) - sum(book.ended.values())

    for k, (i, seat) in enumerate(keys):
        delay = start + spread * k / len(keys) - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        while waiting() >= batch and time.perf_counter() < start + timeout:
            await asyncio.sleep(0.01)
        table = tables[i]
        stub = client.stream_stub(replica_of(i, seat, replicas))
        tasks[(table.match_id, seat)] = asyncio.create_task(follow(stub, table, seat, client.md(table.players[seat]),
                                                                   book))
    while waiting() > 0 and time.perf_counter() < start + timeout:
        await asyncio.sleep(0.05)
    return tasks, time.perf_counter() - start


async def drop(streams: Streams, keys: list[tuple[str, int]]) -> None:
    """The phones of ``keys`` lose their connection: their streams end."""
    lost = [streams.pop(key) for key in keys if key in streams]
    for task in lost:
        task.cancel()
    await asyncio.gather(*lost, return_exceptions=True)


def reopen(client: Client, tables: dict[str, Table], book: Book, streams: Streams, keys: list[tuple[str, int]]) -> int:
    """Those phones back: each stream again, from the version it had; how many."""
    for match_id, seat in keys:
        table = tables[match_id]
        stub = client.stream_stub(replica_of(table.index, seat, len(client.targets)))
        streams[(match_id, seat)] = asyncio.create_task(follow(stub, table, seat, client.md(table.players[seat]), book,
                                                               book.last_version((match_id, seat))))
    return len(keys)


def _turn(view: pb.MatchView) -> int:
    """The seat to act; -1 when nobody is (the view's ``turn`` unset)."""
    return view.turn if view.HasField("turn") else -1


def _first_play(view: pb.MatchView) -> pb.Move | None:
    for move in view.legal_moves:
        if move.kind == pb.MOVE_KIND_PLAY:
            return move
    return None


async def probe(client: Client, tables: list[Table], replicas: int, book: Book, count: int, interval: float,
                timeout: float, run: str) -> dict[str, Any]:
    """``count`` moves, each in a different match (at a person's turn, a play): GetMatch,
    PlayTile, delivery to the table's other people."""
    getmatch: list[float] = []
    playtile: list[float] = []
    delivery: dict[str, list[float]] = {"same": [], "other": []}
    undelivered = skipped = 0
    errors: Counter = Counter()
    for n in range(count):
        table = tables[n % len(tables)]
        i = n % len(tables)
        seat = table.turn
        if seat not in table.people:
            skipped += 1
            continue
        replica = replica_of(i, seat, replicas)
        stub = client.unary[replica]
        md = client.md(table.players[seat])
        try:
            t0 = time.perf_counter()
            view = (await stub.GetMatch(pb.GetMatchRequest(match_id=table.match_id), metadata=md, timeout=30)).view
            getmatch.append(time.perf_counter() - t0)
            move = _first_play(view) if _turn(view) == seat else None
            if move is None:
                skipped += 1
                continue
            t1 = time.perf_counter()
            resp = await stub.PlayTile(pb.PlayTileRequest(match_id=table.match_id, request_id=f"{run}-probe-{n}",
                                                          tile=move.tile, end=move.end), metadata=md, timeout=30)
            playtile.append(time.perf_counter() - t1)
        except grpc.aio.AioRpcError as e:
            errors[e.code().name] += 1
            continue
        table.turn = _turn(resp.view)
        for other in table.people:
            if other == seat:
                continue
            got = await book.wait_for((table.match_id, other), resp.version, max(0.0, t1 + timeout - time.perf_counter()))
            if got is None:
                undelivered += 1
            else:
                delivery["same" if replica_of(i, other, replicas) == replica else "other"].append(got - t1)
        await asyncio.sleep(interval)
    ms = [d * 1000 for d in delivery["same"] + delivery["other"]]
    out: dict[str, Any] = {
        "probe_moves": len(playtile), "probe_skipped": skipped, "probe_undelivered": undelivered,
        "probe_errors": dict(errors),
        "getmatch_p50_ms": rnd(pct([g * 1000 for g in getmatch], 50), 2),
        "getmatch_p99_ms": rnd(pct([g * 1000 for g in getmatch], 99), 2),
        "playtile_p50_ms": rnd(pct([p * 1000 for p in playtile], 50), 2),
        "playtile_p99_ms": rnd(pct([p * 1000 for p in playtile], 99), 2),
        "delivery_p50_ms": rnd(pct(ms, 50), 2), "delivery_p99_ms": rnd(pct(ms, 99), 2),
        "delivery_max_ms": rnd(max(ms) if ms else None, 2),
    }
    if replicas > 1:
        for where in ("same", "other"):
            values = [d * 1000 for d in delivery[where]]
            out[f"delivery_{where}_replica_p50_ms"] = rnd(pct(values, 50), 2)
            out[f"delivery_{where}_replica_p99_ms"] = rnd(pct(values, 99), 2)
    return out


# ---------------------------------------------------------------------------------------
# the run


async def live(args, client: Client, tables: list[Table], book: Book, streams: Streams) -> dict[str, Any]:
    """The tables' life before the window (bench/table_life.py): half the people's moves, a
    phrase or two, a share of the phones losing their connection, the other half of the
    moves, those phones back from the version they had; every table left at a person's turn."""
    counts = LifeCounts()
    t = time.perf_counter()
    await play_all(client, tables, args.moves // 2, counts, args.seed)
    await talk(client, tables, args.chats, counts, args.seed)
    lost = reconnecting(list(streams), args.reconnect_share, args.seed)
    await drop(streams, lost)
    await play_all(client, tables, args.moves, counts, args.seed)
    reopened = reopen(client, {table.match_id: table for table in tables}, book, streams, lost)
    await asyncio.sleep(1.0)
    return {**counts.as_dict(), "reconnects": reopened, "life_seconds": rnd(time.perf_counter() - t, 1)}


async def service_counters(system: IdleSystem) -> dict[str, float]:
    """What the match replicas count, summed: commands (PlayTile, DrawTile: bots' too), turns
    their timers expired, matches those timers read, phrases, and open streams."""
    texts = await asyncio.gather(*(asyncio.to_thread(scrape, port) for port in system.metrics_ports()))
    out = dict.fromkeys(("commands", "chats", "turns_expired", "timer_reads", "open_streams"), 0.0)
    for text in texts:
        out["commands"] += sum(metric_total(text, "domino_match_rpcs_total", method=m) for m in COMMANDS)
        out["chats"] += metric_total(text, "domino_match_rpcs_total", method="SendChat")
        out["turns_expired"] += metric_total(text, "domino_match_turns_expired")
        out["timer_reads"] += metric_total(text, "domino_match_timer_reads")
        out["open_streams"] += metric_total(text, "domino_match_open_streams")
    return out


def deadline_figures(tables: list[Table], window_start: float, window_end: float) -> dict[str, Any]:
    """Where the resting turns' deadlines (epoch seconds) fall: a deadline inside the window
    would make the bench measure a timeout, not waiting."""
    deadlines = [t.deadline for t in tables if t.deadline is not None]
    if not deadlines:
        return {"timed_turns": 0, "first_deadline_after_window_s": None, "deadlines_in_window": 0}
    return {"timed_turns": len(deadlines), "first_deadline_after_window_s": rnd(min(deadlines) - window_end, 1),
            "deadlines_in_window": sum(1 for d in deadlines if d <= window_end),
            "deadlines_before_window": sum(1 for d in deadlines if d < window_start)}


async def measure(args, system: IdleSystem, postgres_pid: int | None) -> dict[str, Any]:
    run = uuid.uuid4().hex[:8]
    client = Client(system.keys(), system.targets(), args.streams_per_channel)
    replica_pids = system.replica_pids()
    pids = system.pids(postgres_pid)
    book = Book()
    streams: Streams = {}
    out: dict[str, Any] = {}
    try:
        t = time.perf_counter()
        tables = await create_tables(client, args.matches, run, args.bot_seats if args.bots else 0, args.turn_timer)
        people = sum(len(table.people) for table in tables)
        out["create_seconds"] = rnd(time.perf_counter() - t, 2)
        log(f"{len(tables)} matches created in {out['create_seconds']} s; settling {args.settle} s, "
            f"then the baseline ({args.baseline} s without streams)")
        await asyncio.sleep(args.settle)
        base0 = sum(cpu_seconds(pid) for pid in replica_pids)
        b0 = time.perf_counter()
        await asyncio.sleep(args.baseline)
        baseline_cores = (sum(cpu_seconds(pid) for pid in replica_pids) - base0) / (time.perf_counter() - b0)
        before = [memory_kb(pid) for pid in replica_pids]

        per_replica = math.ceil(people / len(replica_pids))
        log(f"opening {people} streams over "
            f"{channels_needed(per_replica, args.streams_per_channel) * len(replica_pids)} connections")
        streams, open_seconds = await open_streams(client, tables, len(replica_pids), book, args.open_timeout,
                                                   args.open_spread, args.seed)
        out["open_seconds"] = rnd(open_seconds, 1)
        log(f"{len(book.opened)} streams open in {open_seconds:.1f} s (ended: {dict(book.ended)}); "
            f"the tables' life: {args.moves} people's moves, {args.chats} phrases, "
            f"{args.reconnect_share:.0%} of the phones reconnecting")
        out.update(await live(args, client, tables, book, streams))
        log(f"life: {out['life_moves']} moves, {out['life_chats']} phrases, {out['reconnects']} reconnects in "
            f"{out['life_seconds']} s (errors {out['life_errors']}, unfinished {out['life_unfinished']}); "
            f"settling {args.settle} s")
        await asyncio.sleep(args.settle)
        opened = [memory_kb(pid) for pid in replica_pids]

        log(f"idle window of {args.window} s")
        updates0, chats0 = book.updates, book.chats
        counters0 = await service_counters(system)
        open0 = sum(1 for task in streams.values() if not task.done())
        cpu0 = cpu_by_process(pids)
        me0 = time.process_time()
        w0, epoch0 = time.perf_counter(), time.time()
        await asyncio.sleep(args.window)
        window = time.perf_counter() - w0
        cpu1 = cpu_by_process(pids)
        me1 = time.process_time()
        epoch1 = time.time()
        counters1 = await service_counters(system)
        after = [memory_kb(pid) for pid in replica_pids]
        open_now = sum(1 for task in streams.values() if not task.done())

        cpu = {name: cpu1[name] - cpu0[name] for name in cpu0}
        match_cpu = sum(cpu[name] for name in system.replica_names)
        system_cpu = sum(cpu.values())
        rss_before = sum(m["VmRSS"] for m in before)
        rss_open = sum(m["VmRSS"] for m in opened)
        seen = {k: int(counters1[k] - counters0[k]) for k in ("commands", "chats", "turns_expired", "timer_reads")}
        out.update({
            "streams_requested": people, "streams_opened": len(book.opened),
            "all_streams_opened": len(book.opened) == people, "streams_open_in_window": open0,
            "streams_open_at_end": open_now, "server_open_streams": int(counters0["open_streams"]),
            "streams_ended": dict(book.ended), "window_seconds": rnd(window, 2),
            "updates_in_window": book.updates - updates0, "chats_received_in_window": book.chats - chats0,
            **{f"{k}_in_window": v for k, v in seen.items()},
            **deadline_figures(tables, epoch0, epoch1),
            **{k: rnd(v, 4) for k, v in idle_figures(match_cpu, open0, window, rss_before, rss_open).items()},
            "idle_stream_cpu_ms_per_s_system": rnd(system_cpu * 1000.0 / max(1, open0) / window, 4),
            "window_cpu_ms_per_s": {name: rnd(v * 1000.0 / window, 2) for name, v in sorted(cpu.items())},
            "match_cpu_cores": rnd(match_cpu / window, 3), "system_cpu_cores": rnd(system_cpu / window, 3),
            "baseline_cpu_cores": rnd(baseline_cores, 4),
            "idle_stream_cpu_ms_per_s_net": rnd((match_cpu - baseline_cores * window) * 1000.0
                                                / max(1, open0) / window, 4),
            "rss_before_kb": rss_before, "rss_open_kb": rss_open, "rss_end_kb": sum(m["VmRSS"] for m in after),
            "rss_peak_kb": sum(m["VmHWM"] for m in after),
            "per_replica": [{"pid": pid, "streams": client.streams_on[k],
                             "cpu_cores": rnd(cpu[system.replica_names[k]] / window, 3),
                             "rss_before_kb": before[k]["VmRSS"], "rss_open_kb": opened[k]["VmRSS"],
                             "rss_peak_kb": after[k]["VmHWM"]} for k, pid in enumerate(replica_pids)],
            "client_cpu_cores": rnd((me1 - me0) / window, 3),
            "client_fds": open_fds(), "client_fd_limit": resource.getrlimit(resource.RLIMIT_NOFILE)[0],
            "channels": client.channels,
        })
        if postgres_pid:
            out["postgres_cpu_ms_per_s"] = rnd(cpu["postgres"] * 1000 / window, 2)
            out["postgres_cpu_ms_per_stream_s"] = rnd(cpu["postgres"] * 1000 / window / max(1, open0), 4)
        log(f"idle: {out['idle_stream_cpu_ms_per_s']} ms/s per stream (system {out['idle_stream_cpu_ms_per_s_system']}), "
            f"{out['stream_rss_kb']} KB per stream, per process {out['window_cpu_ms_per_s']} ms/s; "
            f"{seen['commands']} commands, {out['updates_in_window']} updates, {seen['turns_expired']} turns expired")
        if out["deadlines_in_window"]:
            log(f"{out['deadlines_in_window']} resting turns' deadlines fell before the window ended: "
                "a shorter --settle/--window, or fewer --matches, keeps timeouts out of it")
        if args.probe:
            log(f"probe: {args.probes} moves")
            out.update(await probe(client, tables, len(replica_pids), book, args.probes, args.probe_interval,
                                   args.probe_timeout, run))
    finally:
        for task in streams.values():
            task.cancel()
        await asyncio.gather(*streams.values(), return_exceptions=True)
        await client.close()
    return out


def service_env(args) -> dict[str, str]:
    """The DOMINO_ settings the bench gives the services (on top of the supervisor's own):
    the stream caps the run needs, and ``--service-env``."""
    defaults = {name: Settings.model_fields[name].default for name in REPORTED_SETTINGS}
    extra = {"DOMINO_LOG_FORMAT": "json", "DOMINO_SHUTDOWN_GRACE_SECONDS": "2"}
    people = SEATS - (args.bot_seats if args.bots else 0)
    extra.update(limits_env(math.ceil(args.matches * people / args.replicas), defaults))
    for item in args.service_env:
        key, _, value = item.partition("=")
        extra[key] = value
    return extra


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--store", choices=("sqlite", "postgres"), default="sqlite")
    ap.add_argument("--replicas", type=int, choices=(1, 2), default=1)
    ap.add_argument("--matches", type=int, default=250, help="tables of four")
    ap.add_argument("--bots", action=argparse.BooleanOptionalAction, default=True,
                    help="bots at the tables (the bot service runs)")
    ap.add_argument("--bot-seats", type=int, default=1, help="with --bots: bot seats per table (bot:greedy:<n>)")
    ap.add_argument("--turn-timer", type=int, default=None,
                    help="turn_timer_seconds of the matches (default: the service's, 45 s; 0: no clock)")
    ap.add_argument("--moves", type=int, default=4, help="the people's moves at every table before the window")
    ap.add_argument("--chats", type=int, default=2, help="quick-chat phrases at every table before the window")
    ap.add_argument("--reconnect-share", type=float, default=1 / 3,
                    help="share of the streams closed and reopened from their version before the window")
    ap.add_argument("--window", type=float, default=20.0,
                    help="measured idle seconds (settle + window stay under the 45 s turn clock)")
    ap.add_argument("--settle", type=float, default=12.0,
                    help="seconds before each memory reading (above DOMINO_MEMORY_RELEASE_SECONDS, 10)")
    ap.add_argument("--baseline", type=float, default=10.0,
                    help="seconds of the processes' CPU measured with the matches made and no stream open")
    ap.add_argument("--streams-per-channel", type=int, default=50, help="the servers allow 100 per connection")
    ap.add_argument("--open-timeout", type=float, default=600.0, help="seconds to wait for every stream's first update")
    ap.add_argument("--open-spread", type=float, default=5.0,
                    help="open the streams in a shuffled order over at least this many seconds, so the streams of "
                         "a match do not wake in step (phones join at different moments)")
    ap.add_argument("--seed", type=int, default=0, help="of that order, the moves, phrases and reconnects")
    ap.add_argument("--probe", action="store_true", help="after the window, move in some matches and time it")
    ap.add_argument("--probes", type=int, default=40)
    ap.add_argument("--probe-interval", type=float, default=0.25, help="seconds between two probe moves")
    ap.add_argument("--probe-timeout", type=float, default=10.0, help="a delivery later than this is undelivered")
    ap.add_argument("--service-env", action="append", default=[], metavar="KEY=VALUE",
                    help="extra environment for the services (e.g. DOMINO_WATCH_POLL_SECONDS=5)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory (logs)")
    ap.add_argument("--json", action="store_true", help="one JSON object on stdout")
    args = ap.parse_args()

    from services.common.servers import start_postgres

    started = time.monotonic()
    load_before = loadavg()
    commit = git_commit() or "unknown"
    tmp = Path(tempfile.mkdtemp(prefix="domino-idle-"))
    os.chmod(tmp, 0o755)  # embedded PostgreSQL runs as its own user below it
    # The services inherit this process's environment: only the bench's settings reach them.
    for name in [k for k in os.environ if k.startswith(("PERSISTENCE_", "SQLITE_", "POSTGRES_", "DOMINO_"))]:
        del os.environ[name]
    # They run the code beside this file, so a copy of another commit (git archive) measures
    # that commit's services, not the installed working tree's.
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    pg = None
    system: IdleSystem | None = None
    result: dict[str, Any] = {}
    set_by_bench = service_env(args)
    try:
        if args.store == "postgres":
            pg = start_postgres(tmp / "pg")
            pg.create_database("bench_idle")
            store_env = pg.eventsourcing_env("bench_idle")
        else:
            store_env = {"PERSISTENCE_MODULE": SQLITE_MODULE, "SQLITE_DBNAME": str(tmp / "match.sqlite")}
        system = IdleSystem(tmp / "var", {**store_env, **set_by_bench}, args.replicas, args.bots)
        log(f"starting {', '.join(system.services)}{' and match-2' if args.replicas > 1 else ''} on {args.store}")
        system.start()
        result = asyncio.run(measure(args, system, pg.pid if pg else None))
        result.update({"settings": settings_used(set_by_bench), "service_env": set_by_bench})
    finally:
        if system is not None:
            system.stop()
        if pg is not None:
            pg.stop()
        if args.keep:
            log(f"kept {tmp}")
        else:
            for _ in range(10):  # a PostgreSQL that is still shutting down may write into it meanwhile
                shutil.rmtree(tmp, ignore_errors=True)
                if not tmp.exists():
                    break
                time.sleep(0.5)
    result.update({
        "store": args.store, "replicas": args.replicas, "matches": args.matches, "window": args.window,
        "settle": args.settle, "baseline": args.baseline, "open_spread": args.open_spread,
        "streams_per_channel": args.streams_per_channel, "probe": args.probe, "bots": args.bots,
        "bot_seats": args.bot_seats if args.bots else 0, "turn_timer": args.turn_timer, "moves": args.moves,
        "chats": args.chats, "reconnect_share": args.reconnect_share,
        "git_commit": commit, "loadavg_1m_before": load_before, "loadavg_1m_after": loadavg(),
        "cpus": os.cpu_count(), "python": platform.python_version(), "grpcio": grpc.__version__,
        "wall_seconds": rnd(time.monotonic() - started, 1),
    })
    if args.json:
        print(json.dumps(result, sort_keys=True))
    else:
        for key in ("store", "replicas", "streams_open_in_window", "idle_stream_cpu_ms_per_s",
                    "idle_stream_cpu_ms_per_s_system", "window_cpu_ms_per_s", "commands_in_window",
                    "updates_in_window", "turns_expired_in_window", "first_deadline_after_window_s",
                    "stream_rss_kb", "match_cpu_cores", "postgres_cpu_ms_per_s", "rss_before_kb", "rss_open_kb",
                    "getmatch_p99_ms", "playtile_p99_ms", "delivery_p50_ms", "delivery_p99_ms"):
            if key in result:
                print(f"{key}: {result[key]}")


if __name__ == "__main__":
    main()
