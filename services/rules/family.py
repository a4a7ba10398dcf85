"""What a rule family is, facet by facet, and the rule set it builds: the one object the
rest of the house asks about a family (docs/design.md, "Adding a family").

Matchmaking, the match service, the record, the verifier, the bots, the client (through
``DescribeRules``) and ``domino demo`` name no family: they take a ``Family`` from the
registry and ask it. A facet a family does not override takes the plain answer written here
(two ends, pips count, the highest total wins), so a new family states only where it differs;
what every family must state is abstract, and the contract test fails on a family that lacks
it.

A ``RuleSet`` is one configuration of a family (variant, seats, teams, options) as a match
plays it: data the core reads field by field, and ``kind``, the family whose methods are its
rules. Both live here because each names the other; the kernel (moves, match, fairness) reads
rule sets and never imports a family module, each family module imports the kernel, and the
registry imports the families.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from .chance import drawn_leader
from .errors import BadOptions
from .facets import BotTuning, HostOption, LeadWords, Phrases, RecordShape, RoundColumn, Shape


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
    four_ends: bool = False  # the first double is a spinner with up and down sides
    # Stated by every family, never inherited: the strong bot refuses a family without one.
    bot_tuning: BotTuning | None = None

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

    def seats_chosen(self, variant: str, seats: int | None) -> int:
        """The seat count a host chose, checked against the variant's shapes (None: the default)."""
        counts = tuple(sorted({shape.seats for shape in self.shapes(variant)}))
        return check_seats(self.name, seats, counts, self.default_shape(variant).seats)

    def presets(self, variant: str) -> Mapping[str, Any]:
        """The host options' values when the host changes none."""
        return {}

    # ---- the rules ----------------------------------------------------------------------------

    def build(self, variant: str | None = None, seats: int | None = None, teams: bool | None = None,
              options: dict | None = None) -> RuleSet:
        """The rule set a host (or a record) names: unset seats, teams and options take the
        family's defaults, but a family with variants must be told one (no variant is refused,
        as callers fill in ``default_variant`` where they mean it); BadOptions says what the
        family allows otherwise.

        Built once per configuration: a rule set is an immutable value, so CreateMatch's
        check, the aggregate's fold and every later load of the match share one object. A
        choice is also filed under the configuration it settles on (every option as played),
        which is what the match's record and events name."""
        key = _key(variant, seats, teams, options)
        if key is None:  # an option no configuration holds (a list, say): ``configure`` refuses it
            return self.configure(variant, seats, teams, options)
        built = self._built.get(key)
        if built is None:
            built = self.configure(variant, seats, teams, options)
            settled = _key(built.variant, built.seats, built.teams, self.played_options(built))
            if settled is not None:
                built = self._built.setdefault(settled, built)
            self._built[key] = built
        return built

    @abstractmethod
    def configure(self, variant: str | None, seats: int | None, teams: bool | None,
                  options: dict | None) -> RuleSet:
        """``build``'s work, done once per configuration: the host's choices checked and read
        into a RuleSet (``self.rule_set``), its options typed from here on."""

    @property
    def _built(self) -> dict[tuple, RuleSet]:
        return self.__dict__.setdefault("_rule_sets", {})

    def rule_set(self, variant: str, seats: int, hand_size: int, draws: bool, teams: bool, default_target: int,
                 **rest: Any) -> RuleSet:
        """A RuleSet of this family (``kind``), whether chance draws its leader filled in."""
        return RuleSet(kind=self, variant=variant, seats=seats, hand_size=hand_size, draws=draws,
                       teams=teams, default_target=default_target, chance=self.opening_leader is drawn_leader, **rest)

    @abstractmethod
    def opening_leader(self, rules: RuleSet, deal: Any) -> tuple[int, int]:
        """(seat, tile or -1 for any): who leads when nobody earned the lead, and with what."""

    @abstractmethod
    def score_round(self, rules: RuleSet, reason: str, last_seat: int,
                    hands: Sequence[int]) -> tuple[int | None, int]:
        """(winning side or None for a tie, points) of a round that ended by ``reason``."""

    @abstractmethod
    def next_leader(self, rules: RuleSet, reason: str, winner: int | None, last_seat: int,
                    hands: Sequence[int]) -> int | None:
        """Who leads the next round; None: it is led as round 1 is."""

    @abstractmethod
    def match_end(self, rules: RuleSet, scores: Sequence[int],
                  target: int) -> tuple[int | None, bool, tuple[int, ...]]:
        """(winning side or None, whether the match is over, the sides that lost it as goats)."""

    # Rules only some families have. Each is given as the function (None without one), as
    # the core asks whether a rule set has it before it plays a round.

    def tally(self, rules: RuleSet) -> Callable[..., tuple[tuple[int, ...], Any]] | None:
        """Goat: (rules, reason, last_seat, hands, accounts) -> (written, accounts); None:
        ``score_round`` decides."""
        return None

    def round_extras(self, rules: RuleSet) -> Callable[[Any, tuple[int, ...], Any], Any] | None:
        """(round, written, accounts) -> the family's own part of a round's result
        (RoundResult.extras), given what ``tally`` wrote and the accounts after it ((), None
        without one); None: no part."""
        return None

    def redeal(self, rules: RuleSet) -> Callable[[Sequence[int]], bool] | None:
        """Goat with the redeal option: (hands) -> whether the deal must be dealt again."""
        return None

    def move_timer(self, rules: RuleSet) -> Callable[[Any], int] | None:
        """Sports: (round) -> seconds the seat to act has for its move; None: the host's timer."""
        return None

    @property
    def per_move_timer(self) -> bool:
        """The family times each move itself (it states ``move_timer``): the host's timer is unused."""
        return type(self).move_timer is not Family.move_timer

    def no_variant_nor_options(self, variant: str | None, options: dict | None) -> None:
        """For a family without variants or options: BadOptions when a host names one."""
        if variant:
            raise BadOptions(f"{self.name} has no variants")
        if options:
            raise BadOptions(f"{self.name} has no options")

    def played_options(self, rules: RuleSet) -> dict | None:
        """The host options a rule set was built with, by name (None without options)."""
        return None

    def rule_set_name(self, rules: RuleSet) -> str:
        """How messages name a rule set: the family and its variant."""
        return f"{rules.family} {rules.variant}" if rules.variant else rules.family

    # ---- what bots may infer --------------------------------------------------------------

    def forced_lead_order(self, rules: RuleSet) -> tuple[int, ...] | None:
        """The tiles, best first, of which the first dealt must lead a round led by the
        round-1 rule; None where that leader may lead any tile (a seat drawn by chance)."""
        return None

    def led_by_round_one_rule(self, rules: RuleSet, view: Any) -> bool:
        """Whether the round a seat sees was led by the round-1 rule with a forced tile: round
        1 itself (a round after a tie is too, but a view cannot tell a tie from a win)."""
        return self.forced_lead_order(rules) is not None and view.round_number == 1

    def side_round_scores(self, rules: RuleSet, last_seat: int, hands: Sequence[int]) -> list[int] | None:
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

    def round_json(self, result: Any) -> dict[str, Any]:
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
    round_won_by: str = "the side the round's end scores for (Family.score_round)"
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

    lone_zero_zero: int | str | None = None  # a hand of only 0-0 counts these points, or the host option so named; None: its pips
    points_rounded_to: int = 0  # a round's end points are rounded to the nearest multiple of this
    move_seconds: tuple[int, ...] = ()  # what a per-move timer gives a move
    option_words: Mapping[str, str] = {}  # how a screen states an option, "{value}" standing for its value
    lead_words: Mapping[str, LeadWords] = {}  # by variant ("" without variants); unnamed: LeadWords()

    def lead_words_of(self, variant: str) -> LeadWords:
        """The variant's words, a blank one filled in (the rule from ``phrases``, 0-0 as a double)."""
        words = self.lead_words.get(variant) or LeadWords()
        return LeadWords(words.rule or self.phrases.lead_rule, words.by_double,
                                words.by_zero_zero or words.by_double, words.by_other_tile)


