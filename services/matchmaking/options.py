"""What a request may ask for: the options a match is played with, checked against the
rules engine's own lists (docs/rules.md: every family, its seats, teams, targets, the turn
timer and Goat's options) plus whether spectators may watch, bot strengths and request ids."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from services.match.rules.errors import BadOptions
from services.match.rules.families.registry import families, family, find
from services.match.rules.rulesets import match_options, rule_set

from services.common.bot_ladder import Ladder, ladder
from services.common.bot_strengths import OFFERED
from services.history.summary import rating_key

from .errors import InvalidOptions, InvalidRequest

DEFAULT_RULES = "egyptian"


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
    def chosen(cls, rules: str, variant: str, teams: bool | None = None, target: int | None = None,
               turn_timer: int | None = None, seats: int | None = None, host_options: dict | None = None,
               spectators: bool = False) -> "Options":
        """Checked options; unset ones take the rule set's defaults. InvalidOptions otherwise."""
        rules = rules or DEFAULT_RULES
        try:
            ruleset, target, turn_timer = match_options(rules, variant, teams, target, turn_timer, seats, host_options)
        except BadOptions as e:
            raise InvalidOptions(str(e)) from None
        played = family(rules).played_options(ruleset)
        return cls(rules, variant or "", ruleset.teams, target, turn_timer, ruleset.seats, played, bool(spectators))

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


def queue_kinds() -> list[tuple[str, str, bool, int]]:
    """Every (rules, variant, teams, seats) a public table can be asked for: one queue each."""
    return [(f.name, variant, shape.teams, shape.seats)
            for f in families() for variant in f.variants or ("",) for shape in f.shapes(variant)]


def check_strength(strength: str, options: Options | None = None, known: Ladder | None = None) -> None:
    """Players seat only the strengths offered to them (services.common.bot_strengths); one
    still tried out in the arena is refused as unknown. With ``options``, only those the
    ladder offers in their family and team setting (``Ladder.offered``, docs/bots.md
    "Offered strengths"): the refusal names the level it plays at there and what is offered."""
    if strength not in OFFERED:
        raise InvalidRequest(f"unknown bot strength {strength[:40]!r}; choose one of {', '.join(OFFERED)}")
    refusal = None if options is None else not_offered(strength, options, known)
    if refusal is not None:
        raise InvalidRequest(refusal)


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
        raise InvalidRequest("request_id is required (any unique string per request)")
    if len(request_id) > 200:
        raise InvalidRequest("request_id is longer than 200 characters")
