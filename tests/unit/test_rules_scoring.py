"""docs/rules.md §1.5: the end of a round, points, and the end of the match."""

import pytest

from services.rules.errors import BadOptions, MatchOver
from services.rules.match import apply, new_match, start_round
from services.rules.moves import PASS, legal_moves
from services.rules.rulesets import egyptian
from services.rules.scoring import egyptian_round_points
from services.rules.state import Deal

from .positions import hand
from .test_rules_leading import BLOCK4_SEAT2_HOLDS_66

SOLO3 = egyptian("block-3")
TEAMS = egyptian("block-4")
SOLO4 = egyptian("block-4", teams=False)


def test_solo_domino_scores_the_pips_of_every_other_hand():
    hands = (0, hand("6-6"), hand("1-2"))
    assert egyptian_round_points(SOLO3, "domino", 0, hands) == (0, 15)


def test_solo_blocked_round_is_won_by_the_lowest_hand_scoring_all_others():
    hands = (hand("0-1"), hand("6-6"), hand("1-2"))
    assert egyptian_round_points(SOLO3, "blocked", 2, hands) == (0, 15)


def test_solo_blocked_round_with_a_shared_lowest_total_is_a_tie():
    hands = (hand("0-3"), hand("6-6"), hand("1-2"))
    assert egyptian_round_points(SOLO3, "blocked", 2, hands) == (None, 0)


def test_teams_domino_scores_only_the_other_teams_pips():
    hands = (0, hand("1-1"), hand("6-6"), hand("2-2"))
    assert egyptian_round_points(TEAMS, "domino", 0, hands) == (0, 6)


def test_blocked_team_round_scores_only_opponents_pips():
    hands = (hand("0-1"), hand("2-3"), hand("4-4"), hand("3-3"))
    # team 0: 1 + 8 = 9; team 1: 5 + 6 = 11
    assert egyptian_round_points(TEAMS, "blocked", 1, hands) == (0, 11)


def test_blocked_team_round_with_equal_totals_is_a_tie():
    hands = (hand("0-1"), hand("2-3"), hand("4-4"), hand("1-3"))
    assert egyptian_round_points(TEAMS, "blocked", 1, hands) == (None, 0)


def test_block4_solo_scores_every_other_hand():
    hands = (0, hand("1-1"), hand("6-6"), hand("2-2"))
    assert egyptian_round_points(SOLO4, "domino", 0, hands) == (0, 18)


def test_block3_set_aside_tile_counts_for_nobody():
    # The set-aside tile is in no hand, so it cannot reach anyone's total.
    hands = (0, hand("1-1"), hand("2-2"))
    assert egyptian_round_points(SOLO3, "domino", 0, hands) == (0, 6)


def play_round(m):
    while m.round.outcome is None:
        m = apply(m, legal_moves(m.round)[0])
    return m


def test_the_match_ends_when_a_side_reaches_the_target():
    m = new_match(TEAMS, 51)
    while m.winner is None:
        m = play_round(start_round(m, BLOCK4_SEAT2_HOLDS_66))
    last = m.results[-1]
    assert m.scores[m.winner] >= 51 and last.winner == m.winner
    assert all(r.scores[m.winner] < 51 for r in m.results[:-1])


def test_no_round_is_dealt_after_the_match_ends():
    m = new_match(TEAMS, 51)
    while m.winner is None:
        m = play_round(start_round(m, BLOCK4_SEAT2_HOLDS_66))
    with pytest.raises(MatchOver):
        start_round(m, BLOCK4_SEAT2_HOLDS_66)


def test_no_move_is_made_after_the_match_ends():
    m = new_match(TEAMS, 51)
    while m.winner is None:
        m = play_round(start_round(m, BLOCK4_SEAT2_HOLDS_66))
    with pytest.raises(MatchOver):
        apply(m, PASS)


@pytest.mark.parametrize("target", [51, 71, 101, 151])
def test_the_host_may_choose_any_offered_target(target):
    assert new_match(TEAMS, target).target == target


def test_a_target_outside_51_71_101_151_is_refused():
    with pytest.raises(BadOptions):
        new_match(TEAMS, 100)


@pytest.mark.parametrize("variant,target", [("draw-2", 71), ("block-3", 101), ("block-4", 101)])
def test_default_targets(variant, target):
    assert new_match(egyptian(variant)).target == target


def test_teams_are_only_for_block4():
    with pytest.raises(BadOptions):
        egyptian("block-3", teams=True)
    assert egyptian("block-4").teams and not egyptian("block-4", teams=False).teams


def test_a_deal_of_the_wrong_shape_is_refused():
    from services.rules.errors import BadDeal

    with pytest.raises(BadDeal):
        start_round(new_match(TEAMS), Deal(BLOCK4_SEAT2_HOLDS_66.hands[:3]))
