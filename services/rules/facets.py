"""The values a family states facet by facet (``Family``'s attributes): plain data, so a
family module, the match service and the client's describer read them without the family."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable


@dataclass(frozen=True)
class HostOption:
    """An option the host sets beyond variant, seats, teams, target and timer (Goat's four)."""
    name: str
    values: tuple[Any, ...]  # every value allowed, in the order a screen offers them
    help: str


@dataclass(frozen=True)
class Shape:
    """A seat count and team setting a family offers."""
    seats: int
    teams: bool


@dataclass(frozen=True)
class RoundColumn:
    """A round's result beyond the common fields (``RoundResult.extras``, read here by its
    family): a key of `audit verify --json`'s rounds and a column of the audit report."""
    key: str  # also the stored RoundEnded field that holds it, if any (services/match/results.py): never renamed
    header: str
    width: int  # the report's column width; right-aligned when ``right``
    value: Callable[[Any], Any]  # of a RoundResult; JSON-ready
    text: Callable[[Any], str]
    right: bool = False


@dataclass(frozen=True)
class RecordShape:
    """What ``domino-record/1`` holds for a family (docs/record.md)."""
    variant: bool = False  # the record names a variant
    teams_required: bool = False  # 'teams' is always written (Egyptian's records always had it)
    options: bool = False  # the record lists the host options as played
    every_boneyard: bool = True  # every round shows its boneyard, [] where none
    leaders: bool = True  # each round names its leader (False: the rules derive it from the deal)


@dataclass(frozen=True)
class Phrases:
    """How a screen speaks of a family; a phone reads these from DescribeRules."""
    title: str
    target: str = "to {target}"  # {target}: the chosen target
    ended_by: str = "winner"  # the audit report's header for who took a round
    lead_rule: str = "the holder of the highest double leads"  # round 1's leader, in a few words
    scoring: str = ""  # one line on what a round scores


@dataclass(frozen=True)
class BotTuning:
    """How the strong bot searches this family's rounds, tuned against ``greedy`` in the arena
    (docs/bots.md): the family states it, as a bot left to the plain search in a family it
    was never measured in would play it silently worse. The defaults are that plain search."""
    greedy_share: float = 0.0  # deals drawn assuming the opponents play greedily (the rest: weighed)
    max_work: int | None = None  # fewer deals once rollouts * (tiles in hands + boneyard) would pass this
    exact_tiles: int = 0  # two sides: solve each deal exactly once this few tiles are left; 0: never
    play_model: bool = False  # weigh deals by the model of play instead of noisy greedy
    deadline: float | None = 0.09  # seconds of wall clock, a safety net for a loaded machine; None: no cap


@dataclass(frozen=True)
class LeadWords:
    """Why the seat leading by round 1's rule leads; "{name}" stands for the rule set's title."""
    rule: str = ""  # the rule; "": phrases.lead_rule
    by_double: str = "the highest double dealt"  # why the one tile that may open it opens it
    by_zero_zero: str = ""  # "": as by_double
    by_other_tile: str = "the heaviest tile dealt, as no double was (equal values: the higher pip)"
