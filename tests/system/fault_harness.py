"""Several matches of several families played at once over the whole system, one fault
injected while they play, then a reconciliation of everything that holds the match.

The system: two match service replicas on one PostgreSQL, the relay, the bots and a real
NATS server with JetStream on disk, every service its own process (LocalSystem). Each match
has a scripted player (this process, grpc.aio) who watches the match with ``WatchMatch``,
acts on its own turns and, like a phone, retries a call that failed for lack of a server
with the same request id and resumes its stream from the last version it saw; the other
seats are bots. Clients and bots reach the match service through one target naming both
replicas, so when one dies they move to the other.

``reconcile`` then checks, per match: the store holds versions 1..N once each; the stream
holds every one of them once, in order; the scripted player saw every version from where
its first stream began (the view as it stood, with no event) once, in order; the auditor's
export verifies; and every request id was recorded once.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import nats

from domino.match.v1 import match_service_pb2 as pb
from domino.match.v1 import match_service_pb2_grpc as pb_grpc
from services.audit.verify import verify
from services.common import bus
from services.common.auth import mint_token
from services.common.supervisor import LocalSystem, Ports
from services.match.application import MatchApplication
from services.match.domainmodel import Match
from services.match.record import from_json

RETRIED = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.ABORTED)
CALL_SECONDS = 5.0


@dataclass(frozen=True)
class Plan:
    rules: str
    variant: str
    seats: tuple[str, ...]  # "{me}" is the scripted player's seat
    target: int | None = None


PLANS = (
    Plan("egyptian", "draw-2", ("{me}", "bot:greedy:1"), 51),
    Plan("all-fives", "", ("{me}", "bot:random:1"), 100),
    Plan("goat", "koza", ("{me}", "bot:greedy:1", "bot:random:2")),
    Plan("egyptian", "block-4", ("{me}", "bot:random:1", "bot:greedy:2", "bot:random:3"), 51),
)


class FaultSystem(LocalSystem):
    """LocalSystem on PostgreSQL with two match replicas; clients and bots name both."""

    def __init__(self, var_dir: Path, store_env: dict[str, str]) -> None:
        super().__init__(var_dir, Ports.free(), services=("match", "relay", "bots"), match_replicas=2, extra_env={
            **store_env, "DOMINO_LOG_FORMAT": "json", "DOMINO_BOT_THINK_MAX_SECONDS": "0",
            "DOMINO_BOT_THINK_MIN_SECONDS": "0", "DOMINO_COMMAND_RATE": "1000000", "DOMINO_COMMAND_BURST": "1000000",
            "DOMINO_TIMER_POLL_SECONDS": "0.2", "DOMINO_BOT_ACK_WAIT_SECONDS": "5"})
        self.store_env = store_env

    @property
    def both_replicas(self) -> str:
        return self.match_target

    def start_replica(self, name: str, timeout: float = 60) -> None:
        """``match`` (the first port) or ``match-2`` (the second), as its own process."""
        self.start_service(name, timeout, serve="match")

    def token(self, subject: str, role: str = "player") -> tuple[tuple[str, str], ...]:
        return (("authorization", f"Bearer {mint_token(subject, self.keys(), role)}"),)


@dataclass
class Seen:
    """What one scripted player received and did."""
    match_id: str
    player: str
    versions: list[int] = field(default_factory=list)
    commands: int = 0
    retries: int = 0
    resumes: int = 0
    ended: bool = False


class Players:
    """The scripted players of every match, on one event loop."""

    def __init__(self, system: FaultSystem) -> None:
        self.system = system
        self.channel = grpc.aio.insecure_channel(system.both_replicas)
        self.stub = pb_grpc.MatchServiceStub(self.channel)
        self.seen: list[Seen] = []

    async def call(self, seen: Seen | None, method: Any, request: Any, metadata: Any) -> Any:
        """A unary call retried, like a phone, while no replica answers (same request id)."""
        for attempt in range(200):
            try:
                return await method(request, metadata=metadata, timeout=CALL_SECONDS)
            except grpc.aio.AioRpcError as e:
                if e.code() not in RETRIED:
                    raise
                if seen is not None:
                    seen.retries += 1
                await asyncio.sleep(min(0.5, 0.02 * (attempt + 1)))
        raise TimeoutError("no replica answered for a long time")

    async def create(self, plan: Plan, n: int) -> Seen:
        me = f"p{n}-{plan.rules}"
        seats = [pb.SeatSpec(player_id=s.format(me=me), client_seed=f"seed-{n}-{i}") for i, s in enumerate(plan.seats)]
        fields: dict[str, Any] = {"turn_timer_seconds": 0}
        if plan.target is not None:
            fields["target"] = plan.target
        request = pb.CreateMatchRequest(request_id=f"fault-{n}", rules=plan.rules, variant=plan.variant, seats=seats,
                                        **fields)
        reply = await self.call(None, self.stub.CreateMatch, request, self.system.token("harness", "service"))
        seen = Seen(reply.match_id, me)
        self.seen.append(seen)
        return seen

    async def play(self, seen: Seen) -> None:
        """Watch the match and act on this player's turns until it ends."""
        my_turn = asyncio.Event()
        actor = asyncio.create_task(self._act(seen, my_turn))
        try:
            await self._watch(seen, my_turn)
        finally:
            actor.cancel()

    async def _watch(self, seen: Seen, my_turn: asyncio.Event) -> None:
        metadata = self.system.token(seen.player)
        while True:
            last = seen.versions[-1] if seen.versions else 0
            try:
                call = self.stub.WatchMatch(pb.WatchMatchRequest(match_id=seen.match_id, from_version=last),
                                            metadata=metadata)
                async for update in call:
                    seen.versions.append(update.view.version)  # an event's, or the first view's (no event)
                    if update.view.status != pb.MATCH_STATUS_IN_PROGRESS:
                        if update.view.status in (pb.MATCH_STATUS_ENDED, pb.MATCH_STATUS_ABANDONED):
                            seen.ended = True
                            return
                    elif update.view.HasField("turn") and update.view.turn == update.view.your_seat:
                        my_turn.set()
            except grpc.aio.AioRpcError as e:
                if e.code() not in RETRIED + (grpc.StatusCode.CANCELLED,):
                    raise
            seen.resumes += 1  # the stream ended without the match's end: a replica went away
            await asyncio.sleep(0.05)

    async def _act(self, seen: Seen, my_turn: asyncio.Event) -> None:
        metadata = self.system.token(seen.player)
        while True:
            await my_turn.wait()
            my_turn.clear()
            view = (await self.call(seen, self.stub.GetMatch, pb.GetMatchRequest(match_id=seen.match_id),
                                    metadata)).view
            if view.status != pb.MATCH_STATUS_IN_PROGRESS or not view.HasField("turn") or view.turn != view.your_seat:
                continue
            move = view.legal_moves[0]
            request_id = f"{seen.player}:{view.version}"
            if move.kind == pb.MOVE_KIND_DRAW:
                reply = await self.call(seen, self.stub.DrawTile,
                                        pb.DrawTileRequest(match_id=seen.match_id, request_id=request_id), metadata)
            else:
                reply = await self.call(seen, self.stub.PlayTile,
                                        pb.PlayTileRequest(match_id=seen.match_id, request_id=request_id,
                                                           tile=move.tile, end=move.end), metadata)
            seen.commands += 1
            if reply.view.status == pb.MATCH_STATUS_IN_PROGRESS and reply.view.HasField("turn") and \
                    reply.view.turn == reply.view.your_seat:
                my_turn.set()  # a draw, or the others were passed over: still this seat's turn

    async def progress(self) -> int:
        """Events stored so far over every match (as the service sees them)."""
        total = 0
        for seen in self.seen:
            view = (await self.call(None, self.stub.GetMatch, pb.GetMatchRequest(match_id=seen.match_id),
                                    self.system.token("harness", "service"))).view
            total += view.version
        return total

    async def where(self) -> list[str]:
        """Where each match stands, for a failure message."""
        out = []
        for seen in self.seen:
            view = (await self.call(None, self.stub.GetMatch, pb.GetMatchRequest(match_id=seen.match_id),
                                    self.system.token("harness", "service"))).view
            turn = view.seats[view.turn].player_id if view.HasField("turn") else "-"
            out.append(f"{seen.player}: version {view.version} status {view.status} turn {turn}; saw "
                       f"{seen.versions[-1] if seen.versions else 0}, {seen.commands} commands, {seen.retries} retries")
        return out

    async def close(self) -> None:
        await self.channel.close()


