"""The strong bot: legal, blind to hidden tiles, instant when forced, and its sampled deals
respect everything the public history shows."""

from __future__ import annotations

import math
import random
from types import SimpleNamespace

import pytest

from services.bots import knowledge as knowledge_module
from services.bots.arena import deal_key, first_round
from services.bots.knowledge import Knowledge
from services.bots.strategies import STRATEGIES
from services.bots.strong import StrongBot, StrongConfig
from services.rules import fairness
from services.rules import registry
from services.rules.match import apply, new_match, start_round
from services.rules.moves import LEFT
from services.rules.rulesets import egyptian, rule_set
from services.rules.state import Deal
from services.rules.tiles import ALL_TILES, DOUBLES, HIGH, LOW, MATCHES, OTHER_END, tiles_in
from services.rules.view import player_view
from tests.support.families import params, sample_tables, usual_tables

VARIANTS = [("block-4", None), ("block-4", False), ("block-3", None), ("draw-2", None)]
GREEDY = STRATEGIES["greedy"]


def small_bot(samples: int = 6) -> StrongBot:
    return StrongBot(StrongConfig(samples=samples, deadline=None))


def greedy_views(rules, key: bytes, rng_seed: int = 0):
    """(match, view of the seat to act) at every turn of one round played greedily, noisily."""
    m = start_round(new_match(rules), fairness.deal(rules, key))
    rng = random.Random(rng_seed)
    while m.round.outcome is None:
        seat = m.round.turn
        view = player_view(m, seat)
        yield m, view
        moves = view.legal_moves
        move = moves[rng.randrange(len(moves))] if rng.random() < 0.3 else GREEDY(view, rng)
        m = apply(m, move)


# --- legality --------------------------------------------------------------------------------


@pytest.mark.parametrize("variant,teams", VARIANTS)
def test_strong_only_ever_plays_legal_moves(variant, teams):
    rules = egyptian(variant, teams)
    bot = small_bot()
    rng = random.Random(1)
    for i in range(2):
        m = start_round(new_match(rules), fairness.deal(rules, deal_key(123, i)))
        while m.round.outcome is None:
            view = player_view(m, m.round.turn)
            move = bot(view, rng)
            assert move in view.legal_moves
            m = apply(m, move, view.seat)


def test_strong_is_registered_with_the_simple_strategies():
    assert {"random", "greedy", "strong"} <= set(STRATEGIES)
    rules = egyptian("block-4")
    _, view = next((m, v) for m, v in greedy_views(rules, b"reg") if len(v.legal_moves) > 1)
    for choose in STRATEGIES.values():
        assert choose(view, random.Random(0)) in view.legal_moves


# --- blind to hidden information ------------------------------------------------------------


def _redeal_hidden(rules, m, seat: int, rng: random.Random):
    """Another deal with the same public history as ``m`` and the same hand for ``seat``,
    but the other seats' unplayed tiles (and the boneyard) shuffled among them; the history
    is replayed on it. None when the replay is not legal for that shuffle."""
    rnd = m.round
    deal = rnd.dealt
    actions = rnd.actions()
    if any(move.kind == "draw" for _, move in actions):
        return None  # keep to positions where no tile has come from the boneyard
    played = [0] * rules.seats
    for s, move in actions:
        if move.kind == "play":
            played[s] |= 1 << move.tile
    hidden = []
    for s in range(rules.seats):
        if s != seat:
            hidden += tiles_in(deal.hands[s] & ~played[s])
    hidden += list(deal.boneyard) + ([deal.set_aside] if deal.set_aside >= 0 else [])
    rng.shuffle(hidden)
    hands = list(deal.hands)
    for s in range(rules.seats):
        if s != seat:
            k = (deal.hands[s] & ~played[s]).bit_count()
            hands[s] = played[s] | sum(1 << t for t in hidden[:k])
            hidden = hidden[k:]
    boneyard = tuple(hidden[: len(deal.boneyard)])
    aside = hidden[len(deal.boneyard)] if deal.set_aside >= 0 else -1
    other = Deal(tuple(hands), boneyard, aside)
    try:
        m2 = start_round(new_match(rules), other)
        if m2.round.turn != rnd.leader:
            return None
        for s, move in actions:
            m2 = apply(m2, move, s)
    except Exception:
        return None
    return m2 if m2.round.hands != rnd.hands else None


