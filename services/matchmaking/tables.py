"""Public tables: the Queue of players waiting for one kind of table, the tables forming in
it, the Table it forms (or a practice table), and the Formation a queue hands to the use
case that seats it.

A queue may have several tables forming at once: a player joins the one whose players'
mean rating is closest to theirs, or opens another (table_choice.py). A formed table is
saved in one `app.save(...)` call with its queue and its players' presences, which
eventsourcing records atomically. State holds only JSON types, so the queue's snapshots
round-trip.
"""

from __future__ import annotations

import math
import uuid
from dataclasses import dataclass
from typing import Any

from eventsourcing.domain import Aggregate, event

from services.rules.registry import find

from .errors import AlreadyElsewhere, TicketNotWaiting
from .options import Options
from .seating import bot_id
from .table_choice import FormingTable, choose_table

QUEUE_NAMESPACE = uuid.UUID("0c8a3f52-41d2-4f7e-9b58-6a1f0e0d7a03")


@dataclass(frozen=True)
class Formation:
    """A table the queue just formed: its humans (with their tickets) first, then bots."""

    table_id: str
    tickets: list[str]
    players: list[str]
    waits: list[float]  # how long each human waited
    at: float


class Queue(Aggregate):
    """The players waiting for one kind of public table (rules, variant, teams, seats), each
    at one of the tables forming in the queue.

    ``waiting`` lists every waiting ticket, oldest first; ``forming`` says for each which
    forming table it waits at (the ticket id of the player who opened it; "" for the one
    table of the tickets queued before tables had keys) and the player's rating then (None:
    not known). Queues saved before ``forming`` was kept have none: their tickets wait at "".
    """

    @staticmethod
    def create_id(rules: str, variant: str, teams: bool, seats: int = 0, **_: Any) -> uuid.UUID:
        kind = f"{rules}/{variant}/{'teams' if teams else 'solo'}"
        named = find(rules)
        if named is None or not named.variants_fix_seats:  # such a variant names its seats (stored ids)
            kind += f"/{seats}"
        return uuid.uuid5(QUEUE_NAMESPACE, kind)

    @event("Opened")
    def __init__(self, rules: str, variant: str, teams: bool, seats: int) -> None:
        self.rules = rules
        self.variant = variant
        self.teams = teams
        self.seats = seats
        self.waiting: list[list] = []  # [ticket_id, player_id, since], oldest first
        self.forming: dict[str, list] = {}  # ticket_id -> [forming table's key, rating or None]

    def forming_tables(self) -> list[FormingTable]:
        """The tables forming in this queue, oldest first (by their oldest player)."""
        tables: dict[str, tuple[float, list[str], list[float | None]]] = {}
        for ticket_id, _, since in self.waiting:
            key, ordinal = self._place(ticket_id)
            _, tickets, ordinals = tables.setdefault(key, (since, [], []))
            tickets.append(ticket_id)
            ordinals.append(ordinal)
        return [FormingTable(key, since, tuple(tickets), tuple(ordinals))
                for key, (since, tickets, ordinals) in tables.items()]

    def add(self, ticket_id: str, player_id: str, at: float, table_id: str, ordinal: float | None = None,
            spread: float = math.inf, open_after: float = 0.0) -> Formation | None:
        """Queue a ticket at the forming table ``choose_table`` picks for a player rated
        ``ordinal`` (None: not known), or at a table of its own; when that fills the table,
        form it at once (``table_id``)."""
        if any(p == player_id for _, p, _ in self.waiting):
            raise AlreadyElsewhere("you are already waiting for this table")
        joined = choose_table(self.forming_tables(), ordinal, at, spread, open_after)
        key = ticket_id if joined is None else joined
        self._ticket_queued(ticket_id=ticket_id, player_id=player_id, at=at, table=key, ordinal=ordinal)
        members = [w for w in self.waiting if self._place(w[0])[0] == key]
        if len(members) >= self.seats:
            return self._form(table_id, members[:self.seats], [], at)
        return None

    def withdraw(self, ticket_id: str) -> None:
        if not any(t == ticket_id for t, _, _ in self.waiting):
            raise TicketNotWaiting(f"ticket {ticket_id} is not waiting")
        self._ticket_withdrawn(ticket_id=ticket_id)

    def fill_with_bots(self, table_id: str, now: float, wait: float, strength: str) -> Formation | None:
        """Form the oldest forming table once its oldest player has waited ``wait`` s: its
        players, then the queue's other waiting players (oldest first) while seats are
        empty, then bots. A rating is a preference: it never seats a bot where a person
        waits. Call again for the next table that is due."""
        tables = self.forming_tables()
        if not tables or now - tables[0].since < wait:
            return None
        chosen = set(tables[0].tickets)
        chosen.update([t for t, _, _ in self.waiting if t not in chosen][:self.seats - len(chosen)])
        taken = [w for w in self.waiting if w[0] in chosen]
        bots = [bot_id(strength, seat) for seat in range(len(taken), self.seats)]  # named by their seats
        return self._form(table_id, taken, bots, now)

    def _form(self, table_id: str, taken: list[list], bots: list[str], at: float) -> Formation:
        tickets = [t for t, _, _ in taken]
        players = [p for _, p, _ in taken] + bots
        waits = [at - since for _, _, since in taken]
        self._table_formed(table_id=table_id, tickets=tickets, players=players, at=at)
        return Formation(table_id, tickets, players, waits, at)

    def _place(self, ticket_id: str) -> tuple[str, float | None]:
        """(the key of the forming table the ticket waits at, the player's rating)."""
        key, ordinal = getattr(self, "forming", {}).get(ticket_id, ("", None))
        return key, ordinal

    def _kept_places(self, dropped: set[str]) -> dict[str, list]:
        return {t: place for t, place in getattr(self, "forming", {}).items() if t not in dropped}

    # A ticket queued before tables had keys has neither: it waits at the one table "".
    @event("TicketQueued")
    def _ticket_queued(self, ticket_id: str, player_id: str, at: float, table: str = "",
                       ordinal: float | None = None) -> None:
        self.waiting = self.waiting + [[ticket_id, player_id, at]]
        self.forming = {**self._kept_places(set()), ticket_id: [table, ordinal]}

    @event("TicketWithdrawn")
    def _ticket_withdrawn(self, ticket_id: str) -> None:
        self.waiting = [w for w in self.waiting if w[0] != ticket_id]
        self.forming = self._kept_places({ticket_id})

    @event("TableFormed")
    def _table_formed(self, table_id: str, tickets: list[str], players: list[str], at: float) -> None:
        seated = set(tickets)
        self.waiting = [w for w in self.waiting if w[0] not in seated]
        self.forming = self._kept_places(seated)


