"""End-to-end load benchmark: simulated phones play whole matches over the whole system.

    .venv/bin/python bench/load.py --json                         # 60 s, 24 clients (about 3 minutes in all)
    .venv/bin/python bench/load.py --json --duration 60 --clients 40
    .venv/bin/python bench/load.py --json --ramp --ramp-step-seconds 20   # a quick ramp
    .venv/bin/python bench/load.py --json --clients 0 --bot-matches 20    # bot-only matches, as `domino demo`

The system runs as it does in production, every part its own process: embedded PostgreSQL
(``services.common.servers.start_postgres``), NATS with JetStream, and match (one replica,
or two with ``--match-replicas 2``), relay, accounts, matchmaking and bots, started by
``services.common.supervisor.LocalSystem`` with ``PostgresServer.eventsourcing_env``, bots
thinking 0 s (``DOMINO_BOT_THINK_MIN/MAX_SECONDS=0``), the account service's sign-ins per
client address unlimited (``DOMINO_SIGN_INS_PER_MINUTE``: every phone here is 127.0.0.1)
and every other setting at its default unless ``--service-env`` says otherwise
(``DOMINO_COMMAND_RATE`` stays 20/s per caller). This process holds only the simulated
players.

Each simulated client is a phone: its own device (a random id and 256-bit secret), its own
gRPC channels (grpc.aio), and the account the device signs in to: it calls the account
service's ``SignInWithDevice`` first, plays as the session's ``player_id`` with its access
token, and rotates the session with ``RefreshSession`` before ``access_expires_at`` (as the
app does, services/client/session.py; a refused refresh signs in by device again), then
reopens its open streams with the new token (``token_reconnects``) before the old one's
expiry would end them. ``--access-token-seconds`` shortens the tokens' lifetime to exercise
that; ``--local-keys`` instead mints each player's token with the system's development keys,
as before the account service (player ids ``load-...``). A phone paces its own requests to
each service a little under the services' per-player limit (90% of
``DOMINO_COMMAND_RATE``, bursts 5 short of ``DOMINO_COMMAND_BURST``; ``client_paced_waits``,
not counted in command latency): these phones play bots that think 0 s at machine speed,
which no person does (``--no-client-pacing``: as fast as they play). It asks
matchmaking for a match, then plays it to the end from its ``WatchMatch`` stream alone: every update carries the
seat's view with ``legal_moves``, so it acts (a random legal move, ``PlayTile`` or
``DrawTile``) when an update says it is its turn, and calls ``GetMatch`` only when a command
is refused. It sends its own seed (``SubmitSeed``) when the view waits for it. Now and then
(``--reconnect-seconds``, exponentially distributed, per client) it cancels its stream and
resumes from the last version it saw. Then it asks for the next match.

Two kinds of client, in the proportion ``--practice-share`` (default 0.25):

* practice: ``StartPractice`` against bots, rotating through every family (targets the
  smallest each family offers; bot strength rotating random, greedy, strong). After the
  match it asks again at once; until matchmaking has learnt the end from NATS the answer is
  FAILED_PRECONDITION ("already elsewhere"), which is retried after 0.2 s and counted as
  ``practice_busy_retries``, not as an error.
* public tables: groups of 2, 3 or 4 clients that ``RequestTable`` the same kind of table
  (rotating: draw-2, All Fives, Goat gamezz, Classic at 2 seats; block-3, Classic at 3;
  block-4, Sports, All Fives teams, Goat koza teams at 4), at the family's default options.
  The matchmaking wait is from ``RequestTable`` to the first ``WatchTicket`` update naming
  the match. After its match, a client waits for its ticket's end before it asks again.

``--bot-matches N`` adds N drivers of bot-only matches, like ``domino demo``:
``CreateMatch`` with a service token, every seat ``bot:<strength>:<n>``, then a public
``WatchMatch`` until the end, and the next one. That is the setting of the issue's probe.

At ``--duration`` the clients stop (a waiting ticket is cancelled, matches in play are left);
only matches that ended inside the run count. Then ``reconciled`` checks, for every
finished match: the store holds versions 1..N (the last a MatchEnded), the JetStream stream
holds exactly those versions in order, and every client of the match received exactly
them (as tests/system/fault_harness.py ``reconcile``, over a pull consumer instead of one
``get_msg`` per message).

CPU: utime+stime from /proc/<pid>/stat of every service process, NATS, PostgreSQL (the
postmaster and its backends) and this process, over the measured window (after
``--warmup``), divided by the commands the match service answered OK in that window
(``domino_match_rpcs_total``, PlayTile+DrawTile, bots' included). ``cpu_ms_per_command_total``
counts this process too; ``cpu_ms_per_command_system`` is the system's own, every process but
this one (``load_clients`` stands for the phones, not for the system).

Where the time goes: every window also reports this process's own event-loop lag
(``loadgen_loop_lag_*``, bench/loop_lag.py) beside its CPU (``loadgen_cpu_cores``), and
``command_hops_ms`` (bench/hops.py): the phones' round trip, the match service's own time,
what lies between them, and what follows a command (relay lag, delivery to the phones'
streams, the bots' decision). A snapshot reads the CPU before and after its scrapes, and a
window leaves both ends' scrapes out.

``--ramp`` raises the number of concurrent matches step by step (a practice client or a
table group is one match) and reports ``max_concurrent_matches_p99_under_100ms``, the most
held for a whole step (``--ramp-step-seconds``, default 60) with command p99 < 100 ms.

``--paced`` (bench/paced.py; bench/README.md has the why of each choice) makes the phones
play like people: each move after a think time drawn from a log-normal (median 3 s, sigma
0.6, clipped to [1, 20] s, hurried to 0.8 of the turn's time left; ``--think-*``, seeded by
``--seed``), a quick-chat phrase every ``--chat-seconds`` (120, exponential), a reconnect
every ``--reconnect-seconds`` (120 here), bots at their production think time, phones
sharing channels (``--phones-per-channel``). ``--paced --matches N --duration S`` holds N
such matches (started over ``--ramp-up``) and reports ``concurrent_matches_mean``/``_min``,
``loadgen_cpu_cores``, then an idle window where everybody holds their streams and nobody
moves: ``idle_stream_cpu_ms_per_s`` (match service CPU per open stream) and
``stream_rss_kb``; matches still in play are reconciled as prefixes. ``--paced --ramp``
steps through ``--ramp-steps`` and reports ``max_concurrent_paced_matches_p99_under_100ms``.

    .venv/bin/python bench/load.py --json --paced --matches 50 --duration 60
    .venv/bin/python bench/load.py --json --paced --ramp --ramp-steps 50,100,200,400 --ramp-step-seconds 90

The machine has 2 cores and is shared: every figure depends on what else runs
(``loadavg_1m_*``, ``cpu_cores_total`` say how busy it was).
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
import secrets
import shutil
import sys
import tempfile
import time
import uuid
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import grpc  # noqa: E402

from domino.account.v1 import account_service_pb2 as acc  # noqa: E402
from domino.account.v1 import account_service_pb2_grpc as acc_grpc  # noqa: E402
from domino.match.v1 import match_service_pb2 as pb  # noqa: E402
from domino.match.v1 import match_service_pb2_grpc as pb_grpc  # noqa: E402
from domino.matchmaking.v1 import matchmaking_service_pb2 as mm  # noqa: E402
from domino.matchmaking.v1 import matchmaking_service_pb2_grpc as mm_grpc  # noqa: E402
from services.common.auth import mint_token  # noqa: E402
from services.common.servers import start_postgres  # noqa: E402
from services.client import session as client_session  # noqa: E402
from services.common.error_details import details_of  # noqa: E402
from services.common.supervisor import LocalSystem, Ports  # noqa: E402
from bench.procfs import children_cpu_seconds, cpu_seconds, git_commit, loadavg, pct  # noqa: E402
from bench.hops import command_hops, window_line  # noqa: E402
from bench.loop_lag import LoopLag, freeze_heap  # noqa: E402
from bench.rpc_probe import EmptyRpcProbe  # noqa: E402
from bench.prom_text import histogram_quantile, metric_sum, scrape  # noqa: E402

SYSTEM_SERVICES = ("match", "relay", "accounts", "matchmaking", "bots")

CALL_SECONDS = 10.0
ENDED = (pb.MATCH_STATUS_ENDED, pb.MATCH_STATUS_ABANDONED)
COMMANDS = ("PlayTile", "DrawTile")
P99_LIMIT_MS = 100.0
MM_METHODS = ("RequestTable", "WatchTicket", "CancelTicket", "StartPractice")
# Failed calls the harness itself causes (its own stream cancels, asking for practice before
# matchmaking learnt the last end): not errors.
HARNESS_MADE = ("match:WatchMatch:CANCELLED", "matchmaking:WatchTicket:CANCELLED",
                "matchmaking:StartPractice:FAILED_PRECONDITION")

# (rules, variant, seats, teams, target) of practice matches: every family, smallest target.
PRACTICE = (("egyptian", "draw-2", None, None, 51), ("all-fives", "", 2, None, 100), ("goat", "gamezz", 2, None, None),
            ("classic", "", 3, None, 100), ("sports", "", None, None, 100), ("egyptian", "block-4", None, None, 51),
            ("all-fives", "", 4, True, 100), ("goat", "koza", 4, True, None), ("classic", "", 2, None, 100))
STRENGTHS = ("random", "greedy", "strong")
# Public tables by seat count: (rules, variant, seats, teams), the family's default options.
TABLES = {2: (("egyptian", "draw-2", None, None), ("all-fives", "", 2, None), ("goat", "gamezz", 2, None),
              ("classic", "", 2, None)),
          3: (("egyptian", "block-3", None, None), ("classic", "", 3, None)),
          4: (("egyptian", "block-4", None, None), ("sports", "", None, None), ("all-fives", "", 4, True),
              ("goat", "koza", 4, True))}


# ---------------------------------------------------------------------------------------
# small helpers


LATE_SECONDS = 1.0  # a move sent with less of its turn left may reach the server after its timer played


def late_move(refused: grpc.aio.AioRpcError, view: pb.MatchView, sent_at_monotonic: float) -> bool:
    """A move refused FAILED_PRECONDITION that was sent with under LATE_SECONDS of its turn
    left (the view's turn_deadline): a person too slow, which the server rightly refuses, not
    an error of the system. A move refused with time to spare stays an error."""
    if refused.code() != grpc.StatusCode.FAILED_PRECONDITION:
        return False
    deadline = view.turn_deadline.seconds + view.turn_deadline.nanos / 1e9
    sent_at = time.time() - (time.monotonic() - sent_at_monotonic)
    return deadline > 0 and deadline - sent_at < LATE_SECONDS


def offered_strength(rules: str, variant: str, seats: int | None, teams: bool | None, n: int) -> str:
    """The ``n``th of STRENGTHS in rotation among those practice offers with these options
    (random bots are not offered where the ladder cannot tell them from greedy)."""
    from services.matchmaking.options import Options, not_offered
    options = Options.chosen(rules, variant, teams, seats=seats)
    offered = [s for s in STRENGTHS if not_offered(s, options) is None]
    return offered[n % len(offered)]


def rnd(value: float | None, digits: int = 2) -> float | None:
    return None if value is None or (isinstance(value, float) and not math.isfinite(value)) else round(value, digits)


def log(msg: str) -> None:
    print(f"[load {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------
# the system


class LoadSystem(LocalSystem):
    """LocalSystem on PostgreSQL; with ``replicas=2`` a second match replica that clients
    (round robin), bots and matchmaking reach through one target naming both."""

    def __init__(self, var_dir: Path, store_env: dict[str, str], service_env: dict[str, str], replicas: int) -> None:
        super().__init__(var_dir, Ports.free(), services=SYSTEM_SERVICES, match_replicas=replicas, extra_env={
            **store_env, "DOMINO_LOG_FORMAT": "json", "DOMINO_BOT_THINK_MIN_SECONDS": "0",
            "DOMINO_BOT_THINK_MAX_SECONDS": "0", "DOMINO_SIGN_INS_PER_MINUTE": "1000000", **service_env})
        self.store_env = store_env

    def match_metrics_ports(self) -> list[int]:
        return [self.ports.match_metrics] + ([self._second_match[1]] if self.match_replicas > 1 else [])

    def pids(self, postgres_pid: int) -> dict[str, int]:
        pids = {name: proc.pid for name, proc in self.processes.items()}
        assert self.nats is not None
        pids["nats"] = self.nats.pid
        pids["postgres"] = postgres_pid
        return pids


def cpu_snapshot(pids: dict[str, int]) -> dict[str, float]:
    out = {}
    for name, pid in pids.items():
        out[name] = cpu_seconds(pid) + (children_cpu_seconds(pid) if name == "postgres" else 0.0)
    out["load_clients"] = cpu_seconds(os.getpid())
    return out


# ---------------------------------------------------------------------------------------
# what the clients record


@dataclass
class Seen:
    """What one client of one match received and did."""
    match_id: str
    player: str
    versions: list[int] = field(default_factory=list)
    ended_at: float | None = None


@dataclass
class Stats:
    commands: list[tuple[float, float]] = field(default_factory=list)  # (done at, seconds)
    waits: list[tuple[float, float, str]] = field(default_factory=list)  # (seated at, seconds, "table"|"practice")
    lags: list[tuple[float, float]] = field(default_factory=list)  # (received at, occurred -> received seconds)
    errors: Counter = field(default_factory=Counter)  # "Method:CODE"
    error_samples: list[str] = field(default_factory=list)
    getmatch: int = 0
    sign_ins: list[float] = field(default_factory=list)  # seconds of each SignInWithDevice that succeeded
    refreshes: list[float] = field(default_factory=list)  # seconds of each RefreshSession that succeeded
    per_second: Counter = field(default_factory=Counter)  # (player, service, whole second) -> requests
    seeds: int = 0
    token_reconnects: int = 0  # streams reopened because their phone's token was renewed
    paced_waits: int = 0
    paced_seconds: float = 0.0
    reconnects: int = 0
    practice_busy_retries: int = 0
    cancelled_tickets: int = 0
    timeouts: int = 0  # a person's turn the server played because its timer ran out (--paced)
    late_moves: int = 0  # a person's move refused as out of turn, sent with under LATE_SECONDS of its turn left
    seats_away: int = 0  # a person's seat marked away (two timeouts in a row)
    stale_thoughts: int = 0  # a move thought about while the match moved on without it
    chats_sent: int = 0
    chats_received: int = 0
    seen: list[Seen] = field(default_factory=list)
    finished: list[tuple[float, str, str]] = field(default_factory=list)  # (ended at, match id, kind), once each
    finished_ids: set = field(default_factory=set)
    playing: Counter = field(default_factory=Counter)  # match id -> clients playing or watching it now

    @property
    def in_play(self) -> int:
        return len(self.playing)

    def start(self, match_id: str) -> None:
        self.playing[match_id] += 1

    def stop(self, match_id: str) -> None:
        self.playing[match_id] -= 1
        if self.playing[match_id] <= 0:
            del self.playing[match_id]

    def ended(self, seen: "Seen", kind: str) -> None:
        if seen.ended_at is not None and seen.match_id not in self.finished_ids:
            self.finished_ids.add(seen.match_id)
            self.finished.append((seen.ended_at, seen.match_id, kind))

    def request(self, player: str, service: str) -> None:
        self.per_second[(player, service, int(time.monotonic()))] += 1

    def error(self, method: str, e: grpc.aio.AioRpcError) -> None:
        self.errors[f"{method}:{e.code().name}"] += 1
        if len(self.error_samples) < 10:
            self.error_samples.append(f"{method}: {e.code().name}: {(e.details() or '')[:200]}")


class Pace:
    """A phone's own token bucket for one service, a little under the services' per-player
    limit (``DOMINO_COMMAND_RATE``/``_BURST``): these phones play at machine speed against bots
    that think 0 s, which no person does, and a well-behaved app waits rather than be refused."""

    def __init__(self, rate: float, burst: float, stats: "Stats") -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = burst
        self.at = time.monotonic()
        self.stats = stats

    async def take(self) -> None:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens < 1:
            wait = (1 - self.tokens) / self.rate
            self.stats.paced_waits += 1
            self.stats.paced_seconds += wait
            self.tokens -= 1  # taken now, paid for by the wait
            await asyncio.sleep(wait)
            return
        self.tokens -= 1


class Harness:
    def __init__(self, system: LoadSystem, args) -> None:
        self.system = system
        self.args = args
        self.stats = Stats()
        self.run_id = uuid.uuid4().hex[:6]
        self.stopping = asyncio.Event()
        self.rng = random.Random(args.seed)
        self.tasks: list[asyncio.Task] = []
        self.table_clients = 0
        self.class_counts: Counter = Counter()
        # the phones' own pace: 90% of the per-player rate the services allow, bursts 5 short of theirs
        env = system.env()
        rate, burst = float(env.get("DOMINO_COMMAND_RATE", 20.0)), float(env.get("DOMINO_COMMAND_BURST", 40.0))
        self.pace = (0.9 * rate, max(1.0, burst - 5))
        self.open_matches: set[str] = set()
        # --paced (bench/paced.py): phones that think like people, on shared channels; while
        # `moving` is clear nobody moves (the idle window)
        self.moving = asyncio.Event()
        self.moving.set()
        self.phone_class: type = Phone
        self.think: Any = None
        self.pool: Any = None
        if args.paced:
            import paced
            self.phone_class = type("PacedPhone", (paced.HumanPace, Phone), {})
            self.think = paced.ThinkTime(args.think_median, args.think_sigma, args.think_min, args.think_max)
            self.pool = paced.ChannelPool(lambda target: self.channel(target, own_connection=True),
                                          args.phones_per_channel)

    def token(self, subject: str, role: str = "player") -> tuple:
        return (("authorization", f"Bearer {mint_token(subject, self.system.keys(), role)}"),)

    def channel(self, target: str, own_connection: bool = False) -> grpc.aio.Channel:
        """A channel to ``target``. Channels of one process with the same arguments share one
        connection per address (grpc's global subchannel pool), and a connection carries at
        most DOMINO_GRPC_MAX_CONCURRENT_STREAMS (100) calls at once, more wait: with
        ``own_connection`` the channel has connections of its own (a local subchannel pool)."""
        options = [("grpc.lb_policy_name", "round_robin")] if target.startswith("ipv4:") else []
        if own_connection:
            options.append(("grpc.use_local_subchannel_pool", 1))
        return grpc.aio.insecure_channel(target, options=options)

    def phone_channel(self, target: str, n: int):
        """Phone ``n``'s channel to ``target``, as an async context manager: its own (closed
        with it), or with --paced one it shares with other phones (closed at the end)."""
        if self.pool is None:
            return self.channel(target)
        return contextlib.nullcontext(self.pool.get(target, n))

    # ---- adding load -------------------------------------------------------------------

    def add_match_unit(self, index: int) -> None:
        """One more concurrent match: a practice client, or a table group (the share of
        practice decides), for the ramp."""
        if self.rng.random() < self.args.practice_share or index == 0:
            self.add_practice()
        else:
            self.add_table_group(self.rng.choice((2, 2, 3, 4, 4)))

    def add_clients(self, n: int) -> None:
        practice = round(n * self.args.practice_share)
        rest = n - practice
        fours = 4 * (rest * 5 // 10 // 4)
        threes = 3 * ((rest - fours) * 3 // 10 // 3)
        twos = 2 * ((rest - fours - threes) // 2)
        practice += rest - fours - threes - twos
        for _ in range(practice):
            self.add_practice()
        for seats, count in ((4, fours), (3, threes), (2, twos)):
            for _ in range(count // seats):
                self.add_table_group(seats)

    def add_practice(self) -> None:
        n = len(self.tasks)
        self.tasks.append(asyncio.create_task(self.phone_class(self, f"load-{self.run_id}-{n}", n, None).run()))

    def add_table_group(self, seats: int) -> None:
        self.class_counts[seats] += 1
        for _ in range(seats):
            n = len(self.tasks)
            self.tasks.append(asyncio.create_task(self.phone_class(self, f"load-{self.run_id}-{n}", n, seats).run()))
            self.table_clients += 1

    def add_bot_matches(self, n: int) -> None:
        for i in range(n):
            self.tasks.append(asyncio.create_task(self.bot_match_driver(i)))

    async def stop(self) -> None:
        self.stopping.set()
        await asyncio.sleep(0)
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        if self.pool is not None:
            await self.pool.close()

    # ---- bot-only matches, as `domino demo` --------------------------------------------

    async def bot_match_driver(self, i: int) -> None:
        family, _, variant = self.args.bot_rules.partition(":")
        service = self.token(f"load-demo-{i}", "service")
        seats = {"egyptian": {"draw-2": 2, "block-3": 3}.get(variant, 4)}.get(family, 4)
        async with self.channel(self.system.match_target) as channel:
            stub = pb_grpc.MatchServiceStub(channel)
            n = 0
            while not self.stopping.is_set():
                players = [pb.SeatSpec(player_id=f"bot:{self.args.bot_strength}:{s}", client_seed=uuid.uuid4().hex)
                           for s in range(seats)]
                request = pb.CreateMatchRequest(request_id=f"load-demo:{self.run_id}:{i}:{n}", rules=family,
                                                variant=variant, seats=players, turn_timer_seconds=0)
                n += 1
                try:
                    reply = await stub.CreateMatch(request, metadata=service, timeout=CALL_SECONDS)
                except grpc.aio.AioRpcError as e:
                    if self.stopping.is_set():
                        return
                    self.stats.error("CreateMatch", e)
                    await asyncio.sleep(1)
                    continue
                seen = Seen(reply.match_id, f"demo-{i}")
                self.stats.seen.append(seen)
                self.stats.start(seen.match_id)
                try:
                    if self.args.bot_watch == "poll":
                        await self._poll_until_ended(stub, seen, service)
                    else:
                        await Watcher(self, stub, seen, service, None).watch()
                finally:
                    self.stats.stop(seen.match_id)
                self.stats.ended(seen, "bots")


    async def _poll_until_ended(self, stub, seen: Seen, service: tuple) -> None:
        """As `domino demo` waits: GetMatch every 0.25 s (``--bot-poll-seconds``) until the match has ended (the events
        are then read once, for the reconciliation)."""
        while True:
            try:
                view = (await stub.GetMatch(pb.GetMatchRequest(match_id=seen.match_id), metadata=service,
                                            timeout=CALL_SECONDS)).view
            except grpc.aio.AioRpcError as e:
                if self.stopping.is_set():
                    return
                self.stats.error("GetMatch", e)
                view = None
            if view is not None and view.status in ENDED:
                break
            await asyncio.sleep(self.args.bot_poll_seconds)
        seen.ended_at = time.monotonic()
        call = stub.WatchMatch(pb.WatchMatchRequest(match_id=seen.match_id), metadata=service)
        async for update in call:
            seen.versions.append(update.event.version)
            if update.view.status in ENDED:
                call.cancel()
                break


class Watcher:
    """A WatchMatch stream that resumes from the last version seen: after a failure, when the
    server ends it early, and on purpose every ``--reconnect-seconds`` (exponential)."""

    def __init__(self, harness: Harness, stub, seen: Seen, metadata, on_view, before_call=None,
                 renewed=None) -> None:
        self.h = harness
        self.stub = stub
        self.seen = seen
        self.metadata = metadata  # call metadata, or a function giving the current one (tokens rotate)
        self.on_view = on_view  # called with each update's view (players), or None
        self.before_call = before_call  # awaited before each (re)connect: a phone counts and paces its calls
        self.renewed = renewed  # a function giving the event set when the phone's token is renewed
        self.rng = random.Random(f"{seen.match_id}:{seen.player}")

    async def watch(self) -> None:
        stats = self.h.stats
        mean = self.h.args.reconnect_seconds
        while self.seen.ended_at is None:
            last = self.seen.versions[-1] if self.seen.versions else 0
            if self.before_call is not None:
                await self.before_call()
            call = self.stub.WatchMatch(pb.WatchMatchRequest(match_id=self.seen.match_id, from_version=last),
                                        metadata=self.metadata() if callable(self.metadata) else self.metadata)
            reader = asyncio.create_task(self._read(call))
            renewal = asyncio.create_task(self.renewed().wait()) if self.renewed is not None else None
            timeout = self.rng.expovariate(1 / mean) if mean > 0 else None
            try:
                while True:
                    done, _ = await asyncio.wait({reader} | ({renewal} if renewal else set()), timeout=timeout,
                                                 return_when=asyncio.FIRST_COMPLETED)
                    if done or self.h.moving.is_set():
                        break
                    timeout = 1.0  # --paced idle window: nobody reconnects on purpose; look again soon
            except asyncio.CancelledError:
                call.cancel()
                reader.cancel()
                raise
            finally:
                if renewal is not None:
                    renewal.cancel()
            if reader not in done:  # a reconnect on purpose: the phone lost its connection, or has a new token
                call.cancel()
                reader.cancel()
                with contextlib.suppress(asyncio.CancelledError, grpc.aio.AioRpcError):
                    await reader
                if renewal is not None and renewal in done:
                    stats.token_reconnects += 1
                else:
                    stats.reconnects += 1
                continue
            try:
                reader.result()
            except grpc.aio.AioRpcError as e:
                if self.h.stopping.is_set():
                    return
                stats.error("WatchMatch", e)
                await asyncio.sleep(0.2)

    async def _read(self, call) -> None:
        stats = self.h.stats
        async for update in call:
            if update.HasField("chat"):  # a quick-chat phrase: no event, no view
                stats.chats_received += 1
                continue
            now = time.time()
            event = update.event
            if update.HasField("event"):  # the first update of a stream from version 0 is the view alone
                self.seen.versions.append(event.version)
                if update.view.HasField("your_seat") and event.HasField("seat") and event.seat == update.view.your_seat:
                    stats.timeouts += event.cause == pb.MOVE_CAUSE_TIMEOUT
                    stats.seats_away += event.kind == pb.EVENT_KIND_SEAT_AWAY
                occurred = event.occurred_at
                stats.lags.append((time.monotonic(), now - (occurred.seconds + occurred.nanos / 1e9)))
            else:  # the match as it stands when the stream opened: every version up to it
                self.seen.versions.extend(range(len(self.seen.versions) + 1, update.view.version + 1))
            if self.on_view is not None:
                self.on_view(update.view)
            if update.view.status in ENDED:
                self.seen.ended_at = time.monotonic()
                return


class Phone:
    """One simulated mobile client: its own device, account, token and channels."""

    def __init__(self, harness: Harness, player: str, n: int, table_seats: int | None) -> None:
        self.h = harness
        self.player = player  # with --local-keys; else the account id its device signs in to
        self.n = n
        self.table_seats = table_seats
        self.md: tuple = harness.token(player) if harness.args.local_keys else ()
        self.rng = random.Random(f"{harness.args.seed}:{n}")
        self.matches = 0
        # what the app keeps from its first launch: a random device id and a 256-bit secret
        self.device = (f"{player}-{secrets.token_urlsafe(12)}", secrets.token_hex(32))
        self.refresh_token = ""
        self.renew_at = 0.0  # time.monotonic() at which to refresh the session
        self.renewed = asyncio.Event()  # set (and replaced) at each new token: open streams reopen with it
        rate, burst = harness.pace
        self.paces = {service: Pace(rate, burst, harness.stats) for service in ("match", "matchmaking")}

    async def _request(self, service: str) -> None:
        """Counts a request to ``service`` and, unless --no-client-pacing, waits for the phone's
        own bucket."""
        self.h.stats.request(self.player, service)
        if not self.h.args.no_client_pacing:
            await self.paces[service].take()

    async def run(self) -> None:
        h = self.h
        async with contextlib.AsyncExitStack() as stack:
            mc = await stack.enter_async_context(h.phone_channel(h.system.match_target, self.n))
            mmc = await stack.enter_async_context(h.phone_channel(h.system.matchmaking_address, self.n))
            self.stub = pb_grpc.MatchServiceStub(mc)
            self.mm = mm_grpc.MatchmakingServiceStub(mmc)
            await asyncio.sleep(self.rng.random() * 0.5)  # phones do not all start in the same millisecond
            fresh = None
            if not h.args.local_keys:
                ac = await stack.enter_async_context(h.phone_channel(h.system.account_address, self.n))
                self.accounts = acc_grpc.AccountServiceStub(ac)
                if not await self.sign_in():
                    return
                fresh = asyncio.create_task(self.keep_fresh())
            try:
                while not h.stopping.is_set():
                    if self.table_seats is None:
                        await self.practice_once()
                    else:
                        await self.table_once()
                    self.matches += 1
            finally:
                if fresh is not None:
                    fresh.cancel()

    # ---- the account -------------------------------------------------------------------

    def _use(self, session: acc.Session) -> None:
        """A new session or a rotated one: its token from now on, and when to renew it (as the
        app does, services/client/session.py: a fifth of its life early, at most 60 s, the
        life read from the token's own exp - iat)."""
        self.player = session.player_id
        self.md = (("authorization", f"Bearer {session.access_token}"),)
        self.refresh_token = session.refresh_token
        expires_at = session.access_expires_at.seconds + session.access_expires_at.nanos / 1e9
        life = client_session.lifetime(session.access_token, expires_at, time.time())
        self.renew_at = time.monotonic() + life - min(client_session.EARLY_SECONDS, client_session.EARLY_SHARE * life)
        self.renewed.set()
        self.renewed = asyncio.Event()

    async def sign_in(self) -> bool:
        """SignInWithDevice until it answers (a few tries); False when the phone gives up."""
        h = self.h
        for attempt in range(5):
            started = time.monotonic()
            try:
                reply = await self.accounts.SignInWithDevice(acc.SignInWithDeviceRequest(
                    device_id=self.device[0], device_secret=self.device[1]), timeout=CALL_SECONDS)
            except grpc.aio.AioRpcError as e:
                if h.stopping.is_set():
                    return False
                h.stats.error("SignInWithDevice", e)
                await asyncio.sleep(0.5 * 2 ** attempt)
                continue
            h.stats.sign_ins.append(time.monotonic() - started)
            self._use(reply.session)
            return True
        return False

    async def keep_fresh(self) -> None:
        """RefreshSession a little before the access token expires; a refused refresh
        (UNAUTHENTICATED) signs in by device again. The phone's open streams then reopen with
        the new token (``renewed``), before the old one's expiry would end them."""
        h = self.h
        while not h.stopping.is_set():
            await asyncio.sleep(max(0.0, self.renew_at - time.monotonic()))
            started = time.monotonic()
            try:
                reply = await self.accounts.RefreshSession(acc.RefreshSessionRequest(refresh_token=self.refresh_token),
                                                           timeout=CALL_SECONDS)
            except grpc.aio.AioRpcError as e:
                if h.stopping.is_set():
                    return
                h.stats.error("RefreshSession", e)
                if e.code() == grpc.StatusCode.UNAUTHENTICATED:
                    await self.sign_in()
                else:
                    await asyncio.sleep(1)
                continue
            h.stats.refreshes.append(time.monotonic() - started)
            self._use(reply.session)

    async def _call(self, method_name: str, method, request, metadata=None, paced: bool = False):
        if not paced:  # (a command's caller paces before it starts the clock)
            await self._request("matchmaking" if method_name in MM_METHODS else "match")
        try:
            return await method(request, metadata=metadata or self.md, timeout=CALL_SECONDS)
        except grpc.aio.AioRpcError as e:
            if not self.h.stopping.is_set():
                self.h.stats.error(method_name, e)
            raise

    async def practice_once(self) -> None:
        h = self.h
        rules, variant, seats, teams, target = PRACTICE[(self.n + self.matches) % len(PRACTICE)]
        strength = offered_strength(rules, variant, seats, teams, self.n + self.matches)
        request = mm.StartPracticeRequest(request_id=f"{self.player}:{self.matches}", rules=rules, variant=variant,
                                          bot_strength=pb.BotStrength.Value(f"BOT_STRENGTH_{strength.upper()}"))
        for name, value in (("seat_count", seats), ("teams", teams), ("target", target)):
            if value is not None:
                setattr(request, name, value)
        asked = time.monotonic()
        while True:
            await self._request("matchmaking")
            try:
                reply = await self.mm.StartPractice(request, metadata=self.md, timeout=CALL_SECONDS)
                break
            except grpc.aio.AioRpcError as e:
                if details_of(e).reason == "ALREADY_SEATED":
                    h.stats.practice_busy_retries += 1  # matchmaking has not yet learnt the last match's end
                    await asyncio.sleep(0.2)
                    asked = time.monotonic()
                    continue
                if not h.stopping.is_set():
                    h.stats.error("StartPractice", e)
                    await asyncio.sleep(1)
                return
        h.stats.waits.append((time.monotonic(), time.monotonic() - asked, "practice"))
        await self.play(reply.match_id, "practice")

    async def table_once(self) -> None:
        h = self.h
        kinds = TABLES[self.table_seats]
        rules, variant, seats, teams = kinds[self.matches % len(kinds)]
        request = mm.RequestTableRequest(request_id=f"{self.player}:{self.matches}", rules=rules, variant=variant)
        if seats is not None:
            request.seat_count = seats
        if teams is not None:
            request.teams = teams
        asked = time.monotonic()
        try:
            ticket = (await self._call("RequestTable", self.mm.RequestTable, request)).ticket
        except grpc.aio.AioRpcError:
            await asyncio.sleep(1)
            return
        match_id = ""
        try:
            match_id = await self._seated(ticket.ticket_id)
        except asyncio.CancelledError:
            if not match_id:
                with contextlib.suppress(grpc.aio.AioRpcError, asyncio.CancelledError):
                    await asyncio.shield(self.mm.CancelTicket(mm.CancelTicketRequest(ticket_id=ticket.ticket_id),
                                                              metadata=self.md, timeout=CALL_SECONDS))
                    h.stats.cancelled_tickets += 1
            raise
        if not match_id:
            return
        h.stats.waits.append((time.monotonic(), time.monotonic() - asked, "table"))
        await self.play(match_id, "table")
        await self._ticket_ended(ticket.ticket_id)

    async def _seated(self, ticket_id: str) -> str:
        """Watch the ticket until it names its match ("" when it ends without one)."""
        def decide(update) -> str | None:
            if update.ticket.match_id:
                return update.ticket.match_id
            return "" if update.ticket.status in (mm.TICKET_STATUS_CANCELLED, mm.TICKET_STATUS_ENDED) else None
        while True:
            found = await self._watch_ticket(ticket_id, decide)
            if found is not None or self.h.stopping.is_set():
                return found or ""

    async def _ticket_ended(self, ticket_id: str) -> None:
        """Wait until matchmaking has learnt the match's end (else the next request is refused)."""
        ended = (mm.TICKET_STATUS_ENDED, mm.TICKET_STATUS_CANCELLED)
        await self._watch_ticket(ticket_id, lambda update: True if update.ticket.status in ended else None)

    async def _watch_ticket(self, ticket_id: str, decide):
        """The first ``decide(update)`` that is not None, from WatchTicket; None when the stream
        ends first or the run stops. Opened again after a failure, and with the new token
        when the phone renews its own while waiting."""
        while not self.h.stopping.is_set():
            await self._request("matchmaking")
            call = self.mm.WatchTicket(mm.WatchTicketRequest(ticket_id=ticket_id), metadata=self.md)

            async def read(call=call):
                async for update in call:
                    value = decide(update)
                    if value is not None:
                        call.cancel()
                        return value
                return None

            reader = asyncio.create_task(read())
            renewal = asyncio.create_task(self.renewed.wait())
            try:
                await asyncio.wait({reader, renewal}, return_when=asyncio.FIRST_COMPLETED)
            finally:  # also when the run stops (cancelled): the stream goes with it
                renewal.cancel()
                if not reader.done():
                    call.cancel()
                    reader.cancel()
                    with contextlib.suppress(asyncio.CancelledError, grpc.aio.AioRpcError):
                        await reader
            if reader.cancelled():  # the token was renewed: open it again with the new one
                self.h.stats.token_reconnects += 1
                continue
            try:
                return reader.result()
            except grpc.aio.AioRpcError as e:
                if self.h.stopping.is_set():
                    return None
                self.h.stats.error("WatchTicket", e)
                await asyncio.sleep(0.2)
        return None

    # ---- playing -----------------------------------------------------------------------

    async def play(self, match_id: str, kind: str) -> None:
        h = self.h
        seen = Seen(match_id, self.player)
        h.stats.seen.append(seen)
        state: dict[str, Any] = {"latest": None}
        self.latest = state  # (what a thinking person looks at again before moving: bench/paced.py)
        turn = asyncio.Event()

        def on_view(view: pb.MatchView) -> None:
            latest = state["latest"]
            if latest is None or view.version > latest.version:
                state["latest"] = view
                turn.set()

        watcher = asyncio.create_task(Watcher(h, self.stub, seen, lambda: self.md, on_view,
                                              lambda: self._request("match"), lambda: self.renewed).watch())
        acted, seed_sent = -1, False
        h.stats.start(match_id)
        try:
            while not watcher.done():
                waiter = asyncio.create_task(turn.wait())
                await asyncio.wait({waiter, watcher}, return_when=asyncio.FIRST_COMPLETED)
                waiter.cancel()
                turn.clear()
                view = state["latest"]
                if view is None or view.status in ENDED:
                    continue
                me = view.your_seat if view.HasField("your_seat") else -1
                if (view.status == pb.MATCH_STATUS_WAITING_FOR_SEEDS and not seed_sent and 0 <= me < len(view.seats)
                        and view.seats[me].awaiting_seed):
                    seed_sent = True
                    try:
                        reply = await self._call("SubmitSeed", self.stub.SubmitSeed,
                                                 pb.SubmitSeedRequest(match_id=match_id, seed=uuid.uuid4().hex))
                        h.stats.seeds += 1
                        on_view(reply.view)
                    except grpc.aio.AioRpcError:
                        pass
                    continue
                if (view.status != pb.MATCH_STATUS_IN_PROGRESS or not view.HasField("turn") or view.turn != me
                        or view.version <= acted):
                    continue
                acted = view.version
                reply_view = await self.act(match_id, view)
                if reply_view is not None:
                    on_view(reply_view)
            await watcher
        finally:
            watcher.cancel()
            h.stats.stop(match_id)
        h.stats.ended(seen, kind)

    async def act(self, match_id: str, view: pb.MatchView) -> pb.MatchView | None:
        h = self.h
        moves = [m for m in view.legal_moves if m.kind in (pb.MOVE_KIND_PLAY, pb.MOVE_KIND_DRAW)]
        if not moves:  # not in the view: ask (should not happen)
            h.stats.getmatch += 1
            try:
                view = (await self._call("GetMatch", self.stub.GetMatch, pb.GetMatchRequest(match_id=match_id))).view
            except grpc.aio.AioRpcError:
                return None
            moves = [m for m in view.legal_moves if m.kind in (pb.MOVE_KIND_PLAY, pb.MOVE_KIND_DRAW)]
            if not moves:
                return view
        move = self.rng.choice(moves)
        request_id = f"{self.player}:{match_id}:{view.version}"
        await self._request("match")  # the phone's own pace: not part of the command's latency
        started = time.monotonic()
        try:
            if move.kind == pb.MOVE_KIND_DRAW:
                reply = await self._call("DrawTile", self.stub.DrawTile,
                                         pb.DrawTileRequest(match_id=match_id, request_id=request_id), paced=True)
            else:
                reply = await self._call("PlayTile", self.stub.PlayTile,
                                         pb.PlayTileRequest(match_id=match_id, request_id=request_id, tile=move.tile,
                                                            end=move.end), paced=True)
        except grpc.aio.AioRpcError as refused:
            if late_move(refused, view, started):
                h.stats.late_moves += 1  # the turn's timer ran out as the move went: not the system's error
            h.stats.getmatch += 1  # refused: look again (counted as an error above)
            try:
                return (await self._call("GetMatch", self.stub.GetMatch, pb.GetMatchRequest(match_id=match_id))).view
            except grpc.aio.AioRpcError:
                return None
        done = time.monotonic()
        h.stats.commands.append((done, done - started))
        return reply.view


# ---------------------------------------------------------------------------------------
# reconciliation


def difference(seen: list[int], stored: list[int]) -> str:
    """Where a client's versions part from the store's, for the reconcile report."""
    at = next((i for i, (a, b) in enumerate(zip(seen, stored)) if a != b), min(len(seen), len(stored)))
    return f"from index {at}: client {seen[max(0, at - 2):at + 4]}, store {stored[max(0, at - 2):at + 4]}"


async def stream_versions(system: LoadSystem) -> dict[str, list[int]]:
    """Every match event on the JetStream stream, in stream order, as versions per match
    (an ephemeral pull consumer over domino.v1.match.>)."""
    import nats
    from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy

    from services.common import bus

    assert system.nats is not None
    nc = await nats.connect(system.nats.url, user="admin", password=system.nats_passwords()["admin"])
    out: dict[str, list[int]] = defaultdict(list)
    try:
        js = nc.jetstream()
        sub = await js.pull_subscribe("domino.v1.match.>", stream=bus.STREAM, config=ConsumerConfig(
            ack_policy=AckPolicy.NONE, deliver_policy=DeliverPolicy.ALL, inactive_threshold=60))
        while True:
            info = await sub.consumer_info()
            if info.num_pending == 0:
                break
            msgs = await sub.fetch(min(1000, info.num_pending), timeout=10)
            for msg in msgs:
                body = json.loads(msg.data)
                out[body["match_id"]].append(body["version"])
        await sub.unsubscribe()
    finally:
        await nc.close()
    return out


async def wait_relay_caught_up(system: LoadSystem, timeout: float = 60) -> float:
    """Seconds until the relay has published everything stored (lag_events 0 twice)."""
    started = time.monotonic()
    zero = 0
    while time.monotonic() - started < timeout:
        sample = await asyncio.to_thread(scrape, system.ports.relay_metrics)
        zero = zero + 1 if sample and metric_sum(sample, "domino_relay_lag_events") == 0 else 0
        if zero >= 2:
            break
        await asyncio.sleep(0.5)
    return time.monotonic() - started


def reconcile(system: LoadSystem, stats: Stats, finished_ids: set[str], in_play: bool = False) -> dict:
    """Finished matches: store, JetStream stream and every client hold the same versions.
    With ``in_play`` (--paced, where a match of people outlasts a short run) the matches still
    in play too: the store holds 1..N, and the stream and every client a prefix of it."""
    from services.match.application import MatchApplication
    from services.match.domainmodel import Match

    problems: list[str] = []
    clients: dict[str, list[Seen]] = defaultdict(list)
    for seen in stats.seen:
        if seen.match_id in finished_ids:
            clients[seen.match_id].append(seen)
    unfinished: dict[str, list[Seen]] = defaultdict(list)
    for seen in stats.seen if in_play else ():
        if seen.match_id not in finished_ids and seen.versions:
            unfinished[seen.match_id].append(seen)
    stream = asyncio.run(stream_versions(system))
    app = MatchApplication(env=dict(system.store_env))
    events_total = 0
    try:
        for match_id, seens in clients.items():
            events = list(app.events_after(uuid.UUID(match_id), 0))
            versions = [e.originator_version for e in events]
            events_total += len(versions)
            if versions != list(range(1, len(versions) + 1)) or not isinstance(events[-1], Match.MatchEnded):
                problems.append(f"{match_id}: store versions {versions[:3]}..{versions[-3:]}")
            if stream.get(match_id) != versions:
                got = stream.get(match_id) or []
                problems.append(f"{match_id}: stream {len(got)} versions != store {len(versions)}")
            for seen in seens:
                if seen.versions != versions:
                    problems.append(f"{match_id} ({seen.player}): client saw {len(seen.versions)} versions, "
                                    f"store {len(versions)}: {difference(seen.versions, versions)}")
        for match_id, seens in unfinished.items():
            versions = [e.originator_version for e in app.events_after(uuid.UUID(match_id), 0)]
            events_total += len(versions)
            if versions != list(range(1, len(versions) + 1)):
                problems.append(f"{match_id} (in play): store versions {versions[:3]}..{versions[-3:]}")
            got = stream.get(match_id) or []
            if got != versions[:len(got)]:
                problems.append(f"{match_id} (in play): stream {len(got)} versions not a prefix of the store's")
            for seen in seens:
                if seen.versions != versions[:len(seen.versions)]:
                    problems.append(f"{match_id} ({seen.player}, in play): client saw {len(seen.versions)} versions, "
                                    f"not a prefix of the store's {len(versions)}: {difference(seen.versions, versions)}")
    finally:
        app.close()
    return {"reconciled": not problems and bool(clients or unfinished), "reconciled_matches": len(clients),
            "reconciled_clients": sum(len(s) for s in clients.values()), "reconciled_events": events_total,
            "reconcile_problems": problems[:10],
            **({"reconciled_in_play_matches": len(unfinished),
                "reconciled_in_play_clients": sum(len(s) for s in unfinished.values())} if in_play else {})}


# ---------------------------------------------------------------------------------------
# measuring


class Sampler:
    """Relay lag every ``period`` s, and CPU/metrics snapshots on demand."""

    def __init__(self, system: LoadSystem, pids: dict[str, int], period: float = 0.5) -> None:
        self.system = system
        self.pids = pids
        self.period = period
        self.relay_lag: list[tuple[float, float]] = []  # (at, seconds)
        self.in_play: list[tuple[float, int]] = []
        self.task: asyncio.Task | None = None
        self.loop_lag = LoopLag()  # this process's own event loop: run beside the phones by run_load
        self.probe: EmptyRpcProbe | None = None  # an empty RPC to each match replica, also run by run_load

    async def loop(self, stats: Stats) -> None:
        while True:
            sample = await asyncio.to_thread(scrape, self.system.ports.relay_metrics)
            if sample:
                self.relay_lag.append((time.monotonic(), metric_sum(sample, "domino_relay_lag_seconds")))
            self.in_play.append((time.monotonic(), stats.in_play))
            await asyncio.sleep(self.period)

    async def open_window(self) -> dict:
        """The snapshot a measured window starts from, this process's heap frozen first."""
        freeze_heap()
        return await asyncio.to_thread(self.snapshot)

    def snapshot(self) -> dict:
        """Every service's metrics, with the CPU read on both sides of the scrapes: a window
        begins at ``at``/``cpu`` (after them) and ends at ``end_at``/``end_cpu`` (before them),
        so the bench's own scrapes (a few ms of each service's CPU) fall in no window."""
        s = self.system
        end_cpu, end_at = cpu_snapshot(self.pids), time.monotonic()
        scraped = {"match": [scrape(p) for p in s.match_metrics_ports()],
                   "bots": scrape(s.ports.bots_metrics), "relay": scrape(s.ports.relay_metrics),
                   "matchmaking": scrape(s.ports.matchmaking_metrics), "accounts": scrape(s.ports.account_metrics)}
        return {"end_at": end_at, "end_cpu": end_cpu, "cpu": cpu_snapshot(self.pids), "at": time.monotonic(),
                **scraped}


def window_seconds(before: dict, after: dict) -> float:
    return after["end_at"] - before["at"]


def window_cpu(before: dict, after: dict) -> dict[str, float]:
    """CPU seconds of each process between two snapshots, their scrapes left out."""
    return {name: after["end_cpu"][name] - before["cpu"].get(name, 0.0) for name in after["end_cpu"]}


def window_figures(stats: Stats, sampler: Sampler, before: dict, after: dict) -> dict:
    t0, t1 = before["at"], after["end_at"]
    seconds = window_seconds(before, after)
    lat = [s * 1000 for at, s in stats.commands if t0 <= at <= t1]
    waits = [s * 1000 for at, s, _ in stats.waits if t0 <= at <= t1]
    table_waits = [s * 1000 for at, s, kind in stats.waits if t0 <= at <= t1 and kind == "table"]
    practice_waits = [s * 1000 for at, s, kind in stats.waits if t0 <= at <= t1 and kind == "practice"]
    lags = [s * 1000 for at, s in stats.lags if t0 <= at <= t1]
    relay = [s * 1000 for at, s in sampler.relay_lag if t0 <= at <= t1]
    in_play = [n for at, n in sampler.in_play if t0 <= at <= t1]
    finished = [f for f in stats.finished if t0 <= f[0] <= t1]
    loop_lag = sampler.loop_lag.figures(t0, t1)

    def delta(kind: str, name: str, **labels: str) -> float:
        if kind == "match":
            return sum(metric_sum(a, name, **labels) - metric_sum(b, name, **labels)
                       for b, a in zip(before["match"], after["match"]))
        return metric_sum(after[kind], name, **labels) - metric_sum(before[kind], name, **labels)

    server_commands = sum(delta("match", "domino_match_rpcs_total", method=m, code="OK") for m in COMMANDS)
    rpc_codes: Counter = Counter()
    for b, a in zip(before["match"] + [before["matchmaking"], before["accounts"]],
                    after["match"] + [after["matchmaking"], after["accounts"]]):
        for (name, labels), value in a.items():
            if name.endswith("_rpcs_total"):
                d = dict(labels)
                if d.get("code") != "OK":
                    inc = value - b.get((name, labels), 0.0)
                    if inc:
                        rpc_codes[f"{name.split('_')[1]}:{d.get('method')}:{d.get('code')}"] += int(inc)
    cpu = window_cpu(before, after)
    per_command = {name: rnd(1000 * c / server_commands, 3) if server_commands else None for name, c in cpu.items()}
    turns = {dict(ls).get("outcome", ""): v - before["bots"].get((n, ls), 0.0)
             for (n, ls), v in after["bots"].items() if n == "domino_bots_turns_total"}
    decision = histogram_quantile(before["bots"], after["bots"], "domino_bots_decision_seconds", 0.99)
    decision50 = histogram_quantile(before["bots"], after["bots"], "domino_bots_decision_seconds", 0.5)
    deciding = {dict(ls).get("strength", ""): v - before["bots"].get((n, ls), 0.0)
                for (n, ls), v in after["bots"].items() if n == "domino_bots_decision_cpu_seconds_total"}
    return {
        "window_seconds": rnd(seconds, 1),
        "matches_finished": len(finished),
        "matches_per_minute": rnd(len(finished) * 60 / seconds, 1) if seconds else None,
        "matches_finished_by_kind": dict(Counter(kind for _, _, kind in finished)),
        "concurrent_matches_mean": rnd(sum(in_play) / len(in_play), 1) if in_play else None,
        "client_commands": len(lat),
        "client_commands_per_s": rnd(len(lat) / seconds, 1),
        "command_p50_ms": rnd(pct(lat, 50)), "command_p99_ms": rnd(pct(lat, 99)),
        "command_p999_ms": rnd(pct(lat, 99.9)), "command_max_ms": rnd(max(lat) if lat else None),
        "server_commands": int(server_commands),
        "server_commands_per_s": rnd(server_commands / seconds, 1),
        "matchmaking_wait_p50_ms": rnd(pct(waits, 50)), "matchmaking_wait_p99_ms": rnd(pct(waits, 99)),
        "table_wait_p50_ms": rnd(pct(table_waits, 50)), "table_wait_p99_ms": rnd(pct(table_waits, 99)),
        "practice_wait_p50_ms": rnd(pct(practice_waits, 50)), "practice_wait_p99_ms": rnd(pct(practice_waits, 99)),
        "matchmaking_waits": len(waits),
        "relay_lag_p99_ms": rnd(pct(relay, 99)), "relay_lag_max_ms": rnd(max(relay) if relay else None),
        "relay_lag_samples": len(relay),
        "relay_published_per_s": rnd(delta("relay", "domino_relay_published_total") / seconds, 1),
        "watch_delivery_p50_ms": rnd(pct(lags, 50)), "watch_delivery_p99_ms": rnd(pct(lags, 99)),
        "bot_decision_p50_ms": rnd(decision50 * 1000 if decision50 is not None else None),
        "bot_decision_p99_ms": rnd(decision * 1000 if decision is not None else None),
        "bot_turns": {k: int(v) for k, v in turns.items() if v},
        # the strategies' own CPU (their thread's), apart from the rest of the bots' work
        # (turn messages, GetMatch, the command): part of cpu_ms_per_command["bots"]
        "bot_deciding_cpu_ms_per_command": ({k: rnd(1000 * v / server_commands, 3) for k, v in deciding.items()}
                                            if server_commands else None),
        "server_rpc_failures": dict(rpc_codes),
        "server_getmatch_per_command": rnd(delta("match", "domino_match_rpcs_total", method="GetMatch")
                                           / server_commands, 2) if server_commands else None,
        "cpu_seconds": {k: rnd(v, 2) for k, v in cpu.items()},
        "cpu_cores": {k: rnd(v / seconds, 3) for k, v in cpu.items()},
        "cpu_cores_total": rnd(sum(cpu.values()) / seconds, 2),
        "cpu_ms_per_command": per_command,
        "cpu_ms_per_command_total": rnd(1000 * sum(cpu.values()) / server_commands, 2) if server_commands else None,
        # the system's own: every process but this one (the load generator stands for the phones)
        "cpu_ms_per_command_system": rnd(1000 * sum(v for k, v in cpu.items() if k != "load_clients")
                                         / server_commands, 2) if server_commands else None,
        "loadgen_cpu_cores": rnd(cpu["load_clients"] / seconds, 3),
        **loop_lag,
        "command_hops_ms": command_hops(lat, before, after, relay, lags, {
            "p50": rnd(decision50 * 1000 if decision50 is not None else None),
            "p99": rnd(decision * 1000 if decision is not None else None)}, loop_lag,
            sampler.probe.quantiles(t0, t1) if sampler.probe is not None else None, seconds),
    }


async def run_load(system: LoadSystem, args, pids: dict[str, int]) -> dict:
    harness = Harness(system, args)
    sampler = Sampler(system, pids)
    sampler_task = asyncio.create_task(sampler.loop(harness.stats))
    ticker = asyncio.create_task(sampler.loop_lag.run())
    sampler.probe = EmptyRpcProbe([system.match_address] + (
        [system.grpc_address("match-2")] if system.match_replicas > 1 else []), harness.moving)
    probe = asyncio.create_task(sampler.probe.run())
    result: dict[str, Any] = {}
    try:
        if args.paced:
            import paced
            lib = sys.modules[__name__]
            result.update(await (paced.ramp(lib, harness, sampler, args) if args.ramp
                                 else paced.hold(lib, harness, sampler, args, pids)))
        elif args.ramp:
            result.update(await ramp(harness, sampler, args))
        else:
            harness.add_clients(args.clients)
            harness.add_bot_matches(args.bot_matches)
            log(f"{args.clients} clients ({harness.table_clients} at tables in groups {dict(harness.class_counts)}), "
                f"{args.bot_matches} bot-only drivers; {args.warmup:.0f} s warm-up, {args.duration:.0f} s measured")
            await asyncio.sleep(args.warmup)
            before = await sampler.open_window()
            await asyncio.sleep(args.duration)
            after = await asyncio.to_thread(sampler.snapshot)
            result.update(window_figures(harness.stats, sampler, before, after))
            log(window_line(result))
        await harness.stop()
    finally:
        sampler_task.cancel()
        ticker.cancel()
        probe.cancel()
    stats = harness.stats
    # Failed RPCs: what the services counted (clients' and bots' calls alike), less what the
    # harness itself causes (its own stream cancels, asking for practice before matchmaking
    # learnt the last end); plus client-side failures that never reached a service.
    harness_made = HARNESS_MADE
    server = result.get("server_rpc_failures") or {}
    if args.ramp:
        server = Counter()
        for step in result.get("ramp_steps", []):
            server.update(step.get("server_rpc_failures", {}))
    # (a phone's sign-in or refresh that failed, at any time of the run, is an error too)
    local_only = {k: v for k, v in stats.errors.items() if k.split(":")[1] in ("UNAVAILABLE", "DEADLINE_EXCEEDED")
                  or k.split(":")[0] in ("SignInWithDevice", "RefreshSession")}
    # a person's move the timer beat is refused FAILED_PRECONDITION, rightly: counted apart
    late = min(stats.late_moves, sum(server.get(f"match:{m}:FAILED_PRECONDITION", 0) for m in COMMANDS))
    result["late_moves"] = stats.late_moves
    result["errors"] = sum(v for k, v in server.items() if k not in harness_made) + sum(local_only.values()) - late
    result["error_codes"] = {**{k: v for k, v in server.items() if k not in harness_made}, **local_only}
    result["client_error_codes"] = dict(stats.errors)
    result["error_samples"] = stats.error_samples
    result["client_max_requests_in_a_second"] = max(stats.per_second.values(), default=0)
    sign_ins, refreshes = [x * 1000 for x in stats.sign_ins], [x * 1000 for x in stats.refreshes]
    result.update({"players_signed_in_by": "local_keys" if args.local_keys else "accounts",
                   "sign_ins": len(sign_ins), "sign_in_p50_ms": rnd(pct(sign_ins, 50)),
                   "sign_in_p99_ms": rnd(pct(sign_ins, 99)), "refreshes": len(refreshes),
                   "refresh_p50_ms": rnd(pct(refreshes, 50)), "refresh_p99_ms": rnd(pct(refreshes, 99))})
    result.update({"client_paced_waits": stats.paced_waits, "client_paced_seconds": rnd(stats.paced_seconds, 1),
                   "reconnects": stats.reconnects, "token_reconnects": stats.token_reconnects, "getmatch_calls": stats.getmatch, "seeds_sent": stats.seeds,
                   "practice_busy_retries": stats.practice_busy_retries, "cancelled_tickets": stats.cancelled_tickets,
                   "clients": args.clients if not args.ramp else len([t for t in harness.tasks]),
                   "table_groups": dict(harness.class_counts)})
    log("waiting for the relay to catch up, then reconciling")
    result["relay_catch_up_seconds"] = rnd(await wait_relay_caught_up(system), 1)
    result.update(await asyncio.to_thread(reconcile, system, stats, set(stats.finished_ids), args.paced))
    return result


async def ramp(harness: Harness, sampler: Sampler, args) -> dict:
    """Add matches step by step; each step measured over its last (step - settle) seconds."""
    steps = []
    level, best = 0, 0
    while level < args.ramp_max:
        target = args.ramp_start if level == 0 else level + args.ramp_increment
        while level < target:
            harness.add_match_unit(level)
            level += 1
        await asyncio.sleep(args.ramp_settle_seconds)
        before = await sampler.open_window()
        await asyncio.sleep(max(1.0, args.ramp_step_seconds - args.ramp_settle_seconds))
        after = await asyncio.to_thread(sampler.snapshot)
        fig = window_figures(harness.stats, sampler, before, after)
        step = {"matches": level, **{k: fig[k] for k in (
            "concurrent_matches_mean", "command_p50_ms", "command_p99_ms", "client_commands_per_s",
            "server_commands_per_s", "matches_per_minute", "relay_lag_p99_ms", "cpu_cores_total",
            "server_rpc_failures", "loadgen_cpu_cores", "loadgen_loop_lag_p50_ms", "loadgen_loop_lag_p99_ms",
            "loadgen_loop_lag_max_ms", "loadgen_late_ticks_on_cpu_share", "loadgen_gc_pause_max_ms",
            "command_hops_ms")},
            "cpu_cores": fig["cpu_cores"]}
        steps.append(step)
        log(f"ramp: {level} matches, p99 {step['command_p99_ms']} ms, {step['server_commands_per_s']} commands/s, "
            f"{step['cpu_cores_total']} cores, load generator loop lag p99 {step['loadgen_loop_lag_p99_ms']} ms")
        p99 = step["command_p99_ms"]
        if p99 is None or p99 >= P99_LIMIT_MS:
            break
        best = level
    return {"max_concurrent_matches_p99_under_100ms": best, "ramp_steps": steps,
            "ramp_step_seconds": args.ramp_step_seconds, "ramp_settle_seconds": args.ramp_settle_seconds,
            **({"last_step": steps[-1]} if steps else {})}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--duration", type=float, default=60.0, help="measured seconds (after --warmup)")
    ap.add_argument("--warmup", type=float, default=10.0, help="seconds of play before the measured window")
    ap.add_argument("--clients", type=int, default=24, help="concurrent simulated players")
    ap.add_argument("--practice-share", type=float, default=0.25, help="share of clients playing practice vs bots")
    ap.add_argument("--bot-matches", type=int, default=0, help="concurrent bot-only matches (as `domino demo`)")
    ap.add_argument("--bot-rules", default="egyptian:block-4", help="family:variant of bot-only matches")
    ap.add_argument("--bot-strength", default="greedy", choices=STRENGTHS)
    ap.add_argument("--bot-watch", default="stream", choices=("stream", "poll"),
                    help="bot-only drivers follow their match with WatchMatch, or poll GetMatch every 0.25 s "
                         "as `domino demo` does")
    ap.add_argument("--bot-poll-seconds", type=float, default=0.25, help="GetMatch interval of --bot-watch poll")
    ap.add_argument("--reconnect-seconds", type=float, default=None,
                    help="mean seconds between a client's deliberate stream reconnects (0: never; default 10, "
                         "120 with --paced)")
    ap.add_argument("--table-wait-seconds", type=float, default=5.0,
                    help="DOMINO_TABLE_WAIT_SECONDS (a table's empty seats get bots after this)")
    ap.add_argument("--match-replicas", type=int, default=1, choices=(1, 2))
    ap.add_argument("--local-keys", action="store_true",
                    help="mint each player's token with the system's development keys (player ids load-...) "
                         "instead of signing in by device through the account service")
    ap.add_argument("--access-token-seconds", type=int, default=None,
                    help="DOMINO_ACCESS_TOKEN_SECONDS of the account service (5-900; default: its own, 900): "
                         "phones refresh a fifth of it (at most 60 s) before expiry")
    ap.add_argument("--no-client-pacing", action="store_true",
                    help="phones send as fast as they play, beyond the services' per-player rate limit")
    ap.add_argument("--service-env", action="append", default=[], metavar="KEY=VALUE",
                    help="extra environment for every service (experiments)")
    ap.add_argument("--ramp", action="store_true", help="raise concurrent matches until command p99 >= 100 ms")
    ap.add_argument("--ramp-start", type=int, default=4)
    ap.add_argument("--ramp-increment", type=int, default=4)
    ap.add_argument("--ramp-max", type=int, default=200)
    ap.add_argument("--ramp-step-seconds", type=float, default=60.0)
    ap.add_argument("--ramp-settle-seconds", type=float, default=5.0,
                    help="seconds after adding matches before the step's window opens")
    ap.add_argument("--seed", type=int, default=0)
    paced_args = ap.add_argument_group("--paced: phones that play like people (bench/paced.py)")
    paced_args.add_argument("--paced", action="store_true",
                            help="hold --matches human-paced matches (with --ramp: --ramp-steps of them)")
    paced_args.add_argument("--matches", type=int, default=50, help="concurrent human-paced matches to hold")
    paced_args.add_argument("--ramp-up", type=float, default=60.0,
                            help="seconds over which the matches (of a ramp step: its new ones) start")
    paced_args.add_argument("--ramp-steps", default="50,100,200,400,700,1000",
                            help="concurrent human-paced matches of each --ramp step")
    paced_args.add_argument("--think-median", type=float, default=3.0, help="a person's think time: median, s")
    paced_args.add_argument("--think-sigma", type=float, default=0.6, help="... log-normal sigma")
    paced_args.add_argument("--think-min", type=float, default=1.0, help="... clipped below at, s")
    paced_args.add_argument("--think-max", type=float, default=20.0, help="... and above at, s")
    paced_args.add_argument("--think-hurry", type=float, default=0.8,
                            help="a move waits at most this share of the turn's time left (0: ignores the clock)")
    paced_args.add_argument("--chat-seconds", type=float, default=120.0,
                            help="mean seconds between a phone's quick-chat phrases (exponential; 0: never)")
    paced_args.add_argument("--phones-per-channel", type=int, default=40,
                            help="phones sharing one gRPC channel to each service (each holds about 2 streams)")
    paced_args.add_argument("--idle-settle-seconds", type=float, default=5.0,
                            help="seconds after everybody stops moving before the idle window opens")
    paced_args.add_argument("--idle-seconds", type=float, default=10.0,
                            help="the idle window: everybody holds their streams, nobody moves")
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory (logs)")
    ap.add_argument("--json", action="store_true", help="one JSON object on stdout")
    args = ap.parse_args()
    if args.reconnect_seconds is None:
        args.reconnect_seconds = 120.0 if args.paced else 10.0

    started = time.monotonic()
    load_before = loadavg()
    tmp = Path(tempfile.mkdtemp(prefix="domino-load-"))
    os.chmod(tmp, 0o755)  # embedded PostgreSQL runs as its own user below it
    service_env = {"DOMINO_TABLE_WAIT_SECONDS": str(args.table_wait_seconds)}
    if args.access_token_seconds is not None:
        service_env["DOMINO_ACCESS_TOKEN_SECONDS"] = str(args.access_token_seconds)
    if args.paced:
        import paced
        from services.common.config import Settings
        fields = Settings.model_fields
        # people's tables: the bots think as in production, the streams fit the phones
        service_env["DOMINO_BOT_THINK_MIN_SECONDS"] = str(fields["bot_think_min_seconds"].default)
        service_env["DOMINO_BOT_THINK_MAX_SECONDS"] = str(fields["bot_think_max_seconds"].default)
        matches = max(paced.parse_steps(args.ramp_steps)) if args.ramp else args.matches
        service_env.update(paced.stream_caps(4 * matches, fields["streams_per_process"].default))
        log(f"open files: soft limit {paced.raise_fd_limit()}")
    for item in args.service_env:
        key, _, value = item.partition("=")
        service_env[key] = value
    log(f"starting PostgreSQL and the system in {tmp}")
    pg = start_postgres(tmp / "pg")
    system = LoadSystem(tmp / "var", pg.eventsourcing_env(), service_env, args.match_replicas)
    result: dict[str, Any] = {}
    try:
        system.start()
        pids = system.pids(pg.pid)
        result = asyncio.run(run_load(system, args, pids))
    finally:
        system.stop()
        pg.stop()
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            log(f"kept {tmp}")
    import grpc as _grpc

    result.update({
        "duration": args.duration, "warmup": args.warmup, "ramp": args.ramp, "practice_share": args.practice_share,
        "bot_matches": args.bot_matches, "bot_watch": args.bot_watch, "bot_poll_seconds": args.bot_poll_seconds, "bot_rules": args.bot_rules, "bot_strength": args.bot_strength,
        "reconnect_seconds": args.reconnect_seconds, "match_replicas": args.match_replicas,
        "local_keys": args.local_keys, "access_token_seconds": args.access_token_seconds,
        "client_pacing": not args.no_client_pacing, "git_commit": git_commit(),
        "service_env": service_env, "loadavg_1m_before": load_before, "loadavg_1m_after": loadavg(),
        "cpus": os.cpu_count(), "python": platform.python_version(), "grpcio": _grpc.__version__,
        "wall_seconds": rnd(time.monotonic() - started, 1),
    })
    if args.json:
        print(json.dumps(result, sort_keys=True))
    else:
        keys = ("matches_per_minute", "command_p50_ms", "command_p99_ms", "command_p999_ms", "matchmaking_wait_p50_ms",
                "matchmaking_wait_p99_ms", "relay_lag_p99_ms", "bot_decision_p99_ms", "sign_ins", "sign_in_p99_ms",
                "refreshes", "refresh_p99_ms", "errors",
                "cpu_ms_per_command", "reconciled", "max_concurrent_matches_p99_under_100ms",
                "max_concurrent_paced_matches_p99_under_100ms", "concurrent_matches_mean", "timeouts",
                "idle_stream_cpu_ms_per_s", "stream_rss_kb", "loadgen_cpu_cores", "loadgen_loop_lag_p50_ms",
                "loadgen_loop_lag_p99_ms", "loadgen_loop_lag_max_ms", "loadgen_late_ticks_on_cpu_share",
                "loadgen_gc_pause_max_ms", "command_hops_ms")
        for key in keys:
            if key in result:
                print(f"{key}: {result[key]}")


if __name__ == "__main__":
    main()
