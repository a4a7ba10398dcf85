"""What players expect beyond the table, over real gRPC: quick chat reaches the seats and the
spectators and never the record; spectators watch one turn behind; the history pages newest
first; ratings and the leaderboard follow finished matches, with people only on the
leaderboard; a player who left a match finds it a loss, and a practice match unrated."""

from __future__ import annotations

import json
import uuid

import grpc
import pytest

from domino.match.v1 import match_service_pb2 as pb
from services.match.application import MatchApplication
from services.match.spectators import SpectatorDelay
from tests.support.grpc_matches import act, play_whole_match
from tests.support.keys import auth

from .harness import running_service, service_with_history


@pytest.fixture
def svc():
    app = MatchApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    with running_service(app) as service:
        yield service
    app.close()


def updates(svc, match_id: str, who, from_version: int = 0, seconds: float = 1.5) -> list[pb.WatchMatchResponse]:
    """Everything WatchMatch sends ``who`` within ``seconds``."""
    got = []
    stream = svc.stub.WatchMatch(pb.WatchMatchRequest(match_id=match_id, from_version=from_version), metadata=who,
                                 timeout=seconds)
    try:
        for update in stream:
            got.append(update)
    except grpc.RpcError as e:
        assert e.code() == grpc.StatusCode.DEADLINE_EXCEEDED, e
    return got


def public(svc, match_id):
    return svc.stub.GetMatch(pb.GetMatchRequest(match_id=match_id), metadata=auth("mm", "service")).view


def test_a_chat_phrase_reaches_every_seat_and_spectator_and_not_the_record(svc):
    match_id = svc.create(variant="draw-2", players=("ann", "bob"), spectators=True).match_id
    version = public(svc, match_id).version
    svc.stub.SendChat(pb.SendChatRequest(match_id=match_id, chat_phrase=pb.CHAT_PHRASE_GOOD_LUCK), metadata=auth("ann"))
    for who in (auth("bob"), auth("zed")):
        chats = [u.chat for u in updates(svc, match_id, who, from_version=version) if u.HasField("chat")]
        assert [(c.seat, c.player_id, c.chat_phrase) for c in chats] == [(0, "ann", pb.CHAT_PHRASE_GOOD_LUCK)]
    assert public(svc, match_id).version == version  # the match itself did not move
    play_whole_match(svc, match_id)
    record = svc.stub.ExportMatch(pb.ExportMatchRequest(match_id=match_id),
                                  metadata=auth("auditor-1", "auditor")).record_json
    assert "good_luck" not in record


def _next_chat(stream) -> pb.ChatMessage:
    for update in stream:
        if update.HasField("chat"):
            return update.chat
    raise AssertionError("the stream ended without a phrase")


def _move(svc, match_id: str, n: int) -> int:
    """One legal move by whoever's turn it is; the match's version after it."""
    return act(svc, match_id, public(svc, match_id), n).version


@pytest.fixture
def slow_poll():
    """A service whose streams never re-read on their own (none does now): what they show
    came from a wake."""
    app = MatchApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    with running_service(app) as service:
        yield service
    app.close()


def test_a_phrase_sent_through_this_replica_wakes_a_watching_seat_at_once(slow_poll):
    svc = slow_poll
    match_id = svc.create(variant="draw-2", players=("ann", "bob")).match_id
    stream = svc.stub.WatchMatch(pb.WatchMatchRequest(match_id=match_id, from_version=public(svc, match_id).version),
                                 metadata=auth("bob"), timeout=10)
    _move(svc, match_id, 1)  # a wake without talk first
    svc.stub.SendChat(pb.SendChatRequest(match_id=match_id, chat_phrase=pb.CHAT_PHRASE_WELL_PLAYED),
                      metadata=auth("ann"))
    assert _next_chat(stream).chat_phrase == pb.CHAT_PHRASE_WELL_PLAYED
    stream.cancel()


def test_a_phrase_sent_through_another_worker_on_one_sqlite_file_reaches_a_watching_seat(tmp_path):
    env = {"PERSISTENCE_MODULE": "services.common.sqlite_store", "SQLITE_DBNAME": str(tmp_path / "events.sqlite")}
    watched, other = MatchApplication(env=env), MatchApplication(env=env)
    try:
        with running_service(watched) as svc, running_service(other) as elsewhere:
            match_id = svc.create(variant="draw-2", players=("ann", "bob")).match_id
            stream = svc.stub.WatchMatch(pb.WatchMatchRequest(match_id=match_id,
                                                              from_version=public(svc, match_id).version),
                                         metadata=auth("bob"), timeout=10)
            _move(svc, match_id, 1)
            # The talk is an aggregate of its own: its change wakes the match's streams all the same.
            elsewhere.stub.SendChat(pb.SendChatRequest(match_id=match_id, chat_phrase=pb.CHAT_PHRASE_GOOD_LUCK),
                                    metadata=auth("ann"))
            assert _next_chat(stream).chat_phrase == pb.CHAT_PHRASE_GOOD_LUCK
            stream.cancel()
    finally:
        watched.close()
        other.close()


