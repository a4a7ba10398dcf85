"""Human pace for bench/load.py ``--paced``: phones that play like people, and the runs that
hold or ramp a number of such matches.

Ops size this system by the tables of people it holds, and people are slow: a move every few
seconds, a quick-chat phrase now and then, a lost connection now and then. The fast clients
of bench/load.py (a move as soon as the view allows it, bots thinking 0 s) measure the cost
of a command; they say little about how many tables of people one machine holds, where most
of the system's work is the open streams of phones that are thinking.

Think time: log-normal, median 3 s, sigma 0.6, clipped to [1, 20] s (``ThinkTime``). A
person's reaction and decision times are skewed to the right (many quick moves, a long tail
of hard ones): log-normal is the usual model of them. With sigma 0.6 the 5th-95th percentiles
are 1.1-8.1 s and the mean 3.6 s; the clip keeps a move at least 1 s after the view (reading
the board) and at most 20 s (a person who is away is the turn timer's job). A person also
sees the turn clock: a move never waits more than ``hurry`` (0.8) of the time the turn has
left (Sports gives 5 s when one play is possible), so a timeout happens only when the
system is late; they are counted (``timeouts``), not prevented.

Chat: a phrase now and then, exponentially distributed gaps (mean ``--chat-seconds``, 120 s
per phone): far under the server's 0.5/s per player and match and its 200 phrases per
player and match.

Channels: a phone's identity is its token, not its connection. Thousands of grpc.aio
channels cost this process more than the phones' traffic does, so in ``--paced`` phones share
channels (``ChannelPool``): ``--phones-per-channel`` (40) phones per channel to each service,
each channel on connections of its own (grpc shares one connection per address between a
process's channels otherwise, and 125 phones' streams on one connection queued behind the
servers' bound of 100 and ran out of their deadlines).
A phone holds at most about two streams on a channel at once (its WatchMatch, and a
reconnect's next one; a WatchTicket on matchmaking's), so a channel carries under 100
concurrent streams, the servers' HTTP/2 bound (DOMINO_GRPC_MAX_CONCURRENT_STREAMS).
"""

from __future__ import annotations

import asyncio
import math
import random
import resource
import time
from dataclasses import dataclass
from typing import Any, Callable

import grpc

from bench.hops import server_seconds, window_line
from bench.procfs import rss_kb
from domino.match.v1 import match_service_pb2 as pb
from services.match.messages import PHRASE_PB
from services.match.table_talk import PHRASES

STREAM_RATIO = 1.25  # open streams per phone, room for reconnects (sizing the services' stream caps)


# ---------------------------------------------------------------------------------------
# the pure parts


@dataclass(frozen=True)
class ThinkTime:
    """How long a person thinks before a move: log-normal (``median``, ``sigma``) clipped to
    [``low``, ``high``] seconds."""
    median: float = 3.0
    sigma: float = 0.6
    low: float = 1.0
    high: float = 20.0

    def __post_init__(self) -> None:
        if not (0 < self.low <= self.median <= self.high) or self.sigma < 0:
            raise ValueError(f"think time needs 0 < min <= median <= max and sigma >= 0, not {self}")

    def draw(self, rng: random.Random) -> float:
        return min(self.high, max(self.low, rng.lognormvariate(math.log(self.median), self.sigma)))

    def before_move(self, rng: random.Random, turn_left: float | None, hurry: float) -> float:
        """A draw, shortened to ``hurry`` of the turn's time left (None: no clock); never
        negative. ``hurry`` 0 ignores the clock."""
        seconds = self.draw(rng)
        if turn_left is not None and hurry > 0:
            seconds = min(seconds, max(0.0, hurry * turn_left))
        return seconds


def chat_gap(rng: random.Random, mean_seconds: float) -> float:
    """Seconds until a phone's next phrase: exponential with the given mean (inf: never)."""
    return rng.expovariate(1 / mean_seconds) if mean_seconds > 0 else math.inf


