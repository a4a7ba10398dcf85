"""Where players are: the Presence aggregate (one place at a time), and the MatchLink from
a started match back to its room or table, so the match's end frees the right players."""

from __future__ import annotations

import uuid
from typing import Any

from eventsourcing.domain import Aggregate, event

from .errors import AlreadyElsewhere, TicketNotWaiting

PRESENCE_NAMESPACE = uuid.UUID("0c8a3f52-41d2-4f7e-9b58-6a1f0e0d7a02")
LINK_NAMESPACE = uuid.UUID("0c8a3f52-41d2-4f7e-9b58-6a1f0e0d7a04")


class Presence(Aggregate):
    """Where one player is: in a room, waiting with a ticket, or seated at a table.

    A player is in one place at a time; every use case that puts a player somewhere saves
    their presence in the same call, so two replicas can never seat them twice. It also
    keeps the player's recent tickets, so a ticket is found from its owner.
    """

    KEPT_TICKETS = 20

    @staticmethod
    def create_id(player_id: str, **_: Any) -> uuid.UUID:
        return uuid.uuid5(PRESENCE_NAMESPACE, player_id)

    @event("Registered")
    def __init__(self, player_id: str) -> None:
        self.player_id = player_id
        self.place: dict | None = None  # {"kind": "room"|"ticket"|"table", "id": ..., "request_id": ...}
        self.tickets: dict[str, dict] = {}  # ticket id -> {queue, request_id, requested_at, status, table_id, seat}

    # ---- queries -----------------------------------------------------------------------

    def is_at(self, kind: str, place_id: str) -> bool:
        return self.place is not None and self.place["kind"] == kind and self.place["id"] == place_id

    def ticket_for_request(self, request_id: str) -> str | None:
        for ticket_id, ticket in self.tickets.items():
            if ticket["request_id"] == request_id:
                return ticket_id
        return None

    def check_free(self) -> None:
        if self.place is None:
            return
        kind, place_id = self.place["kind"], self.place["id"]
        where = {"room": f"in room {place_id}", "ticket": f"waiting for a table (ticket {place_id})",
                 "table": f"seated at table {place_id} until its match ends"}[kind]
        raise AlreadyElsewhere(f"you are already {where}")

    # ---- commands ----------------------------------------------------------------------

    def enter_room(self, room_id: str, request_id: str = "") -> None:
        if self.is_at("room", room_id):
            return
        self.check_free()
        self._room_entered(room_id=room_id, request_id=request_id)

    def open_ticket(self, ticket_id: str, queue: dict, request_id: str, at: float) -> None:
        self.check_free()
        self._ticket_opened(ticket_id=ticket_id, queue=queue, request_id=request_id, at=at)

    def cancel_ticket(self, ticket_id: str) -> None:
        if self.tickets[ticket_id]["status"] != "waiting":
            raise TicketNotWaiting(f"ticket {ticket_id} is no longer waiting")
        self._ticket_cancelled(ticket_id=ticket_id)

    def seat_ticket(self, ticket_id: str, table_id: str, seat: int) -> None:
        self._ticket_seated(ticket_id=ticket_id, table_id=table_id, seat=seat)

    def enter_table(self, table_id: str, request_id: str) -> None:
        if self.is_at("table", table_id):
            return
        self.check_free()
        self._table_entered(table_id=table_id, request_id=request_id)

    def release(self, kind: str, place_id: str, reason: str) -> None:
        """Leave a room or table; a release for a place the player is no longer at is a no-op."""
        if self.is_at(kind, place_id):
            self._released(kind=kind, place_id=place_id, reason=reason)

    # ---- events ------------------------------------------------------------------------

    @event("RoomEntered")
    def _room_entered(self, room_id: str, request_id: str) -> None:
        self.place = {"kind": "room", "id": room_id, "request_id": request_id}

    @event("TicketOpened")
    def _ticket_opened(self, ticket_id: str, queue: dict, request_id: str, at: float) -> None:
        kept = list(self.tickets.items())[-(self.KEPT_TICKETS - 1):]
        self.tickets = {**dict(kept), ticket_id: {"queue": dict(queue), "request_id": request_id, "requested_at": at,
                                                  "status": "waiting", "table_id": "", "seat": -1}}
        self.place = {"kind": "ticket", "id": ticket_id, "request_id": request_id}

    @event("TicketCancelled")
    def _ticket_cancelled(self, ticket_id: str) -> None:
        self.tickets = {**self.tickets, ticket_id: {**self.tickets[ticket_id], "status": "cancelled"}}
        self.place = None

    @event("TicketSeated")
    def _ticket_seated(self, ticket_id: str, table_id: str, seat: int) -> None:
        ticket = {**self.tickets[ticket_id], "status": "seated", "table_id": table_id, "seat": seat}
        self.tickets = {**self.tickets, ticket_id: ticket}
        self.place = {"kind": "table", "id": table_id, "request_id": ticket["request_id"]}

    @event("TableEntered")
    def _table_entered(self, table_id: str, request_id: str) -> None:
        self.place = {"kind": "table", "id": table_id, "request_id": request_id}

    @event("Released")
    def _released(self, kind: str, place_id: str, reason: str) -> None:
        self.place = None
        self.tickets = {t: ({**r, "status": "ended"} if r["table_id"] == place_id and r["status"] == "seated" else r)
                        for t, r in self.tickets.items()}


class MatchLink(Aggregate):
    """Which room or table a started match belongs to, so its end frees the right players."""

    @staticmethod
    def create_id(match_id: str, **_: Any) -> uuid.UUID:
        return uuid.uuid5(LINK_NAMESPACE, match_id)

    @event("Linked")
    def __init__(self, match_id: str, source_kind: str, source_id: str, players: list[str]) -> None:
        self.match_id = match_id
        self.source_kind = source_kind  # "room" or "table"
        self.source_id = source_id
        self.players = list(players)
        self.released = False

    def release(self, reason: str) -> None:
        if not self.released:
            self._released(reason=reason)

    @event("Released")
    def _released(self, reason: str) -> None:
        self.released = True
