"""Fifty: a family that exists only for the tests, to prove that a family is one module.

Two seats, seven tiles each and the rest a boneyard to draw from, to 50 points; the side
that goes out scores the other's pips plus the host's ``domino_bonus``. (A block game for
two would set 14 tiles aside, and the engine's deal sets aside at most one.)
Nothing outside this file knows it. It is registered by one line: a test's
``registry.register(FAMILY)``, or ``DOMINO_FAMILY_MODULES=tests.support.fifty_family`` in the
environment of the services and the command line (docs/design.md, "Adding a family").
"""

from __future__ import annotations

from typing import NamedTuple, Sequence

from services.rules.errors import BadOptions, shown
from services.rules.facets import BotTuning, HostOption, Phrases, RecordShape, RoundColumn, Shape
from services.rules.family import Family, RuleSet
from services.rules.leading import egyptian_next_leader, highest_double_or_tile
from services.rules.scoring import egyptian_round_points, highest_past_target

BONUSES = (0, 10, 20)


class FiftyOptions(NamedTuple):
    domino_bonus: int


class Fifty(Family):
    name = "fifty"
    phrases = Phrases(title="Fifty", scoring="going out scores the other hand's pips plus the domino bonus")
    targets = (50,)
    offered_shapes = (Shape(2, False),)
    usual_target = 50
    options = (HostOption("domino_bonus", BONUSES, "what going out scores on top of the other hand's pips"),)
    record = RecordShape(options=True, leaders=False)
    bot_tuning = BotTuning()  # the plain search: nobody tuned the strong bot for a test's family
    round_columns = (RoundColumn("bonus", "bonus", 5, lambda r: r.points if r.reason == "domino" else 0,
                                 lambda r: str(r.points if r.reason == "domino" else 0), right=True),)

    def presets(self, variant: str) -> dict:
        return {"domino_bonus": 10}

    def configure(self, variant: str | None, seats: int | None, teams: bool | None,
                  options: dict | None) -> RuleSet:
        self.no_variant_nor_options(variant, None)
        if seats not in (None, 2):
            raise BadOptions(f"fifty is played by 2 players, not {seats}")
        if teams:
            raise BadOptions("fifty is played solo")
        chosen = dict(self.presets(""))
        for name, value in (options or {}).items():
            if name != "domino_bonus":
                raise BadOptions(f"fifty has no option {shown(name)}; its option is domino_bonus")
            if type(value) is not int or value not in BONUSES:
                raise BadOptions(f"domino_bonus must be one of {', '.join(map(str, BONUSES))}, not {shown(value)}")
            chosen[name] = value
        return self.rule_set("", 2, 7, True, False, 50, options=FiftyOptions(**chosen))

    def played_options(self, rules: RuleSet) -> dict:
        return rules.options._asdict()

    def opening_leader(self, rules: RuleSet, deal) -> tuple[int, int]:
        return highest_double_or_tile(deal.hands)

    def score_round(self, rules: RuleSet, reason: str, last_seat: int, hands: Sequence[int]) -> tuple[int | None, int]:
        winner, points = egyptian_round_points(rules, reason, last_seat, hands)
        return winner, points + (rules.options.domino_bonus if reason == "domino" else 0)

    def next_leader(self, rules: RuleSet, reason: str, winner: int | None, last_seat: int,
                    hands: Sequence[int]) -> int | None:
        return egyptian_next_leader(rules, reason, winner, last_seat, hands)

    def match_end(self, rules: RuleSet, scores: Sequence[int], target: int) -> tuple[int | None, bool, tuple[int, ...]]:
        return highest_past_target(rules, scores, target)


FAMILY = Fifty()