def parse_steps(text: str) -> list[int]:
    """``"50,100,200"`` -> [50, 100, 200]: positive and rising."""
    steps = [int(part) for part in text.split(",") if part.strip()]
    if not steps or any(s <= 0 for s in steps) or steps != sorted(set(steps)):
        raise ValueError(f"ramp steps must be positive and rising, not {text!r}")
    return steps


def turn_left(view: pb.MatchView, now: float) -> float | None:
    """Seconds the seat to act has left (the view's turn_deadline), None without a clock."""
    deadline = view.turn_deadline.seconds + view.turn_deadline.nanos / 1e9
    return deadline - now if deadline > 0 else None


def stream_caps(phones: int, configured: int) -> dict[str, str]:
    """The services' stream settings for ``phones`` phones, when the configured per-process
    bound would not hold them ({} when it does): streams, and calls a little above them."""
    need = math.ceil(phones * STREAM_RATIO)
    if need <= configured:
        return {}
    return {"DOMINO_STREAMS_PER_PROCESS": str(need), "DOMINO_GRPC_MAX_CONCURRENT_CALLS": str(need + 500)}


def held(step_matches: int, mean_in_play: float | None, share: float = 0.9) -> bool:
    """A step's matches were held: on average at least ``share`` of them in play (between two
    matches a phone is back in matchmaking, so a step never has all of them at every instant)."""
    return mean_in_play is not None and mean_in_play >= share * step_matches