@pytest.mark.parametrize("variant,teams", VARIANTS)
def test_the_same_view_gives_the_same_choice_whatever_is_hidden_behind_it(variant, teams):
    rules = egyptian(variant, teams)
    bot = small_bot(8)
    checked = 0
    for i in range(30):
        for m, view in greedy_views(rules, deal_key(7, i), i):
            if len(view.legal_moves) < 2 or not view.actions:
                continue
            rng = random.Random(i)
            for _ in range(50):
                m2 = _redeal_hidden(rules, m, view.seat, rng)
                if m2 is not None:
                    break
            if m2 is None:
                continue
            view2 = player_view(m2, view.seat)
            assert view2 == view
            assert bot(view, random.Random(42)) == bot(view2, random.Random(42))
            checked += 1
            break
        if checked >= 4:
            break
    assert checked >= 4


# --- forced moves ---------------------------------------------------------------------------


def test_a_forced_move_is_taken_at_once_without_searching(monkeypatch):
    def boom(*a, **k):
        raise AssertionError("searched a forced move")

    monkeypatch.setattr(knowledge_module.Knowledge, "from_view", boom)
    rules = egyptian("draw-2")
    bot = StrongBot()  # the default budget: a search would be slow and would hit ``boom``
    forced = 0
    for i in range(5):
        for _, view in greedy_views(rules, deal_key(5, i), i):
            if len(view.legal_moves) == 1:
                assert bot(view, random.Random(0)) == view.legal_moves[0]
                forced += 1
    assert forced > 10


# --- determinizations respect the public constraints ------------------------------------------


def _events(view):
    """(seat, kind, ends-number mask, index) for passes and draws; the lead tile."""
    out = []
    left = right = -1
    lead = -1
    for i, a in enumerate(view.actions):
        if a.kind == "play":
            if left < 0:
                left, right, lead = LOW[a.tile], HIGH[a.tile], a.tile
            elif a.end == LEFT:
                left = OTHER_END[a.tile][left]
            else:
                right = OTHER_END[a.tile][right]
        else:
            out.append((a.seat, a.kind, MATCHES[left] | MATCHES[right], i))
    return out, lead


def _truth_is_possible(know: Knowledge, rnd) -> bool:
    """The real hidden tiles fit the groups' sizes and allowed tiles (bipartite matching)."""
    slots = []
    for gi, g in enumerate(know.groups):
        slots += [gi] * g.size
    truth = []
    for s in range(know.seats):
        if s != know.seat:
            truth += [(t, s) for t in tiles_in(rnd.hands[s])]
    truth += [(t, -1) for t in rnd.boneyard[rnd.drawn:]]
    if rnd.set_aside >= 0:
        truth.append((rnd.set_aside, -2))
    if len(truth) != len(slots):
        return False
    match: dict[int, int] = {}

    def augment(i, seen):
        t, owner = truth[i]
        for j, gi in enumerate(slots):
            g = know.groups[gi]
            if g.seat == owner and g.allowed >> t & 1 and j not in seen:
                seen.add(j)
                if j not in match or augment(match[j], seen):
                    match[j] = i
                    return True
        return False

    return all(augment(i, set()) for i in range(len(truth)))


