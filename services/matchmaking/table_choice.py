"""Which forming public table a player joins, by rating (docs/design.md, "Public tables and
ratings"), and the Ratings port the rating comes from. Pure: no clock, no I/O.

A queue (one per family, seat count and teams setting, tables.py) may have several tables
forming at once. A player joins one of them or opens another:

- A table may be joined when its players' mean rating is within ``spread`` of the player's,
  or when its oldest player has waited ``open_after`` (half of `table_wait_seconds`) or more:
  from then on it takes anyone, so it fills with people rather than bots.
- Of the tables that may be joined, the player joins the one whose mean is closest to
  theirs; ties go to the oldest table (FIFO). None may be joined: the player opens a table.
- A rating is the OpenSkill ordinal (mu - 3 sigma) of the family and team setting; an
  unrated player has a new player's, `DEFAULT_ORDINAL` (25 - 3 * 25/3 = 0). A rating the
  match service could not tell (None) is a preference lost, never a refusal: that player
  joins the oldest forming table, as before ratings, and counts in no table's mean; a
  table whose players' ratings are all unknown is as close as can be to anyone.

Opening a table never lengthens the bound on waiting: a table's empty seats are filled
(with the queue's other waiting players, then bots) once its oldest player has waited
`table_wait_seconds`, and nobody waits at a table opened before they asked.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, Sequence

DEFAULT_ORDINAL = 0.0  # a new player's: mu 25 - 3 * sigma 25/3
OPEN_AFTER_SHARE = 0.5  # a table takes anyone once its oldest player has waited this share of the wait


@dataclass(frozen=True)
class FormingTable:
    """A table forming in a queue: ``key`` names it, ``since`` is when its oldest player asked."""

    key: str
    since: float
    tickets: tuple[str, ...]
    ordinals: tuple[float | None, ...]  # its players' ratings; None where the match service could not tell

    @property
    def mean(self) -> float | None:
        """The mean of its players' known ratings; None when none is known."""
        known = [o for o in self.ordinals if o is not None]
        return sum(known) / len(known) if known else None

    def distance(self, ordinal: float) -> float:
        mean = self.mean
        return 0.0 if mean is None else abs(mean - ordinal)


def choose_table(tables: Sequence[FormingTable], ordinal: float | None, now: float, spread: float,
                 open_after: float) -> str | None:
    """The key of the forming table a player of rating ``ordinal`` joins, or None to open one.
    ``tables`` are the queue's forming tables, oldest first."""
    if not tables:
        return None
    if ordinal is None:
        return tables[0].key  # no rating: first come, first seated
    joinable = [(table.distance(ordinal), n, table) for n, table in enumerate(tables)
                if table.distance(ordinal) <= spread or now - table.since >= open_after]
    if not joinable:
        return None
    return min(joinable, key=lambda choice: (choice[0], choice[1]))[2].key


class Ratings(Protocol):
    def ordinal(self, player_id: str, rules: str, teams: bool) -> float:
        """The player's rating (OpenSkill ordinal) in the family and team setting,
        `DEFAULT_ORDINAL` when unrated; RatingUnavailable when it cannot be told now."""


class NoRatings:
    """The Ratings of an application built without a match service: everyone is new, so
    every table is as close as any other and players are seated first come, first seated."""

    def ordinal(self, player_id: str, rules: str, teams: bool) -> float:
        return DEFAULT_ORDINAL
