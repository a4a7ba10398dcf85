"""What each rule family lets a player choose, as the client asks for it: variants, seat
counts, teams, targets and Goat's options (docs/rules.md's table).

The client speaks only the public API, so it keeps its own copy of these lists; the
server checks every request again, and its refusal names what it allows. A ``Setup`` is
what the player chose; what they left unset (None) takes the server's default.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

NEVER, OPTION, ALWAYS = "never", "option", "always"  # teams: at four seats only


@dataclass(frozen=True)
class Family:
    rules: str
    title: str
    variants: tuple[str, ...] = ()
    default_variant: str = ""
    seats: tuple[int, ...] = ()  # the counts the host may choose; () when the variant fixes it
    default_seats: int = 4
    teams: str = NEVER
    targets: tuple[int, ...] = ()
    default_target: int = 0
    four_ends: bool = False  # All Fives: the spinner's up and down
    goat: bool = False


EGYPTIAN_SEATS = {"draw-2": 2, "block-3": 3, "block-4": 4}
EGYPTIAN_DEFAULT_TARGETS = {"draw-2": 71, "block-3": 101, "block-4": 101}

FAMILIES = {
    "egyptian": Family("egyptian", "Egyptian", ("draw-2", "block-3", "block-4"), "draw-2", teams=OPTION,
                       targets=(51, 71, 101, 151), default_target=71),
    "all-fives": Family("all-fives", "All Fives", seats=(2, 3, 4), teams=OPTION, targets=(100, 150, 200, 250),
                        default_target=250, four_ends=True),
    "goat": Family("goat", "Goat", ("gamezz", "koza"), "koza", seats=(2, 3, 4), teams=OPTION, targets=(101,),
                   default_target=101, goat=True),
    "classic": Family("classic", "Classic", seats=(2, 3, 4), targets=(100, 200, 300, 400, 500), default_target=100),
    "sports": Family("sports", "Sports", seats=(4,), teams=ALWAYS, targets=(100, 150, 200, 250), default_target=200),
}
RULES = tuple(FAMILIES)
VARIANTS = tuple(v for f in FAMILIES.values() for v in f.variants)
TARGETS = tuple(sorted({t for f in FAMILIES.values() for t in f.targets}))
SEAT_COUNTS = (2, 3, 4)

# Goat's options: the values each may take, and each variant's preset (docs/rules.md §3).
GOAT_VALUES: dict[str, tuple] = {"zero_zero": (0, 10, 25), "redeal": (True, False), "remembered": (True, False),
                                 "fish": ("all", "one")}
GOAT_PRESETS = {"gamezz": {"zero_zero": 0, "redeal": False, "remembered": False, "fish": "all"},
                "koza": {"zero_zero": 10, "redeal": True, "remembered": True, "fish": "all"}}
_TRUE, _FALSE = ("on", "yes", "true", "1", "y"), ("off", "no", "false", "0", "n")


def family(rules: str) -> Family:
    return FAMILIES.get(rules) or Family(rules, rules or "?")


def title(rules: str, variant: str = "") -> str:
    """How screens name a rule set: "Egyptian draw-2", "All Fives", "Goat koza"."""
    name = family(rules).title
    return f"{name} {variant}" if variant else name


# ---- in words ---------------------------------------------------------------------------


def setup_text(rules: str, variant: str, seats: int, teams: bool) -> str:
    """``All Fives · 2 seats · solo``: the family, its variant, the seats and the sides."""
    return f"{title(rules, variant)} · {seats} seats · {'teams' if teams else 'solo'}"


def target_text(rules: str, target: int) -> str:
    return f"{target} makes the goat" if rules == "goat" else f"to {target}"


def timer_text(rules: str, seconds: int) -> str:
    """The host's turn timer; Sports times each move itself."""
    if rules == "sports":
        return "per-move timer 5/20/60 s"
    return f"{seconds} s turns" if seconds else "no turn timer"


def goat_options_of(message) -> dict:
    """The options a GoatOptions message (either package's) sets."""
    return {name: getattr(message, name) for name in GOAT_VALUES if message.HasField(name)}


def rules_of(variant: str | None) -> str | None:
    """The family a variant belongs to (variant names are unique across families)."""
    return next((f.rules for f in FAMILIES.values() if variant in f.variants), None)


