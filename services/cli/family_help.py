"""``domino play --help`` on the families, built from the rules description the client reads
(services/client/families.py), so a registered family is named like the built-in ones and no
help text goes stale when a family changes."""

from __future__ import annotations

from services.client import families


def _listed(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1] if words else ""


def rules_help() -> str:
    rules = families.built_in()
    names = [f"{name} (the default)" if name == rules.default else name for name in rules.names]
    return f"The family: {_listed(names)}."


def variant_help() -> str:
    held = [f"{f.rules}: {', '.join(f.variants)}" for f in families.built_in().families.values() if f.variants]
    return f"{'; '.join(held)} (names the family too)."


def seats_help() -> str:
    counts = [f"{f.rules} {'-'.join(map(str, (f.seats[0], f.seats[-1])))}"
              for f in families.built_in().families.values() if len(f.seats) > 1 and not f.variants_fix_seats]
    return f"Players, where the family lets it vary ({', '.join(counts)}; else its variant's)."


def teams_help() -> str:
    rules = families.built_in().families.values()
    choosing = [f.rules for f in rules if f.teams_choice and not f.variants_fix_seats]
    by_variant = [f"{v.name} (its default)" for f in rules if f.variants_fix_seats
                  for v in f.variant_list if v.default_shape.teams]
    return f"Four seats as two teams (0+2 against 1+3): {', '.join(by_variant + choosing)}."


def target_help() -> str:
    targets = [f"{f.rules} {'/'.join(map(str, f.targets))}" if len(f.targets) > 1 else
               f"{f.rules}: always {f.targets[0]}" for f in families.built_in().families.values() if f.targets]
    return f"Points to win: {'; '.join(targets)}."


def option_help() -> str:
    held = [f"{f.title}: " + ", ".join(f"{o.name}={'|'.join(map(families.option_value_text, o.values))}"
                                       for o in f.options)
            for f in families.built_in().families.values() if f.options]
    return (f"A family's option over the variant's preset, as DescribeRules lists them ({'; '.join(held)}); "
            "names the family too (repeatable).")
