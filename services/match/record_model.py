"""What a `domino-record/1` holds (docs/record.md), as the reader gives it and the writer
takes it; record_reading.py and record_writing.py are its two directions."""

from __future__ import annotations

from dataclasses import dataclass, field

from services.rules import rulesets
from services.rules.moves import Move
from services.rules.state import Deal

FORMAT = "domino-record/1"


class MalformedRecord(ValueError):
    """A record that is not a well-formed domino-record/1 (exit status 2)."""


@dataclass
class RecordedAction:
    seat: int
    move: Move
    drawn: int = -1  # the tile a draw names; -1: hidden (`"draw": null` in a player's export)
    timeout: bool = False
    unknown_end: str | None = None  # an `end` that names no end at all: the verifier's fault to report


@dataclass
class RecordedRound:
    deal: Deal
    actions: list[RecordedAction] = field(default_factory=list)
    hand_order: tuple[tuple[int, ...], ...] | None = None  # hands as written, to write them back alike
    leader: int | None = None  # the seat written as leading, if any
    redeal: bool | None = None  # as written, if written
    stray: str | None = None  # tiles written where the rule set deals none: a fault of the round
    # What a player's export hides (the deal's masks and hand_order hold nothing there):
    hidden_hands: dict[int, int] = field(default_factory=dict)  # seat -> how many tiles it was dealt
    boneyard_count: int | None = None  # how many tiles the boneyard was dealt, when they are not listed
    set_aside_hidden: bool = False  # block-3's set-aside tile, `null` in the round in play

    @property
    def deal_hidden(self) -> bool:
        """Whether the deal is not known in full (hands, boneyard or set-aside tile hidden)."""
        return bool(self.hidden_hands) or self.boneyard_count is not None or self.set_aside_hidden

    @property
    def hidden(self) -> bool:
        """Whether anything of the round is hidden: its deal, or a draw that names no tile."""
        return self.deal_hidden or any(a.move.kind == "draw" and a.drawn < 0 for a in self.actions)


@dataclass
class Fairness:
    commitment: str
    server_seed: str | None  # hex; None until revealed
    client_seeds: list[str]


@dataclass
class MatchRecord:
    rules: str
    variant: str | None
    teams: bool
    target: int
    seats: list[str]
    rounds: list[RecordedRound] = field(default_factory=list)
    fairness: Fairness | None = None
    options: dict | None = None  # the family's host options, as played
    abandoned: bool = False  # the match was ended because nobody acted for a long time
    chain: dict | None = None  # {"links": [hex, ...], "head": {...}}, as exported (chain.py, heads.py)
    viewer_seat: int | None = None  # a player's export: the seat it shows the match as

    def rule_set(self) -> rulesets.RuleSet:
        return rulesets.rule_set(self.rules, self.variant, self.teams, len(self.seats), self.options)
