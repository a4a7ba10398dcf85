"""What open WatchMatch streams cost a match service process while nobody moves.

    .venv/bin/python bench/idle_streams.py --json                              # 250 matches, SQLite, one process
    .venv/bin/python bench/idle_streams.py --json --store postgres --replicas 2
    .venv/bin/python bench/idle_streams.py --json --matches 2500 --probe       # 10,000 streams, then a few moves

People are slow: a table of four sits through seconds between moves, and most of the time
every phone at it holds a WatchMatch stream open and waits. So the number of tables one
process can hold is set by what a *waiting* stream costs, in CPU and in memory, not by the
cost of a move. This bench measures exactly that.

What runs: the real match service, ``domino serve match`` (one process, or two with
``--replicas 2``: two processes on one SQLite file, as DOMINO_MATCH_WORKERS=2 would run, or
two on one embedded PostgreSQL, each on its own port), configured by environment with
development keys made for the run. This process is only the client (grpc.aio). It creates
``--matches`` block-4 matches of four seated players with a service token (turn timer off,
so nothing moves by itself), opens one WatchMatch stream per seat from version 0 (the
player's own token), spread over channels of ``--streams-per-channel`` streams each (the
servers allow 100 calls per HTTP/2 connection), the streams of one match split over the
replicas ((match + seat) mod replicas). A stream is open when its first update arrived.

Then, ``--settle`` seconds later (longer than DOMINO_MEMORY_RELEASE_SECONDS, so the
allocator's trim has run on both sides of the comparison), a window of ``--window`` seconds
in which nobody moves: the match processes' CPU (utime+stime, /proc) over streams and
seconds is ``idle_stream_cpu_ms_per_s``; their VmRSS before the streams were opened and
with them open, over the streams, is ``stream_rss_kb``. PostgreSQL's CPU (postmaster and
backends) in the window is reported apart.

``--probe`` then makes ``--probes`` moves, one at a time, each in a different match (its
first move, which always has a play): a GetMatch of the player to act (for its legal
moves), a PlayTile, and the time from sending the PlayTile until each of the other three
seats' streams received that version. Across replicas a move reaches the other replica's
streams only by what that replica does to learn of it (today: its timed re-read).

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
import signal
import subprocess
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

VENV_BIN = ROOT / ".venv" / "bin" if (ROOT / ".venv" / "bin" / "domino").exists() else Path(sys.executable).parent
SEATS = 4
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
# the match processes


class Replica:
    """One ``domino serve match`` process, its output in a log file."""

    def __init__(self, index: int, env: dict[str, str], tmp: Path) -> None:
        from services.common.servers import free_ports

        port, metrics_port = free_ports(2)
        env = dict(env, DOMINO_MATCH_ADDRESS=f"127.0.0.1:{port}", DOMINO_MATCH_METRICS_PORT=str(metrics_port))
        self.target = f"127.0.0.1:{port}"
        self.log_path = tmp / f"match-{index}.log"
        self._log = self.log_path.open("ab")
        self.proc = subprocess.Popen([str(VENV_BIN / "domino"), "serve", "match"], env=env, cwd=str(ROOT),
                                     stdin=subprocess.DEVNULL, stdout=self._log, stderr=subprocess.STDOUT)

    @property
    def pid(self) -> int:
        return self.proc.pid

    async def wait_serving(self, timeout: float = 60.0) -> None:
        from grpc_health.v1 import health_pb2, health_pb2_grpc

        deadline = time.monotonic() + timeout
        async with grpc.aio.insecure_channel(self.target) as channel:
            stub = health_pb2_grpc.HealthStub(channel)
            while True:
                if self.proc.poll() is not None:
                    raise RuntimeError(f"the match service exited with {self.proc.returncode}; see {self.log_path}")
                with contextlib.suppress(grpc.aio.AioRpcError):
                    check = stub.Check  # type: ignore[attr-defined]  # the stubs list no methods
                    resp = await check(health_pb2.HealthCheckRequest(service=""), timeout=1.0)
                    if resp.status == health_pb2.HealthCheckResponse.SERVING:
                        return
                if time.monotonic() > deadline:
                    raise TimeoutError(f"the match service at {self.target} did not serve within {timeout} s")
                await asyncio.sleep(0.1)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._log.close()


# ---------------------------------------------------------------------------------------
# the client: tables of four that watch and do not move


@dataclass
class Table:
    match_id: str
    players: list[str]
    turn: int  # the seat to act after creation


@dataclass
class Book:
    """What the streams received: when each (match, seat) got each version."""
    opened: set[tuple[str, int]] = field(default_factory=set)
    received: dict[tuple[str, int], dict[int, float]] = field(default_factory=dict)
    ended: Counter = field(default_factory=Counter)  # status code (or OK) of streams that ended
    updates: int = 0
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


async def create_tables(client: Client, matches: int, run: str, concurrency: int = 32) -> list[Table]:
    """``matches`` block-4 matches, four people each, no turn timer, created through replica 0."""
    tables: list[Table | None] = [None] * matches
    queue = iter(range(matches))

    async def worker() -> None:
        for i in queue:
            players = [f"idle-{run}-m{i}-s{s}" for s in range(SEATS)]
            req = pb.CreateMatchRequest(request_id=f"{run}-create-{i}", rules="egyptian", variant="block-4",
                                        turn_timer_seconds=0,
                                        seats=[pb.SeatSpec(player_id=p, client_seed=f"seed-{p}") for p in players])
            resp = await client.unary[0].CreateMatch(req, metadata=client.service_md, timeout=60)
            tables[i] = Table(resp.match_id, players, _turn(resp.view))

    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return [t for t in tables if t is not None]


async def follow(stub: pb_grpc.MatchServiceStub, table: Table, seat: int, md: tuple, book: Book) -> None:
    """One seat's stream, from version 0 (the current view first, then every event), until the
    bench cancels it."""
    key = (table.match_id, seat)
    call = stub.WatchMatch(pb.WatchMatchRequest(match_id=table.match_id, from_version=0), metadata=md)
    try:
        async for update in call:
            if update.HasField("event"):
                book.got(key, update.event.version)
            elif update.HasField("view"):
                book.got(key, update.view.version)
        book.ended["OK"] += 1
    except grpc.aio.AioRpcError as e:
        if e.code() != grpc.StatusCode.CANCELLED:
            book.ended[e.code().name] += 1
    except asyncio.CancelledError:
        call.cancel()
        raise


async def open_streams(client: Client, tables: list[Table], replicas: int, book: Book, timeout: float,
                       spread: float, seed: int, batch: int = 200) -> tuple[list[asyncio.Task], float]:
    """Open every seat's stream, in a shuffled order at a steady pace over at least
    ``spread`` seconds, at most ``batch`` waiting for their first update at a time; the
    tasks and the seconds it took (``timeout`` bounds the wait for the last ones).

    Phones join a table at different moments, so the streams of one match do not wake in
    step: opened together, a timed re-read of one stream would be shared by the match's
    other three (services/match/watch_reads.py) and the bench would flatter the poll."""
    tasks: list[asyncio.Task] = []
    start = time.perf_counter()
    keys = [(i, seat) for i in range(len(tables)) for seat in range(SEATS)]
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
        tasks.append(asyncio.create_task(follow(stub, table, seat, client.md(table.players[seat]), book)))
    while waiting() > 0 and time.perf_counter() < start + timeout:
        await asyncio.sleep(0.05)
    return tasks, time.perf_counter() - start


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
    """``count`` moves, each the first of a different match: GetMatch, PlayTile, delivery."""
    getmatch: list[float] = []
    playtile: list[float] = []
    delivery: dict[str, list[float]] = {"same": [], "other": []}
    undelivered = skipped = 0
    errors: Counter = Counter()
    for n in range(count):
        table = tables[n % len(tables)]
        i = n % len(tables)
        seat = table.turn
        if seat < 0:
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
        for other in range(SEATS):
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


async def measure(args, replicas: list[Replica], keys, postgres_pid: int | None) -> dict[str, Any]:
    run = uuid.uuid4().hex[:8]
    streams = args.matches * SEATS
    client = Client(keys, [r.target for r in replicas], args.streams_per_channel)
    book = Book()
    tasks: list[asyncio.Task] = []
    out: dict[str, Any] = {}
    try:
        t = time.perf_counter()
        tables = await create_tables(client, args.matches, run)
        out["create_seconds"] = rnd(time.perf_counter() - t, 2)
        log(f"{len(tables)} matches created in {out['create_seconds']} s; settling {args.settle} s, "
            f"then the baseline ({args.baseline} s without streams)")
        await asyncio.sleep(args.settle)
        base0 = sum(cpu_seconds(r.pid) for r in replicas)
        b0 = time.perf_counter()
        await asyncio.sleep(args.baseline)
        baseline_cores = (sum(cpu_seconds(r.pid) for r in replicas) - base0) / (time.perf_counter() - b0)
        before = [memory_kb(r.pid) for r in replicas]

        per_replica = math.ceil(streams / len(replicas))
        log(f"opening {streams} streams over {channels_needed(per_replica, args.streams_per_channel) * len(replicas)} "
            "connections")
        tasks, open_seconds = await open_streams(client, tables, len(replicas), book, args.open_timeout,
                                                 args.open_spread, args.seed)
        out["open_seconds"] = rnd(open_seconds, 1)
        log(f"{len(book.opened)} streams open in {open_seconds:.1f} s (ended: {dict(book.ended)}); "
            f"settling {args.settle} s")
        await asyncio.sleep(args.settle)
        opened = [memory_kb(r.pid) for r in replicas]
        updates_before = book.updates

        log(f"idle window of {args.window} s")
        cpu0 = [cpu_seconds(r.pid) for r in replicas]
        pg0 = tree_cpu_seconds(postgres_pid) if postgres_pid else 0.0
        me0 = time.process_time()
        w0 = time.perf_counter()
        await asyncio.sleep(args.window)
        window = time.perf_counter() - w0
        cpu1 = [cpu_seconds(r.pid) for r in replicas]
        pg1 = tree_cpu_seconds(postgres_pid) if postgres_pid else 0.0
        me1 = time.process_time()
        after = [memory_kb(r.pid) for r in replicas]
        open_now = len(book.opened) - sum(book.ended.values())

        match_cpu = sum(cpu1) - sum(cpu0)
        rss_before = sum(m["VmRSS"] for m in before)
        rss_open = sum(m["VmRSS"] for m in opened)
        out.update({
            "streams_requested": streams, "streams_opened": len(book.opened),
            "all_streams_opened": len(book.opened) == streams, "streams_open_at_end": open_now,
            "streams_ended": dict(book.ended), "updates_in_window": book.updates - updates_before,
            "window_seconds": rnd(window, 2),
            **{k: rnd(v, 4) for k, v in idle_figures(match_cpu, len(book.opened), window, rss_before,
                                                     rss_open).items()},
            "match_cpu_cores": rnd(match_cpu / window, 3), "baseline_cpu_cores": rnd(baseline_cores, 4),
            "idle_stream_cpu_ms_per_s_net": rnd((match_cpu - baseline_cores * window) * 1000.0
                                                / max(1, len(book.opened)) / window, 4),
            "rss_before_kb": rss_before, "rss_open_kb": rss_open, "rss_end_kb": sum(m["VmRSS"] for m in after),
            "rss_peak_kb": sum(m["VmHWM"] for m in after),
            "per_replica": [{"pid": r.pid, "streams": client.streams_on[k],
                             "cpu_cores": rnd((cpu1[k] - cpu0[k]) / window, 3),
                             "rss_before_kb": before[k]["VmRSS"], "rss_open_kb": opened[k]["VmRSS"],
                             "rss_peak_kb": after[k]["VmHWM"]} for k, r in enumerate(replicas)],
            "client_cpu_cores": rnd((me1 - me0) / window, 3),
            "client_fds": open_fds(), "client_fd_limit": resource.getrlimit(resource.RLIMIT_NOFILE)[0],
            "channels": client.channels,
        })
        if postgres_pid:
            out["postgres_cpu_ms_per_s"] = rnd((pg1 - pg0) * 1000 / window, 2)
            out["postgres_cpu_ms_per_stream_s"] = rnd((pg1 - pg0) * 1000 / window / max(1, len(book.opened)), 4)
        log(f"idle: {out['idle_stream_cpu_ms_per_s']} ms/s per stream, {out['stream_rss_kb']} KB per stream, "
            f"match CPU {out['match_cpu_cores']} cores")
        if args.probe:
            log(f"probe: {args.probes} moves")
            out.update(await probe(client, tables, len(replicas), book, args.probes, args.probe_interval,
                                   args.probe_timeout, run))
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await client.close()
    return out


def service_env(args, store_env: dict[str, str], tmp: Path, keys_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PERSISTENCE_", "SQLITE_", "POSTGRES_",
                                                                       "DOMINO_"))}
    defaults = {name: Settings.model_fields[name].default for name in REPORTED_SETTINGS}
    extra = {"DOMINO_LOG_FORMAT": "json", "DOMINO_SHUTDOWN_GRACE_SECONDS": "2"}
    extra.update(limits_env(math.ceil(args.matches * SEATS / args.replicas), defaults))
    for item in args.service_env:
        key, _, value = item.partition("=")
        extra[key] = value
    env.update(store_env)
    env.update(extra)
    env.update({"DOMINO_KEYS_DIR": str(keys_dir), "DOMINO_VAR_DIR": str(tmp / "var")})
    # The servers run the code beside this file, so a copy of another commit (git archive)
    # measures that commit's service, not the installed working tree's.
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    return env


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--store", choices=("sqlite", "postgres"), default="sqlite")
    ap.add_argument("--replicas", type=int, choices=(1, 2), default=1)
    ap.add_argument("--matches", type=int, default=250, help="tables of four (4 streams each)")
    ap.add_argument("--window", type=float, default=30.0, help="measured idle seconds")
    ap.add_argument("--settle", type=float, default=12.0,
                    help="seconds before each memory reading (above DOMINO_MEMORY_RELEASE_SECONDS, 10)")
    ap.add_argument("--baseline", type=float, default=10.0,
                    help="seconds of the processes' CPU measured with the matches made and no stream open")
    ap.add_argument("--streams-per-channel", type=int, default=50, help="the servers allow 100 per connection")
    ap.add_argument("--open-timeout", type=float, default=600.0, help="seconds to wait for every stream's first update")
    ap.add_argument("--open-spread", type=float, default=5.0,
                    help="open the streams in a shuffled order over at least this many seconds, so the four of a "
                         "match do not wake in step (phones join at different moments)")
    ap.add_argument("--seed", type=int, default=0, help="of that order")
    ap.add_argument("--probe", action="store_true", help="after the window, move in some matches and time it")
    ap.add_argument("--probes", type=int, default=40)
    ap.add_argument("--probe-interval", type=float, default=0.25, help="seconds between two probe moves")
    ap.add_argument("--probe-timeout", type=float, default=10.0, help="a delivery later than this is undelivered")
    ap.add_argument("--service-env", action="append", default=[], metavar="KEY=VALUE",
                    help="extra environment for the match processes (e.g. DOMINO_WATCH_POLL_SECONDS=5)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory (logs)")
    ap.add_argument("--json", action="store_true", help="one JSON object on stdout")
    args = ap.parse_args()

    from services.common.auth import KeyRing
    from services.common.servers import start_postgres
    from services.match.heads import rotate

    started = time.monotonic()
    load_before = loadavg()
    commit = git_commit() or "unknown"
    tmp = Path(tempfile.mkdtemp(prefix="domino-idle-"))
    os.chmod(tmp, 0o755)  # embedded PostgreSQL runs as its own user below it
    keys = KeyRing.generate()
    keys_dir = tmp / "keys"
    keys.write(keys_dir)
    rotate(keys_dir)  # the head signing key the match service signs views with
    pg = None
    replicas: list[Replica] = []
    result: dict[str, Any] = {}
    try:
        if args.store == "postgres":
            pg = start_postgres(tmp / "pg")
            pg.create_database("bench_idle")
            store_env = pg.eventsourcing_env("bench_idle")
        else:
            store_env = {"PERSISTENCE_MODULE": SQLITE_MODULE, "SQLITE_DBNAME": str(tmp / "match.sqlite")}
        env = service_env(args, store_env, tmp, keys_dir)
        for k in range(args.replicas):
            replicas.append(Replica(k, env, tmp))
            asyncio.run(replicas[-1].wait_serving())  # one at a time: the first creates the tables
        result = asyncio.run(measure(args, replicas, keys, pg.pid if pg else None))
        set_by_bench = {k: v for k, v in env.items() if k.startswith("DOMINO_") and k not in (
            "DOMINO_KEYS_DIR", "DOMINO_VAR_DIR")}
        result.update({"settings": settings_used(set_by_bench), "service_env": set_by_bench})
    finally:
        for replica in replicas:
            replica.stop()
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
        "settle": args.settle, "baseline": args.baseline, "open_spread": args.open_spread, "streams_per_channel": args.streams_per_channel, "probe": args.probe,
        "git_commit": commit, "loadavg_1m_before": load_before, "loadavg_1m_after": loadavg(),
        "cpus": os.cpu_count(), "python": platform.python_version(), "grpcio": grpc.__version__,
        "wall_seconds": rnd(time.monotonic() - started, 1),
    })
    if args.json:
        print(json.dumps(result, sort_keys=True))
    else:
        for key in ("store", "replicas", "streams_opened", "idle_stream_cpu_ms_per_s", "stream_rss_kb",
                    "match_cpu_cores", "postgres_cpu_ms_per_s", "rss_before_kb", "rss_open_kb",
                    "getmatch_p99_ms", "playtile_p99_ms", "delivery_p50_ms", "delivery_p99_ms"):
            if key in result:
                print(f"{key}: {result[key]}")


if __name__ == "__main__":
    main()
