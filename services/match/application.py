"""Match use cases: what players, bots, matchmaking and timers ask of the match service.

Each command checks its request, then is one unit of work (services/common/unit_of_work.py)
over the store port (services/match/store.py): load the match, ask the aggregate to act,
append its new events. The unit acts on this replica's cached copy first, asks a refusal
again of the stored match, runs the act again on a lost race, lets one command at a time
act on a match here, and answers a retried request id with the first outcome. Clocks and
seeds are injected so tests need no sleeping.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterable, TypeVar, cast
from uuid import UUID

from eventsourcing.application import Application

from services.common.bot_ids import is_bot
from services.common.store_settings import ExplicitStore
from services.common.unit_of_work import AggregateStore, Units

from .domainmodel import Match, fingerprint, request_key
from .creation_checks import chosen
from .errors import ConcurrencyConflict, InvalidOptions, InvalidRequest, RequestIdReused, StaleTimeout, UnknownMatch
from services.rules import fairness
from services.rules.errors import RulesError
from services.rules.moves import DRAW, Move, play
from .store import store_of
from .table_talk import PHRASES, TableTalk, check_open, talk_id

__all__ = ["MatchApplication", "Outcome", "SeatSpec"]

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


@dataclass(frozen=True)
class SeatRequest:
    """A seat's play or draw by its request id: a retry is answered with what the first one
    did, from the match itself (the version that recorded it and the tile it drew)."""
    key: str
    what: str

    @classmethod
    def of(cls, player_id: str, request_id: str, move: Move) -> SeatRequest:
        check_request_id(request_id)
        return cls(request_key(player_id, request_id), fingerprint(move))

    def done(self, match: Match) -> bool:
        return match.outcome_of(self.key, self.what) is not None

    def outcome(self, match: Match) -> Outcome:
        done = match.outcome_of(self.key, self.what)
        assert done is not None  # the command recorded its request key
        return Outcome(done[0], match, done[1])


class MatchApplication(ExplicitStore, Application[UUID]):
    env = {"AGGREGATE_CACHE_MAXSIZE": "5000", "COMPRESSOR_TOPIC": ""}

    def __init__(self, env: dict[str, str] | None = None, clock: Callable[[], float] = time.time,
                 seed_source: Callable[[], bytes] = lambda: secrets.token_bytes(32),
                 round_pause_seconds: float = 0.0) -> None:
        super().__init__(env)
        self.clock = clock
        self.seed_source = seed_source
        self.round_pause_seconds = round_pause_seconds  # DOMINO_ROUND_PAUSE_SECONDS: see round_pause()
        self.store = store_of(self)
        # A stale copy's refusal is asked again of the stored match; a lost race is run again.
        self.unit = Units[Match](self.store, lambda: ConcurrencyConflict(
            "the match changed under this command repeatedly; try again"), (RulesError, StaleTimeout), UnknownMatch)
        # The store reads whichever aggregate an id names (its methods say Match, the usual one):
        # a table's talk id names a TableTalk.
        self.talks = Units[TableTalk](cast(AggregateStore[TableTalk], self.store), lambda: ConcurrencyConflict(
            "the table's chat changed under this message repeatedly; try again"), unknown=UnknownMatch)

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
        if len(players) != named.rules.seats:
            raise InvalidOptions(f"{named.rules.name} needs {named.rules.seats} seats, got {len(players)}", "seats")

        def new_match() -> Match:
            awaiting = [s for s, p in enumerate(players) if not is_bot(p)] if seed_wait_seconds else []
            server_seed = self.seed_source()
            match = Match.start(request_id=request_id, rules=named.family.name, variant=named.variant,
                                teams=named.rules.teams, target=named.target, turn_timer=named.turn_timer,
                                seats=players, client_seeds=[s.client_seed for s in seats],
                                commitment=fairness.commitment(server_seed), server_seed=server_seed.hex(),
                                options=named.options, awaiting=awaiting,
                                deadline=self.clock() + seed_wait_seconds if awaiting else None,
                                spectators=spectators, round_pause=self.round_pause(players), rated=rated)
            match.begin(self.clock())
            return match

        def same_request(match: Match) -> None:  # a retry (or this very request's new match)
            if (match.rules_name, match.variant, match.teams, match.target, match.turn_timer, match.seats,
                    match.options) != (named.family.name, named.variant, named.rules.teams, named.target,
                                       named.turn_timer, tuple(players), named.options):
                raise RequestIdReused("this request_id already created a different match")

        return await self.unit.run(Match.create_id(request_id), same_request, start=new_match)

    def round_pause(self, players: list[str]) -> float:
        """The pause between rounds a new match gets: while it lasts every client shows how the
        round ended, so it is for people; a match of bots alone has nobody to show it to."""
        return self.round_pause_seconds if any(not is_bot(p) for p in players) else 0.0

    async def play_tile(self, match_id: UUID, player_id: str, tile: int, end: int | None,
                        request_id: str) -> Outcome:
        asked = SeatRequest.of(player_id, request_id, play(tile, end))
        match = await self.unit.run(
            match_id, lambda match: match.play_tile(match.seat_of(player_id), tile, end, asked.key, self.clock()),
            done=asked.done)
        return asked.outcome(match)

    async def draw_tile(self, match_id: UUID, player_id: str, request_id: str) -> Outcome:
        asked = SeatRequest.of(player_id, request_id, DRAW)
        match = await self.unit.run(
            match_id, lambda match: match.draw_tile(match.seat_of(player_id), asked.key, self.clock()),
            done=asked.done)
        return asked.outcome(match)

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
        await self.talks.run(talk_id(match_id), lambda talk: talk.send(seat=seat, player_id=player_id, phrase=phrase),
                             start=lambda: TableTalk(match_id=match_id))

    def phrases_after(self, match_id: UUID, version: int) -> list[TableTalk.PhraseSent]:
        """The phrases sent at the match after the talk's ``version``."""
        return [e for e in self.events.get(talk_id(match_id), gt=version) if isinstance(e, TableTalk.PhraseSent)]

    async def resume_seat(self, match_id: UUID, player_id: str) -> Match:
        return await self.unit.run(match_id, lambda match: match.resume_seat(match.seat_of(player_id)))

    async def submit_seed(self, match_id: UUID, player_id: str, seed: str) -> Match:
        if not seed or len(seed) > MAX_CLIENT_SEED:
            raise InvalidRequest(f"a seed is 1 to {MAX_CLIENT_SEED} characters", "seed")
        return await self.unit.run(match_id, lambda match: match.submit_seed(match.seat_of(player_id), seed,
                                                                              self.clock()))

    async def leave_match(self, match_id: UUID, player_id: str) -> Match:
        return await self.unit.run(match_id, lambda match: match.leave(match.seat_of(player_id), self.clock()))

    async def abandon_match(self, match_id: UUID, version: int, idle_seconds: float) -> Match:
        """End a match nobody has acted in since ``version``; StaleTimeout if it moved on."""
        return await self.unit.run(match_id, lambda match: match.abandon(version, idle_seconds, self.clock()))

    async def expire_turn(self, match_id: UUID, round_number: int, turn_no: int) -> Match:
        """Play a timed-out turn; StaleTimeout when it was already played or is not due."""
        return await self.unit.run(match_id, lambda match: match.expire_turn(round_number, turn_no, self.clock()))

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

    def stored_versions(self, match_ids: list[UUID]) -> dict[UUID, int]:
        """Each match's stored version (0: none stored), from its newest stored event alone:
        a listing of many matches reads no match's events."""
        versions = {}
        for match_id in match_ids:
            newest = self.recorder.select_events(match_id, desc=True, limit=1)
            versions[match_id] = newest[0].originator_version if newest else 0
        return versions

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
