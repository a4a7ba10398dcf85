""""Play again" after a match the menu started: RequestRematch, the rematch room's lobby,
then its match; with matchmaking at the client's API seam (tests/support/social_client.py)."""

from __future__ import annotations

import grpc
import pytest

from domino.match.v1 import match_service_pb2 as pb
from domino.matchmaking.v1 import matchmaking_service_pb2 as mm
from services.client import lobby_screens, render
from tests.support.rules_description import served_rules  # noqa: F401  (the fixture, by name)
from tests.support.social_client import Matchmaking, Social, refused, scripted

pytestmark = pytest.mark.usefixtures("served_rules")


def ended(match_id: str, your_seat: int | None = 0) -> pb.MatchView:
    view = pb.MatchView(match_id=match_id, rules="classic", status=pb.MATCH_STATUS_ENDED, scores=[100, 40])
    if your_seat is not None:
        view.your_seat = your_seat
    return view


def after(final: pb.MatchView | None, lines: list[str], tmp_path, **kw):
    done = scripted(lines, tmp_path, Social(), **kw)
    return done, done.app.after_match(final)


def test_p_asks_for_a_rematch_and_plays_the_rematch_rooms_match(tmp_path):
    done, answered = after(ended("m-1"), ["p", ""], tmp_path)
    assert done.matchmaking.calls == [("rematch", "m-1")] and done.played == ["m-next"]
    assert answered is False  # its match left no final view: the menu pauses on what it said


def test_enter_goes_to_the_menu_without_asking_for_a_rematch(tmp_path):
    done, answered = after(ended("m-1"), [""], tmp_path)
    assert answered is True and done.matchmaking.calls == []
    assert "p plays again with the same table · Enter for the menu:" in done.text


def test_playing_again_after_the_rematch_asks_for_the_next_one(tmp_path):
    done, answered = after(ended("m-1"), ["p", "p", ""], tmp_path, finals={"m-next": ended("m-next")})
    assert done.matchmaking.calls == [("rematch", "m-1"), ("rematch", "m-next")]
    assert done.played == ["m-next", "m-next"] and answered is True  # the third offer: Enter


def test_a_refused_rematch_is_told_and_the_menu_pauses(tmp_path):
    gone = Matchmaking(refuse=refused(grpc.StatusCode.FAILED_PRECONDITION, "the match has not ended",
                                      "REMATCH_NOT_AVAILABLE"))
    done, answered = after(ended("m-1"), ["p"], tmp_path, matchmaking=gone)
    assert "No rematch: the match has not ended" in done.text and answered is False and done.played == []


def test_a_watched_match_offers_no_rematch(tmp_path):
    done, answered = after(ended("m-1", your_seat=None), [], tmp_path)
    assert answered is False and "plays again" not in done.text


def test_a_match_left_before_its_end_offers_no_rematch(tmp_path):
    done, answered = after(None, [], tmp_path)
    assert answered is False and "plays again" not in done.text


def test_a_match_started_from_the_command_line_offers_no_rematch(tmp_path):
    done, answered = after(ended("m-1"), ["p"], tmp_path, interactive=False)
    assert answered is False and done.matchmaking.calls == []


def test_the_menu_offers_play_again_instead_of_its_pause_after_a_practice(tmp_path):
    done = scripted(["1", "", "q"], tmp_path, Social())
    done.app.main_menu.way_back = lambda: None
    done.app.practice = lambda: ended("m-1")
    assert done.app.menu() == 0
    assert "p plays again with the same table" in done.text and "Press Enter for the menu." not in done.text


def test_the_rematch_rooms_lobby_says_it_starts_by_itself_and_who_was_asked(tmp_path):
    room = mm.RoomView(room_id="r-1", code="AB2CD3EF", host_player_id="ann", status=mm.ROOM_STATUS_OPEN,
                       rematch_of_match_id="m-1", options=mm.MatchOptions(rules="classic", seat_count=2))
    room.seats.add(seat=0, player_id="ann")
    room.seats.add(seat=1)
    room.invites.add(invite_id="i-1", player_id="bob", status=mm.INVITE_STATUS_PENDING, kind=mm.INVITE_KIND_REMATCH)
    guest = render.to_text(lobby_screens.room_screen(room, "bob"), width=120)
    assert "A rematch: it starts by itself once everyone has answered" in guest
    assert "Invited: bob (asked)" in guest
