"""ListMyMatches reads its writes, on a real SQLite file and a real PostgreSQL, through a
replica other than the one that played the match: the result is listed the moment the
match's end is stored, before the history projection (the relay's, here never run after
the start) has applied it, and exactly as the projection then records it. Right after a
match ended the list said `in_play` with empty scores, and an app had to retry on a guess."""

from __future__ import annotations

import pytest

from domino.match.v1 import match_service_pb2 as pb
from services.match.history_projection import HistoryProjection
from services.history.view import View
from services.match.application import MatchApplication
from tests.service.harness import running_service
from tests.support.grpc_matches import play_whole_match
from tests.support.keys import auth

pytestmark = pytest.mark.integration
PLAYERS = ("ann", "bob")


@pytest.fixture
def replicas(either_store_env):
    """(the replica the matches are played through, the one they are listed through, the
    projection that keeps the history, caught up once at the start)."""
    env = either_store_env
    playing, listing = MatchApplication(env=env), MatchApplication(env=env)
    view = View.for_env(env)
    projection = HistoryProjection(playing, view)
    projection.start()
    try:
        with running_service(playing, history=view) as one, running_service(listing, history=view) as two:
            yield one, two, projection
    finally:
        playing.close()
        listing.close()
        view.close()


def listed(svc, player: str = "ann", **request) -> list[pb.MatchSummary]:
    return list(svc.stub.ListMyMatches(pb.ListMyMatchesRequest(**request), metadata=auth(player)).matches)


def test_a_match_is_listed_with_its_result_by_another_replica_the_moment_it_ended(replicas):
    one, two, projection = replicas
    match_id = one.create(variant="draw-2", players=PLAYERS, request_id="ended", target=51).match_id
    final = play_whole_match(one, match_id)
    (row,) = listed(two)
    assert row.match_id == match_id and row.result in (pb.MATCH_RESULT_WON, pb.MATCH_RESULT_LOST,
                                                       pb.MATCH_RESULT_TIED)
    assert list(row.scores) == list(final.scores) and row.HasField("ended_at")
    won = final.HasField("winner") and final.winner == 0
    assert row.result == (pb.MATCH_RESULT_WON if won else pb.MATCH_RESULT_LOST if final.HasField("winner")
                          else pb.MATCH_RESULT_TIED)


def test_what_is_listed_before_the_projection_applied_the_end_is_what_it_then_records(replicas):
    one, two, projection = replicas
    match_id = one.create(variant="draw-2", players=PLAYERS, request_id="as-projected", target=51).match_id
    play_whole_match(one, match_id)
    before = {p: listed(two, p) for p in PLAYERS}
    projection.catch_up()
    after = {p: listed(two, p) for p in PLAYERS}
    assert before == after and {r.result for p in PLAYERS for r in after[p]} != {pb.MATCH_RESULT_IN_PLAY}


def test_a_match_the_history_holds_in_play_is_listed_ended_once_its_end_is_stored(replicas):
    one, two, projection = replicas
    match_id = one.create(variant="draw-2", players=PLAYERS, request_id="held-in-play", target=51).match_id
    projection.catch_up()  # the history has its row, in play
    assert [r.result for r in listed(two)] == [pb.MATCH_RESULT_IN_PLAY]
    for player in PLAYERS:  # both leave: the server plays their seats to the end at once
        one.stub.LeaveMatch(pb.LeaveMatchRequest(match_id=match_id), metadata=auth(player))
    (row,) = listed(two)
    assert row.result == pb.MATCH_RESULT_LOST and row.you_left and list(row.left_seats) == [0, 1]
    assert row.HasField("ended_at") and len(row.scores) == 2


def test_a_match_in_play_the_history_has_not_seen_start_is_listed_in_play_first(replicas):
    one, two, projection = replicas
    done = one.create(variant="draw-2", players=PLAYERS, request_id="older", target=51).match_id
    play_whole_match(one, done)
    projection.catch_up()
    live = one.create(variant="draw-2", players=("cat", "ann"), request_id="newer").match_id
    first = two.stub.ListMyMatches(pb.ListMyMatchesRequest(page_size=1), metadata=auth("ann"))
    (row,) = first.matches
    assert (row.match_id, row.result, row.your_seat) == (live, pb.MATCH_RESULT_IN_PLAY, 1)
    assert list(row.player_ids) == ["cat", "ann"] and not row.HasField("ended_at")
    rest = two.stub.ListMyMatches(pb.ListMyMatchesRequest(page_size=1, page_token=first.next_page_token),
                                  metadata=auth("ann"))
    assert [r.match_id for r in rest.matches] == [done] and not rest.next_page_token
