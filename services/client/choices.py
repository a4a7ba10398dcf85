"""What the command line of `domino play` already decided, for the screens to ask only the rest."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Choices:
    """What the command line already decided (None: ask when it matters)."""
    rules: str | None = None
    variant: str | None = None
    seats: int | None = None
    teams: bool | None = None
    target: int | None = None
    host_options: dict | None = None
    turn_timer: int | None = None
    strength: str | None = None
    seat: int | None = None
    fill_bots: bool = False
    start_when_full: bool = False
    spectators: bool | None = None  # a room created here: may players without a seat watch?
