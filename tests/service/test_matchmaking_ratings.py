"""Public tables seated by rating over real gRPC: matchmaking asks a real match service's
GetRating, which reads the ratings from its history view (SQLite), and seats players of
similar rating together; when the match service cannot tell a rating (no history view, or
no answer in time) players are seated first come, first seated and it is counted."""

from __future__ import annotations

import socket
import time

import pytest
from prometheus_client import CollectorRegistry

from domino.matchmaking.v1 import matchmaking_service_pb2 as pb
from services.history.summary import Ended, Started
from services.history.view import View
from services.matchmaking.metrics import PrometheusObserver

from .matchmaking_harness import running_system


@pytest.fixture
def history(tmp_path):
    """A history view in which ace and ada won four draw-2 matches each (ordinal about 10)
    and cub and cid lost them (about -5); anyone else is unrated (0)."""
    view = View.for_env({}, sqlite_path=str(tmp_path / "history.sqlite"))
    view.create()
    facts: list[Started | Ended] = []
    for n in range(4):
        for winner, loser in (("ace", "cub"), ("ada", "cid")):
            match_id = f"{winner}-{n}"
            facts += [Started(match_id, "egyptian", "draw-2", False, (winner, loser), 1.0 + n),
                      Ended(match_id, 0, (101, 20), False, 2.0 + n)]
    view.apply(facts, 1)
    yield view
    view.close()


def unavailable(registry: CollectorRegistry, reason: str) -> float:
    return registry.get_sample_value("domino_matchmaking_ratings_unavailable_total", {"reason": reason}) or 0


def test_players_of_similar_rating_are_seated_together(history):
    registry = CollectorRegistry()
    with running_system(history=history, observer=PrometheusObserver(registry)) as system:
        ace = system.request_table("ace", variant="draw-2", teams=False)
        cub = system.request_table("cub", variant="draw-2", teams=False)  # 15 points below ace: a table of its own
        ada = system.request_table("ada", variant="draw-2", teams=False)
        assert ada.status == pb.TICKET_STATUS_SEATED and list(ada.player_ids) == ["ace", "ada"]
        assert system.ticket("ace", ace.ticket_id).table_id == ada.table_id
        assert system.ticket("cub", cub.ticket_id).status == pb.TICKET_STATUS_WAITING
        new = system.request_table("new", variant="draw-2", teams=False)  # unrated: 0, within 10 of cub's
        assert list(new.player_ids) == ["cub", "new"]
        assert system.match_view(new.match_id).seats[0].player_id == "cub"
    assert unavailable(registry, "error") == unavailable(registry, "deadline") == 0


def test_without_a_history_view_players_are_seated_first_come_and_it_is_counted():
    registry = CollectorRegistry()
    with running_system(observer=PrometheusObserver(registry)) as system:  # GetRating answers UNAVAILABLE
        system.request_table("ace", variant="draw-2", teams=False)
        cub = system.request_table("cub", variant="draw-2", teams=False)
        assert cub.status == pb.TICKET_STATUS_SEATED and list(cub.player_ids) == ["ace", "cub"]
    assert unavailable(registry, "error") == 1
    assert unavailable(registry, "backoff") == 1  # not asked again moments after it failed


def test_a_match_service_that_does_not_answer_in_time_delays_a_request_by_the_deadline_only():
    hung = socket.socket()  # accepts connections and never answers
    hung.bind(("127.0.0.1", 0))
    hung.listen(8)
    registry = CollectorRegistry()
    try:
        with running_system(ratings_address=f"127.0.0.1:{hung.getsockname()[1]}", ratings_timeout_seconds=0.3,
                            observer=PrometheusObserver(registry)) as system:
            began = time.monotonic()
            first = system.request_table("ace", variant="draw-2", teams=False)
            took = time.monotonic() - began
            assert first.status == pb.TICKET_STATUS_WAITING and 0.3 <= took < 2.0, took
            began = time.monotonic()
            cub = system.request_table("cub", variant="draw-2", teams=False)
            assert time.monotonic() - began < 0.3  # the back-off: not asked again
            assert list(cub.player_ids) == ["ace", "cub"] and system.match_view(cub.match_id).seats[1].player_id == "cub"
    finally:
        hung.close()
    assert unavailable(registry, "deadline") == 1 and unavailable(registry, "backoff") == 1