@dataclass(frozen=True)
class RuleSet:
    """One configuration of a family, as a match plays it.

    The core (moves, transitions, the match loop) reads these fields, and asks ``kind``, the
    family, for the rules that differ between families. Built by ``Family.build``, once per
    configuration."""
    variant: str  # "" for a family without variants
    seats: int
    hand_size: int
    draws: bool  # undealt tiles form a boneyard to draw from
    teams: bool
    default_target: int
    chance: bool = False  # round 1 and after a tie a seat drawn by chance leads (opening_leader is drawn_leader)
    barred: int = 0  # tiles that may never open a round
    options: Any = None  # the host options, typed by the family (Goat's GoatOptions)
    kind: Family = field(repr=False, kw_only=True)  # whose methods are its rules

    # What the family states for all its rule sets, read from it (one place for each fact).

    @property
    def family(self) -> str:
        """The family's name, as services, records and messages read it."""
        return self.kind.name

    @property
    def sides(self) -> int:
        return 2 if self.teams else self.seats

    def side_of(self, seat: int) -> int:
        return seat % 2 if self.teams else seat

    def seats_of(self, side: int) -> tuple[int, ...]:
        return tuple(s for s in range(self.seats) if self.side_of(s) == side)

    @property
    def undealt(self) -> int:
        return 28 - self.seats * self.hand_size

    @property
    def name(self) -> str:
        """How messages name the rule set (its family says: "block-4", "goat koza")."""
        return self.kind.rule_set_name(self)

    # The rules only some families have, settled once per rule set when it is built (the
    # core reads them every round, so an attribute, not a call): None where the family has none.
    tally: Callable[..., tuple[tuple[int, ...], Any]] | None = field(init=False, repr=False, compare=False)
    round_extras: Callable[[Any, tuple[int, ...], Any], Any] | None = field(init=False, repr=False, compare=False)
    redeal: Callable[[Sequence[int]], bool] | None = field(init=False, repr=False, compare=False)
    move_timer: Callable[[Any], int] | None = field(init=False, repr=False, compare=False)
    # The family's, copied when built as every match's start and round's start read them.
    four_ends: bool = field(init=False, repr=False, compare=False)  # the first double is a spinner (All Fives)
    targets: tuple[int, ...] = field(init=False, repr=False, compare=False)  # the targets a host may choose

    def __post_init__(self) -> None:
        kind = self.kind
        object.__setattr__(self, "four_ends", kind.four_ends)
        object.__setattr__(self, "targets", kind.targets)
        for rule in ("tally", "round_extras", "redeal", "move_timer"):
            object.__setattr__(self, rule, getattr(kind, rule)(self))


