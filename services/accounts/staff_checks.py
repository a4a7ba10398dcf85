"""Who on the staff may make which call, and the form of what they send: the checks every
staff use case makes first, whatever the console already checked (the console is a client
like any other, and a stolen console session must not reach further than its roles).

Roles (services/common/auth.py STAFF_ROLES; every role may do what a viewer may): support
and operator look players up, describe them, end their sessions and export their data;
operator alone bans, unbans and deletes; support, operator and auditor read the operator
log; any member of staff records the console's own actions."""

from __future__ import annotations

import re

from services.common.auth import Identity, roles_allowing

from .errors import InvalidRequest, NotStaff, StaffRoleTooLow

SUPPORT = roles_allowing("support")
OPERATOR = roles_allowing("operator")
LOG_READERS = roles_allowing("support", "auditor")
ANY_STAFF = roles_allowing("viewer")
MAX_WHY = 500
MAX_REASON = 200
MAX_ID = 200
TEN_YEARS = 10 * 366 * 86400.0
ACTION = re.compile(r"[a-z0-9_.-]{1,64}")


def staff(who: Identity, needs: tuple[str, ...]) -> Identity:
    """``who`` when it is a member of staff holding one of the roles ``needs``."""
    if not who.is_staff:
        raise NotStaff("this call is the staff's: it needs an operator token from the console")
    if not set(who.staff_roles) & set(needs):
        raise StaffRoleTooLow(f"this call needs the {' or '.join(needs)} role; this member of staff holds "
                              f"{', '.join(who.staff_roles) or 'none'}")
    return who


def player_id(value: str, field: str = "player_id") -> str:
    if not value:
        raise InvalidRequest(f"{field} is required", field)
    if len(value) > MAX_ID:
        raise InvalidRequest(f"{field} is longer than {MAX_ID} characters", field)
    return value


def _printable(value: str, field: str, newlines: bool = False) -> None:
    """No control characters (NUL, escapes): PostgreSQL refuses NUL in text, and a reason is
    shown to a player and in terminals."""
    allowed = "\n\t" if newlines else ""
    if any(ord(c) < 32 and c not in allowed or ord(c) == 127 for c in value):
        raise InvalidRequest(f"{field} holds a control character", field)


def why(value: str, required: bool = True) -> str:
    """What the operator log keeps as the reason a member of staff gave."""
    _printable(value, "why", newlines=True)
    if required and not value.strip():
        raise InvalidRequest("why is required: the operator log keeps the reason for every change", "why")
    if len(value) > MAX_WHY:
        raise InvalidRequest(f"why is longer than {MAX_WHY} characters", "why")
    return value.strip()


def ban_reason(value: str) -> str:
    _printable(value, "reason")
    if not value.strip():
        raise InvalidRequest("reason is required: the player is shown it", "reason")
    if len(value) > MAX_REASON:
        raise InvalidRequest(f"reason is longer than {MAX_REASON} characters", "reason")
    return value.strip()


def ban_end(until: float | None, now: float) -> float:
    if until is None:
        raise InvalidRequest("until is required: a ban ends", "until")
    if until <= now:
        raise InvalidRequest("until must be in the future", "until")
    if until > now + TEN_YEARS:
        raise InvalidRequest("until may be at most 10 years ahead", "until")
    return until


def action(value: str, reserved: frozenset[str]) -> str:
    if not ACTION.fullmatch(value):
        raise InvalidRequest("action must be 1 to 64 characters of a-z, 0-9, '_', '.' and '-'", "action")
    if value in reserved or value.startswith("player."):
        raise InvalidRequest(f"{value}: the player.* actions are written by the account service itself, with "
                             "their change", "action")
    return value


def target(value: str) -> str:
    _printable(value, "target")
    if len(value) > MAX_ID:
        raise InvalidRequest(f"target is longer than {MAX_ID} characters", "target")
    return value


def page_size(value: int, largest: int, default: int) -> int:
    if not 0 <= value <= largest:
        raise InvalidRequest(f"page_size must be 1 to {largest} (0: {default})", "page_size")
    return value or default
