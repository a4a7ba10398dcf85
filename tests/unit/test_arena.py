"""`domino bots arena`: duplicate format, the report's shape, reproducibility."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from services.bots.arena import (
    FieldResult,
    PlayResult,
    arena,
    arena_rules,
    deal_key,
    first_round,
    round_outcome,
    run_deals,
    same_seat,
    seatings,
    wilson,
)
from services.cli.bots import bots
from services.rules import fairness
from services.rules.families.all_fives import AllFivesRound
from services.rules.rulesets import egyptian
from services.rules.state import RoundResult
from services.rules.tiles import mask_of
from tests.support.families import option_tables, params, sample_tables

from .positions import tiles

KEYS = {
    "a", "b", "variant", "teams", "seed", "deals", "format", "plays_per_deal", "rounds", "decided", "ties",
    "a_wins", "b_wins", "a_win_rate", "a_win_rate_ci95", "a_points_per_round", "b_points_per_round",
    "decision_ms",
}
TIMING = {"strategy", "count", "mean_ms", "p50_ms", "p99_ms", "max_ms"}


def test_a_tiny_run_reports_every_figure():
    r = arena("greedy", "random", "block-4", deals=3, seed=1)
    assert KEYS <= set(r)
    assert r["rounds"] == 6 and r["decided"] + r["ties"] == 6
    assert r["a_wins"] + r["b_wins"] == r["decided"]
    lo, hi = r["a_win_rate_ci95"]
    assert 0 <= lo <= r["a_win_rate"] <= hi <= 1
    for side in ("a", "b"):
        assert TIMING <= set(r["decision_ms"][side])
    assert json.loads(json.dumps(r)) == r


def test_duplicate_format_swaps_the_sides_on_every_deal():
    teams = egyptian("block-4")
    assert seatings(teams) == [(0, 2), (1, 3)]
    assert seatings(egyptian("draw-2")) == [(0,), (1,)]
    assert seatings(egyptian("block-3")) == [(0,), (1,), (2,), (1, 2), (0, 2), (0, 1)]
    tally = run_deals("greedy", "random", "block-4", None, 5, range(4))
    by_deal: dict[int, list] = {}
    for p in tally.plays:
        by_deal.setdefault(p.deal, []).append(p.a_seats)
    assert by_deal == {i: [(0, 2), (1, 3)] for i in range(4)}


def test_a_strategy_against_itself_breaks_exactly_even():
    # greedy is deterministic, so the swapped replay of a deal gives the same round with
    # the sides exchanged: every deal is one win each.
    for variant, teams in (("block-4", None), ("block-3", None), ("draw-2", None), ("block-4", False)):
        r = arena("greedy", "greedy", variant, teams, deals=4, seed=2)
        assert r["a_wins"] == r["b_wins"], variant
        assert r["deals_a_ahead"] == r["deals_b_ahead"] == 0


def test_same_seed_same_result():
    def run():
        r = arena("strong:samples=4,deadline=none", "greedy", "block-3", deals=2, seed=9)
        return {k: v for k, v in r.items() if k not in ("decision_ms", "decision_cpu_ms", "elapsed_s")}

    first = run()
    assert run() == first
    other = arena("strong:samples=4,deadline=none", "greedy", "block-3", deals=2, seed=10)
    assert other["rounds"] == first["rounds"]


def test_wilson_interval():
    lo, hi = wilson(62, 100)
    assert round(lo, 3) == 0.522 and round(hi, 3) == 0.709
    assert wilson(0, 0) == (0.0, 1.0)


def test_cli_prints_json():
    result = CliRunner().invoke(bots, ["arena", "--a", "greedy", "--b", "random", "--variant", "draw-2",
                                       "--deals", "2", "--seed", "3", "--json"])
    assert result.exit_code == 0, result.output
    r = json.loads(result.output)
    assert r["variant"] == "draw-2" and r["rounds"] == 4


def test_cli_reports_the_same_seat_comparison_for_solo_games_of_three_seats():
    result = CliRunner().invoke(bots, ["arena", "--a", "random", "--b", "greedy", "--rules", "classic", "--seats", "3",
                                       "--deals", "4", "--seed", "1"])
    assert result.exit_code == 0, result.output
    assert "same seat, same cards" in result.output and "decided comparisons" in result.output


def test_cli_rejects_unknown_strategy_and_teams_outside_block4():
    runner = CliRunner()
    bad = runner.invoke(bots, ["arena", "--a", "nope", "--b", "greedy", "--deals", "1"])
    assert bad.exit_code == 2
    bad = runner.invoke(bots, ["arena", "--a", "greedy", "--b", "greedy", "--variant", "draw-2", "--teams"])
    assert bad.exit_code == 2


# --- every family -------------------------------------------------------------------------------

FAMILY_ARENAS = params(sample_tables() + option_tables())


@pytest.mark.parametrize("table", FAMILY_ARENAS)
def test_the_arena_runs_in_every_family(table):
    r = arena("strong:samples=4,deadline=none", "greedy", table.variant, table.teams, deals=1, seed=4,
              rules=table.family, seats=table.seats, options=table.chosen)
    assert r["rules"] == table.family and r["rounds"] == r["plays_per_deal"] == len(seatings(arena_rules(
        table.family, table.variant, table.teams, table.seats, table.chosen)))
    assert r["decided"] + r["ties"] == r["rounds"] and r["decision_ms"]["a"]["count"] > 0


@pytest.mark.parametrize("table", FAMILY_ARENAS)
def test_greedy_against_itself_breaks_exactly_even_in_every_family(table):
    r = arena("greedy", "greedy", table.variant, table.teams, deals=3, seed=6, rules=table.family, seats=table.seats,
              options=table.chosen)
    assert r["a_wins"] == r["b_wins"]


def test_seatings_generalise_to_four_solo_seats():
    rules = arena_rules("classic", None, None, 4)
    assert seatings(rules) == [(0,), (1,), (2,), (3,), (1, 2, 3), (0, 2, 3), (0, 1, 3), (0, 1, 2)]


def result(**fields) -> RoundResult:
    base = dict(reason="domino", winner=0, points=0, scores=(0, 0), last_seat=0, hands=(0, 0))
    return RoundResult(**{**base, **fields})


def test_an_all_fives_round_is_won_by_the_side_that_scored_most_in_it_play_points_included():
    rules = arena_rules("all-fives", None, None, 2)
    # seat 0 went out for 5; seat 1 scored 10 + 5 during play: seat 1 won the round
    outcome = result(winner=0, points=5, extras=AllFivesRound(((0, 1, 10), (3, 0, 5), (4, 1, 5))))
    assert round_outcome(rules, outcome) == (1, [10, 15])
    assert round_outcome(rules, outcome._replace(points=10))[0] is None  # 15 each: a tie


def test_a_goat_round_is_won_by_the_side_with_the_lowest_round_score():
    rules = arena_rules("goat", "gamezz", True, 4)
    hands = tuple(mask_of(tiles(h)) for h in ("6-6", "0-1", "", "5-5 4-4"))
    # seat 2 went out: team 0 counts seat 0's 12, team 1 counts 1 + 18; team 0 is lower
    assert round_outcome(rules, result(last_seat=2, winner=0, hands=hands)) == (0, [12, 19])
    level = tuple(mask_of(tiles(h)) for h in ("6-6", "6-5", "", "0-1"))
    assert round_outcome(rules, result(last_seat=2, winner=0, hands=level))[0] is None


def test_a_goat_deal_thrown_in_is_followed_by_the_next_deal_of_the_same_play():
    rules = arena_rules("goat", "koza", None, 4)
    index = next(i for i in range(2000) if rules.redeal(fairness.deal(rules, deal_key(0, i)).hands))
    m = first_round(rules, 0, index)
    assert m.round.outcome is None and m.results[-1].reason == "redeal" and m.round.lead >= 0


def test_cli_plays_any_family_with_options():
    result_ = CliRunner().invoke(bots, ["arena", "--a", "greedy", "--b", "random", "--rules", "goat", "--variant", "koza",
                                        "--seats", "3", "--option", "remembered=false", "--option", "zero_zero=25",
                                        "--deals", "1", "--json"])
    assert result_.exit_code == 0, result_.output
    r = json.loads(result_.output)
    assert (r["rules"], r["variant"], r["seats"], r["rounds"]) == ("goat", "koza", 3, 6)
    assert r["options"]["remembered"] is False and r["options"]["zero_zero"] == 25


def test_cli_rejects_what_the_family_does_not_offer():
    runner = CliRunner()
    for args in (["--rules", "sports", "--seats", "3"], ["--rules", "goat"], ["--rules", "classic", "--teams"],
                 ["--rules", "goat", "--variant", "koza", "--option", "nope=1"], ["--rules", "goat", "--option", "x"]):
        bad = runner.invoke(bots, ["arena", "--a", "greedy", "--b", "greedy", "--deals", "1", *args])
        assert bad.exit_code == 2, args


def test_solo_games_of_three_or_more_seats_add_the_same_seat_comparison():
    r = arena("strong:samples=4,deadline=none", "greedy", deals=2, seed=3, rules="classic", seats=3)
    same = r["same_seat"]
    assert same["decided"] == same["a_better"] + same["b_better"]
    assert same["decided"] == same["among_a"]["decided"] + same["among_b"]["decided"] <= 2 * 2 * 3
    assert "same_seat" not in arena("greedy", "random", "block-4", deals=1, seed=1)
    assert "same_seat" not in arena("greedy", "random", rules="classic", seats=2, deals=1, seed=1)


def test_a_deterministic_strategy_against_itself_has_no_decided_same_seat_comparison():
    # greedy alone in seat k among greedy is the all-greedy play itself
    r = arena("greedy", "greedy", deals=3, seed=5, rules="classic", seats=4)
    assert r["same_seat"]["decided"] == 0 and r["same_seat"]["a_rate"] is None


def test_same_seat_compares_seat_k_with_a_against_seat_k_with_b_in_the_same_company():
    plays = [  # deal 0 at three seats: A alone in seats 0, 1, 2; then B alone in seats 0, 1, 2
        PlayResult(0, (0,), 0, 0, True, "domino"),  # A alone won in seat 0; all-B: seat 1 won -> A better
        PlayResult(0, (1,), 1, 0, True, "domino"),  # A alone won in seat 1; all-B: seat 1 won -> not decided
        PlayResult(0, (2,), 1, 0, False, "domino"),  # A alone lost in seat 2; all-B: seat 2 lost -> not decided
        PlayResult(0, (1, 2), 0, 0, False, "domino"),  # B alone won in seat 0; all-A: seat 0 lost -> B better
        PlayResult(0, (0, 2), 2, 0, True, "domino"),  # B alone lost in seat 1; all-A: seat 1 lost -> not decided
        PlayResult(0, (0, 1), None, 0, None, "blocked"),  # B alone tied in seat 2; all-A: seat 2 won -> A better
    ]
    fields = [FieldResult(0, "b", 1), FieldResult(0, "a", 2)]
    got = same_seat(plays, fields, 3)
    assert (got["among_b"]["a_better"], got["among_b"]["b_better"]) == (1, 0)
    assert (got["among_a"]["a_better"], got["among_a"]["b_better"]) == (1, 1)
    assert (got["decided"], got["a_better"], got["a_rate"]) == (3, 2, round(2 / 3, 4))