class Table(Aggregate):
    """A public table formed by a queue, or a practice table: its seats, then its match."""

    PUBLIC, PRACTICE = "public", "practice"

    @staticmethod
    def create_id(table_id: str, **_: Any) -> uuid.UUID:
        return uuid.UUID(table_id)

    class Formed(Aggregate.Created):  # declared, not made by @event: PendingStarts follows its topic
        table_id: str
        kind: str
        options: dict
        seats: list[str]
        tickets: list[str]
        at: float

    @event(Formed)
    def __init__(self, table_id: str, kind: str, options: dict, seats: list[str], tickets: list[str],
                 at: float) -> None:
        self.kind = kind
        self.options = dict(options)
        self.seats = list(seats)
        self.tickets = list(tickets)
        self.formed_at = at
        self.match_id = ""
        self.closed_reason = ""

    @property
    def closed(self) -> bool:
        return bool(self.closed_reason)

    @property
    def match_options(self) -> Options:
        return Options.from_dict(self.options)

    def assign_match(self, match_id: str) -> bool:
        if self.match_id or self.closed:
            return False
        self._match_assigned(match_id=match_id)
        return True

    def close(self, reason: str) -> None:
        if not self.closed:
            self._closed(reason=reason)

    @event("MatchAssigned")
    def _match_assigned(self, match_id: str) -> None:
        self.match_id = match_id

    @event("Closed")
    def _closed(self, reason: str) -> None:
        self.closed_reason = reason
