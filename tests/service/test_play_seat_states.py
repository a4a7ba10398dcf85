"""`domino play` against a real match service where the seat is not simply playing: after
`leave match` the client says what leaving means on the server (LeaveMatch: the server plays
the seat to the end, ResumeSeat is refused) once, never promises a way back, and answers
`back` or a move afterwards the same way without asking the server for the seat; before the
first deal it names the players whose seed the match still waits for."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from domino.match.v1 import match_service_pb2 as pb
from services.client.api import MatchApi
from services.client.app import App
from services.client.game import GameOptions
from services.client.inbox import Inbox
from services.client.store import LastMatch
from services.client.terminal import Output
from services.match.application import MatchApplication
from tests.support.keys import auth, token

from .harness import running_service


@pytest.fixture
def svc():
    app = MatchApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    with running_service(app) as service:
        yield service


def play(svc, tmp_path, match_id: str, lines: list[str]) -> str:
    """ann opens ``match_id`` in the client and types ``lines``: what the terminal showed."""
    api = MatchApi(f"127.0.0.1:{svc.port}", token("ann"))
    inbox = Inbox()
    for line in lines:
        inbox.put("line", line)
    inbox.put("eof")
    file = io.StringIO()
    out = Output(Console(file=file, width=200, color_system=None, highlight=False), redraw=False)
    app = App("ann", match=api, matchmaking=None, inbox=inbox, out=out, store=LastMatch(tmp_path, "ann"),
              game_options=GameOptions(tick=0))
    try:
        app.play_match(match_id)
    finally:
        api.close()
    return file.getvalue()


def test_leaving_says_once_that_the_seat_is_the_servers_to_the_end_and_back_agrees(svc, tmp_path):
    match_id = svc.create(variant="draw-2", players=("ann", "bob"), target=51, turn_timer_seconds=0).match_id
    said = play(svc, tmp_path, match_id, ["leave match", "leave match"])
    assert said.count("Leave this match for good? It counts as your loss") == 1  # asked once, then left
    assert said.count("You left") == 1 and "the match counts as your loss" in said
    assert f"You left match {match_id} for good: the server plays your seat to the end" in said
    assert "Come back" not in said and "--resume" not in said and "your seat stays" not in said
    view = svc.stub.GetMatch(pb.GetMatchRequest(match_id=match_id), metadata=auth("ann")).view
    assert view.seats[view.your_seat].left

    again = play(svc, tmp_path, match_id, ["back", "q"])
    assert "You left this match for good: the server plays your seat to the end and will not give it back." in again
    assert "Could not take your seat back" not in again and "Type back" not in again
    assert "Come back" not in again and "your seat stays" not in again
    assert svc.stub.GetMatch(pb.GetMatchRequest(match_id=match_id), metadata=auth("ann")).view.seats[0].left


def test_before_the_first_deal_the_screen_names_the_friends_whose_seed_it_waits_for(svc, tmp_path):
    """A room's match waits for every seated person's seed (SubmitSeed): ann's client sends
    hers, and the screen says it waits for bob's and cat's, by name."""
    match_id = svc.create(variant="block-3", players=("ann", "bob", "cat"), target=51, turn_timer_seconds=0,
                          seed_wait_seconds=30).match_id
    said = play(svc, tmp_path, match_id, ["q"])
    assert "Waiting for bob and cat to send their seed…" in said
    assert "round 0" not in said and "Your hand" not in said and "Between rounds" not in said
    view = svc.stub.GetMatch(pb.GetMatchRequest(match_id=match_id), metadata=auth("ann")).view
    assert view.status == pb.MATCH_STATUS_WAITING_FOR_SEEDS and not view.seats[0].awaiting_seed
