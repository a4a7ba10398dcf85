"""The engine's values: a deal, a round in play, a finished round, a match.

They are NamedTuples: immutable, cheap to build positionally, and safe to share between
the match service, a bot's thousands of simulations and the auditor's replay.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from .moves import Move
from .rulesets import RuleSet


class Deal(NamedTuple):
    hands: tuple[int, ...]  # one tile mask per seat
    boneyard: tuple[int, ...] = ()  # undealt tiles in draw order (draw games)
    set_aside: int = -1  # the unused tile of block-3
    chance: int = -1  # the seat drawn by chance to lead, in families that draw one (fairness.py)


class Round:
    """A round in play.

    Treat it as a value: ``take_turn`` and ``apply`` return a new Round and leave theirs
    untouched. Only a simulation that owns a copy (``copy()``) steps one in place with
    ``turns.step``, which is how bots play thousands of rounds without copying per move.
    """

    __slots__ = ("hands", "held", "boneyard", "drawn", "set_aside", "left", "right", "turn", "lead",
                 "history", "outcome", "dealt", "leader", "barred")

    four_ends = False  # a line with a spinner (spinner.SpinnerRound) is played by its own rules
    play_points: tuple[tuple[int, int, int], ...] = ()  # points scored during play (All Fives only)

    def __init__(self, deal: Deal, leader: int, lead: int, barred: int = 0) -> None:
        self.hands = list(deal.hands)  # one tile mask per seat
        held = 0
        for hand in deal.hands:
            held |= hand
        self.held = held  # every tile in any hand
        self.boneyard = deal.boneyard
        self.drawn = 0  # how many boneyard tiles have been drawn
        self.set_aside = deal.set_aside
        self.left = -1  # open end numbers; -1 before the first play
        self.right = -1
        self.turn = leader  # the seat to act
        self.lead = lead  # the tile the first play must be, or -1 for any
        self.barred = barred  # tiles that may never open the round (Classic's 0-0)
        self.history: Any = None  # (previous, seat, move), newest first
        self.outcome: str | None = None  # "domino", "blocked" or "redeal" once ended
        self.dealt = deal
        self.leader = leader

    def copy(self) -> "Round":
        other = _new_round(Round)
        other.hands = self.hands[:]
        other.held = self.held
        other.boneyard = self.boneyard
        other.drawn = self.drawn
        other.set_aside = self.set_aside
        other.left = self.left
        other.right = self.right
        other.turn = self.turn
        other.lead = self.lead
        other.history = self.history
        other.outcome = self.outcome
        other.dealt = self.dealt
        other.leader = self.leader
        other.barred = self.barred
        return other

    @property
    def boneyard_left(self) -> int:
        return len(self.boneyard) - self.drawn

    @property
    def last_seat(self) -> int:
        return self.history[1]

    def actions(self) -> list[tuple[int, Move]]:
        """(seat, move) pairs in the order they were made."""
        out: list[tuple[int, Move]] = []
        node: Any = self.history
        while node is not None:
            node, seat, move = node
            out.append((seat, move))
        out.reverse()
        return out


_new_round = object.__new__


class RoundResult(NamedTuple):
    reason: str  # "domino" | "blocked" | "redeal"
    winner: int | None  # the winning side, None for a tie (Goat: the side that went out or fished)
    points: int  # what the round's end scored (Goat: the sum of ``written``)
    scores: tuple[int, ...]  # running totals per side after this round
    last_seat: int  # the seat whose action ended the round (-1 for a redeal)
    hands: tuple[int, ...]  # what each seat still held
    play_points: tuple[tuple[int, int, int], ...] = ()  # All Fives: (action index, side, points)
    written: tuple[int, ...] = ()  # Goat: what each side wrote this round
    remembered: tuple[int, ...] = ()  # Goat: each side's remembered points after it
    pot: int = 0  # Goat, fish "one": the pot carried to the next round


class Accounts(NamedTuple):
    """Goat's per-side memory between rounds (docs/rules.md, Goat)."""

    remembered: tuple[int, ...]
    opened: tuple[bool, ...]
    pot: int = 0


class Match(NamedTuple):
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


def round_number(match: Match) -> int:
    """The 1-based number of the round in play or just ended; 0 before the first deal."""
    rnd = match.round
    return len(match.results) + (1 if rnd is not None and rnd.outcome is None else 0)
