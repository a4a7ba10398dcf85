"""MatchAdminService over real gRPC on loopback, beside MatchService in one match service with
its history view (proto/domino/admin/v1/match_admin_service.proto): staff list every match,
newest first by start, filtered and a page at a time, and describe a player's play; every
field is checked; a role short of the call is refused (STAFF_ROLE_TOO_LOW), every caller but
staff too (WRONG_CALLER)."""

from __future__ import annotations

import grpc
import pytest
from google.protobuf.timestamp_pb2 import Timestamp

from domino.admin.v1 import match_admin_service_pb2 as admin
from domino.match.v1 import match_service_pb2 as pb
from tests.support.errors import refusal
from tests.support.grpc_matches import play_whole_match
from tests.support.keys import auth

from .harness import service_with_history
from .staff_harness import admin_stub, staff

VIEWER, SUPPORT = staff("viewer"), staff("support")


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """(service, stub, {name: match id}): a block-4 match in play, a draw-2 match ann and bob
    played to its end, then an All Fives match of cat and dan in play, in that order."""
    with service_with_history(tmp_path_factory.mktemp("admin")) as (svc, projection):
        ids = {"live": svc.create(request_id="live").match_id,
               "done": svc.create(variant="draw-2", players=("ann", "bob"), request_id="done").match_id}
        play_whole_match(svc, ids["done"])
        ids["fives"] = svc.create(rules="all-fives", variant="", players=("cat", "dan"), target=100,
                                  request_id="fives").match_id
        projection.catch_up()
        yield svc, admin_stub(svc), ids


def listed(stub, metadata=VIEWER, **fields) -> list[admin.MatchListing]:
    return list(stub.ListMatches(admin.ListMatchesRequest(**fields), metadata=metadata).matches)


def names(played, listings) -> list[str]:
    by_id = {match_id: name for name, match_id in played[2].items()}
    return [by_id[m.match_id] for m in listings]


def started(played, name: str) -> Timestamp:
    svc, stub, ids = played
    return next(m.started_at for m in listed(stub) if m.match_id == ids[name])


# ---- ListMatches -------------------------------------------------------------------------


@pytest.mark.parametrize("role", ["viewer", "support", "operator", "auditor"])
def test_any_staff_role_lists_every_match_newest_first_by_start(played, role):
    assert names(played, listed(played[1], staff(role))) == ["fives", "done", "live"]


def test_a_listing_says_what_each_match_is_and_where_it_stands(played):
    svc, stub, ids = played
    live, done = (next(m for m in listed(stub) if m.match_id == ids[name]) for name in ("live", "done"))
    assert (live.rules, live.variant, list(live.player_ids)) == ("egyptian", "block-4", ["ann", "bob", "cat", "dan"])
    assert live.state == admin.MATCH_STATE_IN_PLAY and not live.HasField("ended_at")
    assert done.state == admin.MATCH_STATE_FINISHED and done.ended_at.ToNanoseconds() >= done.started_at.ToNanoseconds()
    final = svc.stub.GetMatch(pb.GetMatchRequest(match_id=ids["done"]), metadata=auth("observer", "service")).view
    assert list(done.scores) == list(final.scores) and done.version == final.version and done.rated


@pytest.mark.parametrize("fields, expected", [
    (dict(state=admin.MATCH_STATE_IN_PLAY), ["fives", "live"]),
    (dict(state=admin.MATCH_STATE_FINISHED), ["done"]),
    (dict(rules="all-fives"), ["fives"]),
    (dict(rules="egyptian", variant="draw-2"), ["done"]),
    (dict(variant="block-4"), ["live"]),
    (dict(player_id="ann"), ["done", "live"]),
    (dict(player_id="dan", state=admin.MATCH_STATE_IN_PLAY), ["fives", "live"]),
    (dict(player_id="nobody"), []),
], ids=lambda v: str(v) if isinstance(v, list) else "-".join(f"{k}={w}" for k, w in v.items()))
def test_a_listing_keeps_the_matches_its_filters_name(played, fields, expected):
    assert names(played, listed(played[1], **fields)) == expected


def test_a_listing_by_match_id_holds_that_match_alone_if_the_other_filters_keep_it(played):
    svc, stub, ids = played
    assert names(played, listed(stub, match_id=ids["done"])) == ["done"]
    assert names(played, listed(stub, match_id=ids["done"].upper())) == ["done"]
    assert listed(stub, match_id=ids["done"], state=admin.MATCH_STATE_IN_PLAY) == []


def test_a_listing_keeps_the_matches_started_in_its_window(played):
    stub, done = played[1], started(played, "done")
    assert names(played, listed(stub, started_after=done)) == ["fives", "done"]
    assert names(played, listed(stub, started_before=done)) == ["live"]
    assert names(played, listed(stub, started_after=done, started_before=started(played, "fives"))) == ["done"]


def test_pages_of_one_walk_every_match_once_and_the_last_page_has_no_token(played):
    stub, seen, token = played[1], [], ""
    for _ in range(3):
        page = stub.ListMatches(admin.ListMatchesRequest(page_size=1, page_token=token), metadata=VIEWER)
        seen += list(page.matches)
        token = page.next_page_token
    assert names(played, seen) == ["fives", "done", "live"] and token == ""


def test_pages_keep_their_filters(played):
    stub = played[1]
    first = stub.ListMatches(admin.ListMatchesRequest(page_size=1, player_id="ann"), metadata=VIEWER)
    rest = stub.ListMatches(admin.ListMatchesRequest(page_size=1, player_id="ann", page_token=first.next_page_token),
                            metadata=VIEWER)
    assert names(played, [*first.matches, *rest.matches]) == ["done", "live"] and rest.next_page_token == ""


