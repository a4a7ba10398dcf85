"""What seats hold: people, or bots named `bot:<strength>:<seat>`, which the bots service
plays (services/bots/player.py). A bot is named by the seat it takes, so "bot strong 3"
sits in seat 3."""

from __future__ import annotations

from .errors import BadSeat

BOT_PREFIX = "bot:"


def bot_id(strength: str, seat: int) -> str:
    return f"{BOT_PREFIX}{strength}:{seat}"


def is_bot(player_id: str) -> bool:
    return player_id.startswith(BOT_PREFIX)


def humans(seats: list[str]) -> list[str]:
    return [p for p in seats if p and not is_bot(p)]


def check_seat_number(seat: int, seats: int) -> None:
    if not 0 <= seat < seats:
        raise BadSeat(f"seat {seat} does not exist; seats are 0..{seats - 1}")
