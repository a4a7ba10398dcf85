"""DescribeRules' answer, built from the registries: what a client needs to offer a family's
options and speak of its table without a copy of the rules of its own.

Pure, and built once for each set of registered families and ladder: the registries do not
change while a service runs, but a test may register a family or read another ladder, and is
answered with it. The bot strengths offered are the ladder's to say, per family and team
setting (services/common/bot_ladder.py ``Ladder.offered``, docs/bots.md "Offered strengths"):
each shape lists its own, and the answer's list is every strength offered somewhere. What the
rule sets already state (hand sizes, boneyards, tiles that never lead, a leader drawn by
chance) is read from the rule set each shape builds, so no facet is stated twice.
"""

from __future__ import annotations

from functools import lru_cache
from typing import cast

from domino.match.v1 import match_service_pb2 as pb
from services.common import bot_strengths
from services.common.bot_ladder import Ladder, ladder
from services.common.rule_options import value_pb as option_value

from services.history.summary import rating_key

from services.rules import registry
from services.rules.family import Family
from services.rules.rulesets import DEFAULT_TURN_TIMER, TURN_TIMERS
from .messages import PHRASE_PB
from services.rules.tiles import HIGH, LOW, TILE_COUNT
from .table_talk import PHRASES


def describe_rules(known: Ladder | None = None) -> pb.DescribeRulesResponse:
    """Every registered family, the chat phrases, the offered bot strengths and turn timers,
    by the committed ladder unless ``known`` is given. The same message each time: callers
    must not change it."""
    return _built(registry.families(), known or ladder())


@lru_cache(maxsize=4)
def _built(families: tuple[Family, ...], known: Ladder) -> pb.DescribeRulesResponse:
    described = [family_pb(f, known) for f in families]
    somewhere = {value for f in described for v in f.variants for s in v.shapes for value in s.bot_strengths}
    return pb.DescribeRulesResponse(
        families=described,
        chat_phrases=[PHRASE_PB[name] for name in PHRASES],
        bot_strengths=[pb.BotStrengthInfo(strength=strength_pb(name), name=name,
                                          description=bot_strengths.BY_NAME[name].description)
                       for name in bot_strengths.OFFERED if strength_pb(name) in somewhere],
        turn_timers=TURN_TIMERS,
        default_turn_timer=DEFAULT_TURN_TIMER,
    )


def family_pb(family: Family, known: Ladder | None = None) -> pb.RuleFamily:
    p = family.phrases
    first = family.build(family.default_variant or None)
    return pb.RuleFamily(
        name=family.name,
        phrases=pb.FamilyPhrases(title=p.title, target=p.target, ended_by=p.ended_by, lead_rule=p.lead_rule,
                                 scoring=p.scoring),
        variants=[variant_pb(family, v, known or ladder()) for v in family.variants or ("",)],
        default_variant=family.default_variant,
        targets=family.targets,
        options=[pb.HostOption(name=o.name, help=o.help, values=[option_value(v) for v in o.values],
                               words=family.option_words.get(o.name, "")) for o in family.options],
        lower_is_better=family.lower_is_better,
        per_move_timer=family.per_move_timer,
        four_ends=family.four_ends,
        round_columns=[pb.RoundColumn(key=c.key, header=c.header) for c in family.round_columns],
        table=table_pb(family, first.barred),
    )


def variant_pb(family: Family, variant: str, known: Ladder) -> pb.RuleVariant:
    shapes = []
    for shape in family.shapes(variant):
        rules = family.build(variant or None, shape.seats, shape.teams)
        key = rating_key(family.name, shape.teams)
        shapes.append(pb.SeatShape(seats=shape.seats, teams=shape.teams, hand_size=rules.hand_size,
                                   boneyard=rules.draws and rules.hand_size * rules.seats < TILE_COUNT,
                                   bot_strengths=[strength_pb(name) for name in known.offered(key)],
                                   default_bot_strength=strength_pb(known.standing_for(key, bot_strengths.DEFAULT))))
    default = family.default_shape(variant)
    words = family.lead_words_of(variant)
    return pb.RuleVariant(
        name=variant,
        shapes=shapes,
        default_shape=next(s for s in shapes if (s.seats, s.teams) == (default.seats, default.teams)),
        default_target=family.default_target(variant),
        presets=[pb.OptionSetting(name=name, value=option_value(value))
                 for name, value in family.presets(variant).items()],
        leader_by_chance=family.forced_lead_order(family.build(variant or None)) is None,
        lead=pb.LeadWords(rule=words.rule, by_double=words.by_double, by_zero_zero=words.by_zero_zero,
                          by_other_tile=words.by_other_tile),
    )


def strength_pb(name: str) -> pb.BotStrength:
    """A bot strength's name (services/common/bot_strengths.py, the name in a bot's id) as
    the API's enum: every registered strength has its value (tests/service/test_describe_rules.py)."""
    return cast(pb.BotStrength, pb.BotStrength.Value(bot_strengths.wire_name(name)))


def table_pb(family: Family, barred: int) -> pb.TableFacets:
    never = [pb.Tile(low=LOW[t], high=HIGH[t]) for t in range(TILE_COUNT) if barred >> t & 1]
    table = pb.TableFacets(never_leads=never, points_rounded_to=family.points_rounded_to,
                           move_seconds=family.move_seconds)
    if isinstance(family.lone_zero_zero, str):
        table.lone_zero_zero_option = family.lone_zero_zero
    elif isinstance(family.lone_zero_zero, int):
        table.lone_zero_zero_points = family.lone_zero_zero
    return table
