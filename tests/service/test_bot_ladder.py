"""The bots' ladder over real gRPC: the match service's GetRating answers a bot strength's
rating from the committed ladder (services/common/bot_ladder.json), and matchmaking fills a
public table's empty seats with the offered strength rated nearest its waiting players."""

from __future__ import annotations

import grpc
import pytest

from domino.match.v1 import match_service_pb2 as match_pb
from domino.matchmaking.v1 import matchmaking_service_pb2 as pb
from services.common.bot_ladder import ladder
from services.common.bot_strengths import NAMES
from services.history.summary import Ended, Started
from services.history.view import View
from tests.support.errors import refusal
from tests.support.keys import auth

from .matchmaking_harness import running_system


@pytest.fixture
def history(tmp_path):
    """A history view in which ace won four draw-2 matches against cub."""
    view = View.for_env({}, sqlite_path=str(tmp_path / "history.sqlite"))
    view.create()
    facts: list[Started | Ended] = []
    for n in range(4):
        facts += [Started(f"m{n}", "egyptian", "draw-2", False, ("ace", "cub"), 1.0 + n),
                  Ended(f"m{n}", 0, (101, 20), False, 2.0 + n)]
    view.apply(facts, 1)
    yield view
    view.close()


def rating(system, player_id: str, rules: str = "egyptian", teams: bool = False) -> match_pb.GetRatingResponse:
    return system.match.stub.GetRating(match_pb.GetRatingRequest(player_id=player_id, rules=rules, teams=teams),
                                       metadata=auth("ada"))


@pytest.mark.parametrize("rules,teams", [("egyptian", False), ("goat", True), ("classic", False)])
def test_a_bot_strength_is_rated_by_the_ladder_of_the_family_and_team_setting(history, rules, teams):
    with running_system(history=history) as system:
        players = rating(system, "zed", rules, teams).rated_players  # as a player's answer counts them
        for strength in NAMES:
            expected = ladder().rating(f"{rules}/{'teams' if teams else 'solo'}", strength)
            answer = rating(system, f"bot:{strength}", rules, teams)
            assert expected is not None and answer.rating.player_id == f"bot:{strength}"
            assert (answer.rating.mu, answer.rating.sigma, answer.rating.ordinal, answer.rating.matches) == \
                pytest.approx((expected.mu, expected.sigma, expected.rating, expected.matches))
            assert answer.rating.rank == 0 and answer.rated_players == players  # among players it has no place


def test_a_seated_bots_id_is_rated_as_its_strength(history):
    with running_system(history=history) as system:
        assert rating(system, "bot:strong:3") == rating(system, "bot:strong")


def test_a_bot_id_of_no_strength_is_invalid_while_an_unknown_player_is_unrated(history):
    with running_system(history=history) as system:
        with pytest.raises(grpc.RpcError) as refused:
            rating(system, "bot:nobody")
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "bot:strong" in (refused.value.details() or "")
        told = refusal(refused.value)
        assert (told.reason, told.fields) == ("INVALID_REQUEST", ("player_id",))
        unknown = rating(system, "zed")
        assert unknown.rating.player_id == "zed" and unknown.rating.rank == 0 and unknown.rating.matches == 0


def test_a_lone_waiting_player_gets_the_bots_rated_nearest_them(history):
    with running_system(history=history) as probe:
        ace = rating(probe, "ace").rating.ordinal
    offered = ladder().offered("egyptian/solo")  # public tables seat only these
    nearest = ladder().nearest("egyptian/solo", ace, among=offered)
    configured = next(s for s in offered if s != nearest)
    with running_system(history=history, table_bot_strength=configured) as system:
        ticket = system.request_table("ace", variant="draw-2", teams=False)
        system.clock.advance(20)
        system.app.tables.fill_waiting_tables()
        seated = system.ticket("ace", ticket.ticket_id)
        assert seated.status == pb.TICKET_STATUS_SEATED and list(seated.player_ids) == ["ace", f"bot:{nearest}:1"]


def test_without_a_known_rating_the_configured_bots_fill_the_table():
    with running_system(table_bot_strength="strong") as system:  # no history view: GetRating is UNAVAILABLE
        ticket = system.request_table("ace", variant="draw-2", teams=False)
        system.clock.advance(20)
        system.app.tables.fill_waiting_tables()
        assert list(system.ticket("ace", ticket.ticket_id).player_ids) == ["ace", "bot:strong:1"]
