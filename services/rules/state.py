"""The engine's values: a deal, a round in play, a finished round, a match.

They are NamedTuples: immutable, cheap to build positionally, and safe to share between
the match service, a bot's thousands of simulations and the auditor's replay.
"""

from __future__ import annotations

from typing import Any, NamedTuple, cast

from .moves import Move
from .family import RuleSet
from .step import Table, copy_table


class Deal(NamedTuple):
    hands: tuple[int, ...]  # one tile mask per seat
    boneyard: tuple[int, ...] = ()  # undealt tiles in draw order (draw games)
    set_aside: int = -1  # the unused tile of block-3
    chance: int = -1  # the seat drawn by chance to lead, in families that draw one (fairness.py)


class Round(Table):
    """A round in play.

    Treat it as a value: ``take_turn`` and ``apply`` return a new Round and leave theirs
    untouched. Only a simulation that owns a copy (``copy()``) steps one in place with
    ``turns.step``, which is how bots play thousands of rounds without copying per move.
    What moves during a round (hands, line, turn, history, outcome) are the fields of
    ``step.Table``, which the one step of a move (``step.py``) changes.
    """

    __slots__ = ("set_aside", "dealt", "leader")

    def __init__(self, deal: Deal, leader: int, lead: int, barred: int = 0, four_ends: bool = False,
                 seat_side: tuple[int, ...] = ()) -> None:
        super().__init__(list(deal.hands), deal.boneyard, leader, lead, barred, four_ends, seat_side)
        self.set_aside = deal.set_aside
        self.dealt = deal
        self.leader = leader

    def copy(self) -> "Round":
        other = _new_table(type(self))
        copy_table(self, other)
        other.set_aside = self.set_aside
        other.dealt = self.dealt
        other.leader = self.leader
        return other

    @property
    def boneyard_left(self) -> int:
        return len(self.boneyard) - self.drawn

    @property
    def last_seat(self) -> int:
        return cast(tuple, self.history)[1]

    def actions(self) -> list[tuple[int, Move]]:
        """(seat, move) pairs in the order they were made."""
        out: list[tuple[int, Move]] = []
        node: Any = self.history
        while node is not None:
            node, seat, move = node
            out.append((seat, move))
        out.reverse()
        return out


_new_table = Table.__new__


class RoundResult(NamedTuple):
    """A finished round as every family has it, plus ``extras``: what a family keeps of its
    own (All Fives' points during play, Goat's written and remembered scores), a value its
    module defines and builds (``RuleSet.round_extras``) and only it reads, through its
    ``round_columns``, so no family's vocabulary lives here."""

    reason: str  # "domino" | "blocked" | "redeal"
    winner: int | None  # the winning side, None for a tie (Goat: the side that went out or fished)
    points: int  # what the round's end scored (Goat: the sum of what the sides wrote)
    scores: tuple[int, ...]  # running totals per side after this round
    last_seat: int  # the seat whose action ended the round (-1 for a redeal)
    hands: tuple[int, ...]  # what each seat still held
    extras: object = None  # the family's own part; None in a family that keeps none


class Accounts(NamedTuple):
    """Goat's per-side memory between rounds (docs/rules.md, Goat)."""

    remembered: tuple[int, ...]
    opened: tuple[bool, ...]
    pot: int = 0


class MatchState(NamedTuple):
    """A match as the engine sees it; the match service's event-sourced aggregate
    (``domainmodel.Match``) keeps one as its ``state``."""

    rules: RuleSet
    target: int
    scores: tuple[int, ...]  # per side, play points of the round in play included
    results: tuple[RoundResult, ...]
    round: Round | None
    next_leader: int | None  # who leads the next round; None: as round 1 is led
    winner: int | None  # the side that won the match (Goat: the lowest total, None if shared)
    over: bool = False
    accounts: Accounts | None = None  # Goat only
    goats: tuple[int, ...] = ()  # Goat: the sides that lost the match


def round_number(match: MatchState) -> int:
    """The 1-based number of the round in play or just ended; 0 before the first deal."""
    rnd = match.round
    return len(match.results) + (1 if rnd is not None and rnd.outcome is None else 0)
