"""The checks of what a phone registers and what a player sets for pushes (docs/social.md,
"Mobile push: tokens and settings"), pure of gRPC and of the store: each names the request
field it refuses, and returns the value as it is stored (an APNs token in lower case).

Tokens are the providers' to shape, so the checks are of size and alphabet alone: enough
to refuse what no provider would ever hand an app (and what would bloat the store), never
so tight that a provider's next format is refused."""

from __future__ import annotations

import re
import zoneinfo
from functools import lru_cache

from .errors import InvalidRequest

PLATFORMS = ("apns", "fcm")
APNS_ENVIRONMENTS = ("sandbox", "production")
INSTALLATION_ID = re.compile(r"[A-Za-z0-9._:-]{1,64}")
APNS_TOKEN = re.compile(r"[0-9A-Fa-f]{64,200}")
FCM_TOKEN = re.compile(r"[\x21-\x7e]{1,4096}")
# A BCP 47 tag's shape: a language of 2-8 letters, then subtags of 1-8 letters or digits.
LOCALE = re.compile(r"[A-Za-z]{2,8}(?:-[A-Za-z0-9]{1,8})*")
MAX_LOCALE = 35
MAX_TIME_ZONE = 64
MINUTES_A_DAY = 1440
# Names in the zone database that are no place: the host's own zone, and the database's
# files about itself.
_NOT_PLACES = frozenset({"localtime", "posixrules", "Factory"})


def installation_id(value: str, field: str = "installation_id") -> str:
    if not value:
        raise InvalidRequest("installation_id is required", field)
    if not INSTALLATION_ID.fullmatch(value):
        raise InvalidRequest("installation_id must be 1-64 of A-Z, a-z, 0-9, '.', '_', ':' and '-'", field)
    return value


def platform(value: str | None, field: str = "platform") -> str:
    """``value``: the platform's name, or None for PUSH_PLATFORM_UNSPECIFIED or one unknown."""
    if value not in PLATFORMS:
        raise InvalidRequest("platform is required: PUSH_PLATFORM_APNS or PUSH_PLATFORM_FCM", field)
    return value


def token(platform_name: str, value: str, field: str = "token") -> str:
    if not value:
        raise InvalidRequest("token is required", field)
    if platform_name == "apns":
        if not APNS_TOKEN.fullmatch(value):
            raise InvalidRequest("an APNs device token is 64-200 hexadecimal digits", field)
        return value.lower()
    if not FCM_TOKEN.fullmatch(value):
        raise InvalidRequest("an FCM registration token is 1-4096 printable ASCII characters, no spaces", field)
    return value


def apns_environment(platform_name: str, value: str | None, field: str = "apns_environment") -> str:
    """``value``: the environment's name, "" for APNS_ENVIRONMENT_UNSPECIFIED, None for one
    unknown; stored "" for FCM."""
    if platform_name == "apns":
        if value not in APNS_ENVIRONMENTS:
            raise InvalidRequest("apns_environment is required for APNs: SANDBOX or PRODUCTION", field)
        return value
    if value != "":
        raise InvalidRequest("apns_environment is for APNs tokens only: leave it unset for FCM", field)
    return ""


def locale(value: str, field: str = "locale") -> str:
    if value and (len(value) > MAX_LOCALE or not LOCALE.fullmatch(value)):
        raise InvalidRequest(f"locale must be a BCP 47 tag (\"es-ES\") of at most {MAX_LOCALE} characters", field)
    return value


def kinds(values: list[str | None], field: str = "push_disabled") -> tuple[str, ...]:
    """``values``: kind names, None for NOTIFICATION_KIND_UNSPECIFIED or one unknown; sorted,
    each once."""
    if any(value is None for value in values):
        raise InvalidRequest("push_disabled names a kind this server does not know (or UNSPECIFIED)", field)
    return tuple(sorted({value for value in values if value is not None}))


def minute(value: int, field: str) -> int:
    if not 0 <= value < MINUTES_A_DAY:
        raise InvalidRequest("a quiet hours minute is 0-1439 (minutes after local midnight)", field)
    return value


def quiet_hours(start: int, end: int, field: str = "quiet_hours") -> tuple[int, int]:
    minute(start, f"{field}.start_minute")
    minute(end, f"{field}.end_minute")
    if start == end:
        raise InvalidRequest("quiet hours that start when they end are none: clear them instead",
                             f"{field}.end_minute")
    return start, end


def time_zone(value: str, field: str = "time_zone") -> str:
    """An IANA zone name ("" is UTC)."""
    if value and (len(value) > MAX_TIME_ZONE or value in _NOT_PLACES or value not in _zones()):
        raise InvalidRequest("time_zone must be an IANA time zone (\"Europe/Madrid\"), or empty for UTC", field)
    return value


@lru_cache(maxsize=1)
def _zones() -> frozenset[str]:
    return frozenset(zoneinfo.available_timezones())
