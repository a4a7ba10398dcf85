"""The Tables page over ASGI against a real match service: the matches in play, filtered by
family and by player and paged; one watched as a spectator sees it (its board drawn, whose
turn, the scores, never a hand); bad input refused with a page that says why."""

from __future__ import annotations

import asyncio
import re
import xml.etree.ElementTree as ET

import pytest

from domino.match.v1 import match_service_pb2 as pb
from services.console.pages import tables
from tests.service.harness import service_with_history
from tests.support.grpc_matches import act, play_whole_match
from tests.support.keys import auth

from .pages_harness import console, staff_with

VIEWER = staff_with("viewer")


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """(service, {name: match id}): an egyptian block-4 table open to spectators with six
    moves made, a draw-2
    match played to its end, an All Fives table of cat and a bot."""
    with service_with_history(tmp_path_factory.mktemp("tables")) as (svc, projection):
        ids = {"live": svc.create(request_id="live", spectators=True).match_id,
               "done": svc.create(variant="draw-2", players=("ann", "bob"), request_id="done").match_id,
               "fives": svc.create(rules="all-fives", variant="", players=("cat", "bot:easy:1"), target=100,
                                   request_id="fives").match_id}
        view = svc.stub.GetMatch(pb.GetMatchRequest(match_id=ids["live"]), metadata=auth("observer", "service")).view
        for n in range(6):
            view = act(svc, ids["live"], view, n)
        play_whole_match(svc, ids["done"])
        projection.catch_up()
        yield svc, ids


def get(played, path: str, staff=VIEWER, **headers):
    async def scenario():
        async with console(played[0].port, staff=staff) as client:
            return await client.get(path, headers=headers)

    return asyncio.run(scenario())


def watched(text: str) -> list[str]:
    return re.findall(r'href="/tables/([0-9a-f-]+)"', text)


def test_the_list_holds_the_matches_in_play_newest_first(played):
    svc, ids = played
    page = get(played, "/tables")
    assert page.status_code == 200
    assert watched(page.text) == [ids["fives"], ids["live"]]  # not the finished one


def test_the_list_keeps_one_family(played):
    assert watched(get(played, "/tables?rules=all-fives").text) == [played[1]["fives"]]


def test_the_list_keeps_one_players_matches(played):
    assert watched(get(played, "/tables?player=dan").text) == [played[1]["live"]]


def test_a_bot_at_a_table_is_shown_as_one(played):
    assert "bot:easy:1 (bot)" in get(played, "/tables?rules=all-fives").text


def test_the_list_pages_on(played, monkeypatch):
    monkeypatch.setattr(tables, "PAGE_SIZE", 1)
    first = get(played, "/tables")
    older = re.search(r'href="(/tables\?[^"]*page=[^"]+)"', first.text).group(1).replace("&amp;", "&")
    assert watched(first.text) == [played[1]["fives"]]
    assert watched(get(played, older).text) == [played[1]["live"]]


def test_an_unknown_family_is_refused_saying_which_there_are(played):
    page = get(played, "/tables?rules=chess")
    assert page.status_code == 400
    assert "A family is one of egyptian, all-fives" in page.text


def test_a_watched_table_draws_the_line_of_play_a_spectator_sees(played):
    svc, ids = played
    page = get(played, f"/tables/{ids['live']}")
    assert page.status_code == 200
    spectator = svc.stub.WatchMatch(pb.WatchMatchRequest(match_id=ids["live"]),
                                    metadata=auth("someone", "player"), timeout=5)
    seen = next(iter(spectator)).view
    spectator.cancel()
    svg = ET.fromstring(re.search(r"<svg.*?</svg>", page.text, re.S).group(0))
    tiles = [g.get("data-pips") for g in svg.iter("{http://www.w3.org/2000/svg}g")]
    assert tiles == [f"{t.left}-{t.right}" for t in seen.line] and tiles


def test_a_watched_table_says_whose_turn_as_a_spectator_sees_it_and_the_scores(played):
    svc, ids = played
    page = get(played, f"/tables/{ids['live']}")
    spectator = svc.stub.WatchMatch(pb.WatchMatchRequest(match_id=ids["live"]),
                                    metadata=auth("someone", "player"), timeout=5)
    seen = next(iter(spectator)).view
    spectator.cancel()
    # one turn behind, the spectator's view may stand where nobody is to play (a forced pass)
    assert (f"Seat {seen.turn + 1} to play." if seen.HasField("turn") else "Nobody to play.") in page.text
    assert "<h2>Scores</h2>" in page.text and "Tiles in hand" in page.text


def test_a_watched_table_refreshes_its_view_alone(played):
    match_id = played[1]["live"]
    page = get(played, f"/tables/{match_id}")
    assert f'hx-get="/tables/{match_id}/view"' in page.text
    fragment = get(played, f"/tables/{match_id}/view")
    assert fragment.status_code == 200 and "<svg" in fragment.text and "<html" not in fragment.text


def test_staff_never_see_a_hand(played):
    svc, ids = played
    hand = svc.stub.GetMatch(pb.GetMatchRequest(match_id=ids["live"]), metadata=auth("ann", "player")).view.hand
    text = get(played, f"/tables/{ids['live']}").text.replace(ids["live"], "")
    assert hand and not [t for t in hand if f"{t.low}-{t.high}" in text or f"{t.high}-{t.low}" in text]


def test_an_unknown_match_is_a_404_page_that_says_so(played):
    page = get(played, "/tables/00000000-0000-0000-0000-000000000000")
    assert page.status_code == 404 and "No match has this id." in page.text


def test_a_malformed_match_id_is_refused(played):
    assert get(played, "/tables/not%20a%20match").status_code == 400


def test_nobody_signed_in_is_sent_to_sign_in(played):
    page = get(played, "/tables", staff=None)
    assert page.status_code == 303 and page.headers["location"].startswith("/sign-in")