@dataclass(frozen=True)
class Setup:
    """A match as the player set it up; None takes the server's default."""
    rules: str = "egyptian"
    variant: str = ""
    seats: int | None = None
    teams: bool | None = None
    target: int | None = None
    goat_options: dict | None = field(default=None, hash=False)

    @property
    def seat_count(self) -> int:
        """The seats the match will have, defaults included."""
        if self.rules == "egyptian":
            return EGYPTIAN_SEATS.get(self.variant, 2)
        return self.seats or family(self.rules).default_seats


def seat_count(rules: str, variant: str, seats: int | None) -> int:
    return Setup(rules, variant, seats).seat_count


def settled(setup: Setup) -> Setup:
    """The setup with the variant it needs: Egyptian's from the seat count (else draw-2),
    Goat's koza; other families have none."""
    if setup.variant or not family(setup.rules).variants:
        return setup
    variant = family(setup.rules).default_variant
    if setup.rules == "egyptian" and setup.seats is not None:
        variant = next((v for v, n in EGYPTIAN_SEATS.items() if n == setup.seats), variant)
    return replace(setup, variant=variant)


def teams_question(rules: str, seats: int) -> bool:
    """Whether the host chooses between teams and solo at this many seats."""
    return family(rules).teams == OPTION and seats == 4


def default_teams(rules: str, variant: str) -> bool:
    """Teams unless chosen otherwise: block-4 and Sports; the others play solo."""
    return variant == "block-4" or family(rules).teams == ALWAYS


def default_target(rules: str, variant: str) -> int:
    if rules == "egyptian":
        return EGYPTIAN_DEFAULT_TARGETS.get(variant, 71)
    return family(rules).default_target


def problem(setup: Setup) -> str | None:
    """What is wrong with a setup, in the player's words; None when the server should take it."""
    fam = FAMILIES.get(setup.rules)
    if fam is None:
        return f"unknown rules {setup.rules!r}; choose one of {', '.join(RULES)}"
    if setup.variant and setup.variant not in fam.variants:
        if not fam.variants:
            return f"{fam.title} has no variants"
        return f"{fam.title} variants are {', '.join(fam.variants)}, not {setup.variant}"
    if setup.seats is not None:
        if setup.rules == "egyptian":
            allowed = (EGYPTIAN_SEATS[setup.variant],) if setup.variant else tuple(EGYPTIAN_SEATS.values())
        else:
            allowed = fam.seats
        if setup.seats not in allowed:
            return (f"{title(setup.rules, setup.variant)} is played by {' or '.join(map(str, allowed))} players, "
                    f"not {setup.seats}")
    seats = setup.seat_count
    if setup.teams and seats != 4:
        return f"teams need four seats; {title(setup.rules, setup.variant)} has {seats}"
    if setup.teams and fam.teams == NEVER:
        return f"{fam.title} is played solo"
    if setup.teams is False and fam.teams == ALWAYS:
        return f"{fam.title} is played by two pairs (teams)"
    if setup.target is not None and setup.target not in fam.targets:
        return f"{fam.title} plays to {', '.join(map(str, fam.targets))}, not {setup.target}"
    if setup.goat_options and not fam.goat:
        return "--option sets Goat's options (--rules goat)"
    return None


def parse_goat_option(text: str) -> tuple[str, object]:
    """``zero_zero=25``, ``redeal=off``, ``fish=one`` as (name, value); ValueError says why not."""
    name, sep, value = text.partition("=")
    name, value = name.strip().lower().replace("-", "_"), value.strip().lower()
    if not sep or name not in GOAT_VALUES:
        raise ValueError(f"{text!r}: say NAME=VALUE, NAME one of {', '.join(GOAT_VALUES)}")
    if name == "zero_zero":
        if value not in ("0", "10", "25"):
            raise ValueError(f"zero_zero is 0, 10 or 25, not {value!r}")
        return name, int(value)
    if name == "fish":
        if value not in GOAT_VALUES["fish"]:
            raise ValueError(f"fish is all or one, not {value!r}")
        return name, value
    if value in _TRUE:
        return name, True
    if value in _FALSE:
        return name, False
    raise ValueError(f"{name} is on or off, not {value!r}")


def goat_options_text(options: dict) -> str:
    """``0-0 alone counts 10 · redeal on · remembered on · fish all``"""
    parts = []
    if "zero_zero" in options:
        parts.append(f"0-0 alone counts {options['zero_zero']}")
    for name in ("redeal", "remembered"):
        if name in options:
            parts.append(f"{name} {'on' if options[name] else 'off'}")
    if "fish" in options:
        parts.append(f"fish {options['fish']}")
    return " · ".join(parts)


def option_value_text(value: object) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)
