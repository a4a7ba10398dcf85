"""Match use cases: what players, bots, matchmaking and timers ask of the match service.

Each command is plain async code over the store port (services/match/store.py): check the
request, load the match, ask the aggregate to act, append its new events. A command acts on
this replica's cached copy first; a stale copy can store nothing (its events' versions are
already taken, so the append conflicts), and what it refuses is asked again of the stored
match before the refusal is believed. Request ids make commands idempotent; clocks and
seeds are injected so tests need no sleeping.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, AsyncIterator, Callable, Iterable, TypeVar, cast
from uuid import UUID

from eventsourcing.application import Application
from eventsourcing.persistence import RecordConflictError

from services.common.bot_ids import is_bot

from .domainmodel import Match, fingerprint, request_key
from .creation_checks import chosen
from .errors import ConcurrencyConflict, InvalidOptions, InvalidRequest, RequestIdReused, StaleTimeout, UnknownMatch
from services.rules import fairness
from services.rules.errors import RulesError
from services.rules.moves import DRAW, play
from .store import store_of
from .table_talk import PHRASES, TableTalk, check_open, talk_id

__all__ = ["MatchApplication", "Outcome", "SeatSpec"]

RACE_RETRIES = 5
T = TypeVar("T")


@dataclass(frozen=True)
class SeatSpec:
    player_id: str
    client_seed: str = ""


MAX_REQUEST_ID = 200
MAX_PLAYER_ID = 100
MAX_CLIENT_SEED = 128
MAX_SEATS = 4
MAX_SEED_WAIT = 60


def check_request_id(request_id: str) -> None:
    if not request_id:
        raise InvalidRequest("request_id is required (any unique string per command)", "request_id")
    if len(request_id) > MAX_REQUEST_ID:
        raise InvalidRequest(f"request_id is longer than {MAX_REQUEST_ID} characters", "request_id")


def check_seat_specs(seats: list[SeatSpec]) -> None:
    """Every stored event must stay small (the relay publishes each one to NATS): what a
    match is created with is bounded here, before anything is stored."""
    if len(seats) > MAX_SEATS:
        raise InvalidRequest(f"a match has at most {MAX_SEATS} seats, not {len(seats)}", "seats")
    for i, seat in enumerate(seats):
        if len(seat.player_id) > MAX_PLAYER_ID:
            raise InvalidRequest(f"a player id is longer than {MAX_PLAYER_ID} characters", f"seats[{i}].player_id")
        if len(seat.client_seed) > MAX_CLIENT_SEED:
            raise InvalidRequest(f"a client seed is longer than {MAX_CLIENT_SEED} characters",
                                 f"seats[{i}].client_seed")
    players = [s.player_id for s in seats]
    if not all(players) or len(set(players)) != len(players):
        raise InvalidRequest("every seat needs a distinct, non-empty player id", "seats")


@dataclass(frozen=True)
class Outcome:
    version: int  # the version of the event that recorded the command
    match: Match
    drawn: int = -1  # draws: the tile drawn


class MatchApplication(Application[UUID]):
    env = {"AGGREGATE_CACHE_MAXSIZE": "5000", "COMPRESSOR_TOPIC": ""}

    def __init__(self, env: dict[str, str] | None = None, clock: Callable[[], float] = time.time,
                 seed_source: Callable[[], bytes] = lambda: secrets.token_bytes(32),
                 round_pause_seconds: float = 0.0) -> None:
        super().__init__(env)
        self.clock = clock
        self.seed_source = seed_source
        self.round_pause_seconds = round_pause_seconds  # DOMINO_ROUND_PAUSE_SECONDS: see round_pause()
        self.store = store_of(self)
        self._locks: dict[UUID, tuple[asyncio.Lock, int]] = {}  # match -> (lock, commands using it)

    # ---- commands ----------------------------------------------------------------------

    async def create_match(self, request_id: str, rules: str, variant: str, teams: bool | None, target: int | None,
                           turn_timer: int | None, seats: list[SeatSpec], options: dict[str, Any] | None = None,
                           seed_wait_seconds: float = 0, spectators: bool = False,
                           rated: bool | None = None) -> Match:
        """A new match (or the one this request id made). With ``seed_wait_seconds`` the first
        deal waits that long for the seeds of the seats that are not bots (SubmitSeed).
        ``rated``: whether it moves ratings, as its creator decided (None: it does not say)."""
        check_request_id(request_id)
        check_seat_specs(seats)
        if not 0 <= seed_wait_seconds <= MAX_SEED_WAIT:
            raise InvalidRequest(f"seed_wait_seconds must be 0 to {MAX_SEED_WAIT}", "seed_wait_seconds")
        players = [s.player_id for s in seats]
        named = chosen(rules, variant, teams, target, turn_timer, len(players), options)  # defaults filled in
        rules, variant, ruleset, target, turn_timer = named.family.name, named.variant, named.rules, named.target, \
            named.turn_timer
        if len(players) != ruleset.seats:
            raise InvalidOptions(f"{ruleset.name} needs {ruleset.seats} seats, got {len(players)}", "seats")
        played_options = named.options
        match_id = Match.create_id(request_id)
        try:
            existing = await self.store.load(match_id)
        except UnknownMatch:
            pass
        else:
            asked = (rules, variant, ruleset.teams, target, turn_timer, tuple(players), played_options)
            if asked != (existing.rules_name, existing.variant, existing.teams, existing.target, existing.turn_timer,
                         existing.seats, existing.options):
                raise RequestIdReused("this request_id already created a different match")
            return existing
        awaiting = [s for s, p in enumerate(players) if not is_bot(p)] if seed_wait_seconds else []
        server_seed = self.seed_source()
        match = Match(request_id=request_id, rules=rules, variant=variant, teams=ruleset.teams, target=target,
                      turn_timer=turn_timer, seats=players, client_seeds=[s.client_seed for s in seats],
                      commitment=fairness.commitment(server_seed), server_seed=server_seed.hex(),
                      options=played_options, awaiting=awaiting,
                      deadline=self.clock() + seed_wait_seconds if awaiting else None, spectators=spectators,
                      round_pause=self.round_pause(players), rated=rated)
        match.begin(self.clock())
        try:
            await self.store.append(match)
        except RecordConflictError:
            return await self.store.load(match_id)  # a concurrent retry of the same request won
        return match

    def round_pause(self, players: list[str]) -> float:
        """The pause between rounds a new match gets: while it lasts every client shows how the
        round ended, so it is for people; a match of bots alone has nobody to show it to."""
        return self.round_pause_seconds if any(not is_bot(p) for p in players) else 0.0

    async def play_tile(self, match_id: UUID, player_id: str, tile: int, end: int | None,
                        request_id: str) -> Outcome:
        check_request_id(request_id)
        key = request_key(player_id, request_id)
        return await self._seat_command(match_id, player_id, key, fingerprint(play(tile, end)),
                                        lambda match, seat: match.play_tile(seat, tile, end, key, self.clock()))

    async def draw_tile(self, match_id: UUID, player_id: str, request_id: str) -> Outcome:
        check_request_id(request_id)
        key = request_key(player_id, request_id)
        return await self._seat_command(match_id, player_id, key, fingerprint(DRAW),
                                        lambda match, seat: match.draw_tile(seat, key, self.clock()))

    async def send_chat(self, match_id: UUID, player_id: str, phrase: str) -> None:
        """A seated player's quick-chat phrase, stored beside the match (table_talk.py): while
        it is played, for a short grace after it ended, and up to a cap per player."""
        if phrase not in PHRASES:
            raise InvalidRequest(f"phrase must be one of {', '.join(PHRASES)}", "chat_phrase")
        match = self.store.cached(match_id)
        if match is None or not match.finished:  # a copy in play may be behind: did the match end?
            match = await self.store.load(match_id)
        seat = match.seat_of(player_id)
        check_open(match.finished, match.ended_at, self.clock())
        for _ in range(RACE_RETRIES):
            try:
                talk = cast(TableTalk, await self.store.load(talk_id(match_id)))
            except UnknownMatch:
                talk = TableTalk(match_id=match_id)
            talk.send(seat=seat, player_id=player_id, phrase=phrase)
            try:
                await self.store.append(cast(Match, talk))
                return
            except RecordConflictError:
                continue
        raise ConcurrencyConflict("the table's chat changed under this message repeatedly; try again")

    def phrases_after(self, match_id: UUID, version: int) -> list[TableTalk.PhraseSent]:
        """The phrases sent at the match after the talk's ``version``."""
        return [e for e in self.events.get(talk_id(match_id), gt=version) if isinstance(e, TableTalk.PhraseSent)]

    async def resume_seat(self, match_id: UUID, player_id: str) -> Match:
        return await self._change(match_id, lambda match: match.resume_seat(match.seat_of(player_id)))

    async def submit_seed(self, match_id: UUID, player_id: str, seed: str) -> Match:
        if not seed or len(seed) > MAX_CLIENT_SEED:
            raise InvalidRequest(f"a seed is 1 to {MAX_CLIENT_SEED} characters", "seed")
        return await self._change(match_id, lambda match: match.submit_seed(match.seat_of(player_id), seed,
                                                                             self.clock()))

    async def leave_match(self, match_id: UUID, player_id: str) -> Match:
        return await self._change(match_id, lambda match: match.leave(match.seat_of(player_id), self.clock()))

    async def abandon_match(self, match_id: UUID, version: int, idle_seconds: float) -> Match:
        """End a match nobody has acted in since ``version``; StaleTimeout if it moved on."""
        return await self._change(match_id, lambda match: match.abandon(version, idle_seconds, self.clock()))

    async def expire_turn(self, match_id: UUID, round_number: int, turn_no: int) -> Match:
        """Play a timed-out turn; StaleTimeout when it was already played or is not due."""
        return await self._change(match_id, lambda match: match.expire_turn(round_number, turn_no, self.clock()))

    # ---- queries (plain reads: callers on the event loop run them through ``read``) -----

    async def read(self, call: Callable[..., T], *args: Any) -> T:
        """Run a query where the store's reads belong (right here, or a worker thread)."""
        return await self.store.read(call, *args)

    def get_match(self, match_id: UUID) -> Match:
        return self.store.get(match_id)

    def match_since(self, match_id: UUID, version: int) -> Match | None:
        """This replica's copy if it is at least ``version``, without reading the store (a bot
        told of a turn at that version needs no newer one); None when it has none as new."""
        match = self.store.cached(match_id)
        return match if match is not None and match.version >= version else None

    def match_at(self, match_id: UUID, version: int) -> Match:
        return self.store.get(match_id, version)

    def stored_events(self, match_id: UUID) -> list[Match.Event]:
        """Every stored event of the match, not replayed (an auditor's export of any log)."""
        events = list(self.events.get(match_id))
        if not events:
            raise UnknownMatch(f"no match {match_id}")
        return cast(list[Match.Event], events)

    def recent_events(self, match_id: UUID, version: int) -> list[Match.Event] | None:
        """The events after ``version`` if this replica stored every one of them (no I/O);
        None when only the store knows them all."""
        return self.store.recent(match_id, version)

    def events_after(self, match_id: UUID, version: int) -> Iterable[Match.Event]:
        return cast(Iterable[Match.Event], self.events.get(match_id, gt=version))

    async def aclose(self) -> None:
        """Close what the store opened on the event loop (PostgreSQL's asynchronous append)."""
        closer = getattr(self.recorder, "aclose", None)
        if closer is not None:
            await closer()

    # ---- plumbing ----------------------------------------------------------------------

    async def _seat_command(self, match_id: UUID, player_id: str, key: str, what: str,
                            command: Callable[[Match, int], int | None]) -> Outcome:
        """A seat's play or draw; a retried request answers what the first one did, from the
        match itself (the version that recorded it and the tile it drew), appending nothing."""
        def act(match: Match) -> Outcome:
            seat = match.seat_of(player_id)
            done = match.outcome_of(key, what)
            if done is None:
                command(match, seat)
                done = match.outcome_of(key, what)
                assert done is not None  # the command recorded its request key
            version, drawn = done
            return Outcome(version, match, drawn)

        return await self._acting(match_id, act)

    async def _change(self, match_id: UUID, act: Callable[[Match], None]) -> Match:
        def acted(match: Match) -> Match:
            act(match)
            return match

        return await self._acting(match_id, acted)

    async def _acting(self, match_id: UUID, act: Callable[[Match], T]) -> T:
        async with self._one_at_a_time(match_id):
            return await self._attempts(match_id, act)

    @asynccontextmanager
    async def _one_at_a_time(self, match_id: UUID) -> AsyncIterator[None]:
        """Commands on one match in this process wait for each other (four seeds sent at once
        would otherwise race each other to the store); other replicas still race, and lose
        nothing but a retry."""
        lock, users = self._locks.get(match_id, (None, 0))
        if lock is None:
            lock = asyncio.Lock()
        self._locks[match_id] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock, users = self._locks[match_id]
            if users == 1:
                del self._locks[match_id]
            else:
                self._locks[match_id] = (lock, users - 1)

    async def _attempts(self, match_id: UUID, act: Callable[[Match], T]) -> T:
        fresh = False
        for _ in range(RACE_RETRIES):
            match = None if fresh else self.store.cached(match_id)
            if match is None:
                match = await self.store.load(match_id)
            try:
                result = act(match)
                if match.pending_events:
                    await self.store.append(match)
                return result
            except RecordConflictError:
                fresh = True
            except (RulesError, StaleTimeout):
                if fresh:
                    raise
                fresh = True
        raise ConcurrencyConflict("the match changed under this command repeatedly; try again")
