"""The screen before the first deal, while the match waits for the players' seeds: it names
whom it waits for, never "round 0", an empty hand or "Between rounds…"."""

from __future__ import annotations

import pytest

from domino.match.v1 import match_service_pb2 as pb
from services.client import render

from .test_play_core import NOW, view
from tests.support.rules_description import served_rules  # noqa: F401  (the fixture, by name)

pytestmark = pytest.mark.usefixtures("served_rules")


def waiting(awaiting=(1, 2), seats=("Ana", "Bo", "Cy")) -> pb.MatchView:
    v = view(turn=None, hand=(), line=(), seats=seats, status=pb.MATCH_STATUS_WAITING_FOR_SEEDS)
    v.round_number = 0
    for seat in awaiting:
        v.seats[seat].awaiting_seed = True
    return v


def test_the_host_is_told_whose_seed_the_deal_waits_for():
    text = render.to_text(render.game_screen(waiting(), NOW), width=120)
    assert "Waiting for Bo and Cy to send their seed…" in text
    assert "before the first deal" in text
    assert "round 0" not in text and "Your hand" not in text and "Between rounds" not in text


def test_one_seat_left_to_send_is_named_alone():
    text = render.to_text(render.game_screen(waiting(awaiting=(2,)), NOW), width=120)
    assert "Waiting for Cy to send their seed…" in text


def test_a_spectator_is_told_the_same():
    seen = waiting(awaiting=(0, 1))
    seen.your_seat = -1  # a spectator has no seat
    text = render.to_text(render.spectator_screen(seen), width=120)
    assert "Waiting for Ana and Bo to send their seed…" in text and "Between rounds" not in text