async def play_with_fault(system: FaultSystem, fault: Any, after_events: int = 60, timeout: float = 150) -> Players:
    """Play every plan's match; once ``after_events`` events are stored, run ``fault()`` (a
    coroutine function) while play goes on; return when every match has ended."""
    players = Players(system)
    try:
        seen = [await players.create(plan, n) for n, plan in enumerate(PLANS)]
        games = asyncio.gather(*(players.play(s) for s in seen))
        deadline = time.monotonic() + timeout
        while await players.progress() < after_events:
            if time.monotonic() > deadline:
                raise TimeoutError("the matches did not get going")
            await asyncio.sleep(0.05)
        await fault()
        try:
            await asyncio.wait_for(games, max(1.0, deadline - time.monotonic()))
        except asyncio.TimeoutError:
            raise AssertionError(f"the matches did not end: {await players.where()} (logs: {system.var_dir})") from None
    finally:
        await players.close()
    return players


@dataclass
class Reconciliation:
    matches: int = 0
    events: int = 0
    problems: list[str] = field(default_factory=list)

    def check(self, ok: bool, problem: str) -> None:
        if not ok:
            self.problems.append(problem)


def reconcile(system: FaultSystem, players: Players) -> Reconciliation:
    """Store, stream, clients and exports agree for every match (see the module's docstring)."""
    result = Reconciliation()
    app = MatchApplication(env=dict(system.store_env))
    try:
        stored = sum(len(list(app.events_after(_uuid(seen.match_id), 0))) for seen in players.seen)
        deadline = time.monotonic() + 30  # the relay publishes what the last commands stored
        while True:
            stream = asyncio.run(_stream_versions(system))
            if sum(len(stream.get(seen.match_id, [])) for seen in players.seen) >= stored:
                break
            if time.monotonic() > deadline:
                break  # compared below, and reported
            time.sleep(0.2)
        for seen in players.seen:
            name = f"{seen.match_id} ({seen.player})"
            events = list(app.events_after(_uuid(seen.match_id), 0))
            versions = [e.originator_version for e in events]
            result.matches += 1
            result.events += len(versions)
            result.check(versions == list(range(1, len(versions) + 1)), f"{name}: store versions {versions[:5]}...")
            result.check(isinstance(events[-1], Match.MatchEnded), f"{name}: the match did not end")
            result.check(stream.get(seen.match_id) == versions,
                         f"{name}: stream {_short(stream.get(seen.match_id))} != store 1..{len(versions)}")
            start = seen.versions[0] if seen.versions else 1
            result.check(seen.versions == versions[start - 1:], f"{name}: player saw {_short(seen.versions)}")
            keys = [e.request_key for e in events if getattr(e, "request_key", "")]
            result.check(len(keys) == len(set(keys)), f"{name}: a request recorded twice")
            record = json.loads(asyncio.run(_export(system, seen.match_id)))
            verdict = verify(from_json(record))
            result.check(verdict.valid and verdict.complete, f"{name}: export does not verify: {verdict.to_json()}")
    finally:
        app.close()
    return result


