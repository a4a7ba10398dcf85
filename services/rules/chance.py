"""The round-1 rule of the families whose leader chance draws (All Fives, Sports), apart
from the other leading rules: ``Family`` tells from it that a rule set draws a leader, and
this module imports nothing of the engine, so the family kernel may import it."""

from __future__ import annotations

from typing import Protocol


class _Drawn(Protocol):
    @property
    def chance(self) -> int: ...


def drawn_leader(rules: object, deal: _Drawn) -> tuple[int, int]:
    """Where chance draws round 1's leader: that seat, with any tile, in round 1 and after a tie."""
    return deal.chance, -1