def check_seats(family: str, seats: int | None, allowed: tuple[int, ...], default: int) -> int:
    if seats is None:
        return default
    if seats not in allowed:
        raise BadOptions(f"{family} is played by {' or '.join(map(str, allowed))} players, not {seats}")
    return seats


def check_teams(family: str, seats: int, teams: bool | None) -> bool:
    """Teams (0+2 against 1+3) are a host option at four seats; solo is the default."""
    if teams and seats != 4:
        raise BadOptions(f"{family} is played in teams only by 4 players")
    return bool(teams)


def check_target(rules: RuleSet, target: int) -> None:
    if target not in rules.targets:
        raise BadOptions(f"target {target} is not offered; choose one of {', '.join(map(str, rules.targets))}")


class PlainFamily(Family):
    """A family without variants or host options, whose rule set follows from the seats
    and teams alone (``configure_shape``)."""

    def configure(self, variant: str | None, seats: int | None, teams: bool | None,
                  options: dict | None) -> RuleSet:
        self.no_variant_nor_options(variant, options)
        return self.configure_shape(seats, teams)

    @abstractmethod
    def configure_shape(self, seats: int | None, teams: bool | None) -> RuleSet:
        """The rule set of that many seats and team setting, unset ones the family's defaults."""


def _key(variant: str | None, seats: int | None, teams: bool | None, options: Mapping | None) -> tuple | None:
    """``build``'s choices as a cache key (types kept: an option's True is not its 1), or None
    when one cannot be hashed. No variant and "" are one choice."""
    try:
        chosen = None if options is None else tuple((name, type(value), value) for name, value in options.items())
        key = (variant or "", type(seats), seats, type(teams), teams, chosen)
        hash(key)
    except (TypeError, AttributeError):
        return None
    return key
