"""Public tables: the Queue of players waiting for one kind of table, the Table it forms
(or a practice table), and the Formation a queue hands to the use case that seats it.

A formed table is saved in one `app.save(...)` call with its queue and its players'
presences, which eventsourcing records atomically. State holds only JSON types, so the
queue's snapshots round-trip.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from eventsourcing.domain import Aggregate, event

from .errors import AlreadyElsewhere, TicketNotWaiting
from .options import Options
from .seating import bot_id

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
    """The players waiting for one kind of public table (rules, variant, teams, seats)."""

    @staticmethod
    def create_id(rules: str, variant: str, teams: bool, seats: int = 0, **_: Any) -> uuid.UUID:
        kind = f"{rules}/{variant}/{'teams' if teams else 'solo'}"
        if rules != "egyptian":  # an Egyptian variant fixes its seats (and kept these ids before others came)
            kind += f"/{seats}"
        return uuid.uuid5(QUEUE_NAMESPACE, kind)

    @event("Opened")
    def __init__(self, rules: str, variant: str, teams: bool, seats: int) -> None:
        self.rules = rules
        self.variant = variant
        self.teams = teams
        self.seats = seats
        self.waiting: list[list] = []  # [ticket_id, player_id, since], oldest first

    def add(self, ticket_id: str, player_id: str, at: float, table_id: str) -> Formation | None:
        """Queue a ticket; when that fills a table, form it at once (``table_id``)."""
        if any(p == player_id for _, p, _ in self.waiting):
            raise AlreadyElsewhere("you are already waiting for this table")
        self._ticket_queued(ticket_id=ticket_id, player_id=player_id, at=at)
        if len(self.waiting) >= self.seats:
            return self._form(table_id, self.waiting[:self.seats], [], at)
        return None

    def withdraw(self, ticket_id: str) -> None:
        if not any(t == ticket_id for t, _, _ in self.waiting):
            raise TicketNotWaiting(f"ticket {ticket_id} is not waiting")
        self._ticket_withdrawn(ticket_id=ticket_id)

    def fill_with_bots(self, table_id: str, now: float, wait: float, strength: str) -> Formation | None:
        """Form a table of everyone waiting plus bots once the oldest has waited ``wait`` s."""
        if not self.waiting or now - self.waiting[0][2] < wait:
            return None
        taken = self.waiting[:self.seats]
        bots = [bot_id(strength, seat) for seat in range(len(taken), self.seats)]  # named by their seats
        return self._form(table_id, taken, bots, now)

    def _form(self, table_id: str, taken: list[list], bots: list[str], at: float) -> Formation:
        tickets = [t for t, _, _ in taken]
        players = [p for _, p, _ in taken] + bots
        waits = [at - since for _, _, since in taken]
        self._table_formed(table_id=table_id, tickets=tickets, players=players, at=at)
        return Formation(table_id, tickets, players, waits, at)

    @event("TicketQueued")
    def _ticket_queued(self, ticket_id: str, player_id: str, at: float) -> None:
        self.waiting = self.waiting + [[ticket_id, player_id, at]]

    @event("TicketWithdrawn")
    def _ticket_withdrawn(self, ticket_id: str) -> None:
        self.waiting = [w for w in self.waiting if w[0] != ticket_id]

    @event("TableFormed")
    def _table_formed(self, table_id: str, tickets: list[str], players: list[str], at: float) -> None:
        seated = set(tickets)
        self.waiting = [w for w in self.waiting if w[0] not in seated]


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
