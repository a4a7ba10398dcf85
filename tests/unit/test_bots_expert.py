"""The expert bot (services/bots/expert.py): legal, on time by its own clock, the same move
from the same seed when bounded by deals, and never later than the think time in the bots
service's player. Time is injected (a clock that moves on each reading), never measured."""

from __future__ import annotations

import asyncio
import random
import threading

import pytest

from domino.match.v1 import match_service_pb2 as pb
from services.bots import player as player_module
from services.bots.arena import arena_rules, deal_key, first_round, resolve
from services.bots.expert import ExpertBot, ExpertConfig, dominates
from services.bots.player import BotPlayer
from services.bots.strategies import STRATEGIES
from services.bots.strong import StrongBot, StrongConfig
from services.rules.match import apply
from services.rules.view import player_view
from tests.support.families import Table, params, usual_tables
from tests.support.keys import KEYS

SETTINGS = usual_tables()  # the first, Egyptian's block-4 in teams, is the one a test of one table takes


class Ticking:
    """A clock that moves on by ``step`` each time it is read (thread-safe): a search that
    reads it as it goes sees its time pass, however fast the machine is."""

    def __init__(self, step: float = 0.001, now: float = 1000.0) -> None:
        self.step, self.now, self.reads = step, now, 0
        self._lock = threading.Lock()

    def __call__(self) -> float:
        with self._lock:
            self.now += self.step
            self.reads += 1
            return self.now


def small(**changes) -> ExpertBot:
    return ExpertBot(ExpertConfig(**{"budget": None, "deals": 24, "batch": 8, "min_deals": 8, **changes}))


def views(setting: Table, seed: int = 5, deal: int = 0):
    """(match, view of the seat to act) at every choice of one round played greedily."""
    rules = arena_rules(setting.family, setting.variant, setting.teams, setting.seats)
    m = first_round(rules, seed, deal)
    rng = random.Random(seed)
    while m.round is not None and m.round.outcome is None:
        view = player_view(m, m.round.turn)
        yield m, view
        m = apply(m, STRATEGIES["greedy"](view, rng), view.seat)


def choices(setting, seed: int = 5):
    return [v for _, v in views(setting, seed) if len(v.legal_moves) > 1]


@pytest.mark.parametrize("setting", params(SETTINGS))
def test_expert_only_ever_plays_legal_moves(setting):
    bot = small()
    rng = random.Random(1)
    rules = arena_rules(setting.family, setting.variant, setting.teams, setting.seats)
    m = first_round(rules, 9, 0)
    while m.round is not None and m.round.outcome is None:
        view = player_view(m, m.round.turn)
        move = bot(view, rng)
        assert move in view.legal_moves
        m = apply(m, move, view.seat)


def test_expert_is_registered_as_the_strongest_strength_and_offered():
    from services.common import bot_strengths

    assert bot_strengths.NAMES[-1] == "expert" and "expert" in bot_strengths.OFFERED
    assert isinstance(STRATEGIES["expert"], ExpertBot) and STRATEGIES["expert"].anytime


@pytest.mark.parametrize("budget", [0.0005, 0.01, 0.05, 0.3])
@pytest.mark.parametrize("setting", params(SETTINGS[:4]))
def test_expert_answers_within_its_budget_by_its_clock(setting, budget):
    clock = Ticking(step=0.0001)
    bot = ExpertBot(ExpertConfig(budget=budget, deals=None, confidence=None), clock=clock)
    for view in choices(setting)[:4]:
        started = clock.now + clock.step  # its first reading starts the budget
        move = bot(view, random.Random(2))
        assert move in view.legal_moves
        assert clock.now <= started + budget  # its last reading: it answers right after
        if budget >= 0.05:
            assert bot.last_deals > 0  # and it searched while it had the time


def test_with_a_deal_budget_the_same_seed_gives_the_same_move_whatever_the_clock():
    for setting in SETTINGS:
        for view in choices(setting)[:3]:
            slow, fast = Ticking(step=5.0), Ticking(step=1e-6)  # budget None: the clock plays no part
            one = ExpertBot(small().config, clock=slow)
            other = ExpertBot(small().config, clock=fast)
            assert one(view, random.Random(7)) == other(view, random.Random(7))
            assert one.last_deals == other.last_deals > 0


def test_the_arena_plays_expert_with_options_and_untimed_for_the_ladder():
    timed = resolve("expert:budget=0.3,deals=500,eps=0.1")
    assert timed.config.budget == 0.3 and timed.config.deals == 500 and timed.strong.changes == {"eps": 0.1}
    assert resolve("expert:deadline=none").config.budget is None  # what the ladder asks every strength
    with pytest.raises(ValueError, match="wizardry"):
        resolve("expert:wizardry=1")


def test_a_search_stops_early_when_one_move_leads_every_other_beyond_doubt():
    # three moves, 100 deals: move 0 beats move 1 by 1 +/- small noise, and ties move 2 exactly in every deal
    values = [(1.0 + 0.01 * (i % 3), 0.0 + 0.01 * (i % 5), 1.0 + 0.01 * (i % 3)) for i in range(100)]
    totals = [sum(v[j] for v in values) for j in range(3)]
    gram = [[sum(v[j] * v[k] for v in values) for k in range(3)] for j in range(3)]
    assert dominates(0, totals, gram, 100, 3.0)
    noisy = [(1.0 if i % 2 else -1.0, 0.9 if i % 3 else -0.9) for i in range(100)]
    totals = [sum(v[j] for v in noisy) for j in range(2)]
    gram = [[sum(v[j] * v[k] for v in noisy) for k in range(2)] for j in range(2)]
    assert not dominates(0, totals, gram, 100, 3.0)


