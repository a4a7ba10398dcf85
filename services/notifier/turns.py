"""A person's turn whose app is closed becomes a YOUR_TURN notification (its push then
follows through the notices path, like any other).

One per turn: its id is derived from the match and the turn (round and turn number: a draw
makes a new version and a new seat_turn message, not a new turn), so a draw, a redelivered
seat_turn message or a second notifier replica posts the same id and the social service
stores it once. It expires at the turn's deadline: neither the inbox nor the
phone keeps a turn that is over, and a claim after it answers GONE."""

from __future__ import annotations

import datetime
import math
import uuid

from domino.match.v1 import match_service_pb2 as match_pb
from domino.social.v1 import social_service_pb2 as pb

NAMESPACE = uuid.UUID("5b0f3c5e-7d4e-4f7a-9b51-2f0c6a1d8e42")  # the notifier's; never change it
TEXT_KEY = "notice.your_turn"


def notification_id(match_id: str, version: int, turn: tuple[int, int] | None = None) -> str:
    """By the turn when the message names it (round, turn number), else by the version."""
    name = f"{match_id}:turn:{turn[0]}:{turn[1]}" if turn else f"{match_id}:{version}"
    return str(uuid.uuid5(NAMESPACE, name))


def your_turn(match_id: str, version: int, attention: match_pb.GetTurnAttentionResponse,
              turn: tuple[int, int] | None = None) -> pb.NewNotification | None:
    """The notification to post, or None when no push is wanted (moved, or the app is open)."""
    if not attention.to_act or attention.streaming or not attention.player_id:
        return None
    notice = pb.NewNotification(notification_id=notification_id(match_id, version, turn),
                                recipient_player_id=attention.player_id, kind=pb.NOTIFICATION_KIND_YOUR_TURN,
                                text_key=TEXT_KEY, match_id=match_id)
    notice.args["version"] = str(version)  # the notices path asks again before the push goes
    if attention.rules:
        notice.args["rules"] = attention.rules
    if attention.HasField("deadline"):
        deadline = attention.deadline.ToNanoseconds() / 1e9
        now = attention.server_time.ToNanoseconds() / 1e9
        if deadline <= now:
            return None
        notice.args["seconds_left"] = str(math.floor(deadline - now))
        notice.args["deadline"] = datetime.datetime.fromtimestamp(deadline, datetime.timezone.utc).isoformat(
            timespec="seconds").replace("+00:00", "Z")
        notice.expires_at.CopyFrom(attention.deadline)
    return notice
