"""GetTurnAttention over real gRPC: whether the turn a `domino.v1.seat_turn` message names is
still to act, by whom and until when, and whether that player has the match open in a
WatchMatch stream on any replica of the store (then the notifier sends no "your turn"),
with two replicas on one SQLite file and on one PostgreSQL database, and a replica killed
without closing its streams (an injected clock lets its lease lapse)."""

from __future__ import annotations

from contextlib import ExitStack

import pytest

from domino.match.v1 import match_service_pb2 as pb
from services.match.application import MatchApplication
from services.match.stream_record import LEASE_SECONDS, REFRESH_SECONDS
from tests.support.clock import Clock
from tests.support.keys import auth

from .notice_harness import Replica, Watching, replica, shared_record, until

PLAYERS = ("ann", "bob")


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def two_replicas(either_store_env, clock):
    """Two match services on one store, each with its own side of the record of open streams."""
    with ExitStack() as stack:
        services = []
        for name in ("replica-a", "replica-b"):
            app = MatchApplication(env=either_store_env, clock=clock)
            stack.callback(app.close)
            record = shared_record(either_store_env, name, clock)
            stack.callback(record.record.close)
            services.append(stack.enter_context(replica(app, record)))
        yield services


@pytest.fixture
def svc(two_replicas) -> Replica:
    return two_replicas[0]


def new_match(svc: Replica, request_id: str = "m1", **options) -> str:
    return svc.create(variant="draw-2", players=PLAYERS, request_id=request_id, turn_timer_seconds=45,
                      **options).match_id


def current_turn(svc: Replica, match_id: str) -> tuple[int, int, str]:
    """(version, seat to act, its player) as the match stands."""
    view = svc.stub.GetMatch(pb.GetMatchRequest(match_id=match_id), metadata=auth("observer", "service")).view
    return view.version, view.turn, view.seats[view.turn].player_id


def play_turn(svc: Replica, match_id: str, n: int) -> None:
    _, _, player = current_turn(svc, match_id)
    mine = svc.stub.GetMatch(pb.GetMatchRequest(match_id=match_id), metadata=auth(player)).view
    move = mine.legal_moves[0]
    if move.kind == pb.MOVE_KIND_DRAW:
        svc.stub.DrawTile(pb.DrawTileRequest(match_id=match_id, request_id=f"r{n}"), metadata=auth(player))
    else:
        svc.stub.PlayTile(pb.PlayTileRequest(match_id=match_id, request_id=f"r{n}", tile=move.tile, end=move.end),
                          metadata=auth(player))


@pytest.mark.parametrize("either_store_env", ["sqlite"], indirect=True)
def test_the_turn_still_to_play_names_its_seat_player_deadline_and_rules(svc, clock):
    match_id = new_match(svc)
    version, seat, player = current_turn(svc, match_id)
    said = svc.turn_attention(match_id, version)
    assert (said.to_act, said.seat, said.player_id, said.rules) == (True, seat, player, "egyptian")
    assert said.HasField("deadline") and said.deadline.seconds == int(clock.now + 45)
    assert said.server_time.seconds == int(clock.now) and not said.streaming


@pytest.mark.parametrize("either_store_env", ["sqlite"], indirect=True)
def test_a_turn_its_seat_has_played_is_no_longer_to_act(svc):
    match_id = new_match(svc)
    version, seat, player = current_turn(svc, match_id)
    play_turn(svc, match_id, 0)
    said = svc.turn_attention(match_id, version)
    assert (said.to_act, said.seat, said.player_id) == (False, seat, player)


@pytest.mark.parametrize("either_store_env", ["sqlite"], indirect=True)
def test_an_untimed_turn_has_no_deadline(svc):
    match_id = svc.create(variant="draw-2", players=PLAYERS, request_id="untimed", turn_timer_seconds=0).match_id
    version, _, _ = current_turn(svc, match_id)
    said = svc.turn_attention(match_id, version)
    assert said.to_act and not said.HasField("deadline")


@pytest.mark.parametrize("either_store_env", ["sqlite"], indirect=True)
def test_the_player_to_act_is_streaming_while_their_stream_is_open_and_not_after(svc):
    match_id = new_match(svc)
    version, _, player = current_turn(svc, match_id)
    watching = Watching(svc, match_id, player)
    svc.settled()
    assert svc.turn_attention(match_id, version).streaming
    watching.close()
    until(lambda: not svc.open_streams.counts)
    svc.settled()
    assert not svc.turn_attention(match_id, version).streaming


@pytest.mark.parametrize("either_store_env", ["sqlite"], indirect=True)
def test_another_players_stream_does_not_make_the_player_to_act_streaming(two_replicas):
    a, b = two_replicas
    match_id = new_match(a)
    version, seat, _ = current_turn(a, match_id)
    watching = Watching(a, match_id, PLAYERS[1 - seat])
    a.settled()
    assert not b.turn_attention(match_id, version).streaming
    watching.close()


@pytest.mark.parametrize("either_store_env", ["sqlite"], indirect=True)
def test_a_spectators_stream_is_not_recorded(svc):
    match_id = new_match(svc, spectators=True)
    watching = Watching(svc, match_id, "zed")
    svc.settled()
    assert svc.open_streams.counts == {}
    watching.close()


