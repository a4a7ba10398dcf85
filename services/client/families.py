"""What the server plays, as the client reads it from DescribeRules: each family's variants,
seat counts and teams, targets, host options with their values and presets, and what its
table shows beyond the common line; the chat phrases, bot strengths and turn timers.

The client keeps no copy of the rules, and holds none of the server's code: ``use``
installs the description the session fetched (api.MatchApi.rules), and every screen,
question and check asks ``current()``. Before a server has answered, ``current()`` holds no
family (the command line's choices are checked once it has: services/cli/play.py). A
``Setup`` is what the player chose; what they left unset (None) takes the server's default,
and the server checks every request again, its refusal naming what it allows.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Mapping

from domino.match.v1 import match_service_pb2 as pb
from services.common import bot_strengths, rule_options

Tile = tuple[int, int]  # (high, low), as view_reading.py shows them
TEAM_SEATS = 4  # teams are always 0+2 against 1+3


@dataclass(frozen=True)
class Shape:
    seats: int
    teams: bool
    hand_size: int = 0
    boneyard: bool = False
    strengths: tuple[str, ...] = ()  # the names of the bot strengths offered here, weakest first ((): every one)
    default_strength: str = ""


@dataclass(frozen=True)
class Strength:
    """A bot strength as DescribeRules names it: ``name`` is what a player types and a bot's
    id holds ("bot:greedy:1"), ``value`` what requests carry (BotStrength)."""
    name: str
    description: str
    value: int


@dataclass(frozen=True)
class Option:
    name: str
    help: str
    values: tuple[object, ...]
    words: str = ""  # "0-0 alone counts {value}"; "": the name and the value

    def text(self, value: object) -> str:
        shown = option_value_text(value)
        return self.words.replace("{value}", shown) if self.words else f"{self.name} {shown}"


@dataclass(frozen=True)
class Lead:
    """Round 1's rule in words, and why the one tile that may open such a round opens it
    ("{name}": the rule set's title): DescribeRules' LeadWords."""
    rule: str = ""
    by_double: str = ""
    by_zero_zero: str = ""
    by_other_tile: str = ""


@dataclass(frozen=True)
class Variant:
    name: str
    shapes: tuple[Shape, ...]
    default_shape: Shape
    default_target: int = 0
    presets: Mapping[str, object] = field(default_factory=dict, hash=False)
    by_chance: bool = False  # round 1's leader is drawn by chance and may lead any tile
    lead: Lead = Lead()

    @property
    def seat_counts(self) -> tuple[int, ...]:
        return tuple(sorted({s.seats for s in self.shapes}))

    def shape(self, seats: int, teams: bool | None = None) -> Shape | None:
        """The shape played at ``seats`` (with ``teams`` when said; else the default there)."""
        at = [s for s in self.shapes if s.seats == seats]
        if self.default_shape in at:
            at.insert(0, self.default_shape)
        return next((s for s in at if teams is None or s.teams == teams), None)


@dataclass(frozen=True)
class Family:
    rules: str
    title: str
    target_words: str = "to {target}"
    scoring: str = ""
    variant_list: tuple[Variant, ...] = ()  # a family without variants has one, named ""
    default_variant: str = ""
    targets: tuple[int, ...] = ()
    options: tuple[Option, ...] = ()
    lower_is_better: bool = False
    per_move_timer: bool = False
    four_ends: bool = False
    round_columns: tuple[tuple[str, str], ...] = ()  # (key, header)
    lone_zero_zero: int | str | None = None  # points, or the option that says; None: its pips
    never_leads: frozenset[Tile] = frozenset()
    points_rounded_to: int = 0
    move_seconds: tuple[int, ...] = ()

    @property
    def variants(self) -> tuple[str, ...]:
        """The variants a host names, in the order a screen lists them (() without variants)."""
        return tuple(v.name for v in self.variant_list if v.name)

    def variant(self, name: str = "") -> Variant:
        """The variant of that name; the default one for "" or a name it has not."""
        found = next((v for v in self.variant_list if v.name == name), None)
        found = found or next((v for v in self.variant_list if v.name == self.default_variant), None)
        return found or (self.variant_list[0] if self.variant_list else Variant("", (), Shape(TEAM_SEATS, False)))

    @property
    def seats(self) -> tuple[int, ...]:
        """Every seat count the family is played by."""
        return tuple(sorted({s.seats for v in self.variant_list for s in v.shapes}))

    @property
    def default_seats(self) -> int:
        return self.variant(self.default_variant).default_shape.seats

    def variant_for_seats(self, seats: int | None) -> str | None:
        """The variant a seat count names, where each variant is played by seat counts of its own."""
        if seats is None or not self.variants:
            return None
        playing = [v.name for v in self.variant_list if seats in v.seat_counts]
        return playing[0] if len(playing) == 1 and self.variants_fix_seats else None

    @property
    def variants_fix_seats(self) -> bool:
        """Each variant is played by one seat count (Egyptian's)."""
        return bool(self.variants) and all(len(v.seat_counts) == 1 for v in self.variant_list)

    @property
    def teams_choice(self) -> bool:
        """Some of its shapes are played in teams and some solo."""
        teams = {s.teams for v in self.variant_list for s in v.shapes}
        return len(teams) == 2

    @property
    def always_teams(self) -> bool:
        return all(s.teams for v in self.variant_list for s in v.shapes) and bool(self.variant_list)

    @property
    def never_teams(self) -> bool:
        return not any(s.teams for v in self.variant_list for s in v.shapes)

    def option(self, name: str) -> Option | None:
        return next((o for o in self.options if o.name == name), None)

    def target_text(self, target: int) -> str:
        return self.target_words.replace("{target}", str(target))


@dataclass(frozen=True)
class Rules:
    """One DescribeRules answer, read."""
    families: Mapping[str, Family] = field(hash=False)
    chat_phrases: tuple[int, ...] = ()  # ChatPhrase values, in the order a screen offers them
    strengths: tuple[Strength, ...] = ()  # weakest first
    turn_timers: tuple[int, ...] = ()
    default_turn_timer: int = 0

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self.families)

    @property
    def default(self) -> str:
        """The family of a request naming none."""
        return next(iter(self.families), "")

    @property
    def variants(self) -> tuple[str, ...]:
        return tuple(v for f in self.families.values() for v in f.variants)

    @property
    def seat_counts(self) -> tuple[int, ...]:
        return tuple(sorted({n for f in self.families.values() for n in f.seats}))

    @property
    def options(self) -> dict[str, Option]:
        """Every family's host options by name (the first family stating one describes it)."""
        found: dict[str, Option] = {}
        for family in self.families.values():
            for option in family.options:
                found.setdefault(option.name, option)
        return found

    @property
    def strength_names(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.strengths)

    def strengths_text(self) -> str:
        """"random plays any legal move; greedy …": the strengths for a help text."""
        return "; ".join(f"{s.name} {s.description}" for s in self.strengths)

    def strength_value(self, name: str) -> int:
        """The BotStrength a request carries for a strength's name (UNSPECIFIED, the server's
        default, for a name it did not describe)."""
        return next((s.value for s in self.strengths if s.name == name), pb.BOT_STRENGTH_UNSPECIFIED)

    def strength_name(self, value: int) -> str:
        """A BotStrength's name: the description's, else the enum's own ("greedy")."""
        return next((s.name for s in self.strengths if s.value == value), None) or _enum_name(value)

    @classmethod
    def of(cls, message: pb.DescribeRulesResponse) -> "Rules":
        strengths = tuple(Strength(s.name or _enum_name(s.strength), s.description, s.strength)
                          for s in message.bot_strengths)
        named = {s.value: s.name for s in strengths}
        return cls({f.name: _family(f, named) for f in message.families}, tuple(message.chat_phrases),
                   strengths, tuple(message.turn_timers), message.default_turn_timer)


def _enum_name(value: int) -> str:
    """BOT_STRENGTH_GREEDY -> "greedy"; a value this client's protos lack, by its number."""
    try:
        return bot_strengths.name_on_the_wire(pb.BotStrength.Name(value))
    except ValueError:
        return f"strength {value}"


def _shape(message: pb.SeatShape, named: Mapping[int, str]) -> Shape:
    return Shape(message.seats, message.teams, message.hand_size, message.boneyard,
                 tuple(named.get(v) or _enum_name(v) for v in message.bot_strengths),
                 (named.get(message.default_bot_strength) or _enum_name(message.default_bot_strength))
                 if message.default_bot_strength else "")


def _family(message: pb.RuleFamily, named: Mapping[int, str]) -> Family:
    table = message.table
    lone = table.WhichOneof("lone_zero_zero")
    variants = tuple(Variant(v.name, tuple(_shape(s, named) for s in v.shapes), _shape(v.default_shape, named),
                             v.default_target,
                             {p.name: rule_options.value_of(p.value) for p in v.presets}, v.leader_by_chance,
                             Lead(v.lead.rule, v.lead.by_double, v.lead.by_zero_zero, v.lead.by_other_tile))
                     for v in message.variants)
    return Family(
        message.name, message.phrases.title or message.name, message.phrases.target or "to {target}",
        message.phrases.scoring, variants, message.default_variant, tuple(message.targets),
        tuple(Option(o.name, o.help, tuple(rule_options.value_of(v) for v in o.values), o.words) for o in message.options),
        message.lower_is_better, message.per_move_timer, message.four_ends,
        tuple((c.key, c.header) for c in message.round_columns),
        getattr(table, lone) if lone else None,
        frozenset((max(t.low, t.high), min(t.low, t.high)) for t in table.never_leads),
        table.points_rounded_to, tuple(table.move_seconds))


# ---- the session's description ------------------------------------------------------------

_session: Rules | None = None


NONE = Rules({})  # before any server has described its rules


def use(rules: Rules | None) -> None:
    """The description every screen reads from now on (None: none again)."""
    global _session
    _session = rules


def current() -> Rules:
    return _session or NONE


def family(rules: str) -> Family:
    """A family of the description; one it does not hold is shown by its name and nothing else."""
    return current().families.get(rules) or Family(rules, rules or "?")


def variant_of(rules: str, variant: str) -> Variant:
    return family(rules).variant(variant)


def title(rules: str, variant: str = "") -> str:
    """How screens name a rule set: "Egyptian draw-2", "All Fives", "Goat koza"."""
    name = family(rules).title
    return f"{name} {variant}" if variant else name


# ---- in words ---------------------------------------------------------------------------


def setup_text(rules: str, variant: str, seats: int, teams: bool) -> str:
    """``All Fives · 2 seats · solo``: the family, its variant, the seats and the sides."""
    return f"{title(rules, variant)} · {seats} seats · {'teams' if teams else 'solo'}"


def target_text(rules: str, target: int) -> str:
    return family(rules).target_text(target)


def timer_text(rules: str, seconds: int) -> str:
    """The host's turn timer; a family with a per-move timer times each move itself."""
    fam = family(rules)
    if fam.per_move_timer:
        return f"per-move timer {'/'.join(map(str, fam.move_seconds))} s" if fam.move_seconds else "per-move timer"
    return f"{seconds} s turns" if seconds else "no turn timer"


def options_of(message) -> dict:
    """The host options a MatchView or a room's MatchOptions holds, by name (its rule_options)."""
    try:
        return rule_options.given(message) or {}
    except rule_options.UnreadableOptions:
        return {}  # a server's answer the client cannot read: none shown


def option_of(view: pb.MatchView, name: str) -> object:
    """The value of a host option the match is played with (its variant's preset when unset)."""
    played = options_of(view)
    if name in played:
        return played[name]
    return variant_of(view.rules, view.variant).presets.get(name)


def rules_of(variant: str | None) -> str | None:
    """The family a variant belongs to (variant names are unique across families)."""
    return next((f.rules for f in current().families.values() if variant in f.variants), None)


def _default_rules() -> str:
    return current().default


@dataclass(frozen=True)
class Setup:
    """A match as the player set it up; None takes the server's default."""
    rules: str = field(default_factory=_default_rules)
    variant: str = ""
    seats: int | None = None
    teams: bool | None = None
    target: int | None = None
    host_options: dict | None = field(default=None, hash=False)  # the family's options, by name (rule_options)

    @property
    def seat_count(self) -> int:
        """The seats the match will have, defaults included."""
        chosen = family(self.rules).variant(self.variant)
        if len(chosen.seat_counts) == 1:
            return chosen.seat_counts[0]
        return self.seats or chosen.default_shape.seats


def offered_strengths(setup: Setup) -> tuple[tuple[str, ...], str]:
    """(the bot strengths offered for ``setup``'s family and team setting, weakest first; the
    one to pick when the player names none): the server offers a strength only where its
    bots' ladder shows it stronger than the one below."""
    rules = current()
    every = rules.strength_names
    chosen = settled(setup)
    variant = family(chosen.rules).variant(chosen.variant)
    shape = variant.shape(chosen.seat_count, chosen.teams) or variant.default_shape
    offered = shape.strengths or every
    default = shape.default_strength or (offered[0] if offered else "")
    return offered, default


def seat_count(rules: str, variant: str, seats: int | None) -> int:
    return Setup(rules, variant, seats).seat_count


def settled(setup: Setup) -> Setup:
    """The setup with the variant it needs: the one its seat count names where each variant
    has its own, else the family's default; families without variants have none."""
    fam = family(setup.rules)
    if setup.variant or not fam.variants:
        return setup
    return replace(setup, variant=fam.variant_for_seats(setup.seats) or fam.default_variant)


def teams_question(rules: str, variant: str, seats: int) -> bool:
    """Whether the host chooses between teams and solo at this many seats."""
    shapes = family(rules).variant(variant).shapes
    return {s.teams for s in shapes if s.seats == seats} == {True, False}


def default_teams(rules: str, variant: str, seats: int | None = None) -> bool:
    """Teams unless chosen otherwise: where the variant's default shape (at ``seats``) is."""
    chosen = family(rules).variant(variant)
    shape = chosen.shape(seats) if seats is not None else None
    return (shape or chosen.default_shape).teams


def default_target(rules: str, variant: str) -> int:
    return family(rules).variant(variant).default_target


def problem(setup: Setup) -> str | None:
    """What is wrong with a setup, in the player's words; None when the server should take it."""
    rules = current()
    fam = rules.families.get(setup.rules)
    if fam is None:
        return f"unknown rules {setup.rules!r}; choose one of {', '.join(rules.names)}"
    if setup.variant and setup.variant not in fam.variants:
        if not fam.variants:
            return f"{fam.title} has no variants"
        return f"{fam.title} variants are {', '.join(fam.variants)}, not {setup.variant}"
    if setup.seats is not None:
        allowed = fam.variant(setup.variant).seat_counts if setup.variant else fam.seats
        if setup.seats not in allowed:
            return (f"{title(setup.rules, setup.variant)} is played by {' or '.join(map(str, allowed))} players, "
                    f"not {setup.seats}")
    seats = setup.seat_count
    if setup.teams and seats != TEAM_SEATS:
        return f"teams need four seats; {title(setup.rules, setup.variant)} has {seats}"
    shapes = [s for s in fam.variant(setup.variant).shapes if s.seats == seats]
    if setup.teams and not any(s.teams for s in shapes):
        return f"{fam.title} is played solo"
    if setup.teams is False and shapes and all(s.teams for s in shapes):
        return f"{fam.title} is played by two pairs (teams)"
    if setup.target is not None and setup.target not in fam.targets:
        return f"{fam.title} plays to {', '.join(map(str, fam.targets))}, not {setup.target}"
    if setup.host_options:
        unknown = [name for name in setup.host_options if fam.option(name) is None]
        if unknown:
            return f"--option sets {_options_owners(unknown)}"
    return None


def owner_of(names) -> str | None:
    """The one family whose options these all are (None: none or several): the family a
    command line naming options but no family means."""
    owners = [f.rules for f in current().families.values() if all(f.option(n) for n in names)]
    return owners[0] if len(owners) == 1 else None


def _options_owners(names: list[str]) -> str:
    """``Goat's options (--rules goat)``: the families whose options these are."""
    owners = [f for f in current().families.values() if any(f.option(n) for n in names)]
    if not owners:
        return "a family's options"
    return (" or ".join(f"{f.title}'s" for f in owners) + " options ("
            + " or ".join(f"--rules {f.rules}" for f in owners) + ")")


_TRUE, _FALSE = ("on", "yes", "true", "1", "y"), ("off", "no", "false", "0", "n")


def parse_option(text: str) -> tuple[str, object]:
    """``zero_zero=25``, ``redeal=off``, ``fish=one``: a host option (any family's) as
    (name, value); ValueError says why not."""
    options = current().options
    name, sep, value = text.partition("=")
    name, value = name.strip().lower().replace("-", "_"), value.strip().lower()
    option = options.get(name)
    if not sep or option is None:
        raise ValueError(f"{text!r}: say NAME=VALUE, NAME one of {', '.join(options)}")
    for allowed in option.values:
        if isinstance(allowed, bool):
            if value in (_TRUE if allowed else _FALSE):
                return name, allowed
        elif value == str(allowed).lower():
            return name, allowed
    shown = [option_value_text(v) for v in option.values]
    raise ValueError(f"{name} is {shown[0] if len(shown) == 1 else ', '.join(shown[:-1]) + ' or ' + shown[-1]}, "
                     f"not {value!r}")


def options_text(options: dict, rules: str | None = None) -> str:
    """``0-0 alone counts 10 · redeal on · remembered on · fish all``"""
    known = family(rules).options if rules else tuple(current().options.values())
    return " · ".join(o.text(options[o.name]) for o in known if o.name in options)


def option_value_text(value: object) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)
