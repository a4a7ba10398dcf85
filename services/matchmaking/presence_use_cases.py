"""Where a player is now, read from their Presence (presence.py): a room, a waiting ticket,
a public or practice table with its match, or nowhere. It lets a client that lost track
(a crash, another device) go back to it.

Given the store, the tickets' own query (table_use_cases.py), so a ticket reads here as
it does when asked for by id, and the match ends, which ask the match service whether the
player's match has ended; reads only, so asking stores nothing, not even a Presence for a
player never seen.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable
from uuid import UUID

from .errors import MatchServiceUnavailable
from .match_ends import MatchEnds
from .plumbing import Store
from .presence import Presence
from .rooms import Room
from .table_use_cases import TicketState
from .tables import Table

# The presence and the place it names are read one after the other: a place that changed in
# between (the match ended, the ticket was seated) is read again from a fresh presence.
READS = 3


@dataclass(frozen=True)
class Whereabouts:
    """One of ``room``, ``ticket`` (waiting) or ``table`` is set, or none: nowhere."""

    room: Room | None = None
    ticket: TicketState | None = None
    table: Table | None = None
    seat: int = -1  # at a table: the player's seat
    ticket_id: str = ""  # at a public table: the ticket that led there

    @property
    def kind(self) -> str:
        """"room", "ticket", "table" or "" (nowhere)."""
        return "room" if self.room else "ticket" if self.ticket else "table" if self.table else ""

    @property
    def match_id(self) -> str:
        """The match the player is seated in, once it exists."""
        if self.room is not None:
            return self.room.match_id
        return self.table.match_id if self.table is not None else ""


NOWHERE = Whereabouts()


class PresenceUseCases:
    def __init__(self, store: Store, ticket: Callable[[str, str], TicketState], ends: MatchEnds) -> None:
        self.store = store
        self.ticket = ticket  # (player_id, ticket_id): TableUseCases.ticket
        self.ends = ends

    def whereabouts(self, player_id: str) -> Whereabouts:
        """Nowhere, too, once the match service has stored the end of the player's match,
        though matchmaking has not been told yet (match_ends.py); where the store says when
        the match service cannot say now."""
        for _ in range(READS):
            presence = self.store.load(Presence, Presence.create_id(player_id))
            if presence is None or presence.place is None:
                return NOWHERE
            found = self._at(player_id, presence.place["kind"], presence.place["id"])
            if found is not None:
                return NOWHERE if self._has_ended(found.match_id) else found
        return NOWHERE  # it keeps changing under us: as good as nowhere for now

    def held_for_match(self, player_id: str) -> bool:
        """Whether the player's room or table holds them for a match (whose end a request
        of theirs asks the match service about)."""
        return bool(self.ends.match_of(self.store.presence(player_id)))

    def _has_ended(self, match_id: str) -> bool:
        try:
            return self.ends.has_ended(match_id)
        except MatchServiceUnavailable:
            return False

    def _at(self, player_id: str, kind: str, place_id: str) -> Whereabouts | None:
        """The place the presence names, or None when it changed since (read again)."""
        if kind == "room":
            room = self.store.load(Room, UUID(place_id))
            if room is None or room.status == Room.CLOSED or not room.is_member(player_id):
                return None
            return Whereabouts(room=room)
        if kind == "ticket":
            ticket = self.ticket(player_id, place_id)
            if ticket.status == "waiting":
                return Whereabouts(ticket=ticket)
            if ticket.status == "seated":
                return self._at(player_id, "table", ticket.table_id)
            return None
        table = self.store.load(Table, UUID(place_id))
        if table is None or table.closed or player_id not in table.seats:
            return None
        seat = table.seats.index(player_id)
        ticket_id = table.tickets[seat] if seat < len(table.tickets) else ""  # a formation seats its humans first
        return Whereabouts(table=table, seat=seat, ticket_id=ticket_id)
