"""The one home of the bot id contract: `bot:<strength>:<seat>`.

Matchmaking names the bots it seats this way, the bot service plays every seat whose id
has this form (with a `bot` token), and the match service lets only `bot` tokens act for
such seats and never lets a `bot` token act for anything else.
"""

from __future__ import annotations

from . import bot_strengths

PREFIX = "bot:"
#: Every registered strength, offered to players or not: a seated bot's id stays valid.
STRENGTHS = bot_strengths.NAMES


def bot_id(strength: str, seat: int) -> str:
    return f"{PREFIX}{strength}:{seat}"


def is_bot(player_id: str) -> bool:
    return player_id.startswith(PREFIX)


def bot_strength(player_id: str) -> str | None:
    """`bot:<strength>:<n>` -> strength; None for people and ids of no known strength."""
    if not is_bot(player_id):
        return None
    parts = player_id.split(":")
    return parts[1] if len(parts) >= 3 and parts[1] in STRENGTHS else None