def test_a_stream_open_on_one_replica_is_streaming_on_the_other(two_replicas):
    a, b = two_replicas
    match_id = new_match(a)
    version, _, player = current_turn(a, match_id)
    watching = Watching(a, match_id, player)
    a.settled()
    assert b.turn_attention(match_id, version).streaming
    watching.close()
    until(lambda: not a.open_streams.counts)
    a.settled()
    assert not b.turn_attention(match_id, version).streaming


def test_two_streams_of_one_player_count_until_both_close(two_replicas):
    a, b = two_replicas
    match_id = new_match(a)
    version, _, player = current_turn(a, match_id)
    phone, tablet = Watching(a, match_id, player), Watching(a, match_id, player)
    phone.close()
    until(lambda: a.open_streams.counts.get((match_id, player)) == 1)
    a.settled()
    assert b.turn_attention(match_id, version).streaming
    tablet.close()


def test_a_killed_replicas_streams_stop_counting_once_its_lease_lapses(two_replicas, clock):
    a, b = two_replicas
    match_id = new_match(a)
    version, _, player = current_turn(a, match_id)
    Watching(a, match_id, player)  # never closed: replica a is killed with it open
    a.settled()
    clock.advance(LEASE_SECONDS - 1)
    b.renew()
    assert b.turn_attention(match_id, version).streaming
    clock.advance(2)
    b.renew()
    assert not b.turn_attention(match_id, version).streaming


def test_a_replica_renewing_its_lease_keeps_its_streams_counting(two_replicas, clock):
    a, b = two_replicas
    match_id = new_match(a)
    version, _, player = current_turn(a, match_id)
    watching = Watching(a, match_id, player)
    a.settled()
    for _ in range(5):
        clock.advance(REFRESH_SECONDS)
        a.renew()
    assert clock.now > 1_800_000_000 + LEASE_SECONDS
    assert b.turn_attention(match_id, version).streaming
    watching.close()


def test_a_replica_starting_again_clears_what_it_recorded_before(two_replicas, either_store_env, clock):
    a, b = two_replicas
    match_id = new_match(a)
    version, _, player = current_turn(a, match_id)
    Watching(a, match_id, player)  # a is killed with it open, and starts again under its name
    a.settled()
    again = shared_record(either_store_env, "replica-a", clock)
    try:
        a.run(again.start())
        assert not b.turn_attention(match_id, version).streaming
    finally:
        again.record.close()


def test_a_clean_stop_takes_its_streams_with_it(two_replicas):
    a, b = two_replicas
    match_id = new_match(a)
    version, _, player = current_turn(a, match_id)
    Watching(a, match_id, player)
    a.settled()
    a.run(a.open_streams.aclose())
    assert not b.turn_attention(match_id, version).streaming


@pytest.mark.parametrize("either_store_env", ["sqlite"], indirect=True)
def test_a_write_the_store_refused_is_counted_and_rewritten_by_the_next_renewal(either_store_env, clock):
    import sqlite3
    from pathlib import Path

    app = MatchApplication(env=either_store_env, clock=clock)
    record = shared_record(either_store_env, "replica-a", clock)
    record.seconds = 0.3
    path = Path(either_store_env["SQLITE_DBNAME"]).parent / "open_streams.sqlite"
    try:
        with replica(app, record) as a:
            match_id = new_match(a)
            version, _, player = current_turn(a, match_id)
            locker = sqlite3.connect(path, isolation_level=None)
            locker.execute("BEGIN EXCLUSIVE")  # the store refuses this replica's writes meanwhile
            watching = Watching(a, match_id, player)
            a.settled()
            assert a.open_streams.failures == 1
            locker.execute("COMMIT")
            a.run(a.open_streams._quiet())  # the refused write ends (or lands late) ...
            locker.execute("DELETE FROM domino_open_streams")  # ... and is lost all the same
            locker.close()
            a.renew()
            a.open_streams.counts.clear()  # asked of the record, not of this replica's memory
            assert a.turn_attention(match_id, version).streaming
            a.open_streams.counts[(match_id, player)] = 1
            watching.close()
            until(lambda: not a.open_streams.counts)
            a.run(record.aclose())
    finally:
        app.close()


@pytest.mark.parametrize("either_store_env", ["sqlite"], indirect=True)
def test_a_record_that_cannot_be_read_is_unavailable_and_counted(two_replicas, either_store_env):
    import sqlite3
    from pathlib import Path

    import grpc

    from tests.support.errors import refusal

    a, b = two_replicas
    match_id = new_match(a)
    version, _, _ = current_turn(a, match_id)
    b.open_streams.seconds = 0.3
    locker = sqlite3.connect(Path(either_store_env["SQLITE_DBNAME"]).parent / "open_streams.sqlite",
                             isolation_level=None)
    locker.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(grpc.RpcError) as caught:
            b.turn_attention(match_id, version)
    finally:
        locker.execute("COMMIT")
        locker.close()
    said = refusal(caught.value)
    assert (said.code, said.reason) == (grpc.StatusCode.UNAVAILABLE, "UNAVAILABLE")
    assert b.open_streams.failures == 1
    b.run(b.open_streams._quiet())


@pytest.mark.parametrize("either_store_env", ["sqlite"], indirect=True)
def test_a_version_at_which_nobody_was_to_act_names_no_seat(svc):
    match_id = new_match(svc)  # version 1: the match started, no round dealt yet
    said = svc.turn_attention(match_id, 1)
    assert (said.to_act, said.seat, said.player_id, said.streaming) == (False, -1, "", False)
