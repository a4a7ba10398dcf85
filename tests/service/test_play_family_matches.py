"""`domino play` typed to the end of a match of each family with questions of its own (All
Fives' ends on the spinner, Goat's writes and its goat), in a pseudo-terminal against the real
local system. A module of its own, with a system of its own: the Goat match is the suite's
longest test under load, and here it runs beside test_play_system.py's matches, not after them."""

from __future__ import annotations

import re
from contextlib import closing

import pytest

from domino.match.v1 import match_service_pb2 as pb

from .play_terminal import MATCH_ID, Service, Term, play_system, type_moves_to_the_end

pytestmark = pytest.mark.system


@pytest.fixture(scope="module")
def system():
    with play_system() as local:
        yield local


@pytest.fixture(scope="module")
def service(system):
    with closing(Service(system)) as reader:
        yield reader


def test_a_player_types_an_all_fives_match_to_its_end_choosing_ends_on_the_spinner(system, service):
    term = Term(system, "--player", "fiona", "--practice", "--rules", "all-fives", "--seats", "2", "--bots", "random",
                "--target", "100")
    match_id = term.expect(MATCH_ID.pattern).group(1)
    text, moves, ends = type_moves_to_the_end(term)
    assert term.wait_exit() == 0
    final = service.view(match_id)
    assert final.status == pb.MATCH_STATUS_ENDED and final.rules == "all-fives" and moves >= 5
    assert "All Fives · 2 seats · solo · to 100" in text
    assert re.search(r"counting: (left|the first tile).{0,300}? total \d+", text, re.S)
    assert re.search(r"spinner (\d)\|\1 · counting: ", text) and "▲ up" in text and "▼ down" in text
    assert re.search(r"played \[\d\|\d\] on the (left|right|up|down) end  \+\d+", text)  # points a play scored
    assert re.search(r"Round \d+: .*scored in play: ", text) and "boneyard " in text
    assert ends >= 1  # asked which end at least once, and answered
    assert not any(a.cause == pb.MOVE_CAUSE_TIMEOUT for a in final.round_actions if a.seat == 0)  # fiona typed her turns in time


def test_a_player_types_a_goat_match_to_its_end_and_sees_who_is_the_goat(system, service):
    term = Term(system, "--player", "gwen", "--practice", "--rules", "goat", "--variant", "koza", "--seats", "2",
                "--bots", "random", "--option", "redeal=off")
    match_id = term.expect(MATCH_ID.pattern).group(1)
    text, moves, _ = type_moves_to_the_end(term)
    assert term.wait_exit() == 0
    final = service.view(match_id)
    assert final.status == pb.MATCH_STATUS_ENDED and final.rules == "goat" and final.goats and moves >= 5
    assert "Goat koza · 2 seats · solo · 101 makes the goat" in text
    assert "lowest total wins · 0-0 alone counts 10 · redeal off · remembered on · fish all" in text
    assert re.search(r"score/101\s+remembered\s+account", text)
    assert re.search(r"\d\s+(closed|open)", text)
    assert re.search(r"Round \d+: .* (went out|made the fish \(blocked\)) · written: you \d+, bot random 1 \d+", text)
    assert re.search(r"Written so far .*\n\s*round\s+you\s+bot random 1", text)  # every round's writes, in play
    assert re.search(r"(You are|Bot random 1 is) the goat\.|are the goats\.", text)
    assert re.search(r"round 1 is over", text) and "Written this round: you " in text  # a round's end, shown
    assert re.search(r"you\s+(\[\d\|\d\] ?)+\s+\d+ pips|you\s+out — no tiles left", text)
    assert re.search(r"ended: (you won!|bot random 1 won|no single winner[^;]*); "
                     r"(you are|bot random 1 is) the goat|are the goats", text)