def raise_fd_limit(want: int = 65536) -> int:
    """The soft limit on open files, raised towards ``want`` (at most the hard limit)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = want if hard == resource.RLIM_INFINITY else min(want, hard)
    if soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        soft = target
    return soft


class ChannelPool:
    """Channels shared by phones: phone ``n`` uses channel ``n // per_channel`` to a target."""

    def __init__(self, make: Callable[[str], grpc.aio.Channel], per_channel: int) -> None:
        if per_channel < 1:
            raise ValueError("at least one phone per channel")
        self.make = make
        self.per_channel = per_channel
        self.channels: dict[tuple[str, int], grpc.aio.Channel] = {}

    def get(self, target: str, phone: int) -> grpc.aio.Channel:
        key = (target, phone // self.per_channel)
        if key not in self.channels:
            self.channels[key] = self.make(target)
        return self.channels[key]

    async def close(self) -> None:
        await asyncio.gather(*(c.close() for c in self.channels.values()), return_exceptions=True)
        self.channels.clear()


# ---------------------------------------------------------------------------------------
# the phone


class HumanPace:
    """Mixed into bench/load.py's Phone: think before each move, chat now and then, and stand
    still while the harness's ``moving`` is clear (the idle window)."""

    h: Any
    rng: random.Random
    stub: Any

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.think_rng = random.Random(f"{self.h.args.seed}:{self.n}:think")  # type: ignore[attr-defined]
        self.latest: dict = {}

    async def _request(self, service: str) -> None:
        await self.h.moving.wait()
        await super()._request(service)  # type: ignore[misc]

    async def act(self, match_id: str, view: pb.MatchView) -> pb.MatchView | None:
        h = self.h
        left = turn_left(view, time.time())
        await asyncio.sleep(h.think.before_move(self.think_rng, left, h.args.think_hurry))
        await h.moving.wait()
        latest = self.latest.get("latest")
        if latest is not None and latest.version != view.version:
            if (latest.status != pb.MATCH_STATUS_IN_PROGRESS or not latest.HasField("turn")
                    or latest.turn != latest.your_seat):
                h.stats.stale_thoughts += 1  # the match moved on while this person thought (a timeout)
                return None
            view = latest  # still this person's turn (a later update of it, a new round): move on what is seen now
        return await super().act(match_id, view)  # type: ignore[misc]

    async def play(self, match_id: str, kind: str) -> None:
        chat = asyncio.create_task(self._chat(match_id))
        try:
            await super().play(match_id, kind)  # type: ignore[misc]
        finally:
            chat.cancel()

    async def _chat(self, match_id: str) -> None:
        h = self.h
        while True:
            await asyncio.sleep(chat_gap(self.think_rng, h.args.chat_seconds))
            latest = self.latest.get("latest")
            if latest is None or latest.status != pb.MATCH_STATUS_IN_PROGRESS:
                continue
            try:
                await self._call("SendChat", self.stub.SendChat,  # type: ignore[attr-defined]
                                 pb.SendChatRequest(match_id=match_id,
                                                    chat_phrase=PHRASE_PB[self.think_rng.choice(PHRASES)]))
                h.stats.chats_sent += 1
            except grpc.aio.AioRpcError:
                pass


# ---------------------------------------------------------------------------------------
# the runs


def match_cpu(lib: Any, before: dict, after: dict) -> float:
    """The match replicas' CPU seconds between two snapshots (their scrapes left out)."""
    return sum(v for k, v in lib.window_cpu(before, after).items() if k.startswith("match"))


def open_streams(lib: Any, snapshot: dict) -> float:
    return sum(lib.metric_sum(m, "domino_match_open_streams") for m in snapshot["match"])


def server_command_ms(lib: Any, before: dict, after: dict, q: float) -> float | None:
    """The match service's own time for PlayTile/DrawTile (``domino_match_rpc_seconds``, every
    command, bots' included) at quantile ``q`` over the window: beside the phones' latency it
    tells the server's work from the queueing of a shared machine."""
    seconds = server_seconds(before["match"], after["match"], lib.COMMANDS, q)
    return lib.rnd(seconds * 1000) if seconds is not None else None


def match_rss_kb(pids: dict[str, int]) -> int:
    return sum(rss_kb(pid) for name, pid in pids.items() if name.startswith("match"))


async def add_gradually(harness: Any, start: int, stop: int, seconds: float) -> None:
    """Match units start..stop-1, spread evenly over ``seconds`` (sign-ins and first requests
    are a burst otherwise)."""
    n = stop - start
    for i in range(start, stop):
        harness.add_match_unit(i)
        if seconds > 0 and n > 0:
            await asyncio.sleep(seconds / n)


async def hold(lib: Any, harness: Any, sampler: Any, args: Any, pids: dict[str, int]) -> dict:
    """``--paced --matches N --duration S``: N matches started over ``--ramp-up`` s, a warm-up,
    S measured seconds, then the idle window. ``lib`` is bench/load.py (its figures and
    helpers: it runs as a script, so it hands itself over rather than be imported twice)."""
    figures, log = lib.window_figures, lib.log
    base = await asyncio.to_thread(sampler.snapshot)
    rss_before = match_rss_kb(pids)
    await asyncio.sleep(args.idle_seconds)  # the match service before any phone: its own idle
    quiet = await asyncio.to_thread(sampler.snapshot)
    baseline = match_cpu(lib, base, quiet) / lib.window_seconds(base, quiet)
    log(f"paced: {args.matches} matches over {args.ramp_up:.0f} s, {args.warmup:.0f} s warm-up, "
        f"{args.duration:.0f} s measured, then {args.idle_settle_seconds + args.idle_seconds:.0f} s idle")
    await add_gradually(harness, 0, args.matches, args.ramp_up)
    await asyncio.sleep(args.warmup)
    before = await sampler.open_window()
    await asyncio.sleep(args.duration)
    after = await asyncio.to_thread(sampler.snapshot)
    result = figures(harness.stats, sampler, before, after)
    in_play = [n for at, n in sampler.in_play if before["at"] <= at <= after["end_at"]]
    result["concurrent_matches_min"] = min(in_play) if in_play else None
    result["server_command_p50_ms"] = server_command_ms(lib, before, after, 0.5)
    result["server_command_p99_ms"] = server_command_ms(lib, before, after, 0.99)
    log(f"paced: {window_line(result)}")
    result.update(await idle_window(lib, harness, sampler, args, pids, rss_before, baseline))
    result.update(waiting_alone(lib, result))
    end = await asyncio.to_thread(sampler.snapshot)
    # errors over the whole run (ramp-up and idle window included), not the window alone
    result["server_rpc_failures_window"] = result["server_rpc_failures"]
    result["server_rpc_failures"] = figures(harness.stats, sampler, base, end)["server_rpc_failures"]
    result.update(paced_counts(harness, args))
    return result


def waiting_alone(lib: Any, result: dict) -> dict:
    """The idle window less the commands it still held (turn timers running out, the bots'
    answers), each at the match service's CPU per command of the measured window: what the
    waiting itself costs, ``idle_stream_cpu_ms_per_s_waiting``. At a 45 s turn clock about a
    tenth of the tables time out in any 10 s in which nobody moves, so the raw figure is
    part play."""
    streams, seconds = result.get("idle_open_streams"), result.get("idle_seconds")
    per_command = sum(v for k, v in result.get("cpu_ms_per_command", {}).items() if k.startswith("match"))
    if not streams or not seconds or result.get("idle_stream_cpu_ms_per_s") is None:
        return {"idle_stream_cpu_ms_per_s_waiting": None}
    commands_ms_per_s = result["idle_window_commands"] * per_command / seconds
    waiting = result["idle_stream_cpu_ms_per_s"] * streams - commands_ms_per_s
    return {"idle_commands_cpu_ms_per_s": lib.rnd(commands_ms_per_s, 2),
            "idle_stream_cpu_ms_per_s_waiting": lib.rnd(max(0.0, waiting) / streams, 4)}


async def idle_window(lib: Any, harness: Any, sampler: Any, args: Any, pids: dict[str, int], rss_before: int,
                      baseline: float) -> dict:
    """Everybody stops moving (no command, chat, seed, request or deliberate reconnect) while
    holding their streams; after ``--idle-settle-seconds`` (the bots' last moves up to the
    people's turns) the match service's CPU over ``--idle-seconds``, per open stream, and its
    RSS per open stream. Turn timers still run (a Sports turn of 5 s ends in it): the window's
    commands and updates are reported beside it. ``baseline`` (cores) is the match service's
    own idle before the first phone; ``_net`` figures are less it."""
    rnd, metric_sum = lib.rnd, lib.metric_sum
    harness.moving.clear()
    try:
        await asyncio.sleep(args.idle_settle_seconds)
        before = await asyncio.to_thread(sampler.snapshot)
        rss_with = match_rss_kb(pids)
        await asyncio.sleep(args.idle_seconds)
        after = await asyncio.to_thread(sampler.snapshot)
    finally:
        harness.moving.set()
    seconds = lib.window_seconds(before, after)
    streams = (open_streams(lib, before) + open_streams(lib, after)) / 2
    cpu = match_cpu(lib, before, after)
    commands = sum(metric_sum(a, "domino_match_rpcs_total", method=m) - metric_sum(b, "domino_match_rpcs_total", method=m)
                   for b, a in zip(before["match"], after["match"]) for m in lib.COMMANDS)
    updates = sum(1 for at, _ in harness.stats.lags if before["at"] <= at <= after["end_at"])
    return {"idle_seconds": rnd(seconds, 1), "idle_open_streams": int(streams),
            "idle_match_cpu_cores": rnd(cpu / seconds, 3),
            "idle_stream_cpu_ms_per_s": rnd(1000 * cpu / seconds / streams, 4) if streams else None,
            "idle_stream_cpu_ms_per_s_net": rnd(1000 * (cpu / seconds - baseline) / streams, 4) if streams else None,
            "match_cpu_cores_before_phones": rnd(baseline, 4),
            "idle_cpu_cores_total": rnd(sum(lib.window_cpu(before, after).values()) / seconds, 3),
            "idle_scrape_match_cpu_ms": rnd(1000 * sum(after["cpu"][k] - after["end_cpu"][k] for k in after["cpu"]
                                                       if k.startswith("match")), 1),
            "idle_window_commands": int(commands), "idle_window_updates": updates,
            "match_rss_kb_before": rss_before, "match_rss_kb_with_streams": rss_with,
            "stream_rss_kb": rnd((rss_with - rss_before) / streams, 1) if streams else None}


async def ramp(lib: Any, harness: Any, sampler: Any, args: Any) -> dict:
    """``--paced --ramp``: raise the concurrent paced matches to each of ``--ramp-steps``
    (new ones spread over ``--ramp-up``), let it settle, measure the step's remaining seconds.
    The best step: p99 < 100 ms, no failed call, and its matches held (``held``)."""
    figures, log = lib.window_figures, lib.log
    steps: list[dict] = []
    best, level = 0, 0
    harmless = ("match:WatchMatch:CANCELLED", "matchmaking:WatchTicket:CANCELLED",
                "matchmaking:StartPractice:FAILED_PRECONDITION")
    for target in parse_steps(args.ramp_steps):
        await add_gradually(harness, level, target, args.ramp_up)
        level = target
        await asyncio.sleep(args.ramp_settle_seconds)
        before = await sampler.open_window()
        late_before = harness.stats.late_moves
        await asyncio.sleep(max(1.0, args.ramp_step_seconds - args.ramp_settle_seconds))
        after = await asyncio.to_thread(sampler.snapshot)
        fig = figures(harness.stats, sampler, before, after)
        failures = {k: v for k, v in fig["server_rpc_failures"].items() if k not in harmless}
        late = min(harness.stats.late_moves - late_before,
                   sum(failures.get(f"match:{m}:FAILED_PRECONDITION", 0) for m in lib.COMMANDS))
        in_play = [n for at, n in sampler.in_play if before["at"] <= at <= after["end_at"]]
        step = {"matches": level, "concurrent_matches_min": min(in_play) if in_play else None,
                **{k: fig[k] for k in ("concurrent_matches_mean", "command_p50_ms", "command_p99_ms",
                                       "client_commands_per_s", "server_commands_per_s", "matches_per_minute",
                                       "relay_lag_p99_ms", "cpu_cores_total", "server_rpc_failures",
                                       "cpu_ms_per_command_total")},
                "server_command_p99_ms": server_command_ms(lib, before, after, 0.99),
                "loadgen_cpu_cores": fig["cpu_cores"].get("load_clients"), "cpu_cores": fig["cpu_cores"],
                "errors": sum(failures.values()) - late, "late_moves": late,
                **{k: fig[k] for k in fig if k.startswith(("loadgen_loop_lag_", "loadgen_gc_", "loadgen_late_"))}, "command_hops_ms": fig["command_hops_ms"]}
        steps.append(step)
        log(f"paced ramp: {level} matches ({step['concurrent_matches_mean']} in play), p99 {step['command_p99_ms']} ms, "
            f"{step['server_commands_per_s']} commands/s, {step['cpu_cores_total']} cores, errors {step['errors']}; "
            f"{window_line(step)}")
        p99 = step["command_p99_ms"]
        if p99 is None or p99 >= lib.P99_LIMIT_MS or step["errors"] or not held(level, step["concurrent_matches_mean"]):
            break
        best = level
    return {"max_concurrent_paced_matches_p99_under_100ms": best, "ramp_steps": steps,
            "ramp_step_seconds": args.ramp_step_seconds, "ramp_settle_seconds": args.ramp_settle_seconds,
            **({"last_step": steps[-1]} if steps else {}), **paced_counts(harness, args)}


def paced_counts(harness: Any, args: Any) -> dict:
    s = harness.stats
    return {"paced": True, "timeouts": s.timeouts, "late_moves": s.late_moves, "seats_away": s.seats_away,
            "stale_thoughts": s.stale_thoughts,
            "chats_sent": s.chats_sent, "chats_received": s.chats_received,
            "phones": len(harness.tasks), "phones_per_channel": args.phones_per_channel,
            "channels": len(harness.pool.channels) if harness.pool is not None else None,
            "think": {"median": args.think_median, "sigma": args.think_sigma, "min": args.think_min,
                      "max": args.think_max, "hurry": args.think_hurry},
            "chat_seconds": args.chat_seconds}