def test_a_watching_seat_re_reads_the_table_talk_only_when_it_may_have_changed(slow_poll):
    svc = slow_poll
    match_id = svc.create(variant="draw-2", players=("ann", "bob")).match_id
    reads = {"events": 0, "talk": 0}
    events_after, phrases_after = svc.app.events_after, svc.app.phrases_after

    def counted(kind, read):
        def call(*args):
            reads[kind] += 1
            return read(*args)
        return call

    svc.app.events_after = counted("events", events_after)  # type: ignore[method-assign]
    svc.app.phrases_after = counted("talk", phrases_after)  # type: ignore[method-assign]
    stream = svc.stub.WatchMatch(pb.WatchMatchRequest(match_id=match_id), metadata=auth("bob"), timeout=10)
    last = max(_move(svc, match_id, n) for n in range(6))
    for update in stream:
        if update.view.version == last:
            break
    stream.cancel()
    assert reads["events"] >= 2  # the first read, and at least one after a wake
    assert reads["talk"] == 1  # the first read only: no phrase was sent


def test_the_streams_of_a_match_woken_by_one_move_read_its_events_once(slow_poll):
    svc = slow_poll
    match_id = svc.create(variant="draw-2", players=("ann", "bob"), spectators=True).match_id
    reads = []
    events_after = svc.app.events_after

    def counted(*args):
        reads.append(args)
        return events_after(*args)

    svc.app.events_after = counted  # type: ignore[method-assign]
    version = public(svc, match_id).version
    streams = [svc.stub.WatchMatch(pb.WatchMatchRequest(match_id=match_id, from_version=version), metadata=who,
                                   timeout=10) for who in (auth("ann"), auth("bob"))]
    moves = 5
    for n in range(moves):
        version = _move(svc, match_id, n)
        for stream in streams:  # both have the move before the next one
            while next(stream).view.version != version:
                pass
    for stream in streams:
        stream.cancel()
    assert len(reads) <= 2 + moves + 2  # without sharing: 2 + 2 * moves


def test_a_spectator_sees_the_public_view_one_full_turn_behind(svc):
    match_id = svc.create(variant="block-4", spectators=True).match_id
    view = public(svc, match_id)
    for n in range(5):
        view = act(svc, match_id, view, n)
    seen = [u for u in updates(svc, match_id, auth("zed")) if u.HasField("view")]
    assert all(not u.view.HasField("your_seat") and not u.view.hand for u in seen)
    every = [u.event for u in updates(svc, match_id, auth("mm", "service"), from_version=1)]
    actions = [e for e in every if e.kind in (pb.EVENT_KIND_TILE_PLAYED, pb.EVENT_KIND_TURN_PASSED,
                                              pb.EVENT_KIND_TILE_DRAWN)]
    newest_turn = next(e.version for e in reversed(actions) if e.seat != actions[-1].seat) + 1
    newest_turn = min(e.version for e in actions if e.version >= newest_turn and e.seat == actions[-1].seat)
    assert seen[-1].view.version == newest_turn - 1  # everything up to the newest turn, none of it


def test_a_spectator_sees_everything_once_the_match_has_ended(svc):
    match_id = svc.create(variant="draw-2", players=("ann", "bob"), spectators=True).match_id
    final = play_whole_match(svc, match_id)
    seen = [u for u in updates(svc, match_id, auth("zed")) if u.HasField("view")]
    assert seen[-1].view.version == final.version and seen[-1].view.status == pb.MATCH_STATUS_ENDED


def test_the_delay_holds_back_a_turn_until_another_seat_acts():
    from types import SimpleNamespace as E

    from services.match.domainmodel import Match

    def action(kind, version, seat):
        event = object.__new__(getattr(Match, kind))
        event.__dict__.update(originator_version=version, seat=seat)
        return event

    delay = SpectatorDelay()
    assert delay.visible([action("TilePlayed", 3, 0)]) == []
    drawn = action("TileDrawn", 4, 1)
    assert [e.originator_version for e in delay.visible([drawn])] == [3]
    assert delay.visible([action("TileDrawn", 5, 1)]) == []  # the same seat's turn goes on
    assert [e.originator_version for e in delay.visible([action("TilePlayed", 6, 2)])] == [4, 5]
    assert E  # SimpleNamespace kept for readability of the event stand-ins above


# ---- history and ratings ------------------------------------------------------------------


@pytest.fixture
def kept(tmp_path):
    with service_with_history(tmp_path) as (service, projection):
        yield service, projection


