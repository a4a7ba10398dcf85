"""End-to-end benchmark of the match service over gRPC, against SQLite and PostgreSQL.

    .venv/bin/python bench/match_service.py            # human-readable summary (~4 minutes)
    .venv/bin/python bench/match_service.py --json     # one JSON object on stdout
    .venv/bin/python bench/match_service.py --seconds 5 --rounds 2 --long-matches 1   # a quick run

The match service runs as a separate process (``.venv/bin/domino serve match``, configured
by environment exactly as in production), one per store, each on its own free port; embedded
PostgreSQL (``services.common.servers.start_postgres``) is started in a temporary directory.
All servers (echo included) are started first and stay up for the whole run, then stopped.
This process is only the client (grpc.aio, one channel).

Order (the machine is noisy, so the ratios are measured paired and interleaved, as in
bench/rules.py): echo and each store at 1 in flight once; then ``--rounds`` rounds, each
measuring echo and every store at the other in-flight levels (normally 50) in an order that
rotates every round (echo, sqlite, postgres; sqlite, postgres, echo; ...); then late/early
per store. Figures at 50 in flight are medians over the rounds; a ratio is the median of the
per-round ratios (each round's store over the same round's echo or SQLite figure).

What it measures (see bench/README.md for every key):

* Throughput and latency of commands (PlayTile/DrawTile only) with 1 and 50 matches in
  flight: each "driver" plays whole matches one command at a time, alternately block-4 and
  draw-2 (half the drivers start with draw-2, so DrawTile is covered even in short runs;
  every match has turn_timer_seconds=0). It knows the seat to act from the last response's view and chooses the first legal
  move itself from that seat's hand (known from the seat's own last response in the round)
  and the line's open ends; it calls GetMatch only when it has no hand for the seat in this
  round or the line is empty (the lead may be forced). GetMatch calls are counted apart.
* A bare grpc.aio unary echo (bytes, generic handler, also a separate process) at 1 and 50
  in flight: the ceiling of what this machine's gRPC can do, for the ratios.
* Late/early cost: long block-4 matches (target 151) played with 1 in flight; the median
  latency of the last 20% of each match's commands over that of its first 20%.
* CPU per command (server process, and PostgreSQL's processes), read from /proc, so that
  "where the time goes" does not rest on wall-clock figures of a noisy 2-core machine.

Targets (from the issue): commands/s at 50 in flight >= 0.25x the echo; late/early <= 1.3;
PostgreSQL >= 0.5x SQLite at 50 in flight.

Profiling the server: ``--profile-server pyspy`` runs it under ``py-spy record`` (``pip
install py-spy``), all threads, writing collapsed stacks (flamegraph.pl / speedscope input)
per store into ``--profile-dir``; add ``--profile-gil`` to keep only samples of the thread
holding the GIL (where the CPU goes), ``--profile-native`` for C frames. ``--profile-server
yappi`` (``pip install yappi``) writes a pstat file (deterministic, much slower).
``--profile-server cprofile`` needs nothing installed: the standard library's deterministic
profiler, the server's main thread only (where the event loop serves every call), a pstat file.
``--server-env KEY=VALUE`` passes extra environment to the server, for experiments such as
``AGGREGATE_CACHE_FASTFORWARD=n``.
"""

from __future__ import annotations

import argparse
import contextlib
import asyncio
import itertools
import json
import os
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import grpc  # noqa: E402
from services.common.config import SQLITE_MODULE  # noqa: E402
from bench import procfs  # noqa: E402
from bench.procfs import child_pids, cpu_seconds, loadavg, tree_cpu_seconds  # noqa: E402

VENV_BIN = ROOT / ".venv" / "bin" if (ROOT / ".venv" / "bin" / "domino").exists() else Path(sys.executable).parent

TARGET_ECHO_RATIO = 0.25  # commands/s at 50 in flight >= 0.25x the bare echo
TARGET_LATE_OVER_EARLY = 1.3  # a command late in a long match costs <= 1.3x one early in it
TARGET_POSTGRES_OVER_SQLITE = 0.5  # PostgreSQL >= 0.5x SQLite at 50 in flight

ECHO_METHOD = "/bench.Echo/Echo"


# ---------------------------------------------------------------------------------------
# small helpers


def pct(values: list[float], q: float) -> float:
    """procfs's nearest-rank percentile, NaN rather than None when empty: the figures here
    are floats, medians of rounds, until ``_finite`` writes NaN as null."""
    value = procfs.pct(values, q)
    return float("nan") if value is None else value


def log(msg: str, quiet: bool) -> None:
    if not quiet:
        print(msg, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------
# the echo server (runs in its own process: this file with --serve-echo PORT)


async def _echo_server_main(port: int) -> None:
    async def echo(request: bytes, context) -> bytes:
        return request

    server = grpc.aio.server()
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(
        "bench.Echo", {"Echo": grpc.unary_unary_rpc_method_handler(echo)}),))
    server.add_insecure_port(f"127.0.0.1:{port}")
    await server.start()
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stopping.set)
    await stopping.wait()
    await server.stop(1)


# ---------------------------------------------------------------------------------------
# child processes


