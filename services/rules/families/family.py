"""What a rule family is, facet by facet: the one object the rest of the house asks about a
family (docs/design.md, "Adding a family").

Matchmaking, the match service, the record, the verifier, the bots, the client (through
``DescribeRules``) and ``domino demo`` name no family: they take a ``Family`` from the
registry and ask it. A facet a family does not override takes the plain answer written here
(two ends, pips count, the highest total wins), so a new family states only where it differs;
what every family must state is abstract, and the contract test fails on a family that lacks
it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from ..errors import BadOptions


if TYPE_CHECKING:
    from ..rulesets import RuleSet
    from ..state import RoundResult


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
    value: Callable[["RoundResult"], Any]  # JSON-ready
    text: Callable[["RoundResult"], str]
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


class Family(ABC):
    """A rule family. Subclasses are singletons registered once (``registry.register``)."""

    name: str
    phrases: Phrases
    variants: tuple[str, ...] = ()  # in the order a screen lists them; () without variants
    targets: tuple[int, ...] = ()
    options: tuple[HostOption, ...] = ()
    record: RecordShape = RecordShape()
    round_columns: tuple[RoundColumn, ...] = ()
    lower_is_better: bool = False  # totals are bad (Goat): the lowest total wins
    per_move_timer: bool = False  # the family times each move itself; the host's timer is unused
    four_ends: bool = False  # the first double is a spinner with up and down sides

    # ---- the host's choices -----------------------------------------------------------------

    @property
    def default_variant(self) -> str:
        """The variant a host who names none gets ("" for a family without variants)."""
        return self.variants[0] if self.variants else ""

    # Where the variants do not differ, these say it; a family whose variants differ
    # (Egyptian) answers shapes/default_shape/default_target per variant instead.
    offered_shapes: tuple[Shape, ...] = ()  # in the order a screen offers them
    usual_shape: Shape | None = None  # the shape of a host who names none; None: the first offered
    usual_target: int = 0  # the target of a host who names none

    def shapes(self, variant: str) -> tuple[Shape, ...]:
        """The seat counts and team settings a variant is played with."""
        return self.offered_shapes

    def default_shape(self, variant: str) -> Shape:
        return self.usual_shape or self.shapes(variant)[0]

    def default_target(self, variant: str) -> int:
        return self.usual_target

    def presets(self, variant: str) -> Mapping[str, Any]:
        """The host options' values when the host changes none."""
        return {}

    # ---- the rules ----------------------------------------------------------------------------

    @abstractmethod
    def build(self, variant: str | None = None, seats: int | None = None, teams: bool | None = None,
              options: dict | None = None) -> "RuleSet":
        """The rule set a host (or a record) names, unset choices taking the family's
        defaults; BadOptions says what the family allows otherwise."""

    def no_variant_nor_options(self, variant: str | None, options: dict | None) -> None:
        """For a family without variants or options: BadOptions when a host names one."""
        if variant:
            raise BadOptions(f"{self.name} has no variants")
        if options:
            raise BadOptions(f"{self.name} has no options")

    def played_options(self, rules: "RuleSet") -> dict | None:
        """The host options a rule set was built with, by name (None without options)."""
        return None

    def rule_set_name(self, rules: "RuleSet") -> str:
        """How messages name a rule set: the family and its variant."""
        return f"{self.name} {rules.variant}" if rules.variant else self.name

    # ---- what bots may infer --------------------------------------------------------------

    def forced_lead_order(self, rules: "RuleSet") -> tuple[int, ...] | None:
        """The tiles, best first, of which the first dealt must lead a round led by the
        round-1 rule; None where that leader may lead any tile (a seat drawn by chance)."""
        return None

    def led_by_round_one_rule(self, rules: "RuleSet", view: Any) -> bool:
        """Whether the round a seat sees was led by the round-1 rule with a forced tile: round
        1 itself (a round after a tie is too, but a view cannot tell a tie from a win)."""
        return self.forced_lead_order(rules) is not None and view.round_number == 1

    def side_round_scores(self, rules: "RuleSet", last_seat: int, hands: Sequence[int]) -> list[int] | None:
        """Each side's score for the round just ended where the lowest takes the round
        (Goat); None where the round's winner and points say who took it."""
        return None

    def greedy_key(self, view: Any, play_points: Callable[[Any], int]) -> Callable[[Any], Any] | None:
        """The greedy bot's preference among the legal moves, best highest; None: shed the
        heaviest tile (docs/rules.md §1.6's order, the server's own timeout play).

        The family names the rule; ``play_points(move)``, what a play would score at once,
        is filled in by the bots, who read it off the line they replay from the view: the
        rules engine may not import the bots, and the spinner's count is theirs to keep in
        step with what they already infer from it."""
        return None

    # ---- results --------------------------------------------------------------------------

    def round_json(self, result: "RoundResult") -> dict[str, Any]:
        """A round's result beyond the common fields, as `audit verify --json` shows it."""
        return {column.key: column.value(result) for column in self.round_columns}

    def match_json(self, goats: Sequence[int]) -> dict[str, Any]:
        """The match's end beyond winner and scores (Goat: its goats)."""
        return {}

    def __repr__(self) -> str:
        return f"<family {self.name}>"

    # ---- matchmaking and bots -----------------------------------------------------------

    # Each variant is played by one seat count, so the variant names the table: a public
    # queue's id (stored) leaves the seats out, and a host's change of variant takes the
    # new variant's seats. Declared, not derived from ``shapes``, as those ids must not move.
    variants_fix_seats: bool = False
    # Who takes a round in the bots' arena, where one round is one play of a deal.
    round_won_by: str = "the side the round's end scores for (rules.score_round)"
    # The variant bot-only play takes when none is named, where the bots' figures have
    # always been taken on one: `domino demo` and the arena. "": a demo takes the host's
    # default and the arena asks for a variant.
    bots_variant: str = ""

    def seats_to_build(self, seats: int | None) -> int | None:
        """A table's seat count as ``build`` takes it: None where the variant fixes it, so
        the variant alone says (as it always did for these families)."""
        return None if self.variants_fix_seats else seats

    # ---- record and audit -----------------------------------------------------------------

    @property
    def target_implied(self) -> bool:
        """Whether a record may leave its target out: the family offers one only (docs/record.md)."""
        return len(self.targets) == 1

    def match_end_line(self, winner: str | None, goats: Sequence[str]) -> str:
        """The audit report's line on a match that ended, given sides' names (``winner``
        None: no side won; ``goats``: the sides ``match_json`` names)."""
        return f"match winner: {winner or '-'}"

    # ---- client facets ----
    # What a table screen shows beyond the common line, as clients read it from DescribeRules
    # (services/match/describe.py): data where it can be, the rest a few words. What the rule
    # sets already say (hand sizes, boneyards, tiles that never lead, a leader drawn by chance)
    # is read from them there, not stated again here.

    @dataclass(frozen=True)
    class LeadWords:
        """Why the seat leading by round 1's rule leads; "{name}" stands for the rule set's title."""
        rule: str = ""  # the rule; "": phrases.lead_rule
        by_double: str = "the highest double dealt"  # why the one tile that may open it opens it
        by_zero_zero: str = ""  # "": as by_double
        by_other_tile: str = "the heaviest tile dealt, as no double was (equal values: the higher pip)"

    lone_zero_zero: int | str | None = None  # a hand of only 0-0 counts these points, or the host option so named; None: its pips
    points_rounded_to: int = 0  # a round's end points are rounded to the nearest multiple of this
    move_seconds: tuple[int, ...] = ()  # what a per-move timer gives a move
    option_words: Mapping[str, str] = {}  # how a screen states an option, "{value}" standing for its value
    lead_words: Mapping[str, "Family.LeadWords"] = {}  # by variant ("" without variants); unnamed: LeadWords()

    def lead_words_of(self, variant: str) -> "Family.LeadWords":
        """The variant's words, a blank one filled in (the rule from ``phrases``, 0-0 as a double)."""
        words = self.lead_words.get(variant) or Family.LeadWords()
        return Family.LeadWords(words.rule or self.phrases.lead_rule, words.by_double,
                                words.by_zero_zero or words.by_double, words.by_other_tile)


class PlainFamily(Family):
    """A family without variants or host options, whose module builds its rule set from the
    seats and teams alone (``make``)."""

    make: Callable[[int | None, bool | None], "RuleSet"]

    def build(self, variant: str | None = None, seats: int | None = None, teams: bool | None = None,
              options: dict | None = None) -> "RuleSet":
        self.no_variant_nor_options(variant, options)
        return type(self).make(seats, teams)