def test_with_confidence_a_search_may_stop_before_its_deal_cap_and_never_goes_past_it():
    bot = ExpertBot(ExpertConfig(budget=None, deals=400, batch=16, min_deals=16))
    searched = []
    for setting in SETTINGS[:3]:
        for view in choices(setting)[:4]:
            bot(view, random.Random(3))
            searched.append(bot.last_deals)
    assert all(16 <= n <= 400 for n in searched) and min(searched) < 400


# --- the bots service's think path ---------------------------------------------------------


class OneTurnStub:
    """A match service that gives a bot one turn at a table with a person and takes its move."""

    def __init__(self, clock: Ticking) -> None:
        self.clock = clock
        self.sent_at: float | None = None
        self.move = None

    async def GetMatch(self, request, metadata=None, timeout=None):
        view = pb.MatchView(match_id="m1", version=3, status=pb.MATCH_STATUS_IN_PROGRESS, turn=1, your_seat=1)
        for player in ["ann", "bot:expert:1", "bob", "bot:expert:3"]:
            view.seats.add(player_id=player)
        view.legal_moves.add(kind=pb.MOVE_KIND_PLAY)  # a turn comes with its moves (the bot reads them from `views`)
        return pb.GetMatchResponse(view=view)

    async def PlayTile(self, request, metadata=None, timeout=None):
        self.sent_at = self.clock()
        self.move = request
        return pb.PlayTileResponse(view=pb.MatchView(match_id="m1", version=4, status=pb.MATCH_STATUS_ENDED))

    DrawTile = PlayTile


@pytest.mark.parametrize("version", range(4))
def test_at_a_table_with_people_the_expert_searches_the_think_time_and_moves_no_later(monkeypatch, version):
    _, view = next((m, v) for m, v in views(SETTINGS[0], seed=version) if len(v.legal_moves) > 1)
    monkeypatch.setattr(player_module, "view_from_pb", lambda msg: view)
    clock = Ticking(step=0.002)
    stub = OneTurnStub(clock)
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)
        clock.now += seconds

    bot = BotPlayer(stub, KEYS, think_seconds=(0.6, 1.5), timer=clock, sleep=sleep)
    expert = STRATEGIES["expert"]
    searched = []
    monkeypatch.setattr(expert, "search", lambda *a, _s=expert.search: searched.append(1) or _s(*a))
    started = clock.now
    pace = bot.pace(pb.MatchView(seats=[pb.SeatView(player_id=p) for p in ("ann", "bot:expert:1")]),
                    random.Random(f"m1:3:bot:expert:1:pace"))
    assert asyncio.run(bot.play_turn("m1", "bot:expert:1", 3)) == 1
    assert searched and expert.last_deals > 0  # it spent the think time searching
    assert stub.sent_at is not None and stub.sent_at <= started + pace + 0.01  # one reading after the deadline at most
    assert not slept or slept[0] < 0.1  # what it waits after searching is only the moment left


def test_only_one_long_search_at_a_time_the_others_decide_at_bot_speed(monkeypatch):
    bot = BotPlayer(None, KEYS, think_seconds=(0.6, 1.5), deciding=8)
    assert bot._searching._value == 1 and bot._deciding._value == 8
    assert BotPlayer(None, KEYS, deciding=1)._searching._value == 0  # the only slot is never held for long


def test_an_exact_endgame_search_plays_legal_moves_and_repeats_itself():
    late = [v for v in choices(SETTINGS[0], seed=2) if sum(v.tile_counts) + v.boneyard_count <= 10]
    assert late
    for view in late:
        one, other = small(exact_tiles=10), small(exact_tiles=10)
        move = one(view, random.Random(4))
        assert move in view.legal_moves and move == other(view, random.Random(4))
        assert one._solver(view, one.strong.config_for(view.rules), lambda t: 0.0) is not None
    plain = ExpertBot(small().config, StrongBot(StrongConfig()))  # strong's defaults: no endgame search
    assert plain._solver(late[0], plain.strong.config_for(late[0].rules), lambda t: 0.0) is None


def test_the_expert_solves_endgames_exactly_where_strong_does():
    late = [v for v in choices(SETTINGS[0], seed=2) if sum(v.tile_counts) + v.boneyard_count <= 10]
    bot = ExpertBot(small().config, StrongBot(StrongConfig(exact_tiles=10)))
    assert bot._solver(late[0], bot.strong.config_for(late[0].rules), lambda t: 0.0) is not None
    assert bot(late[0], random.Random(1)) in late[0].legal_moves


def test_an_endgame_too_big_to_solve_in_its_positions_is_played_out_with_rollouts():
    view = next(v for v in choices(SETTINGS[0], seed=2) if 14 <= sum(v.tile_counts) <= 20)
    tiny = small(exact_tiles=28, exact_nodes=5)  # the first deal's solve gives up at once
    assert tiny(view, random.Random(1)) in view.legal_moves and tiny.last_deals == 24  # every deal, rolled out
    roomy = small(exact_tiles=28, exact_nodes=3000)  # some deals solved, then no more
    assert roomy(view, random.Random(1)) in view.legal_moves and 0 < roomy.last_deals < 24
