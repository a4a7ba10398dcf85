"""Display names: what other players see, so each must be readable, unique and honest.

Two names that look alike are one name: uniqueness is decided on the NFKC form, casefolded
(`Ａlice`, `ALICE` and `alice` collide). A name may not hide characters (controls, format
characters such as zero-width joiners, unassigned or private code points), may not pass
for a bot (`bot:`, `greedy bot`, a strength's name), and is 3-20 characters long.
"""

from __future__ import annotations

import re
import secrets
import unicodedata

from services.common.bot_ids import PREFIX, STRENGTHS

from .errors import InvalidRequest

MIN_LENGTH, MAX_LENGTH = 3, 20
_HIDDEN = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}
_BOT_WORDS = re.compile(r"(^|[^a-z0-9])bots?($|[^a-z0-9])")


def key_of(name: str) -> str:
    """The form two names are compared in (NFKC, casefolded, NFKC again)."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())


def checked(name: str) -> tuple[str, str]:
    """(the name as shown, its key); InvalidRequest says what is wrong."""
    if len(name) > 4 * MAX_LENGTH:
        raise InvalidRequest(f"display_name is too long ({MAX_LENGTH} characters at most)")
    shown = unicodedata.normalize("NFC", name.strip(" "))
    if not MIN_LENGTH <= len(shown) <= MAX_LENGTH:
        raise InvalidRequest(f"display_name must be {MIN_LENGTH}-{MAX_LENGTH} characters")
    for ch in shown:
        category = unicodedata.category(ch)
        if category in _HIDDEN or (category == "Zs" and ch != " "):
            raise InvalidRequest(f"display_name may not contain U+{ord(ch):04X} (control, invisible or unusual space)")
    if "  " in shown:
        raise InvalidRequest("display_name may not contain two spaces in a row")
    key = key_of(shown)
    if key.startswith(PREFIX) or _BOT_WORDS.search(key) or key in STRENGTHS + ("expert", "random"):
        raise InvalidRequest("display_name may not name or pass for a bot")
    return shown, key


def made_up() -> str:
    """A name for a new account that brought none (`player-7k2mq`): never a bot's, and
    changed with SetDisplayName."""
    alphabet = "abcdefghjkmnpqrstuvwxyz23456789"
    return "player-" + "".join(secrets.choice(alphabet) for _ in range(6))
