"""The notifications a room owes the social service's inbox (INVITE, REMATCH,
INVITE_ANSWERED), kept in `RoomNotices`, the room's outbox, until the social service has
stored them.

A notice is queued in the same atomic save as the invite or answer it tells of, so none is
lost when the social service is away; notice_posting.py posts it then and again until it is
stored. Its notification id is derived from the invite, so a second post (a retry, another
replica) is the same notification, which the social service stores once. Its text is a
localisation key with ids and option names as arguments, never a sentence (docs/invites.md).
"""

from __future__ import annotations

import uuid
from typing import Any

from eventsourcing.domain import Aggregate, event

from .invites import REMATCH
from .options import Options

NOTICES_NAMESPACE = uuid.UUID("0c8a3f52-41d2-4f7e-9b58-6a1f0e0d7a08")
NOTIFICATION_NAMESPACE = uuid.UUID("0c8a3f52-41d2-4f7e-9b58-6a1f0e0d7a09")


def invite_notice(invite_id: str, invite: dict, room_id: str, options: Options, match_id: str = "") -> dict:
    """The invitee's INVITE (or REMATCH: ``match_id`` is the match played again), expiring with the invite."""
    rematch = invite["kind"] == REMATCH
    args = {"rules": options.rules, "variant": options.variant, "inviter": invite["by"]}
    if rematch:
        args["seat"] = str(invite["seat"])
    return _notice(str(uuid.uuid5(NOTIFICATION_NAMESPACE, invite_id)), invite["player"],
                   "REMATCH" if rematch else "INVITE", "notice.rematch" if rematch else "notice.invite", args,
                   player_id=invite["by"], match_id=match_id, room_id=room_id, invite_id=invite_id,
                   expires_at=invite["expires_at"])


def answer_notice(invite_id: str, invite: dict, room_id: str, accepted: bool) -> dict:
    """The inviter's INVITE_ANSWERED."""
    answer = "accepted" if accepted else "declined"
    return _notice(str(uuid.uuid5(NOTIFICATION_NAMESPACE, f"{invite_id}\nanswered")), invite["by"],
                   "INVITE_ANSWERED", f"notice.invite_{answer}", {"answer": answer, "invitee": invite["player"]},
                   player_id=invite["player"], room_id=room_id, invite_id=invite_id)


def _notice(notification_id: str, recipient: str, kind: str, text_key: str, args: dict[str, str], *,
            player_id: str = "", match_id: str = "", room_id: str = "", invite_id: str = "",
            expires_at: float | None = None) -> dict:
    return {"id": notification_id, "recipient": recipient, "kind": kind, "text_key": text_key, "args": args,
            "player_id": player_id, "match_id": match_id, "room_id": room_id, "invite_id": invite_id,
            "expires_at": expires_at}


class RoomNotices(Aggregate):
    """A room's notices not yet stored by the social service."""

    @staticmethod
    def create_id(room_id: str, **_: Any) -> uuid.UUID:
        return uuid.uuid5(NOTICES_NAMESPACE, room_id)

    @event("Opened")
    def __init__(self, room_id: str) -> None:
        self.room_id = room_id
        self.pending: dict[str, dict] = {}  # notification id -> notice

    def queue(self, *notices: dict) -> None:
        fresh = [n for n in notices if n["id"] not in self.pending]
        if fresh:
            self._queued(notices=fresh)

    def posted(self, ids: list[str]) -> None:
        done = [n for n in ids if n in self.pending]
        if done:
            self._posted(ids=done)

    class Queued(Aggregate.Event):  # declared: notice_posting.py follows its topic
        notices: list

    @event(Queued)
    def _queued(self, notices: list) -> None:
        self.pending = {**self.pending, **{n["id"]: dict(n) for n in notices}}

    @event("Posted")
    def _posted(self, ids: list) -> None:
        self.pending = {n: notice for n, notice in self.pending.items() if n not in ids}
