"""DescribeRules over real gRPC: every registered family exactly as the registry holds it,
the chat phrases, the offered bot strengths and turn timers; refused without credentials as
every call is; and `domino play` builds its family and option questions from it, so a family
the server alone knows is offered with its option."""

from __future__ import annotations

import io
from dataclasses import replace

import grpc
import pytest
from rich.console import Console

from domino.match.v1 import match_service_pb2 as pb
from services.client import families
from services.client.api import MatchApi
from services.client.app import App, Choices
from services.client.families import Setup
from services.client.game import GameOptions
from services.client.inbox import Inbox
from services.client.store import LastMatch
from services.client.terminal import Output
from services.common import bot_strengths
from services.common.bot_ladder import Ladder, ladder
from services.history.summary import rating_key
from services.match.describe import describe_rules
from services.match.application import MatchApplication
from services.rules import registry
from services.rules.facets import HostOption, Phrases, Shape
from services.rules.rulesets import DEFAULT_TURN_TIMER, TURN_TIMERS, RuleSet
from services.match.table_talk import PHRASES
from tests.support.keys import auth, token

from .harness import running_service
from .test_bad_input import BAD_CREDENTIALS, rejected


@pytest.fixture
def svc():
    app = MatchApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    with running_service(app) as service:
        yield service


def _value(message: pb.OptionValue):
    return getattr(message, message.WhichOneof("value"))


def test_every_registered_family_is_described_as_the_registry_holds_it(svc):
    described = svc.stub.DescribeRules(pb.DescribeRulesRequest(), metadata=auth("ann"))
    assert [f.name for f in described.families] == [f.name for f in registry.families()]
    for message, family in zip(described.families, registry.families()):
        assert message.phrases.title == family.phrases.title
        assert message.phrases.target == family.phrases.target
        assert message.default_variant == family.default_variant
        assert [v.name for v in message.variants] == list(family.variants or ("",))
        assert list(message.targets) == list(family.targets)
        assert [(o.name, o.help, tuple(_value(v) for v in o.values)) for o in message.options] == \
            [(o.name, o.help, tuple(o.values)) for o in family.options]
        assert all(type(_value(v)) is type(o.values[i]) for m, o in zip(message.options, family.options)
                   for i, v in enumerate(m.values))  # 10 is an int, True a bool, "one" a string
        assert (message.lower_is_better, message.per_move_timer, message.four_ends) == \
            (family.lower_is_better, family.per_move_timer, family.four_ends)
        assert [(c.key, c.header) for c in message.round_columns] == [(c.key, c.header) for c in family.round_columns]
        for variant in message.variants:
            assert [(s.seats, s.teams) for s in variant.shapes] == \
                [(s.seats, s.teams) for s in family.shapes(variant.name)]
            default = family.default_shape(variant.name)
            assert (variant.default_shape.seats, variant.default_shape.teams) == (default.seats, default.teams)
            assert variant.default_target == family.default_target(variant.name)
            assert {p.name: _value(p.value) for p in variant.presets} == dict(family.presets(variant.name))


def test_the_chat_phrases_offered_strengths_and_turn_timers_are_the_servers(svc):
    described = svc.stub.DescribeRules(pb.DescribeRulesRequest(), metadata=auth("ann"))
    assert tuple(pb.ChatPhrase.Name(p) for p in described.chat_phrases) == \
        tuple(f"CHAT_PHRASE_{name.upper()}" for name in PHRASES)
    somewhere = {value for f in described.families for v in f.variants for s in v.shapes for value in s.bot_strengths}
    assert [(s.name, s.description) for s in described.bot_strengths] == \
        [(name, bot_strengths.BY_NAME[name].description) for name in bot_strengths.OFFERED
         if strength(name) in somewhere]
    assert all(s.strength == strength(s.name) for s in described.bot_strengths)
    assert (tuple(described.turn_timers), described.default_turn_timer) == (TURN_TIMERS, DEFAULT_TURN_TIMER)


def strength(name: str) -> int:
    """A strength's name as the BotStrength enum (its bot ids keep the name)."""
    return pb.BotStrength.Value(f"BOT_STRENGTH_{name.upper()}")


def test_every_registered_bot_strength_has_its_value_in_the_api():
    assert [pb.BotStrength.Name(strength(name)) for name in bot_strengths.NAMES] == \
        [f"BOT_STRENGTH_{name.upper()}" for name in bot_strengths.NAMES]


def test_every_chat_phrase_has_its_value_in_the_api():
    assert len({pb.ChatPhrase.Value(f"CHAT_PHRASE_{name.upper()}") for name in PHRASES}) == len(PHRASES)


def test_the_table_facets_say_what_each_family_shows_beyond_the_common_line(svc):
    described = {f.name: f for f in svc.stub.DescribeRules(pb.DescribeRulesRequest(), metadata=auth("ann")).families}
    assert described["classic"].table.lone_zero_zero_points == 25
    assert list(described["classic"].table.never_leads) == [pb.Tile(low=0, high=0)]
    assert described["goat"].table.lone_zero_zero_option == "zero_zero"
    assert described["all-fives"].table.points_rounded_to == 5
    assert list(described["sports"].table.move_seconds) == [5, 20, 60]
    egyptian = {v.name: v for v in described["egyptian"].variants}
    assert [s.boneyard for s in egyptian["draw-2"].shapes] == [True]
    assert [(s.hand_size, s.boneyard) for s in egyptian["block-3"].shapes] == [(9, False)]
    assert not egyptian["draw-2"].leader_by_chance and described["sports"].variants[0].leader_by_chance


