"""The `domino.v1.notice.<kind>` payload the social service's outbox publishes, checked:
nothing on the bus is trusted, and what the notifier pushes comes from ClaimPush, never
from the message."""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass

from services.common import bus

KIND = re.compile(r"[a-z_]{1,40}")


@dataclass(frozen=True)
class Notice:
    notification_id: str
    player_id: str
    kind: str


def _notice(data: bytes) -> Notice:
    obj = bus._object(data)
    value = obj.get("notification_id")
    if not isinstance(value, str) or len(value) != 36:
        bus._bad("notification_id")
    try:
        notification_id = str(uuid.UUID(value))
    except ValueError:
        bus._bad("notification_id")
    player = obj.get("player_id")
    if not isinstance(player, str) or not 0 < len(player) <= bus.MAX_ID:
        bus._bad("player_id")
    player.encode("utf-8")
    kind = obj.get("kind")
    if not isinstance(kind, str) or not KIND.fullmatch(kind):
        bus._bad("kind")
    return Notice(notification_id, player, kind)


def read_notice(data: bytes) -> Notice:
    """A notice payload, checked; bus.BadMessage for anything else."""
    return bus._checked(_notice, data)
