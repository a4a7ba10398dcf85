"""Who led the round just dealt, as the end of the last round names it: the seat that led
(the first to act in the round), never merely the seat to move when the screen is drawn, with
the reason each family's rules give (docs/rules.md, "Who leads")."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domino.match.v1 import match_service_pb2 as pb
from services.client import lead_words, render
from services.client.round_end import next_round_text

from .test_play_core import NOW, view
from tests.support.rules_description import served_rules  # noqa: F401  (the fixture, by name)

pytestmark = pytest.mark.usefixtures("served_rules")

SEATS3 = ("ann", "bot:greedy:1", "bot:greedy:2")
SEATS4 = ("ann", "bot:greedy:1", "bot:greedy:2", "bot:greedy:3")


def played(seat: int, high: int, low: int) -> dict:
    return {"seat": seat, "kind": pb.MOVE_KIND_PLAY, "tile": pb.Tile(low=low, high=high)}


def family(rules: str, variant: str = "", **kw) -> pb.MatchView:
    v = view(variant=variant, **kw)
    v.rules = rules
    return v


def said(v: pb.MatchView) -> str:
    return render.to_text(next_round_text(v, NOW, 8), width=200).strip()


def test_classic_names_the_winner_who_led_though_the_next_seat_is_to_move():
    v = family("classic", seats=SEATS3, turn=2, line=((5, 3),), hand=((2, 1),),
               rounds=[{"reason": pb.ROUND_END_REASON_DOMINO, "winner": 1, "points": 20, "scores": [0, 20, 0]}],
               actions=[played(1, 5, 3)])
    assert lead_words.leader(v) == 1
    assert said(v).startswith("Round 2 is dealt: bot greedy 1 led with 5|3 (won round 1).")


def test_goat_names_the_fisherman_who_led_when_it_is_your_turn_after_him():
    v = family("goat", "koza", seats=SEATS3, turn=0, line=((6, 2),), legal=[("play", (6, 4), 0)],
               rounds=[{"reason": pb.ROUND_END_REASON_BLOCKED, "winner": 2, "points": 30, "scores": [10, 20, 0]}],
               actions=[played(2, 6, 2)])
    assert said(v).startswith("Round 2 is dealt: bot greedy 2 led with 6|2 (made the fish in round 1); "
                              "your turn — 30 s left.")


def test_goat_after_a_redeal_the_seat_that_went_out_before_it_leads():
    v = family("goat", "gamezz", seats=SEATS3, turn=1, line=(),
               rounds=[{"reason": pb.ROUND_END_REASON_DOMINO, "winner": 1, "scores": [12, 0, 9]}, {"reason": pb.ROUND_END_REASON_REDEAL}])
    assert "bot greedy 1 leads (went out in round 1)." in said(v)


def test_sports_after_a_tied_round_names_the_seat_drawn_by_chance_that_led():
    v = family("sports", seats=SEATS4, teams=True, turn=0, line=((4, 1),), legal=[("play", (6, 4), 0)],
               rounds=[{"reason": pb.ROUND_END_REASON_BLOCKED, "scores": [0, 0]}], actions=[played(3, 4, 1)],
               lead=(3, pb.LEAD_REASON_BY_CHANCE))  # the server's: Sports draws its leader by chance
    assert said(v).startswith("Round 2 is dealt: bot greedy 3 led with 4|1 (drawn by chance, as after a tied "
                              "round); your turn")


def test_sports_in_pairs_the_round_is_led_for_the_pair_that_won():
    v = family("sports", seats=SEATS4, teams=True, turn=3, line=(),
               rounds=[{"reason": pb.ROUND_END_REASON_DOMINO, "winner": 1, "points": 40, "scores": [0, 40]}])
    assert "bot greedy 3 leads (team B won round 1)." in said(v)


def test_egyptian_after_a_tied_round_the_highest_double_led_again():
    v = family("egyptian", "draw-2", turn=0, line=((6, 6),), legal=[("play", (6, 4), 0)],
               rounds=[{"reason": pb.ROUND_END_REASON_BLOCKED, "scores": [0, 0]}], actions=[played(1, 6, 6)])
    assert ("bot greedy 1 led with 6|6, the highest double dealt, as after a tied round; your turn"
            in said(v))


def test_all_fives_you_lead_the_round_you_won_before_anyone_acts():
    v = family("all-fives", turn=0, line=(), legal=[("play", (6, 4), 0)],
               rounds=[{"reason": pb.ROUND_END_REASON_DOMINO, "winner": 0, "points": 15, "scores": [25, 0]}])
    assert said(v).startswith("Round 2 is dealt: you lead (won round 1) — 30 s left.")


def test_before_anyone_acts_the_round_one_rule_is_said_for_a_leader_not_yet_seen():
    v = family("classic", seats=SEATS3, turn=2, line=(), rounds=[{"reason": pb.ROUND_END_REASON_BLOCKED,
                                                                   "scores": [0, 0, 0]}])
    assert ("bot greedy 2 leads (the holder of the highest double but 0-0 leads, as after a tied round)."
            in said(v))


@given(first=st.integers(0, 3), turn=st.one_of(st.none(), st.integers(0, 3)),
       rest=st.lists(st.tuples(st.integers(0, 3), st.sampled_from([pb.MOVE_KIND_PLAY, pb.MOVE_KIND_DRAW,
                                                                    pb.MOVE_KIND_PASS])), max_size=12))
def test_the_leader_is_the_seat_the_view_names_whoever_is_to_move_now(first, turn, rest):
    v = family("all-fives", seats=SEATS4, turn=turn, actions=[{"seat": seat, "kind": kind} for seat, kind in rest],
               lead=(first, pb.LEAD_REASON_TOOK_THE_LAST_ROUND))
    assert lead_words.leader(v) == first  # round_lead, not the seat to move nor the first to act
    v.ClearField("round_lead")  # a view without it (before the first deal): whoever acted first, else the turn
    assert lead_words.leader(v) == (rest[0][0] if rest else turn)