@pytest.mark.parametrize("subject,role", [("ann", "player"), ("bot:greedy:1", "bot"), ("matchmaking", "service"),
                                          ("audra", "auditor")])
def test_any_signed_in_caller_may_ask(svc, subject, role):
    assert svc.stub.DescribeRules(pb.DescribeRulesRequest(), metadata=auth(subject, role)).families


@pytest.mark.parametrize("credentials", BAD_CREDENTIALS, ids=str)
def test_bad_credentials_are_unauthenticated(svc, credentials):
    metadata, words, reason = BAD_CREDENTIALS[credentials]
    details = rejected(grpc.StatusCode.UNAUTHENTICATED,
                       lambda: svc.stub.DescribeRules(pb.DescribeRulesRequest(), metadata=metadata), words,
                       reason=reason)
    assert "abc.def.ghi" not in details and "not-a-jwt" not in details


# ---- the client's questions -------------------------------------------------------------------


class Dozen(type(registry.family("classic"))):  # type: ignore[misc]
    """A family only this test process plays: Classic's deal and rules, to 12 or 24, with an option."""
    name = "dozen"
    phrases = Phrases(title="Dozen")
    targets = (12, 24)
    options = (HostOption("zero_zero", (0, 12), "what a hand holding only 0-0 counts"),)
    usual_shape = Shape(2, False)  # not Classic's four, which it does not offer

    def shapes(self, variant: str) -> tuple[Shape, ...]:
        return (Shape(2, False), Shape(3, False))

    def default_target(self, variant: str) -> int:
        return 12

    def presets(self, variant: str) -> dict:
        return {"zero_zero": 12}

    def build(self, variant=None, seats=None, teams=None, options=None) -> RuleSet:
        rules = registry.family("classic").build(seats=seats or 2)
        return replace(rules, kind=self, default_target=12)  # its name and targets come from kind


def test_the_client_offers_a_family_the_server_alone_plays_with_its_option(svc, tmp_path):
    api = MatchApi(f"127.0.0.1:{svc.port}", token("ann"))
    registry.register(Dozen())
    try:
        api.rules()  # what the session asks once
    finally:
        registry.unregister("dozen")  # from here the client knows it from the server's answer alone
    inbox = Inbox()
    for line in ("dozen", "3", "24", "choose", "0"):
        inbox.put("line", line)
    file = io.StringIO()
    out = Output(Console(file=file, width=200, color_system=None, highlight=False), redraw=False)
    app = App("ann", match=api, matchmaking=None, inbox=inbox, out=out,  # type: ignore[arg-type]
              store=LastMatch(tmp_path, "ann"), game_options=GameOptions(tick=0), choices=Choices(), interactive=True)
    try:
        assert app.setup() == Setup("dozen", "", 3, None, 24, {"zero_zero": 0})
        assert families.problem(Setup("dozen", target=36)) == "Dozen plays to 12, 24, not 36"
    finally:
        families.use(None)
        api.close()
    said = file.getvalue()
    numbered = "  ".join(f"{n}) {name}" for n, name in enumerate([*registry.names(), "dozen"], 1))
    assert f"Family  {numbered}  [{registry.names()[0]}]:" in said
    assert "Seats  2 or 3  [2]:" in said
    assert "Play to  12 or 24  [12]:" in said
    assert "The Dozen preset: zero_zero 12." in said
    assert "  zero_zero  0 or 12  [12]:" in said


def test_each_family_and_team_setting_offers_the_strengths_the_bots_ladder_offers_there(svc):
    described = svc.stub.DescribeRules(pb.DescribeRulesRequest(), metadata=auth("ann"))
    for family in described.families:
        for variant in family.variants:
            for shape in variant.shapes:
                key = rating_key(family.name, shape.teams)
                assert tuple(shape.bot_strengths) == tuple(map(strength, ladder().offered(key)))
                assert shape.default_bot_strength == strength(ladder().standing_for(key, bot_strengths.DEFAULT))
                assert shape.default_bot_strength in shape.bot_strengths


def test_a_ladder_where_expert_is_clearly_stronger_than_strong_offers_it_in_describe_rules():
    figures = {"random": (20.0, 1.6), "greedy": (25.0, 1.6), "strong": (30.0, 1.6), "expert": (34.0, 1.6)}
    known = Ladder({"classic/solo": {n: {"mu": mu, "sigma": sd, "rating": mu - 3 * sd, "matches": 480}
                                     for n, (mu, sd) in figures.items()}})
    classic = next(f for f in describe_rules(known).families if f.name == "classic")
    assert list(classic.variants[0].shapes[0].bot_strengths) == [pb.BOT_STRENGTH_RANDOM, pb.BOT_STRENGTH_GREEDY,
                                                                 pb.BOT_STRENGTH_STRONG, pb.BOT_STRENGTH_EXPERT]