def test_my_matches_come_newest_first_a_page_at_a_time_with_their_results(kept):
    svc, projection = kept
    ids = []
    for i in range(3):
        match_id = svc.create(variant="draw-2", players=("ann", "bob:x" if i else "bob"), request_id=f"h{i}").match_id
        play_whole_match(svc, match_id)
        ids.append(match_id)
    live = svc.create(variant="draw-2", players=("ann", "cat"), request_id="live").match_id
    projection.catch_up()
    first = svc.stub.ListMyMatches(pb.ListMyMatchesRequest(page_size=2), metadata=auth("ann"))
    rest = svc.stub.ListMyMatches(pb.ListMyMatchesRequest(page_size=2, page_token=first.next_page_token),
                                  metadata=auth("ann"))
    listed = list(first.matches) + list(rest.matches)
    assert [m.match_id for m in listed] == [live] + ids[::-1] and not rest.next_page_token
    assert listed[0].result == pb.MATCH_RESULT_IN_PLAY and not listed[0].HasField("ended_at")
    assert {m.result for m in listed[1:]} <= {pb.MATCH_RESULT_WON, pb.MATCH_RESULT_LOST, pb.MATCH_RESULT_TIED}
    assert all(m.your_seat == 0 and m.rules == "egyptian" and m.variant == "draw-2" for m in listed)
    exported = json.loads(svc.stub.ExportMatch(pb.ExportMatchRequest(match_id=ids[0]), metadata=auth("ann")).record_json)
    assert exported["viewer_seat"] == 0  # any of them, as the player saw it


def test_ratings_follow_finished_matches_and_the_leaderboard_ranks_them(kept):
    svc, projection = kept
    for i in range(3):  # rated, as a public table's are (a practice match would not be)
        match_id = svc.create(variant="draw-2", players=("ann", "bot:strong:1"), request_id=f"r{i}", rated=True).match_id
        play_whole_match(svc, match_id)
    projection.catch_up()
    mine = svc.stub.GetRating(pb.GetRatingRequest(rules="egyptian", teams=False), metadata=auth("ann"))
    bot = svc.stub.GetRating(pb.GetRatingRequest(player_id="bot:strong:7", rules="egyptian"), metadata=auth("ann"))
    assert mine.rated_players == 1 and mine.rating.matches == 3 and bot.rating.player_id == "bot:strong"
    assert mine.rating.ordinal == pytest.approx(mine.rating.mu - 3 * mine.rating.sigma)
    board = svc.stub.GetLeaderboard(pb.GetLeaderboardRequest(rules="egyptian", teams=False, top=5),
                                    metadata=auth("ann"))
    assert [(r.player_id, r.rank) for r in board.top] == [("ann", 1)]  # people only: the bot is on the ladder
    assert board.you.player_id == "ann" and board.you.rank == mine.rating.rank == 1
    nobody = svc.stub.GetRating(pb.GetRatingRequest(rules="goat", teams=False), metadata=auth("ann"))
    assert nobody.rating.rank == 0 and nobody.rated_players == 0


def test_a_match_i_left_is_listed_as_a_loss_i_left_and_rated_as_one_though_my_stand_in_won(kept):
    svc, projection = kept
    for i in range(40):  # until the server's play for ann, who left at once, wins
        match_id = svc.create(variant="draw-2", players=("ann", "bob"), request_id=f"left{i}", rated=True).match_id
        svc.stub.LeaveMatch(pb.LeaveMatchRequest(match_id=match_id), metadata=auth("ann"))
        final = play_whole_match(svc, match_id)
        if final.HasField("winner") and final.winner == 0:
            break
    else:
        raise AssertionError("the stand-in never won")
    projection.catch_up()
    listed = svc.stub.ListMyMatches(pb.ListMyMatchesRequest(page_size=1), metadata=auth("ann")).matches[0]
    theirs = svc.stub.ListMyMatches(pb.ListMyMatchesRequest(page_size=1), metadata=auth("bob")).matches[0]
    board = svc.stub.GetLeaderboard(pb.GetLeaderboardRequest(rules="egyptian", teams=False), metadata=auth("ann"))
    assert listed.match_id == match_id and listed.result == pb.MATCH_RESULT_LOST and listed.you_left and listed.rated
    assert list(listed.left_seats) == [0] and listed.scores[0] > listed.scores[1]  # what was played stays
    assert theirs.result == pb.MATCH_RESULT_WON and not theirs.you_left
    assert [r.player_id for r in board.top] == ["bob", "ann"]


def test_a_practice_match_is_listed_as_unrated_and_moves_no_rating(kept):
    svc, projection = kept
    match_id = svc.create(variant="draw-2", players=("ann", "bot:greedy:1"), request_id="practice", rated=False).match_id
    play_whole_match(svc, match_id)
    projection.catch_up()
    listed = svc.stub.ListMyMatches(pb.ListMyMatchesRequest(), metadata=auth("ann")).matches[0]
    mine = svc.stub.GetRating(pb.GetRatingRequest(rules="egyptian", teams=False), metadata=auth("ann"))
    assert listed.result in (pb.MATCH_RESULT_WON, pb.MATCH_RESULT_LOST, pb.MATCH_RESULT_TIED) and not listed.rated
    assert mine.rating.matches == 0 and mine.rated_players == 0