class Child:
    """A server child process with its output in a log file; stopped with SIGTERM."""

    def __init__(self, cmd: list[str], env: dict[str, str], log_path: Path, wrapped: bool = False) -> None:
        self.log_path = log_path
        self.wrapped = wrapped  # cmd is a profiler whose child is the server
        self._log = log_path.open("ab")
        self.proc = subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL, stdout=self._log,
                                     stderr=subprocess.STDOUT, cwd=str(ROOT))

    @property
    def pid(self) -> int:
        return self.proc.pid

    def tail(self, n: int = 40) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-n:])
        except OSError:
            return ""

    def stop(self, timeout: float = 30.0) -> None:
        if self.proc.poll() is None:
            inner = _python_child(self.proc.pid) if self.wrapped else None
            # under py-spy: stop the server itself; py-spy writes its profile when it exits
            os.kill(inner, signal.SIGTERM) if inner else self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._log.close()


async def wait_healthy(target: str, child: Child, timeout: float = 60.0) -> None:
    """Until the gRPC health service says SERVING for the whole server."""
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    deadline = time.monotonic() + timeout
    async with grpc.aio.insecure_channel(target) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        while True:
            if child.proc.poll() is not None:
                raise RuntimeError(f"the server exited with {child.proc.returncode}:\n{child.tail()}")
            try:
                resp = await stub.Check(health_pb2.HealthCheckRequest(service=""), timeout=1.0)
                if resp.status == health_pb2.HealthCheckResponse.SERVING:
                    return
            except grpc.aio.AioRpcError:
                pass
            if time.monotonic() > deadline:
                raise TimeoutError(f"the server at {target} was not SERVING within {timeout} s:\n{child.tail()}")
            await asyncio.sleep(0.1)


