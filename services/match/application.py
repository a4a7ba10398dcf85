"""Match use cases: what players, bots, matchmaking and timers ask of the match service.

A thin layer: load the aggregate, ask it to act, save, and retry once more on a lost race
(the aggregate re-checks legality against the winner's state). Request ids make commands
idempotent; clocks and seeds are injected so tests need no sleeping.

A seat command is written once, as steps that yield what it needs from the store (`Load`,
`DrawnAt`, `Save`) and receive the answers. `perform` answers them here and now;
`perform_async` answers them on the event loop, appending through the store's asynchronous
path when it has one (PostgreSQL), so a command costs no thread hand-off.
"""

from __future__ import annotations

import asyncio
import copy
import secrets
import time
from dataclasses import dataclass
from typing import Callable, Generator, Iterable, TypeVar, Union
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError, Application, ProcessingEvent
from eventsourcing.persistence import RecordConflictError

from services.common.bot_ids import is_bot

from .domainmodel import Match, NotSeated, RequestIdReused, StaleTimeout, fingerprint, request_key
from .rules import fairness
from .rules.errors import BadOptions, RulesError
from .rules.moves import DRAW, play
from .rules.rulesets import match_options

__all__ = ["MatchApplication", "UnknownMatch", "InvalidRequest", "NotSeated", "RequestIdReused", "StaleTimeout",
           "ConcurrencyConflict", "Outcome", "SeatSpec"]

RACE_RETRIES = 3
T = TypeVar("T")


class UnknownMatch(Exception):
    pass


class InvalidRequest(ValueError):
    pass


class ConcurrencyConflict(Exception):
    """Lost the race for a match more times than it is worth retrying."""


@dataclass(frozen=True)
class SeatSpec:
    player_id: str
    client_seed: str = ""


MAX_REQUEST_ID = 200
MAX_PLAYER_ID = 100
MAX_CLIENT_SEED = 128
MAX_SEATS = 4
MAX_SEED_WAIT = 60


def check_sizes(request_id: str, seats: list[SeatSpec]) -> None:
    """Every stored event must stay small (the relay publishes each one to NATS): what a
    match is created with is bounded here, before anything is stored."""
    if len(request_id) > MAX_REQUEST_ID:
        raise InvalidRequest(f"request_id is longer than {MAX_REQUEST_ID} characters")
    if len(seats) > MAX_SEATS:
        raise InvalidRequest(f"a match has at most {MAX_SEATS} seats, not {len(seats)}")
    for seat in seats:
        if len(seat.player_id) > MAX_PLAYER_ID:
            raise InvalidRequest(f"a player id is longer than {MAX_PLAYER_ID} characters")
        if len(seat.client_seed) > MAX_CLIENT_SEED:
            raise InvalidRequest(f"a client seed is longer than {MAX_CLIENT_SEED} characters")


@dataclass(frozen=True)
class Load:
    """Read the match from the store (fast-forwarding this replica's copy)."""
    match_id: UUID


@dataclass(frozen=True)
class DrawnAt:
    """The tile drawn by the event at ``version`` (-1 if it was no draw)."""
    match_id: UUID
    version: int


@dataclass(frozen=True)
class Save:
    match: Match


Steps = Generator[Union[Load, DrawnAt, Save], object, T]


@dataclass(frozen=True)
class Outcome:
    version: int  # the version of the event that recorded the command
    match: Match
    drawn: int = -1  # draws: the tile drawn


