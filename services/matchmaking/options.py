"""What a request may ask for: the options a match is played with, checked against the
rules engine's own lists (docs/rules.md §1.1: target 51/71/101/151; turn timer 30/45/60/90 s or
0 = unlimited, default 45; block-4 in teams or solo), bot strengths and request ids."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from services.match.rules.errors import BadOptions
from services.match.rules.rulesets import (
    EGYPTIAN_VARIANTS, FAMILIES, match_options, rule_set,
)

from services.bots.strategies import STRATEGIES

from .errors import InvalidOptions, InvalidRequest

DEFAULT_RULES = "egyptian"


@dataclass(frozen=True)
class Options:
    rules: str
    variant: str
    teams: bool
    target: int
    turn_timer: int

    @classmethod
    def chosen(cls, rules: str, variant: str, teams: bool | None = None, target: int | None = None,
               turn_timer: int | None = None) -> "Options":
        """Checked options; unset ones take the variant's defaults. InvalidOptions otherwise."""
        rules = rules or DEFAULT_RULES
        try:
            ruleset, target, turn_timer = match_options(rules, variant, teams, target, turn_timer)
        except BadOptions as e:
            raise InvalidOptions(str(e)) from None
        return cls(rules, variant, ruleset.teams, target, turn_timer)

    def changed(self, rules: str | None = None, variant: str | None = None, teams: bool | None = None,
                target: int | None = None, turn_timer: int | None = None) -> "Options":
        """These options with the given ones changed. A new variant without ``teams`` takes
        that variant's default (teams for block-4); target and timer carry over."""
        rules = rules or self.rules
        variant = variant or self.variant
        if teams is None and (rules, variant) == (self.rules, self.variant):
            teams = self.teams
        return Options.chosen(rules, variant, teams, self.target if target is None else target,
                              self.turn_timer if turn_timer is None else turn_timer)

    @property
    def seats(self) -> int:
        return rule_set(self.rules, self.variant, self.teams).seats

    def as_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> "Options":
        return cls(**data)


def queue_kinds() -> list[tuple[str, str, bool]]:
    """Every (rules, variant, teams) a public table can be asked for."""
    kinds = []
    for rules in FAMILIES:
        variants = EGYPTIAN_VARIANTS if rules == "egyptian" else ()
        for variant in variants:
            for teams in (True, False):
                try:
                    rule_set(rules, variant, teams)
                except BadOptions:
                    continue
                kinds.append((rules, variant, teams))
    return kinds


def check_strength(strength: str) -> None:
    """Bot strengths are the bots service's strategies (random, greedy, strong)."""
    if strength not in STRATEGIES:
        raise InvalidRequest(f"unknown bot strength {strength!r}; choose one of {', '.join(STRATEGIES)}")


def check_request_id(request_id: str) -> None:
    if not request_id:
        raise InvalidRequest("request_id is required (any unique string per request)")
    if len(request_id) > 200:
        raise InvalidRequest("request_id is longer than 200 characters")