TOO_LONG = "p" * 101


@pytest.mark.parametrize("fields, field", [
    (dict(state=7), "state"),
    (dict(rules="chess"), "rules"),
    (dict(rules="egyptian", variant="koza"), "variant"),
    (dict(variant="no-such-variant"), "variant"),
    (dict(player_id=TOO_LONG), "player_id"),
    (dict(started_after=Timestamp(seconds=-62135596801)), "started_after"),
    (dict(started_before=Timestamp(seconds=1, nanos=-1)), "started_before"),
    (dict(started_after=Timestamp(seconds=200), started_before=Timestamp(seconds=100)), "started_before"),
    (dict(started_after=Timestamp(seconds=100), started_before=Timestamp(seconds=100)), "started_before"),
    (dict(page_size=-1), "page_size"),
    (dict(page_size=101), "page_size"),
    (dict(page_token="not a token"), "page_token"),
    (dict(page_token="WzEsIDJd"), "page_token"),  # [1, 2]: base64 JSON, not one of its tokens
    (dict(match_id="not-a-match"), "match_id"),
], ids=lambda v: v if isinstance(v, str) else "-".join(map(str, v)))
def test_a_malformed_listing_is_refused_naming_its_field(played, fields, field):
    with pytest.raises(grpc.RpcError) as refused:
        listed(played[1], **fields)
    r = refusal(refused.value)
    assert (r.code, r.reason, r.domain, r.fields) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_REQUEST",
                                                      "domino.match", (field,))


def test_a_page_token_of_a_players_listing_is_refused(played):
    svc, stub, _ = played
    token = svc.stub.ListMyMatches(pb.ListMyMatchesRequest(page_size=1), metadata=auth("ann")).next_page_token
    assert token
    with pytest.raises(grpc.RpcError) as refused:
        listed(stub, page_token=token)
    assert refusal(refused.value).fields == ("page_token",)


# ---- DescribePlayerPlay ------------------------------------------------------------------


def described(stub, metadata=SUPPORT, **fields) -> admin.DescribePlayerPlayResponse:
    return stub.DescribePlayerPlay(admin.DescribePlayerPlayRequest(**fields), metadata=metadata)


def test_support_sees_a_players_every_rating_as_get_rating_gives_it(played):
    svc, stub, _ = played
    play = described(stub, player_id="ann")
    assert [(r.rules, r.teams) for r in play.ratings] == [("egyptian", False)]
    rating = svc.stub.GetRating(pb.GetRatingRequest(rules="egyptian", player_id="ann"), metadata=auth("ann")).rating
    (mine,) = play.ratings
    assert (mine.mu, mine.sigma, mine.ordinal, mine.matches, mine.rank) == (
        rating.mu, rating.sigma, rating.ordinal, rating.matches, rating.rank)
    assert mine.matches == 1 and mine.rank >= 1


def test_support_sees_a_players_latest_matches_newest_first(played):
    stub = played[1]
    assert names(played, described(stub, player_id="ann").recent_matches) == ["done", "live"]
    assert names(played, described(stub, player_id="ann", recent=1).recent_matches) == ["done"]


def test_a_player_who_never_played_is_described_with_nothing(played):
    play = described(played[1], player_id="nobody")
    assert not play.ratings and not play.recent_matches


@pytest.mark.parametrize("role", ["operator", "auditor"])
def test_every_role_above_viewer_describes_a_players_play(played, role):
    assert described(played[1], staff(role), player_id="ann").recent_matches


def test_a_viewer_may_not_describe_a_players_play(played):
    with pytest.raises(grpc.RpcError) as refused:
        described(played[1], VIEWER, player_id="ann")
    r = refusal(refused.value)
    assert (r.code, r.reason) == (grpc.StatusCode.PERMISSION_DENIED, "STAFF_ROLE_TOO_LOW")


@pytest.mark.parametrize("fields, field", [
    (dict(player_id=""), "player_id"),
    (dict(player_id=TOO_LONG), "player_id"),
    (dict(player_id="ann", recent=-1), "recent"),
    (dict(player_id="ann", recent=51), "recent"),
], ids=["no-player", "player-too-long", "recent-negative", "recent-too-many"])
def test_a_malformed_description_is_refused_naming_its_field(played, fields, field):
    with pytest.raises(grpc.RpcError) as refused:
        described(played[1], **fields)
    r = refusal(refused.value)
    assert (r.code, r.reason, r.fields) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_REQUEST", (field,))


# ---- callers who are not staff -----------------------------------------------------------


@pytest.mark.parametrize("role", ["player", "auditor", "service", "account"])
@pytest.mark.parametrize("rpc", ["ListMatches", "DescribePlayerPlay"])
def test_every_caller_but_staff_is_refused(played, rpc, role):
    with pytest.raises(grpc.RpcError) as refused:
        if rpc == "ListMatches":
            listed(played[1], auth("ann", role))
        else:
            described(played[1], auth("ann", role), player_id="ann")
    r = refusal(refused.value)
    assert (r.code, r.reason) == (grpc.StatusCode.PERMISSION_DENIED, "WRONG_CALLER")


def test_a_call_without_a_token_is_unauthenticated(played):
    with pytest.raises(grpc.RpcError) as refused:
        listed(played[1], ())
    assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
