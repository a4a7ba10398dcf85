"""A finished match becomes its people's MATCH_RESULT notifications and, when it was rated,
their RATING_CHANGE ones. Ids derive from the match, the player and the kind, so a
redelivered match_ended message or a second replica posts each one once. A bot's seat is
posted too: the social service skips recipients that are bots."""

from __future__ import annotations

import uuid

from domino.match.v1 import match_service_pb2 as match_pb
from domino.social.v1 import social_service_pb2 as pb

from .turns import NAMESPACE


def notification_id(match_id: str, player_id: str, kind: str) -> str:
    return str(uuid.uuid5(NAMESPACE, f"{match_id}:{player_id}:{kind}"))


def _rating(value: float) -> str:
    return f"{value:.1f}"


def results(end: match_pb.DescribeMatchEndResponse) -> list[pb.NewNotification]:
    notices: list[pb.NewNotification] = []
    for seat in end.seats:
        if not seat.player_id:
            continue
        args = {"points": str(seat.points), "opponent_points": str(seat.opponent_points), "rules": end.rules,
                "outcome": "won" if seat.won else "lost"}
        notices.append(pb.NewNotification(
            notification_id=notification_id(end.match_id, seat.player_id, "match_result"),
            recipient_player_id=seat.player_id, kind=pb.NOTIFICATION_KIND_MATCH_RESULT,
            text_key="notice.match_won" if seat.won else "notice.match_lost", args=args, match_id=end.match_id))
        if end.rated and seat.HasField("rating_before") and seat.HasField("rating_after"):
            notices.append(pb.NewNotification(
                notification_id=notification_id(end.match_id, seat.player_id, "rating_change"),
                recipient_player_id=seat.player_id, kind=pb.NOTIFICATION_KIND_RATING_CHANGE,
                text_key="notice.rating_change", match_id=end.match_id,
                args={"before": _rating(seat.rating_before), "after": _rating(seat.rating_after),
                      "rules": end.rules}))
    return notices
