"""The API's requests as what the use cases take, each field checked on its own first.

The first error a client is told is the real one (docs/design.md, "Errors"): what a field
says by itself (an empty request_id, a bot strength no family offers, a negative seat, a turn
timer not offered, rule_options naming an option twice) is refused before anything that
depends on other fields (the family's variants, the shape's seats, the strengths the
family and team setting offer), and every refusal names its field.
"""

from __future__ import annotations

import uuid
from typing import Any

from services.common import rule_options
from services.common.bot_strengths import OFFERED
from services.rules.rulesets import TURN_TIMERS

from domino.matchmaking.v1 import matchmaking_service_pb2 as pb

from .errors import BadSeat, InvalidOptions, InvalidRequest, StrengthNotOffered
from .messages import STRENGTH_NAMES
from .options import Options, check_request_id, check_strength
from .seating import is_bot

MAX_INVITEES = 8  # more than any table has seats

# UpdateRoomOptionsRequest's fields, by the name Options.changed takes them.
_CHANGES = (("rules", "rules"), ("variant", "variant"), ("teams", "teams"), ("target", "target"),
            ("turn_timer", "turn_timer_seconds"), ("seats", "seat_count"), ("spectators", "spectators"))


def request_id(text: str) -> str:
    check_request_id(text)
    return text


def strength(value: int) -> str | None:
    """A BotStrength as its name; None when unset (the shape's default applies)."""
    if not value:
        return None
    name = STRENGTH_NAMES.get(value)
    if name is None:
        raise StrengthNotOffered(f"unknown bot strength {value}; choose one of {', '.join(OFFERED)}")
    check_strength(name)
    return name


def seat(value: int) -> int:
    if value < 0:
        raise BadSeat(f"seat {value} does not exist; seats are numbered from 0")
    return value


def optional_seat(request: Any) -> int | None:
    return seat(request.seat) if request.HasField("seat") else None


def turn_timer(request: Any) -> int | None:
    if not request.HasField("turn_timer_seconds"):
        return None
    value = request.turn_timer_seconds
    if value not in TURN_TIMERS:
        raise InvalidOptions(f"turn_timer_seconds must be 30, 45, 60 or 90, or 0 for unlimited, not {value}",
                             field="turn_timer_seconds")
    return value


def host_options(request: Any) -> dict[str, Any] | None:
    """The host options a request names in rule_options (None: none); the family's own
    rules then check them (services/common/rule_options.py)."""
    try:
        return rule_options.given(request)
    except rule_options.UnreadableOptions as e:
        raise InvalidOptions(str(e), field="rule_options") from None


def options(request: pb.CreateRoomRequest | pb.StartPracticeRequest, spectators: bool = False) -> Options:
    """The options a request asks for: its own fields first, then the rules engine's check of
    them together (InvalidOptions names the field and the allowed values)."""
    timer = turn_timer(request)
    named = host_options(request)
    return Options.chosen(request.rules, request.variant, _optional(request, "teams"), _optional(request, "target"),
                          timer, _optional(request, "seat_count"), named, spectators)


def table_options(request: pb.RequestTableRequest) -> Options:
    """A public table's: the variant's presets, and anyone may watch."""
    return Options.chosen(request.rules, request.variant, _optional(request, "teams"),
                          seats=_optional(request, "seat_count"))


def option_changes(request: pb.UpdateRoomOptionsRequest) -> dict[str, Any]:
    """The options an update names, by the name Options.changed takes them."""
    turn_timer(request)
    changes = {name: getattr(request, field) for name, field in _CHANGES if request.HasField(field)}
    named = host_options(request)
    if named is not None:
        changes["host_options"] = named
    return changes


def room_id(text: str) -> uuid.UUID:
    return _uuid(text, "room_id")


def ticket_id(text: str) -> str:
    return str(_uuid(text, "ticket_id"))


def invite_id(text: str) -> str:
    return str(_uuid(text, "invite_id"))


def match_id(text: str) -> str:
    return str(_uuid(text, "match_id"))


def invitees(ids: list[str], caller: str) -> list[str]:
    """1 to MAX_INVITEES players, each named once, none the caller or a bot."""
    if not ids:
        raise InvalidRequest("player_ids is required: the friends to invite", field="player_ids")
    if len(ids) > MAX_INVITEES:
        raise InvalidRequest(f"at most {MAX_INVITEES} players may be invited at once", field="player_ids")
    for player in ids:
        if not player or len(player) > 200:
            raise InvalidRequest("every player id is 1 to 200 characters", field="player_ids")
        if is_bot(player):
            raise InvalidRequest("bots are not invited; the host seats them (AddBot)", field="player_ids")
        if player == caller:
            raise InvalidRequest("you cannot invite yourself", field="player_ids")
    if len(set(ids)) != len(ids):
        raise InvalidRequest("a player is named twice in player_ids", field="player_ids")
    return list(ids)


def from_version(value: int) -> int:
    if value < 0:
        raise InvalidRequest("from_version cannot be negative", field="from_version")
    return value


def _optional(request: Any, field: str) -> Any:
    return getattr(request, field) if request.HasField(field) else None


def _uuid(text: str, name: str) -> uuid.UUID:
    if not text:
        raise InvalidRequest(f"{name} is required", field=name)
    try:
        return uuid.UUID(text)
    except ValueError:
        raise InvalidRequest(f"{name} {text[:40]!r} is not an id", field=name) from None
