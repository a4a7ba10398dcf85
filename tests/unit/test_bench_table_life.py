"""bench/table_life.py's parts that need no server: which seats are bots, which streams
reconnect, and what the system measured reads from a metrics page."""

from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from bench.idle_system import metric_total
from bench.table_life import SEATS, bot_seats, deadline_of, reconnecting, seat_specs
from domino.match.v1 import match_service_pb2 as pb


@pytest.mark.parametrize("bots", range(SEATS))
def test_every_seat_is_a_bot_somewhere_and_the_replicas_share_the_people(bots):
    tables = [bot_seats(i, bots) for i in range(8)]
    assert all(len(seats) == bots for seats in tables)
    if bots:
        assert set().union(*tables) == set(range(SEATS))
    people_on = [0, 0]
    for i, seats in enumerate(tables):
        for seat in set(range(SEATS)) - seats:
            people_on[(i + seat) % 2] += 1  # bench/idle_streams.py's replica_of with two replicas
    assert people_on[0] == people_on[1]


def test_a_table_has_at_least_one_person():
    with pytest.raises(ValueError):
        bot_seats(0, SEATS)


def test_bots_are_seated_by_the_bot_id_contract():
    specs = seat_specs(["a", "b", "c", "d"], frozenset({2}))
    assert [s.player_id for s in specs] == ["a", "b", "bot:greedy:2", "d"]


@given(streams=st.integers(0, 500), share=st.floats(0, 1))
def test_the_reconnecting_share_is_of_the_streams_and_chosen_once(streams, share):
    keys = [(f"m{n // 3}", n % 3) for n in range(streams)]
    chosen = reconnecting(keys, share, seed=7)
    assert len(chosen) == round(streams * share)
    assert len(set(chosen)) == len(chosen) and set(chosen) <= set(keys)
    assert chosen == reconnecting(list(reversed(keys)), share, seed=7)


def test_an_untimed_turn_has_no_deadline():
    assert deadline_of(pb.MatchView()) is None
    view = pb.MatchView()
    view.turn_deadline.seconds = 1_800_000_000
    assert deadline_of(view) == 1_800_000_000


def test_metric_totals_add_the_samples_whose_labels_match():
    text = ('# TYPE domino_match_rpcs_total counter\n'
            'domino_match_rpcs_total{method="PlayTile",code="OK"} 3.0\n'
            'domino_match_rpcs_total{method="PlayTile",code="ABORTED"} 1.0\n'
            'domino_match_rpcs_total{method="DrawTile",code="OK"} 2.0\n'
            '# TYPE domino_match_turns_expired gauge\n'
            'domino_match_turns_expired 5.0\n')
    assert metric_total(text, "domino_match_rpcs_total", method="PlayTile") == 4.0
    assert metric_total(text, "domino_match_rpcs_total") == 6.0
    assert metric_total(text, "domino_match_turns_expired") == 5.0
    assert metric_total("", "domino_match_turns_expired") == 0.0
