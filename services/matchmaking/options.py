"""What a request may ask for: the options a match is played with, checked against the
rules engine's own lists (docs/rules.md: every family, its seats, teams, targets, the turn
timer and its host options) plus whether spectators may watch, bot strengths and request ids.

What a request leaves unset takes the default DescribeRules states (services/match/describe.py
reads the same registry): the first family it lists, the family's default_variant, the
variant's default shape (at the seat count or team setting asked for), its default_target,
the default_turn_timer, and the shape's default_bot_strength. Each refusal names the field
at fault (``InvalidOptions.bad_field``), checked in the order a request's fields depend on
each other: the family, its variant, the shape, the host options, the target, the timer.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import asdict, dataclass
from typing import Iterator

from services.rules.errors import BadOptions
from services.rules.facets import Shape
from services.rules.family import Family
from services.rules.registry import families, family, find
from services.rules.rulesets import DEFAULT_TURN_TIMER, check_target, check_turn_timer, rule_set

from services.common import bot_strengths
from services.common.bot_ladder import Ladder, ladder
from services.common.bot_strengths import OFFERED
from services.history.summary import rating_key

from .errors import InvalidOptions, InvalidRequest, StrengthNotOffered


@dataclass(frozen=True)
class Options:
    rules: str
    variant: str
    teams: bool
    target: int
    turn_timer: int
    seats: int = 0  # the number of seats (0 in options stored before it was kept: the variant's)
    host_options: dict | None = None  # the family's host options as played, None without (stored as "goat")
    spectators: bool = False  # players without a seat may watch (rooms: the host decides; public tables: yes)

    @classmethod
    def chosen(cls, rules: str = "", variant: str = "", teams: bool | None = None, target: int | None = None,
               turn_timer: int | None = None, seats: int | None = None, host_options: dict | None = None,
               spectators: bool = False) -> "Options":
        """Checked options; unset ones (``rules`` and ``variant`` "") take DescribeRules'
        defaults. InvalidOptions, naming the field, otherwise."""
        named = _family(rules)
        variant = _variant(named, variant)
        shape = _shape(named, variant, seats, teams)
        with _refused_as("rule_options"):
            ruleset = named.build(variant or None, shape.seats, shape.teams, host_options)
        target = named.default_target(variant) if target is None else target
        with _refused_as("target"):
            check_target(ruleset, target)
        turn_timer = DEFAULT_TURN_TIMER if turn_timer is None else turn_timer
        with _refused_as("turn_timer_seconds"):
            check_turn_timer(turn_timer)
        return cls(named.name, variant, ruleset.teams, target, turn_timer, ruleset.seats,
                   named.played_options(ruleset), bool(spectators))

    def changed(self, rules: str | None = None, variant: str | None = None, teams: bool | None = None,
                target: int | None = None, turn_timer: int | None = None, seats: int | None = None,
                host_options: dict | None = None, spectators: bool | None = None) -> "Options":
        """These options with the given ones changed. Another family keeps what still
        applies (``_in_family``); another variant or seat count without
        ``teams`` takes its default (teams for block-4); the family's host options (Goat's)
        carry over within a variant and take the new preset with another; the timer and
        spectators carry over."""
        same_family = rules is None or rules == self.rules
        rules = rules or self.rules
        if not same_family:
            return self._in_family(rules, variant, teams, target, turn_timer, seats, host_options, spectators)
        variant = self.variant if variant is None else variant
        named = find(rules)  # unknown rules are refused by ``chosen``
        if same_family and seats is None and not (named is not None and named.variants_fix_seats):
            seats = self.seats
        if teams is None and same_family and (variant, seats) == (self.variant, self.seats):
            teams = self.teams
        if same_family and variant == self.variant and self.host_options is not None:
            host_options = {**self.host_options, **(host_options or {})}
        if target is None and same_family:
            target = self.target  # a family's targets are the same for all its variants and seats
        return Options.chosen(rules, variant, teams, target, self.turn_timer if turn_timer is None else turn_timer,
                              seats, host_options, self.spectators if spectators is None else spectators)

    def _in_family(self, rules: str, variant: str | None, teams: bool | None, target: int | None,
                   turn_timer: int | None, seats: int | None, host_options: dict | None,
                   spectators: bool | None) -> "Options":
        """Another family, keeping what still applies: what the host named, else this room's
        seats, teams and target where the family allows them, else the family's defaults; an
        unnamed variant is the first of the family's that fits (its default first, as clients show)."""
        timer = self.turn_timer if turn_timer is None else turn_timer
        watch = self.spectators if spectators is None else spectators
        named = find(rules)  # unknown rules are refused by ``chosen``
        variants = (variant,) if variant else (named.variants if named is not None else ()) or ("",)  # "": unnamed
        shapes = [(seats, teams)]
        if seats is None and teams is None:
            shapes.insert(0, (self.seats, self.teams))
        targets = [target] if target is not None else [self.target, None]
        attempts = [(name, shape, goal) for shape in shapes for goal in targets for name in variants]
        first_refusal: InvalidOptions | None = None
        for name, (how_many, together), goal in attempts:
            try:
                return Options.chosen(rules, name, together, goal, timer, how_many, host_options, watch)
            except InvalidOptions as e:
                first_refusal = first_refusal or e
        raise first_refusal if first_refusal is not None else InvalidOptions(f"no options fit {rules}")

    @property
    def name(self) -> str:
        return rule_set(self.rules, self.variant, self.teams, family(self.rules).seats_to_build(self.seats),
                        self.host_options).name

    def as_dict(self) -> dict:
        """As stored: the host options under their first name, "goat" (stored rooms and
        tables keep their shape whatever the family)."""
        data = asdict(self)
        data["goat"] = data.pop("host_options")
        return data

    @classmethod
    def from_dict(cls, data: dict) -> "Options":
        """Options as stored (those stored before ``seats`` or ``spectators`` were kept take
        the variant's seats and no spectators)."""
        data = dict(data)
        data["host_options"] = data.pop("goat", None)
        if not data.get("seats"):
            data["seats"] = rule_set(data["rules"], data["variant"], data["teams"]).seats
        return cls(**data)


