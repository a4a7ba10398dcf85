"""Use cases of public tables and practice: ask for a table, follow and cancel a ticket,
fill long waits with bots, play bots at once.

Given what they use and nothing else: the store (plumbing.py: load, save, reload and retry
on a lost race, under a per-queue lock within the process), the match starts and ends, the clock,
the account service's standings, the match service's ratings, the observer, the queues the
bot-fill timer looks at and the `TableSettings`; MatchmakingApplication (application.py)
wires them. A queue, the table it forms and the players seated at it are saved in one
atomic call.

A player asking for a table is seated by rating among the tables forming in the queue
(table_choice.py). The rating is asked of the match service before the queue is loaded and
outside its lock, once per request; when it cannot be told, the player is seated first
come, first seated, and that is counted and logged, never refused.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass, replace
from typing import Callable, Iterable
from uuid import UUID

from services.common.bot_ladder import Ladder, ladder
from services.history.summary import rating_key

from .errors import (
    MatchRefused, MatchServiceUnavailable, RatingUnavailable, RequestIdReused, TicketNotWaiting, UnknownTicket,
)
from .match_ends import MatchEnds
from .match_starts import MatchStarts
from .options import Options, check_request_id, check_strength, default_strength
from .plumbing import Observer, Store
from .presence import Presence
from .seating import bot_id
from .standings import Standings
from .table_choice import OPEN_AFTER_SHARE, Ratings
from .tables import Formation, Queue, Table
from .waiting_queues import WaitingQueues

log = logging.getLogger("domino.matchmaking")
PRACTICE_NAMESPACE = uuid.UUID("0c8a3f52-41d2-4f7e-9b58-6a1f0e0d7a06")


@dataclass(frozen=True)
class TicketState:
    ticket_id: str
    status: str  # "waiting", "seated", "cancelled", "ended"
    rules: str
    variant: str
    teams: bool
    requested_at: float
    table_id: str = ""
    seat: int | None = None  # once seated
    seats: tuple[str, ...] = ()
    match_id: str = ""
    seat_count: int = 0
    version: int = 0  # grows with every change: its presence's version plus its table's

    @property
    def finished(self) -> bool:
        return self.status in ("cancelled", "ended")


@dataclass(frozen=True)
class TableSettings:
    """How long a player waits before bots fill their table, which bots when none of its
    players' ratings is known (else the ladder's nearest, ``nearest_bots``), and how far
    apart in rating the players of one table may be (table_choice.py)."""

    wait_seconds: float = 20.0
    bot_strength: str = "greedy"
    rating_spread: float = 10.0

    def __post_init__(self) -> None:
        check_strength(self.bot_strength)
        if self.rating_spread < 0:
            raise ValueError("table_rating_spread must not be negative")


class TableUseCases:
    def __init__(self, store: Store, starts: MatchStarts, ends: MatchEnds, clock: Callable[[], float],
                 standings: Standings, ratings: Ratings, observer: Observer, waiting_queues: WaitingQueues,
                 settings: TableSettings) -> None:
        self.store = store
        self.starts = starts
        self.ends = ends  # a player held for a match that has ended is freed with their new place
        self.clock = clock
        self.standings = standings
        self.ratings = ratings
        self.observer = observer
        self.waiting_queues = waiting_queues
        self.settings = settings

    def request_table(self, player_id: str, request_id: str, options: Options) -> TicketState:
        """Queue for a public table, at the forming table closest to the player's rating (or
        a new one, table_choice.py); seats the table at once if this fills it."""
        check_request_id(request_id)
        queue_id = Queue.create_id(options.rules, options.variant, options.teams, options.seats)
        self.standings.check(player_id)
        asked = self.store.presence(player_id)  # a retry, or a player who is elsewhere, needs no rating
        retry = asked.ticket_for_request(request_id) is not None
        ended = "" if retry else self.ends.ended_match(player_id)
        ordinal = None if retry or (asked.place and not ended) else self._rating(player_id, options)

        def attempt():
            presence = self.store.presence(player_id)
            done = presence.ticket_for_request(request_id)
            if done is not None:
                if presence.tickets[done]["queue"] != queue_key(options):
                    raise RequestIdReused("this request_id already asked for a different table")
                return done, None
            freed = self.ends.releasing(ended, [presence]) if ended else []
            presence.check_free()
            queue = self.store.load(Queue, queue_id) or Queue(rules=options.rules, variant=options.variant,
                                                        teams=options.teams, seats=options.seats)
            now = self.clock()
            ticket_id = str(uuid.uuid4())
            formation = queue.add(ticket_id, player_id, now, table_id=str(uuid.uuid4()), ordinal=ordinal,
                                  spread=self.settings.rating_spread,
                                  open_after=self.settings.wait_seconds * OPEN_AFTER_SHARE)
            presence.open_ticket(ticket_id, queue_key(options), request_id, now)
            seated = self._seat(queue, formation, {player_id: presence}) if formation else []
            self.store.save_changes(*freed, queue, presence, *seated)
            return ticket_id, formation

        ticket_id, formation = self.store.run(attempt, lock=queue_id)
        if formation is not None:
            self._formed(formation)
        return self.ticket(player_id, ticket_id)

    def _rating(self, player_id: str, options: Options) -> float | None:
        """The player's rating in the queue's family and team setting; None when the match
        service cannot tell it now (counted and logged: they are seated first come, first seated)."""
        try:
            return self.ratings.ordinal(player_id, options.rules, options.teams)
        except RatingUnavailable as e:
            self.observer.rating_unavailable(e.reason)
            if e.reason != "backoff":  # that failure was logged moments ago
                log.warning("no rating to seat by; seating first come, first seated",
                            extra={"player": player_id, "rules": options.rules, "teams": options.teams,
                                   "reason": e.reason, "error": str(e)})
            return None

    def ticket(self, player_id: str, ticket_id: str) -> TicketState:
        presence = self.store.load(Presence, Presence.create_id(player_id))
        if presence is None or ticket_id not in presence.tickets:
            raise UnknownTicket(f"you have no ticket {ticket_id}")
        record = presence.tickets[ticket_id]
        queue = record["queue"]
        seat_count = queue.get("seats") or Options.chosen(queue["rules"], queue["variant"], queue["teams"]).seats
        state = TicketState(ticket_id, record["status"], queue["rules"], queue["variant"], queue["teams"],
                            record["requested_at"], seat_count=seat_count, version=presence.version)
        if not record["table_id"]:
            return state
        table = self.store.load_saved(Table, UUID(record["table_id"]))
        status = "ended" if record["status"] == "ended" or table.closed else record["status"]
        return replace(state, status=status, table_id=record["table_id"], seat=record["seat"],
                       seats=tuple(table.seats), match_id=table.match_id, version=presence.version + table.version)

    def cancel_ticket(self, player_id: str, ticket_id: str) -> TicketState:
        state = self.ticket(player_id, ticket_id)
        if state.status == "cancelled":
            return state  # a retry
        if state.status != "waiting":
            raise TicketNotWaiting(f"ticket {ticket_id} is {state.status}" +
                                   (f" at table {state.table_id}" if state.table_id else "") + "; it cannot be cancelled")
        queue_id = Queue.create_id(state.rules, state.variant, state.teams, state.seat_count)

        def attempt() -> None:
            presence = self.store.presence(player_id)
            queue = self.store.load_saved(Queue, queue_id)  # it holds the waiting ticket
            presence.cancel_ticket(ticket_id)
            queue.withdraw(ticket_id)
            self.store.save_changes(queue, presence)

        self.store.run(attempt, lock=queue_id)
        return self.ticket(player_id, ticket_id)

    def fill_waiting_tables(self, now: float | None = None) -> list[str]:
        """Form every forming table whose oldest player has waited the configured time, its
        empty seats taken by the queue's other waiting players, then bots; returns the ids
        of the tables formed. The step function of the bot-fill timer."""
        now = self.clock() if now is None else now
        formed = []
        for queue_id, noted in self.waiting_queues.to_look_at():  # those someone may wait in
            formed += self._fill_queue(queue_id, now, noted)
        return formed

    def _fill_queue(self, queue_id: UUID, now: float, noted: int = 0) -> list[str]:
        """The tables of one queue that are due, formed one atomic save at a time."""
        loaded: list[Queue | None] = [None]

        def attempt() -> Formation | None:
            queue = loaded[0] = self.store.load(Queue, queue_id)
            if queue is None:
                return None
            formation = queue.fill_with_bots(str(uuid.uuid4()), now, self.settings.wait_seconds,
                                             self._bot_strength(queue))
            if formation is not None:
                self.store.save_changes(queue, *self._seat(queue, formation, {}))
            return formation

        formed: list[str] = []
        while True:
            formation = self.store.run(attempt, lock=queue_id)
            if formation is None:
                self.waiting_queues.looked_at(queue_id, loaded[0], noted)
                return formed
            self._formed(formation)
            formed.append(formation.table_id)

    def _bot_strength(self, queue: Queue) -> str:
        """The bots for the queue's next table. When bots take seats, every player waiting in
        the queue sits at that table (``Queue.fill_with_bots`` seats them all first), so the
        mean is theirs."""
        waiting = [ordinal for table in queue.forming_tables() for ordinal in table.ordinals]
        return nearest_bots(waiting, rating_key(queue.rules, queue.teams), self.settings.bot_strength, ladder())

    def _seat(self, queue: Queue, formation: Formation, known: dict[str, Presence]) -> list:
        """The table a queue formed, and its players' presences seated at it. Public tables
        play the rule set's defaults, and anyone may watch them."""
        options = Options.chosen(queue.rules, queue.variant, queue.teams, seats=queue.seats, spectators=True)
        table = Table(table_id=formation.table_id, kind=Table.PUBLIC, options=options.as_dict(),
                      seats=formation.players, tickets=formation.tickets, at=formation.at)
        changed: list = [table]
        for seat, (ticket_id, player) in enumerate(zip(formation.tickets, formation.players)):
            presence = known.get(player) or self.store.presence(player)
            presence.seat_ticket(ticket_id, formation.table_id, seat)
            if player not in known:
                changed.append(presence)
        return changed

    def _formed(self, formation: Formation) -> None:
        for seconds in formation.waits:
            self.observer.queue_waited(seconds)
        self.starts.start("table", UUID(formation.table_id))

    # ---- practice ----------------------------------------------------------------------

    def start_practice(self, player_id: str, request_id: str, options: Options, strength: str | None = None) -> Table:
        """A match of the caller (seat 0) against bots (``strength`` None: the default of the
        family and team setting), which nobody watches; MatchServiceUnavailable when the
        match could not be created yet (a retry with the same request id finishes it)."""
        check_request_id(request_id)
        strength = default_strength(options) if strength is None else strength
        check_strength(strength, options)
        self.standings.check(player_id)
        options = replace(options, spectators=False)
        table_id = uuid.uuid5(PRACTICE_NAMESPACE, f"{len(player_id)}:{player_id}:{request_id}")
        seats = [player_id] + [bot_id(strength, n) for n in range(1, options.seats)]

        ended = "" if self.store.load(Table, table_id) is not None else self.ends.ended_match(player_id)

        def attempt() -> Table:
            table = self.store.load(Table, table_id)
            if table is not None:
                if (table.match_options, table.seats) != (options, seats):
                    raise RequestIdReused("this request_id already started a different practice")
                return table
            presence = self.store.presence(player_id)
            freed = self.ends.releasing(ended, [presence]) if ended else []
            presence.check_free()
            table = Table(table_id=str(table_id), kind=Table.PRACTICE, options=options.as_dict(), seats=seats,
                          tickets=[], at=self.clock())
            presence.enter_table(str(table_id), request_id)
            self.store.save_changes(*freed, presence, table)
            return table

        table = self.store.run(attempt)
        if not table.match_id and not table.closed:
            self.starts.start("table", table_id)
            table = self.store.load_saved(Table, table_id)
        if table.closed and not table.match_id:
            raise MatchRefused(table.closed_reason)
        if not table.match_id:
            raise MatchServiceUnavailable("the match service is unavailable; retry with the same request_id")
        return table


def queue_key(options: Options) -> dict:
    return {"rules": options.rules, "variant": options.variant, "teams": options.teams, "seats": options.seats}


def nearest_bots(ordinals: Iterable[float | None], key: str, configured: str, known: Ladder) -> str:
    """The strength whose ladder rating in ``key`` (family and team setting) is nearest the
    mean of the players' known ratings (docs/bots.md, "Ladder"), so a table's bots play
    about as well as its people; ``configured`` (TableSettings.bot_strength) when no rating
    is known or the ladder has none for the key. Only strengths offered to players there
    (``Ladder.offered``): a configured one that is not stands for the offered one at its level."""
    ratings = [o for o in ordinals if o is not None]
    fallback = known.standing_for(key, configured)
    if not ratings:
        return fallback
    return known.nearest(key, sum(ratings) / len(ratings), among=known.offered(key)) or fallback
