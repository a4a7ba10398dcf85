"""What a push says, for each provider: ids, the localisation key, its arguments and display
names, nothing else (docs/security.md: a push crosses Apple's and Google's servers and shows
on a locked screen). The app renders the key in its own language; the provider's fallback
text (loc-key and loc-args) is the same key with its arguments in a fixed order: the
display name of the player the notification is about first, when there is one, then the
arguments the key's table below names, then any others by name."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field

from domino.social.v1 import social_service_pb2 as pb

YOUR_TURN = "your_turn"
ARG_ORDER: dict[str, tuple[str, ...]] = {
    "notice.your_turn": ("seconds_left", "rules"),
    "notice.match_won": ("points", "opponent_points", "rules"),
    "notice.match_lost": ("points", "opponent_points", "rules"),
    "notice.rating_change": ("before", "after"),
    "notice.invite_answered": ("answer",),
}
ABOUT = ("match_id", "room_id", "invite_id", "player_id")
FCM_MAX_TTL_SECONDS = 28 * 86400  # FCM refuses a longer time to live (a month-long result is kept 4 weeks)


@dataclass(frozen=True)
class Push:
    notification_id: str
    kind: str  # NotificationKind's name, lower case (the notice subject's)
    text_key: str
    args: dict[str, str] = field(default_factory=dict)
    about: dict[str, str] = field(default_factory=dict)  # match_id, room_id, invite_id, player_id where set
    expires_at: float | None = None  # epoch seconds
    player_name: str = ""  # the display name of about["player_id"]

    @property
    def your_turn(self) -> bool:
        return self.kind == YOUR_TURN

    def loc_args(self) -> list[str]:
        order = ARG_ORDER.get(self.text_key, ())
        rest = sorted(k for k in self.args if k not in order)
        named = [self.args[k] for k in (*order, *rest) if k in self.args]
        return ([self.player_name] if self.player_name else []) + named

    def collapse_id(self) -> str | None:
        """One "your turn" per match on a phone: each new one replaces the last."""
        return f"turn-{self.about['match_id']}" if self.your_turn and self.about.get("match_id") else None

    def seconds_left(self, now: float) -> int | None:
        return max(0, math.floor(self.expires_at - now)) if self.expires_at is not None else None


def kind_name(kind: int) -> str:
    return pb.NotificationKind.Name(kind).removeprefix("NOTIFICATION_KIND_").lower()


def from_claim(reply: pb.ClaimPushResponse) -> Push:
    n = reply.notification
    about = {name: getattr(n, name) for name in ABOUT if getattr(n, name)}
    expires = n.expires_at.ToNanoseconds() / 1e9 if n.HasField("expires_at") else None
    return Push(n.notification_id, kind_name(n.kind), n.text_key, dict(n.args), about, expires,
                reply.display_names.get(n.player_id, "") if n.player_id else "")


def apns_payload(push: Push) -> dict:
    thread = f"match-{push.about['match_id']}" if "match_id" in push.about else push.kind
    return {"aps": {"alert": {"loc-key": push.text_key, "loc-args": push.loc_args()}, "sound": "default",
                    "thread-id": thread},
            "domino": {"notification_id": push.notification_id, "kind": push.kind, **push.about,
                       "args": dict(push.args)}}


def apns_headers(push: Push, jwt: str, topic: str) -> dict[str, str]:
    headers = {"authorization": f"bearer {jwt}", "apns-topic": topic, "apns-push-type": "alert",
               "apns-priority": "10" if push.your_turn else "5", "apns-id": push.notification_id,
               "apns-expiration": str(int(push.expires_at)) if push.expires_at is not None else "0"}
    collapse = push.collapse_id()
    if collapse:
        headers["apns-collapse-id"] = collapse
    return headers


def fcm_message(push: Push, token: str, now: float) -> dict:
    """FCM HTTP v1's ``message``: a data map of strings (the args as one JSON string) and the
    Android notification's localisation key; "your turn" collapses per match, goes at high
    priority and lives only until the turn's deadline."""
    data = {"notification_id": push.notification_id, "kind": push.kind, "text_key": push.text_key, **push.about,
            "args": json.dumps(push.args, sort_keys=True, separators=(",", ":"))}
    android: dict = {"priority": "HIGH" if push.your_turn else "NORMAL",
                     "notification": {"body_loc_key": push.text_key, "body_loc_args": push.loc_args()}}
    left = push.seconds_left(now)
    if left is not None:
        android["ttl"] = f"{min(left, FCM_MAX_TTL_SECONDS)}s"
    collapse = push.collapse_id()
    if collapse:
        android["collapse_key"] = collapse
    return {"message": {"token": token, "data": data, "android": android}}