@contextmanager
def _refused_as(field: str) -> Iterator[None]:
    """The rules engine's refusal, in its own words, as InvalidOptions naming ``field``."""
    try:
        yield
    except BadOptions as e:
        raise InvalidOptions(str(e), field=field) from None


def _family(rules: str) -> Family:
    """The family named, or the first DescribeRules lists for none."""
    if not rules:
        return families()[0]
    with _refused_as("rules"):
        found = family(rules)
    return found


def _variant(named: Family, variant: str) -> str:
    """The variant named, or the family's default_variant for none."""
    if not variant:
        return named.default_variant
    if variant not in named.variants:
        with _refused_as("variant"):
            named.build(variant)  # the family's own words for a variant it does not have
        raise InvalidOptions(f"{named.name} has no variant {variant[:40]!r}", field="variant")
    return variant


def _shape(named: Family, variant: str, seats: int | None, teams: bool | None) -> Shape:
    """The seat count and team setting asked for, the unset one (or both) from the variant's
    default shape where the variant offers that, else from the first of its shapes that fits."""
    shapes = named.shapes(variant)
    fitting = [s for s in shapes if seats in (None, s.seats) and teams in (None, s.teams)]
    if fitting:
        default = named.default_shape(variant)
        preferred = Shape(default.seats if seats is None else seats, default.teams if teams is None else teams)
        return preferred if preferred in fitting else fitting[0]
    field = "seat_count" if seats is not None and all(s.seats != seats for s in shapes) else "teams"
    with _refused_as(field):
        named.build(variant or None, seats, teams)  # the family's own words for a shape it does not offer
    raise InvalidOptions(f"{named.name} {variant} is not played by {seats} {'in teams' if teams else 'solo'}",
                         field=field)


def queue_kinds() -> list[tuple[str, str, bool, int]]:
    """Every (rules, variant, teams, seats) a public table can be asked for: one queue each."""
    return [(f.name, variant, shape.teams, shape.seats)
            for f in families() for variant in f.variants or ("",) for shape in f.shapes(variant)]


def default_strength(options: Options, known: Ladder | None = None) -> str:
    """The bots of a request naming no strength: the shape's default_bot_strength, as
    DescribeRules states it (the default strength, or the offered one at its level)."""
    return (known or ladder()).standing_for(rating_key(options.rules, options.teams), bot_strengths.DEFAULT)


def check_strength(strength: str, options: Options | None = None, known: Ladder | None = None) -> None:
    """Players seat only the strengths offered to them (services.common.bot_strengths); one
    still tried out in the arena is refused as unknown. With ``options``, only those the
    ladder offers in their family and team setting (``Ladder.offered``, docs/bots.md
    "Offered strengths"): the refusal names the level it plays at there and what is offered."""
    if strength not in OFFERED:
        raise StrengthNotOffered(f"unknown bot strength {strength[:40]!r}; choose one of {', '.join(OFFERED)}")
    refusal = None if options is None else not_offered(strength, options, known)
    if refusal is not None:
        raise StrengthNotOffered(refusal)


def not_offered(strength: str, options: Options, known: Ladder | None = None) -> str | None:
    """Why players may not seat ``strength`` bots with these options, or None when they may."""
    known = known or ladder()
    key = rating_key(options.rules, options.teams)
    offered = known.offered(key)
    if strength in offered:
        return None
    where = f"{family(options.rules).phrases.title or options.rules} {'in teams' if options.teams else 'solo'}"
    return (f"{strength} bots are not offered in {where}: the bots' ladder does not tell them apart from "
            f"{known.standing_for(key, strength)} there; choose {' or '.join(offered)}")


def check_request_id(request_id: str) -> None:
    if not request_id:
        raise InvalidRequest("request_id is required (any unique string per request)", field="request_id")
    if len(request_id) > 200:
        raise InvalidRequest("request_id is longer than 200 characters", field="request_id")
