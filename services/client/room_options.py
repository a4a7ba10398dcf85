"""The host's ``o NAME=VALUE`` in a room's lobby: one UpdateRoomOptions request, and one line
that says what changed.

The server changes what it is given and starts another family from that family's own
defaults: ``o rules=goat`` alone named no Goat variant (refused), and a variant named with it
took Goat's default four seats over the room's three. So another family is sent whole, as the
host means it: its default variant (Egyptian's the one for the room's seat count), and every
option the room had that the new family allows (seats, teams, target; the timer and whether
spectators may watch stay anyway); an option the family does not allow takes its default, and
the line says why. A variant or a Goat option of another family is refused here, with the
command that would choose it.

Every seat sees that line, not only the host: the lobby says it whenever a room view comes
(the host's reply, or WatchRoom for everyone) with options other than the last ones it
showed. The host's client knows what was typed; a guest's finds why each option it did not
see typed changed by asking ``plan`` what the room's family change, or seat count, or
variant change alone would have given (``explained``): what that gives is the family's
reason, what it does not is what the host chose.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from domino.matchmaking.v1 import matchmaking_service_pb2 as mm

from . import families
from .families import Setup


class Refused(ValueError):
    """An option change the client will not send; the message says what to type instead."""


@dataclass(frozen=True)
class Change:
    request: dict  # MatchmakingApi.update_room_options' keyword arguments
    named: frozenset[str]  # the options the host typed (rules, variant, seats, teams, target, timer, …)
    why: dict[str, str] = field(default_factory=dict)  # why an option the host did not name changes


def plan(current: mm.MatchOptions, changes) -> Change:
    """What ``o …`` asks of the server, with the room's ``current`` options; Refused otherwise."""
    given = dict(changes)
    options = {name: given.pop(name) for name in list(given) if name in families.current().options}
    if "timer" in given:
        given["turn_timer"] = given.pop("timer")
    now = current.rules or families.current().default
    rules = given.get("rules", now)
    variant = given.get("variant")
    if variant is not None and families.rules_of(variant) != rules:
        owner = families.rules_of(variant) or ""
        raise Refused(f"{variant} is {_a(families.family(owner).title)} variant: o rules={owner} variant={variant}")
    foreign = [name for name in options if families.family(rules).option(name) is None]
    if foreign:
        owner_family = next((f for f in families.current().families.values()
                             if all(f.option(name) for name in options)), None)
        typed = " ".join(f"{name}={families.option_value_text(value)}" for name, value in options.items())
        if owner_family is None:
            raise Refused(f"no family has all of {', '.join(options)}")
        title = owner_family.title
        what = f"is {_a(title)} option" if len(options) == 1 else f"are {title} options"
        raise Refused(f"{', '.join(options)} {what}: o rules={owner_family.rules} {typed}")
    named = frozenset(given) | frozenset(options)
    if rules == now:
        return _same_family(current, rules, given, options, named)
    return _another_family(current, rules, given, options, named)


def _a(title: str) -> str:
    """``a Goat``, ``an Egyptian``."""
    return f"{'an' if title[:1] in 'AEIOU' else 'a'} {title}"


def _either(values) -> str:
    shown = [str(v) for v in values]
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " or " + shown[-1]


def _same_family(current: mm.MatchOptions, rules: str, given: dict, options: dict, named: frozenset[str]) -> Change:
    """The server keeps what is not named; where each variant has its own seat count, a seat
    count names the variant."""
    fam = families.family(rules)
    request, why = dict(given), {}
    seats = given.get("seats")
    if fam.variants_fix_seats and seats is not None and "variant" not in given:
        request["variant"] = fam.variant_for_seats(seats)
        if request["variant"] is None:
            raise Refused(f"{fam.title} is played by {_either(fam.seats)} players, not {seats}")
        why["variant"] = f"for {seats} seats"
    variant = request.get("variant")
    if fam.variants_fix_seats and variant in fam.variants:
        chosen = fam.variant(variant)
        why.setdefault("seats", f"{variant} is played by {chosen.seat_counts[0]}")
        if "teams" not in given:
            why["teams"] = f"{variant} is played {'in teams' if chosen.default_shape.teams else 'solo'} unless said"
    if seats is not None and seats != families.TEAM_SEATS and current.teams and "teams" not in given:
        why["teams"] = "teams need four seats"
    if options:
        request["host_options"] = options
    return Change(request, named, why)


