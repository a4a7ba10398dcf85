"""What seats hold: people, or bots named `bot:<strength>:<seat>` (services/common/bot_ids.py),
which the bots service plays. A bot is named by the seat it takes, so "bot strong 3" sits
in seat 3."""

from __future__ import annotations

from .errors import BadSeat

from services.common.bot_ids import bot_id, bot_strength, is_bot

__all__ = ["bot_id", "bot_strength", "is_bot", "humans", "check_seat_number"]


def humans(seats: list[str]) -> list[str]:
    return [p for p in seats if p and not is_bot(p)]


def check_seat_number(seat: int, seats: int) -> None:
    if not 0 <= seat < seats:
        raise BadSeat(f"seat {seat} does not exist; seats are 0..{seats - 1}")
