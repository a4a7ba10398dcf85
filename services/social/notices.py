"""What a notification is, and what a poster may say in one: the kinds, their lifetimes and
the checks of each field of a NewNotification (docs/social.md, "The inbox").

A notification's text is a localisation key with arguments, never a sentence, so what a
poster may put in it is narrow: a key `notice.` + [a-z0-9_.], at most 12 arguments of
short strings (ids, display names, numbers), ids of at most 200 characters. Anything else
is refused whole: one bad notification in a batch stores none of it."""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass, field

from .errors import InvalidRequest

# NotificationKind's numbers and names (lower case, without NOTIFICATION_KIND_): the name
# is what the bus subject, the store and push settings say.
KINDS = {1: "friend_request", 2: "friend_accepted", 3: "invite", 4: "invite_answered", 5: "rematch",
         6: "your_turn", 7: "match_result", 8: "rating_change", 9: "ban", 10: "account"}
NUMBERS = {name: number for number, name in KINDS.items()}
# A player can make the recipient's phone buzz with these: a recipient who blocks that
# player gets none of them.
FROM_A_PLAYER = frozenset({"friend_request", "invite", "rematch", "invite_answered"})
DAY = 86400.0
# Lifetimes when the poster gives none: a turn or an invitation is stale far sooner than news.
SHORT_LIVED = {"your_turn": DAY, "invite": DAY, "rematch": DAY}
LONGEST = 365 * DAY
MAX_BATCH = 100
MAX_ARGS = 12
MAX_ARG_VALUE = 200
MAX_ID = 200
TEXT_KEY = re.compile(r"notice\.[a-z0-9_.]{1,60}")
ARG_NAME = re.compile(r"[a-z0-9_]{1,40}")


@dataclass(frozen=True)
class Draft:
    """A notification to store: what NewNotification carries, checked; ``expires_at`` None:
    the kind's default lifetime."""
    notification_id: str
    recipient_id: str
    kind: str
    text_key: str
    args: dict[str, str] = field(default_factory=dict)
    player_id: str = ""
    match_id: str = ""
    room_id: str = ""
    invite_id: str = ""
    expires_at: float | None = None


def lifetime(kind: str, default_days: float) -> float:
    return SHORT_LIVED.get(kind, default_days * DAY)


def notice_id(*about: object) -> str:
    """An id derived from what a notification is about, so posting it again is a no-op."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, "domino-notice:" + ":".join(str(a) for a in about)))


def check_batch(size: int) -> None:
    if size == 0:
        raise InvalidRequest("notifications is empty: post at least one", "notifications")
    if size > MAX_BATCH:
        raise InvalidRequest(f"at most {MAX_BATCH} notifications a call", "notifications")


def checked(where: str, notification_id: str, recipient_id: str, kind: int, text_key: str,
            args: dict[str, str], player_id: str, match_id: str, room_id: str, invite_id: str,
            expires_at: float | None, now: float) -> Draft:
    """A Draft of one NewNotification; InvalidRequest naming ``where``.<field> otherwise."""
    try:
        if str(uuid.UUID(notification_id)) != notification_id.lower() or len(notification_id) != 36:
            raise ValueError
    except ValueError:
        raise InvalidRequest("notification_id must be a UUID (8-4-4-4-12 hex digits)",
                             f"{where}.notification_id") from None
    _check_id(recipient_id, f"{where}.recipient_player_id", required=True)
    if kind not in KINDS:
        raise InvalidRequest("kind is not a notification kind this server knows", f"{where}.kind")
    if not TEXT_KEY.fullmatch(text_key):
        raise InvalidRequest("text_key must be a localisation key: notice. and 1-60 of a-z, 0-9, _ and .",
                             f"{where}.text_key")
    if len(args) > MAX_ARGS:
        raise InvalidRequest(f"at most {MAX_ARGS} args", f"{where}.args")
    for name, value in args.items():
        if not ARG_NAME.fullmatch(name) or len(value) > MAX_ARG_VALUE:
            raise InvalidRequest(f"an arg's name must be 1-40 of a-z, 0-9 and _, its value at most {MAX_ARG_VALUE} "
                                 "characters", f"{where}.args")
    for name, value in (("player_id", player_id), ("match_id", match_id), ("room_id", room_id),
                        ("invite_id", invite_id)):
        _check_id(value, f"{where}.{name}")
    if expires_at is not None and expires_at > now + LONGEST:
        raise InvalidRequest("expires_at is more than a year ahead", f"{where}.expires_at")
    return Draft(notification_id.lower(), recipient_id, KINDS[kind], text_key, dict(args), player_id, match_id,
                 room_id, invite_id, expires_at)


def _check_id(value: str, name: str, required: bool = False) -> None:
    if required and not value:
        raise InvalidRequest(f"{name.rsplit('.', 1)[-1]} is required", name)
    if len(value) > MAX_ID:
        raise InvalidRequest(f"{name.rsplit('.', 1)[-1]} is longer than {MAX_ID} characters", name)