@pytest.mark.parametrize("variant,teams", VARIANTS)
def test_sampled_deals_respect_counts_played_tiles_and_voids(variant, teams):
    rules = egyptian(variant, teams)
    rng = random.Random(3)
    voids_seen = 0
    positions = 0
    for i in range(12):
        for m, view in greedy_views(rules, deal_key(11, i), i):
            positions += 1
            if positions % 3:
                continue
            rnd = m.round
            me = view.seat
            know = Knowledge.from_view(view)
            assert know.total > 0
            assert _truth_is_possible(know, rnd)
            own = sum(1 << t for t in view.hand)
            played = sum(1 << a.tile for a in view.actions if a.kind == "play")
            events, lead = _events(view)
            higher_doubles = sum(1 << d for d in DOUBLES if lead in DOUBLES and d > lead)
            for _ in range(15):
                hands, boneyard, aside = know.sample_deal(rng)
                assert hands[me] == own
                assert [h.bit_count() for h in hands] == list(view.tile_counts)
                assert len(boneyard) == view.boneyard_count
                assert (aside >= 0) == (variant == "block-3")
                every = played
                for h in hands + [1 << t for t in boneyard] + ([1 << aside] if aside >= 0 else []):
                    assert not every & h  # each tile in one place only
                    every |= h
                assert every == ALL_TILES
                for s, h in enumerate(hands):
                    if s != me and not any(a.kind == "draw" and a.seat == s for a in view.actions):
                        assert not h & higher_doubles  # the round-1 lead was the highest double dealt
                for s, kind, ends, idx in events:
                    if s == me:
                        continue
                    voids_seen += 1
                    draws_after = sum(1 for a in view.actions[idx:] if a.seat == s and a.kind == "draw")
                    matching = (hands[s] & ends).bit_count()
                    if rules.draws:
                        # only tiles drawn since can show those numbers
                        assert matching <= draws_after
                    else:
                        assert matching == 0
    assert voids_seen > 0


@pytest.mark.parametrize("variant,teams", VARIANTS)
def test_the_real_hidden_tiles_are_always_a_possible_deal(variant, teams):
    """The inference never rules out the truth (e.g. a high double in draw-2's boneyard at
    the lead may be drawn later), at every turn of many rounds."""
    rules = egyptian(variant, teams)
    for i in range(40):
        for m, view in greedy_views(rules, deal_key(13, i), i):
            know = Knowledge.from_view(view)
            assert _truth_is_possible(know, m.round), (i, view.actions)


def test_a_pass_in_block4_empties_the_passer_of_both_numbers_in_every_sample():
    rules = egyptian("block-4")
    for i in range(40):
        for m, view in greedy_views(rules, deal_key(21, i), i):
            passes = [a for a in view.actions if a.kind == "pass" and a.seat != view.seat]
            if passes and len(view.legal_moves) > 1:
                know = Knowledge.from_view(view)
                events, _ = _events(view)
                rng = random.Random(0)
                for _ in range(100):
                    hands, _, _ = know.sample_deal(rng)
                    for s, _, ends, _ in events:
                        if s != view.seat:
                            assert not hands[s] & ends
                return
    pytest.fail("no position with a pass was found")


def test_a_free_lead_in_a_later_round_is_searched_and_legal():
    rules = egyptian("block-4")
    m = start_round(new_match(rules), fairness.deal(rules, deal_key(1, 0)))
    rng = random.Random(0)
    while m.round.outcome is None:
        m = apply(m, GREEDY(player_view(m, m.round.turn), rng))
    assert m.next_leader is not None, "this deal's first round must have a winner, who leads freely"
    m = start_round(m, fairness.deal(rules, deal_key(1, 1)))
    view = player_view(m, m.round.turn)
    assert view.round_number == 2 and len(view.legal_moves) == 7
    assert small_bot()(view, random.Random(1)) in view.legal_moves