async def _export(system: FaultSystem, match_id: str) -> str:
    async with grpc.aio.insecure_channel(system.both_replicas) as channel:
        reply = await pb_grpc.MatchServiceStub(channel).ExportMatch(
            pb.ExportMatchRequest(match_id=match_id), metadata=system.token("auditor-1", "auditor"), timeout=10)
        return reply.record_json


async def _stream_versions(system: FaultSystem) -> dict[str, list[int]]:
    """Every match event on the JetStream stream, in stream order, as versions per match."""
    assert system.nats is not None
    nc = await nats.connect(system.nats.url, user="admin", password=system.nats_passwords()["admin"])
    try:
        js = nc.jetstream()
        info = await js.stream_info(bus.STREAM)
        out: dict[str, list[int]] = {}
        for seq in range(info.state.first_seq, info.state.last_seq + 1):
            msg = await js.get_msg(bus.STREAM, seq)
            if msg.subject.startswith("domino.v1.match."):
                body = json.loads(msg.data)
                out.setdefault(body["match_id"], []).append(body["version"])
        return out
    finally:
        await nc.close()


def _uuid(text: str) -> Any:
    import uuid

    return uuid.UUID(text)


def _short(values: list[int] | None) -> str:
    if not values:
        return "nothing"
    return f"{len(values)} versions {values[:3]}...{values[-3:]}"

