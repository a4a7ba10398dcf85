"""What `domino play` tells the player in words, checked against what it does: counts of pips
in the singular and plural, and where the README says exported records go."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from domino.match.v1 import match_service_pb2 as pb
from services.client import render, round_end
from services.client.pips import pip_count
from services.client.store import Exports, KeptHeads

from .test_play_core import view
from tests.support.rules_description import served_rules  # noqa: F401  (the fixture, by name)

pytestmark = pytest.mark.usefixtures("served_rules")

README = Path(__file__).resolve().parents[2] / "README.md"


def test_one_pip_is_one_pip():
    assert [pip_count(n) for n in (0, 1, 2)] == ["0 pips", "1 pip", "2 pips"]


def test_a_hand_worth_one_pip_says_1_pip_at_the_rounds_end():
    summary = pb.RoundSummary(reason=pb.ROUND_END_REASON_BLOCKED, winner=0, points=7, scores=[7, 0])
    end = round_end.RoundEnd(1, summary, (round_end.HandAtEnd(0, 1, ((1, 0),)), round_end.HandAtEnd(1, 2, ((4, 3),))))
    text = render.to_text(round_end.round_end_panel(view(), end), width=100)
    assert re.search(r"\[1\|0\]\s+1 pip\b", text) and "1 pips" not in text and "7 pips" in text


def test_the_readme_names_the_directory_exports_are_written_to():
    documented = re.search(r"`var/exports/([^`]+)/MATCH_ID\.json`", README.read_text()).group(1)
    for player in ("ann", "acc_3f9a2b7c-d1e0"):
        written = Exports("var", player).path("MATCH_ID")
        pattern = re.escape(documented).replace(re.escape("<you>"), re.escape(player)).replace(
            re.escape("<hash>"), "[0-9a-f]{8}")
        assert re.fullmatch(f"var/exports/{pattern}/MATCH_ID.json", written.as_posix()), (documented, written)
        assert written.parent.name == KeptHeads("var", player).directory.name  # as the README says
