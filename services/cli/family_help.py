"""``domino play --help`` on the families, built from the rules description the client reads
(services/client/families.py). The client holds no rules of its own: before a session has
asked a server (DescribeRules), the help says where the choices come from; after one, it
names what that server plays, from the description kept in the config directory
(services/client/rules_cache.py), and says whose it is."""

from __future__ import annotations

import os

from services.client import families, rules_cache
from services.client.device import config_dir

UNKNOWN = "checked against what the server plays once connected (DescribeRules)"


def _described() -> rules_cache.Cached | None:
    cached = rules_cache.load(config_dir(os.environ.get("DOMINO_CONFIG_DIR")))  # --config-dir's own default
    return cached if cached is not None and cached.rules.families else None


def _listed(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1] if words else ""


def _whose(cached: rules_cache.Cached) -> str:
    return f" (as {cached.server or 'the last server'} described them; {UNKNOWN})"


def rules_help() -> str:
    cached = _described()
    if cached is None:
        return f"The family, {UNKNOWN}: the menu lists them."
    rules = cached.rules
    names = [f"{name} (the default)" if name == rules.default else name for name in rules.names]
    return f"The family: {_listed(names)}{_whose(cached)}."


def variant_help() -> str:
    cached = _described()
    if cached is None:
        return f"The family's variant (names the family too), {UNKNOWN}."
    held = [f"{f.rules}: {', '.join(f.variants)}" for f in cached.rules.families.values() if f.variants]
    return f"{'; '.join(held)} (names the family too){_whose(cached)}."


def seats_help() -> str:
    cached = _described()
    if cached is None:
        return f"Players, where the family lets it vary (else its variant's), {UNKNOWN}."
    counts = [f"{f.rules} {'-'.join(map(str, (f.seats[0], f.seats[-1])))}"
              for f in cached.rules.families.values() if len(f.seats) > 1 and not f.variants_fix_seats]
    return f"Players, where the family lets it vary ({', '.join(counts)}; else its variant's){_whose(cached)}."


def teams_help() -> str:
    cached = _described()
    if cached is None:
        return f"Four seats as two teams (0+2 against 1+3), where the family offers both, {UNKNOWN}."
    rules = cached.rules.families.values()
    choosing = [f.rules for f in rules if f.teams_choice and not f.variants_fix_seats]
    by_variant = [f"{v.name} (its default)" for f in rules if f.variants_fix_seats
                  for v in f.variant_list if v.default_shape.teams]
    return f"Four seats as two teams (0+2 against 1+3): {', '.join(by_variant + choosing)}{_whose(cached)}."


def target_help() -> str:
    cached = _described()
    if cached is None:
        return f"Points to win, one of the family's targets, {UNKNOWN}."
    targets = [f"{f.rules} {'/'.join(map(str, f.targets))}" if len(f.targets) > 1 else
               f"{f.rules}: always {f.targets[0]}" for f in cached.rules.families.values() if f.targets]
    return f"Points to win: {'; '.join(targets)}{_whose(cached)}."


def option_help() -> str:
    cached = _described()
    if cached is None:
        return f"A family's option over the variant's preset, NAME=VALUE (names the family too; repeatable), {UNKNOWN}."
    held = [f"{f.title}: " + ", ".join(f"{o.name}={'|'.join(map(families.option_value_text, o.values))}"
                                       for o in f.options)
            for f in cached.rules.families.values() if f.options]
    return (f"A family's option over the variant's preset, as DescribeRules lists them ({'; '.join(held)}); "
            f"names the family too (repeatable){_whose(cached)}.")


def strength_help() -> str:
    cached = _described()
    if cached is None:
        return f"Bots' strength (practice, and bots you add to a room), {UNKNOWN}."
    return f"Bots' strength (practice, and bots you add to a room): {cached.rules.strengths_text()}{_whose(cached)}."


def timer_help() -> str:
    cached = _described()
    if cached is None:
        return f"Seconds per turn, 0 for none (practice and rooms), {UNKNOWN}."
    rules = cached.rules
    return (f"Seconds per turn: {_listed([str(t) for t in rules.turn_timers])}, 0 for none (practice and rooms; "
            f"default {rules.default_turn_timer}){_whose(cached)}.")