def _another_family(current: mm.MatchOptions, rules: str, given: dict, options: dict,
                    named: frozenset[str]) -> Change:
    fam = families.family(rules)
    why: dict[str, str] = {}
    seats_now = current.seat_count or families.seat_count(current.rules or families.current().default, current.variant,
                                                     None)
    variant = given.get("variant", "")
    if not variant and fam.variants:
        matching = fam.variant_for_seats(given.get("seats", seats_now))
        variant = matching or fam.default_variant
        why["variant"] = f"for {given.get('seats', seats_now)} seats" if matching else "by default"
    chosen = fam.variant(variant)
    if "seats" in given:
        seats = given["seats"]
    elif fam.variants_fix_seats:
        seats = chosen.seat_counts[0]
        if seats != seats_now:
            why["seats"] = f"{variant} is played by {seats}"
    elif seats_now in chosen.seat_counts:
        seats = seats_now
    else:
        seats = chosen.default_shape.seats
        why["seats"] = f"{fam.title} is played by {' or '.join(map(str, chosen.seat_counts))}"
    if "teams" in given:
        teams = given["teams"]
    elif fam.always_teams:
        teams = True
        if not current.teams:
            why["teams"] = f"{fam.title} is played by two pairs"
    elif current.teams and (fam.never_teams or seats != families.TEAM_SEATS):
        teams = False
        why["teams"] = f"{fam.title} is played solo" if fam.never_teams else "teams need four seats"
    else:
        teams = current.teams
    if "target" in given:
        target = given["target"]
    elif current.target in fam.targets:
        target = current.target
    else:
        target = families.default_target(rules, variant)
        why["target"] = f"{fam.title} plays to {', '.join(map(str, fam.targets))}"
    problem = families.problem(Setup(rules, variant, seats, teams, target, options or None))
    if problem:
        raise Refused(problem)
    request = {**given, "rules": rules, "variant": variant, "seats": seats, "teams": teams, "target": target}
    if options:
        request["host_options"] = options
    return Change(request, named, why)


def explained(before: mm.MatchOptions, after: mm.MatchOptions) -> Change:
    """The Change that took ``before`` to ``after`` as a guest can tell it: the reasons the
    family gives for what follows from the host's evident choice (the family; else the seat
    count or the variant, whichever explains more), every other difference taken as chosen."""
    fields = {"variant": after.variant, "seats": after.seat_count, "teams": after.teams, "target": after.target}
    candidates: list[dict[str, object]]
    if after.rules != before.rules:
        candidates = [{"rules": after.rules}]
    else:
        candidates = [{name: fields[name]} for name in ("seats", "variant") if fields[name] != _field(before, name)]
    evident: dict[str, object] = {}
    why: dict[str, str] = {}
    for candidate in candidates:
        reasons = _reasons(before, candidate, fields)
        if not evident or len(reasons) > len(why):
            evident, why = candidate, reasons
    named = frozenset(evident) | frozenset(name for name in fields if name not in why)
    presets = families.variant_of(after.rules, after.variant).presets
    chosen = {name for name, value in (families.options_of(after) or {}).items() if presets.get(name) != value}
    return Change({}, named | frozenset(chosen), why)


def _reasons(before: mm.MatchOptions, evident: dict, fields: dict) -> dict[str, str]:
    """Why ``plan`` changes each of ``fields`` to its value when only ``evident`` is typed."""
    try:
        guess = plan(before, evident.items())
    except (Refused, ValueError, KeyError):
        return {}
    return {name: reason for name, reason in guess.why.items()
            if name in fields and guess.request.get(name, _field(before, name)) == fields[name]}


def _field(options: mm.MatchOptions, name: str) -> object:
    """An option as the host names it, read from MatchOptions ("seats" is its seat_count)."""
    return getattr(options, "seat_count" if name == "seats" else name)


# ---- in words -------------------------------------------------------------------------------


def _timer(seconds: int) -> str:
    return f"{seconds} s" if seconds else "no limit"


def changed_text(before: mm.MatchOptions, after: mm.MatchOptions, change: Change) -> str:
    """``rules goat (variant koza by default); target 250 → 101: Goat plays to 101``: what the
    server now holds that differs from before, and why for what the host did not name."""
    why = change.why
    parts = []

    def because(name: str) -> str:
        return f": {why[name]}" if name in why and name not in change.named else ""

    if before.rules != after.rules:
        text = f"rules {after.rules}"
        if after.variant:
            text += (f" (variant {after.variant} {why['variant']})" if "variant" in why and "variant" not in change.named
                     else f", variant {after.variant}")
        parts.append(text)
    elif before.variant != after.variant:
        parts.append(f"variant {before.variant} → {after.variant}" + because("variant"))
        if families.options_of(after) and not set(families.current().options) & change.named:
            preset = families.options_text(families.options_of(after), after.rules)
            parts[-1] += f" (its preset: {preset})"
    if before.seat_count != after.seat_count:
        parts.append(f"seats {before.seat_count} → {after.seat_count}" + because("seats"))
    if before.teams != after.teams:
        parts.append(f"{'teams' if before.teams else 'solo'} → {'teams' if after.teams else 'solo'}" + because("teams"))
    if before.target != after.target:
        parts.append(f"target {before.target} → {after.target}" + because("target"))
    if before.turn_timer_seconds != after.turn_timer_seconds:
        parts.append(f"turn timer {_timer(before.turn_timer_seconds)} → {_timer(after.turn_timer_seconds)}")
    if before.spectators != after.spectators:
        parts.append("spectators may watch" if after.spectators else "no spectators")
    old = families.options_of(before)
    new = families.options_of(after)
    if old and new and before.variant == after.variant:
        parts += [f"{name} {families.option_value_text(old.get(name))} → {families.option_value_text(value)}"
                  for name, value in new.items() if old.get(name) != value]
    elif new and (set(new) & change.named):
        parts += [f"{name} {families.option_value_text(new[name])}" for name in new if name in change.named]
    return "; ".join(parts) + "." if parts else "Nothing changed: the room already plays that."