class MatchApplication(Application[UUID]):
    env = {"AGGREGATE_CACHE_MAXSIZE": "5000", "COMPRESSOR_TOPIC": ""}

    def __init__(self, env=None, clock: Callable[[], float] = time.time,
                 seed_source: Callable[[], bytes] = lambda: secrets.token_bytes(32)) -> None:
        super().__init__(env)
        self.clock = clock
        self.seed_source = seed_source

    # ---- commands ----------------------------------------------------------------------

    def create_match(self, request_id: str, rules: str, variant: str, teams: bool | None, target: int | None,
                     turn_timer: int | None, seats: list[SeatSpec], options: dict | None = None,
                     seed_wait_seconds: float = 0) -> Match:
        """A new match (or the one this request id made). With ``seed_wait_seconds`` the first
        deal waits that long for the seeds of the seats that are not bots (SubmitSeed)."""
        if not request_id:
            raise InvalidRequest("request_id is required")
        check_sizes(request_id, seats)
        players = [s.player_id for s in seats]
        seat_count = None if rules == "egyptian" else len(players)
        try:
            ruleset, target, turn_timer = match_options(rules, variant, teams, target, turn_timer, seat_count,
                                                        options)
        except BadOptions as e:
            raise InvalidRequest(str(e)) from None
        if len(players) != ruleset.seats:
            raise InvalidRequest(f"{ruleset.name} needs {ruleset.seats} seats, got {len(players)}")
        played_options = ruleset.options._asdict() if ruleset.options is not None else None
        if not all(players) or len(set(players)) != len(players):
            raise InvalidRequest("every seat needs a distinct, non-empty player id")
        match_id = Match.create_id(request_id)
        try:
            existing = self.repository.get(match_id)
        except AggregateNotFoundError:
            pass
        else:
            asked = (rules, variant, ruleset.teams, target, turn_timer, tuple(players), played_options)
            if asked != (existing.rules_name, existing.variant, existing.teams, existing.target, existing.turn_timer,
                         existing.seats, existing.options):
                raise RequestIdReused("this request_id already created a different match")
            return existing
        if not 0 <= seed_wait_seconds <= MAX_SEED_WAIT:
            raise InvalidRequest(f"seed_wait_seconds must be 0 to {MAX_SEED_WAIT}")
        awaiting = [s for s, p in enumerate(players) if not is_bot(p)] if seed_wait_seconds else []
        server_seed = self.seed_source()
        match = Match(request_id=request_id, rules=rules, variant=variant, teams=ruleset.teams, target=target,
                      turn_timer=turn_timer, seats=players, client_seeds=[s.client_seed for s in seats],
                      commitment=fairness.commitment(server_seed), server_seed=server_seed.hex(),
                      options=played_options, awaiting=awaiting,
                      deadline=self.clock() + seed_wait_seconds if awaiting else None)
        match.begin(self.clock())
        try:
            self.save(match)
        except RecordConflictError:
            return self.repository.get(match_id)  # a concurrent retry of the same request won
        return match

    def play_tile(self, match_id: UUID, player_id: str, tile: int, end: int | None, request_id: str) -> Outcome:
        return self.perform(self.play_tile_steps(match_id, player_id, tile, end, request_id))

    def play_tile_steps(self, match_id: UUID, player_id: str, tile: int, end: int | None,
                        request_id: str) -> Steps[Outcome]:
        def command(match: Match, seat: int, key: str) -> int:
            match.play_tile(seat, tile, end, key, self.clock())
            return -1

        return self._seat_command(match_id, player_id, request_id, fingerprint(play(tile, end)), command)

    def draw_tile(self, match_id: UUID, player_id: str, request_id: str) -> Outcome:
        return self.perform(self.draw_tile_steps(match_id, player_id, request_id))

    def draw_tile_steps(self, match_id: UUID, player_id: str, request_id: str) -> Steps[Outcome]:
        def command(match: Match, seat: int, key: str) -> int:
            return match.draw_tile(seat, key, self.clock())

        return self._seat_command(match_id, player_id, request_id, fingerprint(DRAW), command)

    def resume_seat(self, match_id: UUID, player_id: str) -> Match:
        return self.perform(self.resume_seat_steps(match_id, player_id))

    def resume_seat_steps(self, match_id: UUID, player_id: str) -> Steps[Match]:
        def attempt(fresh: bool) -> Steps[Match]:
            match = yield from self._load(match_id, fresh)
            match.resume_seat(match.seat_of(player_id))
            yield Save(match)
            return match

        return self._retrying(attempt)

    def submit_seed_steps(self, match_id: UUID, player_id: str, seed: str) -> Steps[Match]:
        if not seed or len(seed) > MAX_CLIENT_SEED:
            raise InvalidRequest(f"a seed is 1 to {MAX_CLIENT_SEED} characters")

        def attempt(fresh: bool) -> Steps[Match]:
            match = yield from self._load(match_id, fresh)
            match.submit_seed(match.seat_of(player_id), seed, self.clock())
            yield Save(match)
            return match

        return self._retrying(attempt)

    def leave_match_steps(self, match_id: UUID, player_id: str) -> Steps[Match]:
        def attempt(fresh: bool) -> Steps[Match]:
            match = yield from self._load(match_id, fresh)
            match.leave(match.seat_of(player_id), self.clock())
            yield Save(match)
            return match

        return self._retrying(attempt)

    def abandon_match(self, match_id: UUID, version: int, idle_seconds: float) -> Match:
        """End a match nobody has acted in since ``version``; StaleTimeout if it moved on."""
        def attempt(fresh: bool) -> Steps[Match]:
            match = yield from self._load(match_id, fresh)
            match.abandon(version, idle_seconds)
            yield Save(match)
            return match

        return self.perform(self._retrying(attempt))

    def expire_turn(self, match_id: UUID, round_number: int, turn_no: int) -> Match:
        """Play a timed-out turn; StaleTimeout when it was already played or is not due."""
        def attempt(fresh: bool) -> Steps[Match]:
            match = yield from self._load(match_id, fresh)
            match.expire_turn(round_number, turn_no, self.clock())
            yield Save(match)
            return match

        return self.perform(self._retrying(attempt))

    # ---- running a command's steps -------------------------------------------------------

    def perform(self, steps: Steps[T]) -> T:
        """Run a command, answering its steps from the store here and now."""
        return _drive(steps, self._answer)

    async def perform_async(self, steps: Steps[T]) -> T:
        """Run a command on the event loop: its own work runs here, a save goes through the
        store's asynchronous append when there is one, anything else to a worker thread."""
        append = getattr(self.recorder, "append_async", None)

        async def answer(request: Union[Load, DrawnAt, Save]) -> object:
            if isinstance(request, Save) and append is not None:
                match = request.match
                await append([self.mapper.to_stored_event(e) for e in match.collect_events()])
                self._remember(match)
                return None
            return await asyncio.to_thread(self._answer, request)

        reply: _Reply = _Reply()
        while True:
            request = reply.into(steps)
            if isinstance(request, _Finished):
                return request.value
            try:
                reply = _Reply(await answer(request))
            except Exception as e:  # handed to the steps, which retry or raise it
                reply = _Reply(error=e)

    async def aclose(self) -> None:
        """Close what the store opened on the event loop (PostgreSQL's asynchronous append)."""
        closer = getattr(self.recorder, "aclose", None)
        if closer is not None:
            await closer()

    def _answer(self, request: Union[Load, DrawnAt, Save]) -> object:
        if isinstance(request, Save):
            return self.save(request.match)
        if isinstance(request, Load):
            return self.get_match(request.match_id)
        (event,) = self.events.get(request.match_id, gt=request.version - 1, lte=request.version)
        return getattr(event, "tile", -1) if type(event).__name__ == "TileDrawn" else -1

    # ---- queries -----------------------------------------------------------------------

    def get_match(self, match_id: UUID) -> Match:
        try:
            return self.repository.get(match_id)
        except AggregateNotFoundError:
            raise UnknownMatch(f"no match {match_id}") from None

    def match_at(self, match_id: UUID, version: int) -> Match:
        try:
            return self.repository.get(match_id, version=version)
        except AggregateNotFoundError:
            raise UnknownMatch(f"no match {match_id} at version {version}") from None

    def events_after(self, match_id: UUID, version: int) -> Iterable:
        return self.events.get(match_id, gt=version)

    # ---- plumbing ----------------------------------------------------------------------

    def _seat_command(self, match_id: UUID, player_id: str, request_id: str, what: str,
                      command: Callable[[Match, int, str], int]) -> Steps[Outcome]:
        if not request_id:
            raise InvalidRequest("request_id is required")
        key = request_key(player_id, request_id)

        def attempt(fresh: bool) -> Steps[Outcome]:
            match = yield from self._load(match_id, fresh)
            seat = match.seat_of(player_id)
            done = match.outcome_of(key, what)
            if done is not None:
                drawn = yield DrawnAt(match_id, done)
                return Outcome(done, match, drawn)
            drawn = command(match, seat, key)
            yield Save(match)
            return Outcome(match.outcome_of(key, what), match, drawn)

        return (yield from self._retrying(attempt))

    def save(self, *matches: Match, **kwargs):
        """Application.save, minus its runtime Protocol checks (on Python 3.11 they cost more
        than the rest of a save), plus keeping the cached copy current."""
        processing_event: ProcessingEvent[UUID] = ProcessingEvent()
        for match in matches:
            processing_event.events.extend(match.collect_events())
            processing_event.aggregates[match.id] = match
        processing_event.saved_kwargs.update(kwargs)
        recordings = self._record(processing_event)
        self._take_snapshots(processing_event)
        self._notify(recordings)
        for match in matches:
            self._remember(match)
        return recordings

    def _remember(self, match: Match) -> None:
        """The library refreshes its cache after a save only without fast-forward, and
        fast-forward (which keeps several replicas honest) would otherwise re-read and
        re-apply this command's own events on the next load."""
        if self.repository.cache is not None:
            self.repository.cache.put(match.id, copy.deepcopy(match))

    def _load(self, match_id: UUID, fresh: bool) -> Steps[Match]:
        """The cached match as this replica last saved or read it, without asking the store
        whether another replica has moved it on (almost always it has not); ``fresh`` asks."""
        cache = self.repository.cache
        if not fresh and cache is not None:
            try:
                return copy.deepcopy(cache.get(match_id))
            except KeyError:
                pass
        return (yield Load(match_id))

    def _retrying(self, attempt: Callable[[bool], Steps[T]]) -> Steps[T]:
        """Try a command on the cached match first. A stale copy can store nothing (its
        events' versions are already taken, so the save conflicts), and what it refuses is
        asked again of the stored match before the refusal is believed."""
        fresh = False
        for _ in range(RACE_RETRIES):
            try:
                return (yield from attempt(fresh))
            except RecordConflictError:
                fresh = True
            except (RulesError, StaleTimeout):
                if fresh:
                    raise
                fresh = True
        raise ConcurrencyConflict("the match changed under this command repeatedly; try again")


@dataclass(frozen=True)
class _Finished:
    value: object


@dataclass(frozen=True)
class _Reply:
    """The store's answer to a step: a value, or the error to raise inside the steps."""
    value: object = None
    error: Exception | None = None

    def into(self, steps: Steps) -> Union[Load, DrawnAt, Save, _Finished]:
        """Hand this answer to the steps: their next request, or their result."""
        try:
            return steps.throw(self.error) if self.error is not None else steps.send(self.value)
        except StopIteration as done:
            return _Finished(done.value)


def _drive(steps: Steps[T], answer: Callable[[Union[Load, DrawnAt, Save]], object]) -> T:
    reply = _Reply()
    while True:
        request = reply.into(steps)
        if isinstance(request, _Finished):
            return request.value  # type: ignore[return-value]
        try:
            reply = _Reply(answer(request))
        except Exception as e:  # handed to the steps, which retry or raise it
            reply = _Reply(error=e)
