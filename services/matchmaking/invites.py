"""Invites to rooms as the Room aggregate keeps them, and the two small aggregates that find
them: `InviteLink` (an invite id to its room, for GetInvite and AnswerInvite) and
`RematchLink` (a finished match to its one rematch room).

An invite is a plain dict on the room (State holds only JSON types): its kind ("room" or
"rematch"), the invitee, who invited, its stored status ("pending", "accepted",
"declined"), the seat kept for a rematch invitee, when it was sent and when it expires. An
expired invite is never stored as such: a pending one reads "expired" once its room is no
longer open or its time has passed (``status_of``), so no timer has to write it.
"""

from __future__ import annotations

import uuid
from typing import Any

from eventsourcing.domain import Aggregate, event

ROOM, REMATCH = "room", "rematch"
PENDING, ACCEPTED, DECLINED, EXPIRED = "pending", "accepted", "declined", "expired"

INVITE_NAMESPACE = uuid.UUID("0c8a3f52-41d2-4f7e-9b58-6a1f0e0d7a06")
REMATCH_NAMESPACE = uuid.UUID("0c8a3f52-41d2-4f7e-9b58-6a1f0e0d7a07")


def room_invite_id(room_id: str, inviter: str, request_id: str, invitee: str) -> str:
    """Derived from the request, so a retry racing its first try names the same invite."""
    return str(uuid.uuid5(INVITE_NAMESPACE, f"{room_id}\n{inviter}\n{request_id}\n{invitee}"))


def rematch_invite_id(match_id: str, invitee: str) -> str:
    return str(uuid.uuid5(INVITE_NAMESPACE, f"rematch\n{match_id}\n{invitee}"))


def new_invite(kind: str, invitee: str, inviter: str, seat: int | None, at: float, ttl: float) -> dict:
    return {"kind": kind, "player": invitee, "by": inviter, "status": PENDING, "seat": seat, "sent_at": at,
            "expires_at": at + ttl}


def status_of(invite: dict, room_open: bool, now: float) -> str:
    if invite["status"] != PENDING:
        return str(invite["status"])
    return PENDING if room_open and now < invite["expires_at"] else EXPIRED


class InviteLink(Aggregate):
    """Which room an invite is to; its id is the invite's own."""

    @staticmethod
    def create_id(invite_id: str, **_: Any) -> uuid.UUID:
        return uuid.UUID(invite_id)

    @event("Linked")
    def __init__(self, invite_id: str, room_id: str, player_id: str) -> None:
        self.room_id = room_id
        self.player_id = player_id


class RematchLink(Aggregate):
    """The one rematch room of a finished match: the first RequestRematch makes it, the
    others find it here (a second maker loses the race to this aggregate's first event)."""

    @staticmethod
    def create_id(match_id: str, **_: Any) -> uuid.UUID:
        return uuid.uuid5(REMATCH_NAMESPACE, match_id)

    @event("Linked")
    def __init__(self, match_id: str, room_id: str) -> None:
        self.match_id = match_id
        self.room_id = room_id