def mid_round_views(rules, seed: int, deals: int = 6):
    """(deal index, the view of the middle choice of a greedy round) for ``deals`` deals."""
    for i in range(deals):
        views = [v for _, v in greedy_views(rules, deal_key(seed, i), i) if len(v.legal_moves) > 1]
        yield i, views[len(views) // 2]


def test_weighing_by_seen_plays_favours_deals_where_others_played_greedily():
    """Deals kept for the search explain the other seats' plays as heaviest-first more
    often than uniformly sampled deals do (and are all consistent: they come from the sampler)."""
    from services.bots.knowledge import play_evidence
    from services.rules.playout import heaviest

    rules = egyptian("block-4")
    bot = StrongBot(StrongConfig(samples=200, model_eps=0.1, deadline=None))
    uniform = kept = 0
    for i, view in mid_round_views(rules, 31):
        evidence = play_evidence(view)
        know = Knowledge.from_view(view)
        rng = random.Random(i)

        def greedy_explains(hands):
            return all(heaviest((hands[s] | later) & fits) == t for s, t, fits, later, _ in evidence)

        uniform += sum(greedy_explains(know.sample_deal(rng)[0]) for _ in range(200))
        kept += sum(greedy_explains(d[0]) for d in bot.determinizations(view, know, rng))
    assert kept > uniform * 1.2


def test_weighing_by_the_play_model_favours_deals_that_make_the_seen_plays_likely():
    """With ``play_model`` the kept deals make the other seats' free plays likelier under the
    model than uniformly sampled deals do, and every kept deal is one the view allows."""
    from services.bots.play_model import OTHERS, PARTNER, likelihood, seen_choices

    rules = egyptian("block-4", True)
    bot = StrongBot(StrongConfig(samples=200, model_eps=0.1, play_model=True, greedy_share=0, deadline=None))
    uniform = kept = 0.0
    for i, view in mid_round_views(rules, 37):
        choices = seen_choices(view)
        know = Knowledge.from_view(view)
        rng = random.Random(i)

        def log_likelihood(hands):
            total = 0.0
            for seen, later in choices:
                ws = PARTNER if rules.side_of(seen.seat) == rules.side_of(view.seat) else OTHERS
                total += math.log(likelihood(hands[seen.seat] | later, seen, ws, 0.1))
            return total

        uniform += sum(log_likelihood(know.sample_deal(rng)[0]) for _ in range(200)) / 200
        deals = bot.determinizations(view, know, rng)
        assert len(deals) == 200
        for hands, _, _ in deals:
            assert [h.bit_count() for h in hands] == list(view.tile_counts)
            assert _truth_is_possible(know, SimpleNamespace(hands=hands, boneyard=(), drawn=0, set_aside=-1))
        kept += sum(log_likelihood(hands) for hands, _, _ in deals) / 200
    assert kept > uniform + 1.0


# --- every family ------------------------------------------------------------------------------

TABLES = params(sample_tables())


def family_views(rules, seed: int, deals: int, noise: float = 0.3):
    """(match, view of the seat to act) at every turn of rounds played greedily, noisily."""
    for i in range(deals):
        m = first_round(rules, seed, i)
        rng = random.Random(i)
        while m.round.outcome is None:
            view = player_view(m, m.round.turn)
            yield m, view
            moves = view.legal_moves
            m = apply(m, moves[rng.randrange(len(moves))] if rng.random() < noise else GREEDY(view, rng))


@pytest.mark.parametrize("table", TABLES)
def test_strong_only_ever_plays_legal_moves_in_every_family(table):
    rules = table.build()
    bot = small_bot(4)
    rng = random.Random(1)
    m = first_round(rules, 77, 0)
    while m.round.outcome is None:
        view = player_view(m, m.round.turn)
        move = bot(view, rng)
        assert move in view.legal_moves
        m = apply(m, move, view.seat)


@pytest.mark.parametrize("table", TABLES)
def test_the_real_hidden_tiles_are_always_a_possible_deal_in_every_family(table):
    rules = table.build()
    for m, view in family_views(rules, 13, 8):
        assert _truth_is_possible(Knowledge.from_view(view), m.round), view.actions


@pytest.mark.parametrize("table", TABLES)
def test_against_greedy_opponents_the_greedy_model_never_rules_out_the_real_tiles(table):
    rules = table.build()
    for m, view in family_views(rules, 14, 6, noise=0.0):
        side = rules.side_of(view.seat)
        opponents = tuple(s for s in range(rules.seats) if rules.side_of(s) != side)
        know = Knowledge.assuming_greedy(view, opponents)
        assert know is not None and _truth_is_possible(know, m.round), view.actions


def finished(rules, seed: int):
    """A view with a choice, and a round played to its end from there."""
    from services.bots.knowledge import round_from_view
    from services.bots.strong import rollout

    for m, view in family_views(rules, seed, 20):
        if len(view.legal_moves) > 1 and view.actions:
            rnd = m.round
            r = round_from_view(view, list(rnd.hands), list(rnd.boneyard[rnd.drawn:]), rnd.set_aside)
            rollout(r, random.Random(0).random, 0.0)
            return view, r
    raise AssertionError("no position with a choice")


def test_all_fives_value_counts_points_scored_during_play_for_and_against():
    from services.bots.strong import round_value

    rules = rule_set("all-fives", None, True, 4)
    view, r = finished(rules, 3)
    value = round_value(view, StrongConfig(points_weight=1.0))
    mine, theirs = rules.side_of(view.seat), 1 - rules.side_of(view.seat)
    base = value(r)
    r.play_points += ((r.made, theirs, 20),)
    assert value(r) == pytest.approx(base - 20 / StrongConfig().point_scale)
    r.play_points += ((r.made, mine, 40),)
    assert value(r) == pytest.approx(base + 20 / StrongConfig().point_scale)


def test_all_fives_value_counts_each_point_of_the_round_once():
    from services.bots.strong import round_value

    rules = rule_set("all-fives", None, False, 2)
    view, r = next((v, r) for v, r in map(lambda seed: finished(rules, seed), range(20)) if v.play_points)
    totals = [0, 0]
    for _, side, points in r.play_points:  # the view's own scoring plays, then the rollout's
        totals[side] += points
    winner, points = rules.kind.score_round(rules, r.outcome, r.history[1], r.hands)
    if winner is not None:
        totals[winner] += points
    me = view.seat
    scale = StrongConfig().point_scale
    assert round_value(view, StrongConfig(points_weight=1.0))(r) == pytest.approx((totals[me] - totals[1 - me]) / scale)


def test_goat_value_prefers_the_round_in_which_the_side_keeps_fewer_pips():
    from services.bots.strong import round_value
    from services.rules.tiles import tile

    rules = rule_set("goat", "gamezz", None, 2)
    for seed in range(20):
        view, r = finished(rules, seed)
        if r.history[1] != view.seat:  # the other seat went out or fished: ours is counted
            break
    value = round_value(view, StrongConfig())
    spare = next(t for t in range(28) if not any(h >> t & 1 for h in r.hands) and t != tile(0, 0))
    heavier = r.copy()
    heavier.hands[view.seat] |= 1 << spare
    assert value(heavier) < value(r)


@pytest.mark.parametrize("table", params(usual_tables()))
def test_a_seeded_rng_gives_the_same_move_in_every_family(table):
    rules = table.build()
    bot = StrongBot(samples=16, deadline=None)
    views = [v for _, v in family_views(rules, 21, 2) if len(v.legal_moves) > 1][:6]
    assert views
    for view in views:
        assert bot(view, random.Random(5)) == bot(view, random.Random(5))


def test_each_family_plays_strong_with_the_search_its_bot_tuning_states():
    assert StrongBot().config_for(egyptian("block-4")) == StrongConfig(play_model=True, exact_tiles=20, deadline=0.08)
    assert StrongBot().config_for(rule_set("goat", "koza")) == StrongConfig(greedy_share=0.5, max_work=16000)
    assert StrongBot(samples=64).config_for(rule_set("classic")) == StrongConfig(greedy_share=0.8, samples=64)


def test_strong_refuses_a_family_that_states_no_bot_tuning():
    class Untuned(type(registry.family("classic"))):  # type: ignore[misc]
        name = "untuned"
        bot_tuning = None

    with pytest.raises(ValueError, match="untuned family states no bot_tuning"):
        StrongBot().config_for(Untuned().build(seats=2))
