"""What a CreateMatch names, checked field by field, with the defaults the API promises.

A request naming no family gets the first the registry lists (DescribeRules' first), no
variant its family's ``default_variant``, no team setting the variant's default at that seat
count, no target its ``default_target``, no timer DescribeRules' ``default_turn_timer``, and
no host options the variant's presets (proto/domino/match/v1/match_service.proto). Each
choice is checked on its own, in the order a request's fields are read, so the refusal
names the field that is wrong (a BadRequest) and never blames the variant for a bad seat
count; an unknown family is ``INVALID_REQUEST``, a variant or any other choice the family
does not offer ``INVALID_OPTIONS``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .errors import InvalidOptions, InvalidRequest
from services.rules.errors import BadOptions
from services.rules import registry
from services.rules.facets import Shape
from services.rules.family import Family
from services.rules.rulesets import RuleSet, check_target, check_turn_timer, DEFAULT_TURN_TIMER


@dataclass(frozen=True)
class Chosen:
    family: Family
    variant: str
    rules: RuleSet
    target: int
    turn_timer: int
    options: dict | None  # the host options as played (the family's played_options)


def chosen(rules: str, variant: str, teams: bool | None, target: int | None, turn_timer: int | None,
           seat_count: int, options: dict[str, Any] | None) -> Chosen:
    """The match a request names, defaults filled in; InvalidRequest names the field otherwise."""
    family = _family(rules)
    variant = variant or family.default_variant
    if variant not in (family.variants or ("",)):
        offered = ", ".join(family.variants) if family.variants else "none (leave it empty)"
        raise InvalidOptions(f"{family.name} has no variant {variant[:40]!r}; its variants: {offered}", "variant")
    shapes = family.shapes(variant)
    _check_shape(family, variant, shapes, seat_count, teams)
    ruleset, refused = _built(family, variant, seat_count, teams, options)
    target = ruleset.default_target if target is None else target
    try:
        check_target(ruleset, target)
    except BadOptions as e:
        raise InvalidOptions(str(e), "target") from None
    turn_timer = DEFAULT_TURN_TIMER if turn_timer is None else turn_timer
    try:
        check_turn_timer(turn_timer)
    except BadOptions as e:
        raise InvalidOptions(str(e), "turn_timer_seconds") from None
    if refused is not None:
        raise InvalidOptions(str(refused), "rule_options")
    return Chosen(family, variant, ruleset, target, turn_timer, family.played_options(ruleset))


def _built(family: Family, variant: str, seat_count: int, teams: bool | None,
           options: dict[str, Any] | None) -> tuple[RuleSet, BadOptions | None]:
    """The rule set, built once (the aggregate's fold then finds the same object); when the
    host options are refused, the rule set without them and the refusal, which waits for
    the target and timer checks as its field comes after theirs. InvalidOptions on the
    team setting, which comes before."""
    seats = family.seats_to_build(seat_count)
    try:
        return family.build(variant or None, seats, teams, options or None), None
    except BadOptions as e:
        if not options:
            raise InvalidOptions(str(e), "teams") from None
        refused = e
    try:
        return family.build(variant or None, seats, teams), refused
    except BadOptions as e:
        raise InvalidOptions(str(e), "teams") from None


def _family(rules: str) -> Family:
    if not rules:
        return registry.families()[0]
    found = registry.find(rules)
    if found is None:
        raise InvalidRequest(f"unknown rules {rules[:40]!r}; this server plays: {', '.join(registry.names())}",
                             "rules")
    return found


def _check_shape(family: Family, variant: str, shapes: tuple[Shape, ...], seats: int, teams: bool | None) -> None:
    name = f"{family.name} {variant}" if variant else family.name
    counts = sorted({shape.seats for shape in shapes})
    if seats not in counts:
        raise InvalidOptions(f"{name} is played by {' or '.join(map(str, counts))} players, not {seats}", "seats")
    if teams is not None and Shape(seats, teams) not in shapes:
        how = "in teams" if teams else "solo"
        raise InvalidOptions(f"{name} is not played {how} by {seats} players", "teams")