async def wait_echo(target: str, child: Child, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    async with grpc.aio.insecure_channel(target) as channel:
        call = channel.unary_unary(ECHO_METHOD)
        while True:
            if child.proc.poll() is not None:
                raise RuntimeError(f"the echo server exited:\n{child.tail()}")
            try:
                await call(b"x", timeout=1.0)
                return
            except grpc.aio.AioRpcError:
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(0.1)


def server_command(store: str, args) -> list[str]:
    domino = str(VENV_BIN / "domino")
    if args.profile_server == "pyspy":
        out = Path(args.profile_dir) / f"match_server_{store}"
        rate = str(args.profile_rate)
        gil = (["--gil"] if args.profile_gil else []) + (["--native"] if args.profile_native else [])
        suffix = (".gil" if args.profile_gil else "") + (".native" if args.profile_native else "")
        return [str(VENV_BIN / "py-spy"), "record", "--threads", *([] if args.profile_native else ["--nonblocking"]), *gil, "-r", rate, "-f", "raw",
                "-o", f"{out}{suffix}.collapsed.txt", "--", sys.executable, domino, "serve", "match"]
    if args.profile_server in ("yappi", "cprofile"):
        out = Path(args.profile_dir) / f"match_server_{store}.{args.profile_server}.pstat"
        return [sys.executable, str(Path(__file__).resolve()), f"--{args.profile_server}-server", str(out)]
    return [domino, "serve", "match"]


def _yappi_server_main(out: str) -> None:
    """The match server under yappi (wall clock... CPU clock, all threads), saved as pstat
    on SIGTERM; for --profile-server yappi only."""
    import yappi

    from services.match.bootstrap import main

    yappi.set_clock_type("cpu")
    yappi.start(builtins=False, profile_threads=True)
    try:
        main()
    finally:
        yappi.stop()
        yappi.get_func_stats().save(out, type="pstat")


def _cprofile_server_main(out: str) -> None:
    """The match server under cProfile (its main thread: the event loop), saved as pstat on
    SIGTERM; for --profile-server cprofile only."""
    import cProfile

    from services.match.bootstrap import main

    profiler = cProfile.Profile()
    profiler.enable()
    try:
        main()
    finally:
        profiler.disable()
        profiler.dump_stats(out)


# ---------------------------------------------------------------------------------------
# the client side: drivers that play whole matches


@dataclass
class Stats:
    latencies: list[float] = field(default_factory=list)  # seconds, commands in the window
    finished_at: list[float] = field(default_factory=list)
    getmatch: int = 0
    commands_all: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    matches_finished: int = 0
    draws: int = 0


def _fits(t, n: int) -> bool:
    return t.low == n or t.high == n


class Client:
    """One channel and stubs, tokens per player id, unique request ids."""

    def __init__(self, channel, secret, run: str) -> None:
        from domino.match.v1 import match_service_pb2 as pb
        from domino.match.v1 import match_service_pb2_grpc as pb_grpc
        from services.common.auth import mint_token

        self.pb = pb
        self.stub = pb_grpc.MatchServiceStub(channel)
        self.secret = secret
        self.run = run
        self._mint = mint_token
        self._tokens: dict[str, tuple] = {}
        self._ids = itertools.count()
        self.service_md = (("authorization", "Bearer " + mint_token("bench-matchmaking", secret, "service")),)

    def md(self, player: str) -> tuple:
        md = self._tokens.get(player)
        if md is None:
            md = (("authorization", "Bearer " + self._mint(player, self.secret, "player")),)
            self._tokens[player] = md
        return md

    def rid(self) -> str:
        return f"{self.run}-{next(self._ids)}"


async def play_match(client: Client, players: list[str], variant: str, target: int | None, stats: Stats,
                     window: tuple[float, float], record_index: list | None = None,
                     stop_at: float | None = None) -> bool:
    """Play one match to the end (or until stop_at); True if it ended."""
    pb = client.pb
    stub = client.stub
    req = pb.CreateMatchRequest(request_id=client.rid(), rules="egyptian", variant=variant, turn_timer_seconds=0,
                                seats=[pb.SeatSpec(player_id=p, client_seed=f"seed-{p}") for p in players])
    if target is not None:
        req.target = target
    created = await stub.CreateMatch(req, metadata=client.service_md)
    match_id = created.match_id
    view = created.view
    hands: dict[int, tuple[int, list]] = {}  # seat -> (round_number, hand) from its own last view
    t_lo, t_hi = window
    index = 0
    failures = 0
    while view.status != pb.MATCH_STATUS_ENDED:
        if stop_at is not None and time.perf_counter() >= stop_at:
            return False
        seat = view.turn if view.HasField("turn") else -1
        if seat < 0:  # nobody to act but not ended: should not happen; re-read
            stats.getmatch += 1
            view = (await stub.GetMatch(pb.GetMatchRequest(match_id=match_id), metadata=client.md(players[0]))).view
            continue
        player = players[seat]
        md = client.md(player)
        rnd = view.round_number
        known = hands.get(seat)
        move = None  # (kind, tile, end)
        if known is not None and known[0] == rnd and view.HasField("left_end"):
            hand = known[1]
            left, right = view.left_end, view.right_end
            for t in hand:
                if _fits(t, left):
                    move = ("play", t, pb.END_LEFT)
                    break
            else:
                for t in hand:
                    if _fits(t, right):
                        move = ("play", t, pb.END_RIGHT)
                        break
            if move is None and view.boneyard_count > 0:
                move = ("draw", None, None)
        if move is None:  # ask the server for this seat's view and legal moves
            stats.getmatch += 1
            own = (await stub.GetMatch(pb.GetMatchRequest(match_id=match_id), metadata=md)).view
            hands[seat] = (own.round_number, list(own.hand))
            if not own.HasField("turn") or own.turn != seat or not own.legal_moves:
                view = own
                continue
            m = own.legal_moves[0]
            move = ("draw", None, None) if m.kind == pb.MOVE_KIND_DRAW else ("play", m.tile, m.end)
        t0 = time.perf_counter()
        try:
            if move[0] == "play":
                resp = await stub.PlayTile(pb.PlayTileRequest(match_id=match_id, request_id=client.rid(),
                                                              tile=move[1], end=move[2]), metadata=md)
            else:
                resp = await stub.DrawTile(pb.DrawTileRequest(match_id=match_id, request_id=client.rid()),
                                           metadata=md)
        except grpc.aio.AioRpcError as e:
            code = e.code().name
            stats.errors[code] = stats.errors.get(code, 0) + 1
            failures += 1
            if failures > 5:
                return False
            hands.pop(seat, None)  # re-read this seat's view next time round
            continue
        t1 = time.perf_counter()
        stats.commands_all += 1
        if move[0] == "draw":
            stats.draws += 1
        if t_lo <= t1 <= t_hi:
            stats.latencies.append(t1 - t0)
            stats.finished_at.append(t1)
        if record_index is not None:
            record_index.append((index, t1 - t0))
        index += 1
        view = resp.view
        hands[seat] = (view.round_number, list(view.hand))
    stats.matches_finished += 1
    return True


async def drive(client: Client, driver: int, stats: Stats, window: tuple[float, float], stop_at: float) -> None:
    players4 = [f"bench-d{driver}-s{s}" for s in range(4)]
    for n in itertools.count(driver % 2):  # half the drivers start with draw-2, then all alternate
        if time.perf_counter() >= stop_at:
            return
        if n % 2 == 0:
            await play_match(client, players4, "block-4", None, stats, window, stop_at=stop_at)
        else:
            await play_match(client, players4[:2], "draw-2", None, stats, window, stop_at=stop_at)


async def measure_commands(target: str, secret, inflight: int, seconds: float, warmup: float,
                           cpu_pids: dict[str, tuple[int, bool]]) -> dict:
    """Run ``inflight`` drivers for warmup + seconds; statistics of the commands that
    completed inside the measured window, and CPU per command of the named processes."""
    stats = Stats()
    # SO_REUSEPORT spreads connections, not requests, and by a hash: with one connection per
    # worker, two often land on the same worker. Eight per worker spread the load evenly.
    channels = [grpc.aio.insecure_channel(target, options=[("grpc.use_local_subchannel_pool", 1)])
                for _ in range(1 if SERVER_WORKERS == 1 else 8 * SERVER_WORKERS)]
    async with contextlib.AsyncExitStack() as stack:
        for channel in channels:
            await stack.enter_async_context(channel)
        run = uuid.uuid4().hex[:12]
        clients = [Client(channel, secret, f"{run}c{k}") for k, channel in enumerate(channels)]
        start = time.perf_counter()
        t_lo = start + warmup
        t_hi = t_lo + seconds
        window = (t_lo, t_hi)
        tasks = [asyncio.create_task(drive(clients[i % len(clients)], i, stats, window, t_hi)) for i in range(inflight)]

        async def sample_cpu_at(when: float) -> dict[str, float]:
            await asyncio.sleep(max(0.0, when - time.perf_counter()))
            return {name: (tree_cpu_seconds(pid) if tree else cpu_seconds(pid))
                    for name, (pid, tree) in cpu_pids.items()} | {"client": time.process_time()}

        cpu0 = await sample_cpu_at(t_lo)
        cpu1 = await sample_cpu_at(t_hi)
        await asyncio.gather(*tasks)
    n = len(stats.latencies)
    lat_ms = [x * 1000 for x in stats.latencies]
    out = {
        "commands": n,
        "commands_per_s": n / seconds if seconds else 0.0,
        "p50_ms": pct(lat_ms, 50),
        "p99_ms": pct(lat_ms, 99),
        "getmatch_per_command": stats.getmatch / stats.commands_all if stats.commands_all else float("nan"),
        "draws": stats.draws,
        "matches_finished": stats.matches_finished,
        "errors": sum(stats.errors.values()),
    }
    if stats.errors:
        out["error_codes"] = dict(stats.errors)
    for name in cpu0:
        out[f"{name}_cpu_ms_per_command"] = (cpu1[name] - cpu0[name]) * 1000 / n if n else float("nan")
    return out


async def measure_late_early(target: str, secret, matches: int) -> dict:
    """Long block-4 matches (target 151), 1 in flight, each command's latency by index."""
    ratios, early_all, late_all, lengths = [], [], [], []
    async with grpc.aio.insecure_channel(target) as channel:
        client = Client(channel, secret, uuid.uuid4().hex[:12])
        for m in range(matches):
            stats = Stats()
            timeline: list[tuple[int, float]] = []
            players = [f"bench-long{m}-s{s}" for s in range(4)]
            await play_match(client, players, "block-4", 151, stats, (0.0, float("inf")), record_index=timeline)
            n = len(timeline)
            k = max(1, n // 5)
            early = [lat * 1000 for _, lat in timeline[:k]]
            late = [lat * 1000 for _, lat in timeline[-k:]]
            early_all += early
            late_all += late
            lengths.append(n)
            ratios.append(statistics.median(late) / statistics.median(early))
    return {
        "late_over_early_cost": statistics.median(late_all) / statistics.median(early_all),
        "early_p50_ms": statistics.median(early_all),
        "late_p50_ms": statistics.median(late_all),
        "late_over_early_per_match": [round(r, 3) for r in ratios],
        "long_match_commands": lengths,
    }


async def measure_echo(target: str, inflight: int, seconds: float, warmup: float, payload: bytes,
                       server_pid: int | None = None) -> dict:
    return await measure_calls(target, lambda channel: partial(channel.unary_unary(ECHO_METHOD), payload),
                               inflight, seconds, warmup, server_pid)


async def measure_calls(target: str, call_on, inflight: int, seconds: float, warmup: float,
                        server_pid: int | None = None) -> dict:
    """``inflight`` loops making ``call_on(channel)()`` over one channel for warmup + seconds:
    calls per second, latency, and server and client CPU per call in the measured window."""
    lat: list[float] = []
    cpu: list[float] = []
    async with grpc.aio.insecure_channel(target) as channel:
        call = call_on(channel)
        start = time.perf_counter()
        t_lo, t_hi = start + warmup, start + warmup + seconds

        async def loop() -> None:
            while True:
                t0 = time.perf_counter()
                if t0 >= t_hi:
                    return
                await call()
                t1 = time.perf_counter()
                if t_lo <= t1 <= t_hi:
                    lat.append(t1 - t0)

        client_cpu: list[float] = []

        async def sample_cpu() -> None:
            for when in (t_lo, t_hi):
                await asyncio.sleep(max(0.0, when - time.perf_counter()))
                cpu.append(cpu_seconds(server_pid) if server_pid else 0.0)
                client_cpu.append(time.process_time())

        await asyncio.gather(sample_cpu(), *(loop() for _ in range(inflight)))
    ms = [x * 1000 for x in lat]
    n = len(lat)
    return {"per_s": n / seconds, "p50_ms": pct(ms, 50), "p99_ms": pct(ms, 99),
            "server_cpu_ms_per_request": (cpu[1] - cpu[0]) * 1000 / n if n and server_pid else float("nan"),
            "client_cpu_ms_per_request": (client_cpu[1] - client_cpu[0]) * 1000 / n if n else float("nan")}


# ---------------------------------------------------------------------------------------
# phases


class EchoServer:
    """The bare echo server, up for the whole run (its samples are interleaved with the
    stores' measurements; see run)."""

    def __init__(self, args, tmp: Path) -> None:
        self.args = args
        self.tmp = tmp
        self.child: Child | None = None
        self.target = ""

    async def start(self) -> None:
        from services.common.servers import free_port

        port = free_port()
        self.child = Child([sys.executable, str(Path(__file__).resolve()), "--serve-echo", str(port)],
                           dict(os.environ), self.tmp / "echo.log")
        self.target = f"127.0.0.1:{port}"
        await wait_echo(self.target, self.child)

    async def measure(self, inflight: int) -> dict:
        args = self.args
        r = await measure_echo(self.target, inflight, args.echo_seconds, args.warmup, b"x" * args.echo_bytes,
                               self.child.pid if self.child else None)
        log(f"  echo in-flight {inflight}: {r['per_s']:.0f}/s p50 {r['p50_ms']:.2f} ms, "
            f"server CPU {r['server_cpu_ms_per_request']:.3f} ms/request", args.json)
        return r

    def stop(self) -> None:
        if self.child is not None:
            self.child.stop()
            self.child = None


class MatchServer:
    """One store's match server (``domino serve match``, configured by environment; for
    ``postgres`` also its embedded PostgreSQL), up for the whole run."""

    def __init__(self, store: str, args, tmp: Path) -> None:
        self.store = store
        self.args = args
        self.tmp = tmp
        from services.common.auth import KeyRing

        self.secret = KeyRing.generate()  # the keys the bench mints with; the server gets their public half
        self.pg = None
        self.child: Child | None = None
        self.target = ""
        self.cpu_pids: dict[str, tuple[int, bool]] = {}

    def _write_keys(self, directory: Path) -> Path:
        from services.match.heads import rotate

        self.secret.write(directory)
        rotate(directory)  # the head signing key the match service signs views with
        return directory

    async def start(self) -> None:
        from services.common.servers import free_ports, start_postgres

        args, store, tmp = self.args, self.store, self.tmp
        env = dict(os.environ)
        for k in list(env):
            if k.startswith(("PERSISTENCE_", "SQLITE_", "POSTGRES_", "DOMINO_")):
                del env[k]
        if store == "postgres":
            t = time.perf_counter()
            self.pg = start_postgres(tmp / "pgdata")
            self.pg.create_database("bench_match")
            env.update(self.pg.eventsourcing_env("bench_match"))
            self.cpu_pids["postgres"] = (self.pg.pid, True)
            log(f"  embedded PostgreSQL up in {time.perf_counter() - t:.1f} s", args.json)
        else:
            env.update({"PERSISTENCE_MODULE": SQLITE_MODULE, "SQLITE_DBNAME": str(tmp / "match.sqlite")})
        port, metrics_port = free_ports(2)
        env.update({
            "DOMINO_MATCH_ADDRESS": f"127.0.0.1:{port}",
            "DOMINO_MATCH_METRICS_PORT": str(metrics_port),
            "DOMINO_KEYS_DIR": str(self._write_keys(tmp / f"keys_{store}")),
            "DOMINO_VAR_DIR": str(tmp / f"var_{store}"),
            "DOMINO_SHUTDOWN_GRACE_SECONDS": "2",
            "DOMINO_MATCH_WORKERS": str(SERVER_WORKERS),
            # the drivers reuse a few player ids across many matches: lift the per-player
            # rate limit, which would otherwise measure itself
            "DOMINO_COMMAND_RATE": "1000000000", "DOMINO_COMMAND_BURST": "1000000000",
        })
        for item in args.server_env:  # experiments: e.g. AGGREGATE_CACHE_FASTFORWARD=n, PYTHONOPTIMIZE=1
            key, _, value = item.partition("=")
            env[key] = value
        self.child = Child(server_command(store, args), env, tmp / f"match_{store}.log",
                           wrapped=args.profile_server == "pyspy")
        self.target = f"127.0.0.1:{port}"
        t = time.perf_counter()
        await wait_healthy(self.target, self.child)
        log(f"  {store}: match service SERVING after {time.perf_counter() - t:.1f} s", args.json)
        server_pid = self.child.pid
        if args.profile_server == "pyspy":  # py-spy's child is the server
            server_pid = _python_child(self.child.pid) or self.child.pid
        self.cpu_pids["server"] = (server_pid, SERVER_WORKERS > 1)  # workers are children of the first

    async def measure(self, inflight: int) -> dict:
        args = self.args
        r = await measure_commands(self.target, self.secret, inflight, args.seconds, args.warmup, self.cpu_pids)
        log(f"  {self.store} in-flight {inflight}: {r['commands_per_s']:.0f} commands/s, p50 {r['p50_ms']:.2f} ms, "
            f"p99 {r['p99_ms']:.2f} ms, server CPU {r['server_cpu_ms_per_command']:.2f} ms/command"
            + (f", postgres CPU {r['postgres_cpu_ms_per_command']:.2f} ms/command" if self.pg else "")
            + (f", errors {r['error_codes']}" if r.get("errors") else ""), args.json)
        return r

    async def late_early(self) -> dict:
        r = await measure_late_early(self.target, self.secret, self.args.long_matches)
        log(f"  {self.store} late/early: {r['late_over_early_cost']:.2f} (early p50 {r['early_p50_ms']:.2f} ms, "
            f"late p50 {r['late_p50_ms']:.2f} ms; commands per match {r['long_match_commands']})", self.args.json)
        return r

    def stop(self) -> None:
        try:
            if self.child is not None:
                self.child.stop()
                self.child = None
        finally:
            if self.pg is not None:
                self.pg.stop()
                self.pg = None


def _python_child(pid: int) -> int | None:
    children = child_pids(pid)
    return children[0] if children else None


SUMMED = ("commands", "draws", "matches_finished", "errors")


def _median(values) -> float:
    """Median of the values that are not NaN; NaN when there are none."""
    finite = [v for v in values if v == v]
    return statistics.median(finite) if finite else float("nan")


def over_rounds(samples: list[dict], rate: str) -> dict:
    """One figure per key from a measurement's per-round samples: counts summed, error codes
    merged, everything else the median; plus the rates per round (``samples_per_s``)."""
    out: dict = {}
    for k in dict.fromkeys(k for s in samples for k in s):
        if k == "error_codes":
            codes: dict[str, int] = {}
            for s in samples:
                for code, n in s.get(k, {}).items():
                    codes[code] = codes.get(code, 0) + n
            out[k] = codes
        elif k in SUMMED:
            out[k] = sum(s.get(k, 0) for s in samples)
        else:
            out[k] = _median(s[k] for s in samples if k in s)
    out["samples_per_s"] = [round(s[rate], 1) for s in samples]
    return out


def summarize(results: dict, args, rounds: dict[int, dict[str, list[dict]]]) -> None:
    """Ratios and targets. ``rounds[N][who]`` holds the per-round samples at N in flight
    (``who`` is "echo" or a store), index i of every list from the same round i."""

    def paired(num: list[dict], num_key: str, den: list[dict], den_key: str) -> list[float]:
        return [a[num_key] / b[den_key] for a, b in zip(num, den) if b[den_key]]

    def ratios(name: str, per_round: list[float], num: str, den: str) -> float | None:
        if not per_round:
            return None
        results[name] = statistics.median(per_round)  # the median of the paired (per-round) ratios
        results[name + "_per_round"] = [round(r, 3) for r in per_round]
        if results.get(den):
            results[name + "_of_medians"] = results[num] / results[den]
        return results[name]

    checks = []
    for n, by in rounds.items():
        for store in args.stores:
            if "echo" in by and store in by:
                r = ratios(f"{store}_vs_echo_inflight{n}", paired(by[store], "commands_per_s", by["echo"], "per_s"),
                           f"{store}_inflight{n}_commands_per_s", f"echo_inflight{n}_per_s")
                if r is not None and n == 50:
                    results[f"{store}_meets_echo_target"] = r >= TARGET_ECHO_RATIO
                    checks.append(r >= TARGET_ECHO_RATIO)
        if "sqlite" in by and "postgres" in by:
            r = ratios(f"postgres_vs_sqlite_inflight{n}",
                       paired(by["postgres"], "commands_per_s", by["sqlite"], "commands_per_s"),
                       f"postgres_inflight{n}_commands_per_s", f"sqlite_inflight{n}_commands_per_s")
            if r is not None and n == 50:
                results["meets_postgres_target"] = r >= TARGET_POSTGRES_OVER_SQLITE
    if checks:
        results["meets_echo_target"] = all(checks)
    late = [results[f"{s}_late_over_early_cost"] for s in args.stores if f"{s}_late_over_early_cost" in results]
    if late:
        for s in args.stores:
            if f"{s}_late_over_early_cost" in results:
                results[f"{s}_meets_late_early_target"] = results[f"{s}_late_over_early_cost"] <= TARGET_LATE_OVER_EARLY
        results["late_over_early_cost"] = max(late)  # the worse store
        results["meets_late_early_target"] = max(late) <= TARGET_LATE_OVER_EARLY
    results["targets"] = {"echo_ratio_min": TARGET_ECHO_RATIO, "late_over_early_max": TARGET_LATE_OVER_EARLY,
                          "postgres_over_sqlite_min": TARGET_POSTGRES_OVER_SQLITE}


def human(results: dict, args) -> str:
    def f(key: str, fmt: str = "{:.1f}") -> str:
        v = results.get(key)
        return "-" if v is None or v != v else fmt.format(v)

    levels = round_levels(args)
    lines = ["Match service over gRPC (client: this process; servers and echo: separate processes, all up "
             "for the whole run)", ""]
    if "echo_inflight1_per_s" in results:
        lines.append(f"echo: in-flight 1 {f('echo_inflight1_per_s', '{:.0f}')}/s p50 {f('echo_inflight1_p50_ms', '{:.2f}')} ms")
    for n in levels:
        if f"echo_inflight{n}_per_s" in results:
            lines.append(f"echo: in-flight {n} {f(f'echo_inflight{n}_per_s', '{:.0f}')}/s (median; per round "
                         f"{results.get(f'echo_inflight{n}_samples_per_s')}), server CPU "
                         f"{f(f'echo_inflight{n}_server_cpu_ms_per_request', '{:.2f}')} ms/request, client CPU "
                         f"{f(f'echo_inflight{n}_client_cpu_ms_per_request', '{:.2f}')} ms/request")
    lines.append("")
    lines.append(f"in-flight {', '.join(map(str, levels))}: medians over {results.get('rounds')} interleaved rounds"
                 if levels else "")
    lines.append(f"{'store':9} {'in-flight':>9} {'cmds/s':>8} {'p50 ms':>8} {'p99 ms':>8} {'srv CPU ms/cmd':>15} "
                 f"{'pg CPU ms/cmd':>14} {'client CPU':>11} {'GetMatch/cmd':>13}")
    for store in args.stores:
        for n in args.inflight:
            p = f"{store}_inflight{n}_"
            if p + "commands_per_s" not in results:
                continue
            lines.append(f"{store:9} {n:>9} {f(p + 'commands_per_s', '{:.0f}'):>8} {f(p + 'p50_ms', '{:.2f}'):>8} "
                         f"{f(p + 'p99_ms', '{:.2f}'):>8} {f(p + 'server_cpu_ms_per_command', '{:.2f}'):>15} "
                         f"{f(p + 'postgres_cpu_ms_per_command', '{:.2f}'):>14} "
                         f"{f(p + 'client_cpu_ms_per_command', '{:.2f}'):>11} "
                         f"{f(p + 'getmatch_per_command', '{:.2f}'):>13}")
    for n in levels:
        lines.append("")
        lines.append(f"per round at {n} in flight (commands/s; echo requests/s):")
        for who in ["echo", *args.stores]:
            key = f"echo_inflight{n}_samples_per_s" if who == "echo" else f"{who}_inflight{n}_samples_per_s"
            if key in results:
                lines.append(f"  {who:9} {results[key]}")
        for key in [*(f"{s}_vs_echo_inflight{n}" for s in args.stores), f"postgres_vs_sqlite_inflight{n}"]:
            if key in results:
                lines.append(f"  {key.replace(f'_inflight{n}', '').replace('_vs_', '/'):16} {results[key + '_per_round']}"
                             f" -> median {f(key, '{:.3f}')} (ratio of medians {f(key + '_of_medians', '{:.3f}')})")
    lines.append("")
    for store in args.stores:
        if f"{store}_late_over_early_cost" in results:
            lines.append(f"{store} long match (block-4, target 151, 1 in flight): late/early "
                         f"{f(store + '_late_over_early_cost', '{:.2f}')} (early p50 {f(store + '_early_p50_ms', '{:.2f}')} ms,"
                         f" late p50 {f(store + '_late_p50_ms', '{:.2f}')} ms)")
    lines.append("")
    lines.append("Targets (from the issue; ratios: median of the per-round ratios):")

    def verdict(key: str) -> str:
        v = results.get(key)
        return "n/a" if v is None else ("MET" if v else "NOT MET")

    for store in args.stores:
        lines.append(f"  {store} commands/s at 50 in flight >= {TARGET_ECHO_RATIO}x echo: "
                     f"{f(store + '_vs_echo_inflight50', '{:.3f}x')}  {verdict(store + '_meets_echo_target')}")
    lines.append(f"  late/early cost <= {TARGET_LATE_OVER_EARLY}: {f('late_over_early_cost', '{:.2f}')} (worse store)  "
                 f"{verdict('meets_late_early_target')}")
    lines.append(f"  PostgreSQL >= {TARGET_POSTGRES_OVER_SQLITE}x SQLite at 50 in flight: "
                 f"{f('postgres_vs_sqlite_inflight50', '{:.3f}x')}  {verdict('meets_postgres_target')}")
    return "\n".join(lines)


def round_levels(args) -> list[int]:
    """The in-flight levels measured in the interleaved rounds: all but 1."""
    return [n for n in args.inflight if n != 1]


async def run(args) -> dict:
    results: dict = {
        "bench": "match_service",
        "python": platform.python_version(),
        "server_workers": SERVER_WORKERS,
        "grpcio": grpc.__version__,
        "cpus": os.cpu_count(),
        "seconds": args.seconds,
        "warmup_seconds": args.warmup,
        "echo_seconds": args.echo_seconds,
        "echo_bytes": args.echo_bytes,
        "long_matches": args.long_matches,
        "rounds": args.rounds,
    }
    results["loadavg_1m_before"] = loadavg()
    started = time.perf_counter()
    tmp = Path(tempfile.mkdtemp(prefix="bench-match-"))
    echo = None if args.no_echo else EchoServer(args, tmp)
    servers = {store: MatchServer(store, args, tmp) for store in args.stores}
    participants = (["echo"] if echo is not None else []) + list(servers)
    levels = round_levels(args)
    rounds: dict[int, dict[str, list[dict]]] = {n: {who: [] for who in participants} for n in levels}
    try:
        # every server up first, for the whole run (an idle match server costs almost nothing)
        if echo is not None:
            log("echo ...", args.json)
            await echo.start()
        for store, server in servers.items():
            log(f"{store} ...", args.json)
            await server.start()
        # 1 in flight: once each
        if echo is not None:
            r = await echo.measure(1)
            results["echo_inflight1_per_s"] = r["per_s"]
            results["echo_inflight1_p50_ms"] = r["p50_ms"]
        if 1 in args.inflight:
            for store, server in servers.items():
                for k, v in (await server.measure(1)).items():
                    results[f"{store}_inflight1_{k}"] = v
        # the other levels: interleaved rounds, the order rotating each round, so that the
        # machine's drift hits echo and stores alike and each round's ratios are paired
        for i in range(args.rounds if levels else 0):
            order = participants[i % len(participants):] + participants[:i % len(participants)]
            log(f"round {i + 1}/{args.rounds}: {', '.join(order)}", args.json)
            for n in levels:
                for who in order:
                    server = echo if who == "echo" else servers[who]
                    rounds[n][who].append(await server.measure(n))
        for n, by in rounds.items():
            for who, samples in by.items():
                if samples:
                    rate = "per_s" if who == "echo" else "commands_per_s"
                    for k, v in over_rounds(samples, rate).items():
                        results[f"{who}_inflight{n}_{k}"] = v
        if args.long_matches > 0:
            for store, server in servers.items():
                log(f"{store} late/early ...", args.json)
                for k, v in (await server.late_early()).items():
                    results[f"{store}_{k}"] = v
    finally:
        try:
            for server in reversed(servers.values()):
                server.stop()
        finally:
            if echo is not None:
                echo.stop()
            shutil.rmtree(tmp, ignore_errors=True)
    summarize(results, args, rounds)
    results["wall_seconds"] = time.perf_counter() - started
    results["loadavg_1m_after"] = loadavg()
    return results


def _finite(value):
    """NaN (nothing measured) as null, so the output is strict JSON."""
    if isinstance(value, float) and value != value:
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


SERVER_WORKERS = 1


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--serve-echo":
        asyncio.run(_echo_server_main(int(sys.argv[2])))
        return
    if len(sys.argv) == 3 and sys.argv[1] == "--yappi-server":
        _yappi_server_main(sys.argv[2])
        return
    if len(sys.argv) == 3 and sys.argv[1] == "--cprofile-server":
        _cprofile_server_main(sys.argv[2])
        return
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout (progress goes nowhere)")
    p.add_argument("--seconds", type=float, default=20.0, help="measured seconds per (store, in-flight) (default 20)")
    p.add_argument("--warmup", type=float, default=2.0, help="unmeasured seconds before each measurement (default 2)")
    p.add_argument("--echo-seconds", type=float, default=5.0, help="measured seconds per echo sample (default 5)")
    p.add_argument("--echo-bytes", type=int, default=32, help="echo payload size (default 32)")
    p.add_argument("--long-matches", type=int, default=3,
                   help="long block-4 matches (target 151) per store for late/early; 0 skips (default 3)")
    p.add_argument("--stores", nargs="+", choices=["sqlite", "postgres"], default=["sqlite", "postgres"])
    p.add_argument("--inflight", nargs="+", type=int, default=[1, 50], help="in-flight levels (default 1 50)")
    p.add_argument("--rounds", type=int, default=3,
                   help="interleaved rounds of the in-flight levels other than 1: echo and each store in an order "
                        "rotating each round; medians reported (default 3)")
    p.add_argument("--server-workers", type=int, default=1,
                   help="match service processes sharing the port (DOMINO_MATCH_WORKERS); the client opens one "
                        "connection per worker")
    p.add_argument("--server-env", action="append", default=[], metavar="KEY=VALUE",
                   help="extra environment for the match server (repeatable), for experiments")
    p.add_argument("--no-echo", action="store_true", help="skip the echo baseline")
    p.add_argument("--profile-server", choices=["none", "pyspy", "yappi", "cprofile"], default="none",
                   help="run the match server under a profiler (pyspy: pip install py-spy; yappi: pip install yappi; "
                        "cprofile: the standard library's)")
    p.add_argument("--profile-dir", default="bench-profiles", help="where profiles go (default ./bench-profiles)")
    p.add_argument("--profile-gil", action="store_true",
                   help="py-spy: sample only the thread holding the GIL (where the CPU goes)")
    p.add_argument("--profile-native", action="store_true", help="py-spy: include native (C/Cython) frames")
    p.add_argument("--profile-rate", type=int, default=250, help="py-spy samples per second (default 250)")
    args = p.parse_args()
    if args.rounds < 1:
        p.error("--rounds must be at least 1")
    args.stores = list(dict.fromkeys(args.stores))
    args.inflight = list(dict.fromkeys(args.inflight))
    global SERVER_WORKERS
    SERVER_WORKERS = args.server_workers
    if args.profile_server != "none":
        Path(args.profile_dir).mkdir(parents=True, exist_ok=True)
        args.profile_dir = str(Path(args.profile_dir).resolve())
    results = asyncio.run(run(args))
    if args.json:
        print(json.dumps(_finite(results), sort_keys=True))
    else:
        print(human(results, args))


if __name__ == "__main__":
    main()
