"""The questions that set up a match: family, variant, seats, teams, target, the family's
own options, the turn timer and the bots' strength.

Started with a mode on the command line, what it left open takes the server's default;
from the menu it is asked, unless the command line named the family or the variant (then
the rest is decided too)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from . import families, questions
from .families import Setup
from .game import ClientError
from .screen_host import Host


@dataclass
class SetupQuestions:
    app: Host

    def _ask(self, label: str, choices, default: str, note: str = "") -> str:
        return questions.ask_choice(self.app.out, self.app.inbox, label, choices, default, note)

    def setup(self, public: bool = False) -> Setup:
        """The family and its options for a match (``public``: a table, which plays the
        family's default target and host options). ClientError when they do not go together."""
        described = self.app.rules()
        c = self.app.choices
        asking = self.app.interactive and c.rules is None and c.variant is None
        rules = c.rules or families.rules_of(c.variant) or (self._family() if asking else described.default)
        family = families.family(rules)
        variant = c.variant or ""
        if not variant and family.variants and asking and family.variant_for_seats(c.seats) is None:
            variant = self._ask("Variant", family.variants, family.default_variant)
        setup = families.settled(Setup(rules, variant, c.seats, c.teams, c.target, c.host_options))
        chosen = family.variant(setup.variant)
        if setup.seats is None and len(chosen.seat_counts) > 1 and asking:
            answer = self._ask("Seats", [str(n) for n in chosen.seat_counts], str(chosen.default_shape.seats))
            setup = replace(setup, seats=int(answer))
        if setup.teams is None and asking and families.teams_question(rules, setup.variant, setup.seat_count):
            default = "teams" if families.default_teams(rules, setup.variant, setup.seat_count) else "solo"
            setup = replace(setup, teams=self._ask("Play", ("teams", "solo"), default) == "teams")
        if not public and setup.target is None and asking and len(family.targets) > 1:
            answer = self._ask("Play to", [str(t) for t in family.targets],
                               str(families.default_target(rules, setup.variant)))
            setup = replace(setup, target=int(answer))
        if not public and family.options and setup.host_options is None and asking:
            setup = replace(setup, host_options=self._host_options(family, setup.variant))
        problem = families.problem(setup)
        if problem:
            raise ClientError(problem)
        return setup

    def _family(self) -> str:
        described = self.app.rules()
        return self._ask("Family", described.names, described.default)

    def _host_options(self, family: families.Family, variant: str) -> dict | None:
        """The family's own options (Goat's four): its variant's preset, or each chosen."""
        preset = family.variant(variant).presets
        self.app.out.say(f"The {variant or family.title} preset: "
                         f"{families.options_text(dict(preset), family.rules)}.")
        if self._ask(f"{family.title} options", ("preset", "choose"), "preset") == "preset":
            return None
        chosen = {}
        for option in family.options:
            shown = [families.option_value_text(v) for v in option.values]
            default = preset.get(option.name, option.values[0] if option.values else None)
            answer = self._ask(f"  {option.name}", shown, families.option_value_text(default))
            chosen[option.name] = option.values[shown.index(answer)]
        return chosen

    def turn_timer(self, setup: Setup) -> int | None:
        """The host's turn timer, among the values the server allows (None: its default).
        Asked from the menu as the family is; a family with a per-move timer (Sports) times
        each move itself, so never there."""
        c = self.app.choices
        if c.turn_timer is not None or not self.app.interactive or c.rules is not None or c.variant is not None:
            return c.turn_timer
        if families.family(setup.rules).per_move_timer:
            return None
        described = self.app.rules()
        answer = self._ask("Turn timer", [str(t) for t in described.turn_timers],
                           str(described.default_turn_timer), note="seconds (0: no limit)")
        return int(answer)

    def strength(self, setup: Setup) -> str:
        """Asked among the strengths the server offers for this family and team setting."""
        c = self.app.choices
        offered, default = families.offered_strengths(setup)
        if c.strength or not self.app.interactive:
            return c.strength or default
        return self._ask("Bots' strength", offered, default)
