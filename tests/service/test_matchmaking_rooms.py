"""Private rooms over gRPC, started on a real match service.

A scenario a host and friends play: create a room, share the code, choose seats, add bots,
set the options, start; the match then exists on the match service with exactly those seats
and options, and everyone watching the room saw every step.
"""

from __future__ import annotations

import threading

import grpc
import pytest

from domino.match.v1 import match_service_pb2 as match_pb
from domino.matchmaking.v1 import matchmaking_service_pb2 as pb
from services.matchmaking.application import CODE_ALPHABET, CODE_LENGTH
from tests.support.keys import auth

from .matchmaking_harness import running_system


@pytest.fixture
def system():
    with running_system() as running:
        yield running


def seats(room: pb.RoomView) -> list[str]:
    return [s.player_id for s in room.seats]


def teams(room: pb.RoomView) -> list[int | None]:
    return [s.team if s.HasField("team") else None for s in room.seats]


def test_a_host_creates_a_room_with_an_invite_code_and_takes_seat_0(system):
    room = system.create_room("ann", variant="block-4", target=151, turn_timer_seconds=0)
    assert len(room.code) == CODE_LENGTH and set(room.code) <= set(CODE_ALPHABET)
    assert room.host_player_id == "ann" and room.status == pb.ROOM_STATUS_OPEN
    assert seats(room) == ["ann", "", "", ""]
    assert (room.options.variant, room.options.teams, room.options.target, room.options.turn_timer_seconds) == \
        ("block-4", True, 151, 0)
    assert teams(room) == [0, 1, 0, 1]  # partners sit opposite


def test_a_repeated_create_returns_the_same_room(system):
    assert system.create_room("ann").room_id == system.create_room("ann").room_id


def test_every_room_has_its_own_code(system):
    codes = {system.create_room(f"host-{n}").code for n in range(20)}
    assert len(codes) == 20


def test_players_join_by_code_and_choose_their_seats(system):
    room = system.create_room("ann")
    system.join("bob", room.code, seat=2)  # ann's partner
    room = system.join("cat", room.code.lower())  # codes are read case-insensitively
    assert seats(room) == ["ann", "cat", "bob", ""]
    moved = system.stub.ChangeSeat(pb.ChangeSeatRequest(room_id=room.room_id, seat=3), metadata=auth("cat")).room
    assert seats(moved) == ["ann", "", "bob", "cat"]


def test_anyone_with_the_code_may_look_before_joining(system):
    room = system.create_room("ann")
    seen = system.stub.GetRoom(pb.GetRoomRequest(code=room.code), metadata=auth("zed")).room
    assert seen.room_id == room.room_id and seats(seen) == ["ann", "", "", ""]


def test_the_host_adds_and_removes_bots_by_strength(system):
    room = system.create_room("ann")
    system.add_bot("ann", room.room_id, "strong", seat=2)
    room = system.add_bot("ann", room.room_id, "greedy")
    assert seats(room) == ["ann", "bot:greedy:1", "bot:strong:2", ""]
    assert [s.bot_strength for s in room.seats] == [match_pb.BOT_STRENGTH_UNSPECIFIED, match_pb.BOT_STRENGTH_GREEDY,
                                                    match_pb.BOT_STRENGTH_STRONG, match_pb.BOT_STRENGTH_UNSPECIFIED]
    room = system.stub.RemoveBot(pb.RemoveBotRequest(room_id=room.room_id, seat=2), metadata=auth("ann")).room
    assert seats(room) == ["ann", "bot:greedy:1", "", ""]


def test_the_host_changes_the_options_before_the_start(system):
    room = system.create_room("ann")
    room = system.stub.UpdateRoomOptions(pb.UpdateRoomOptionsRequest(room_id=room.room_id, teams=False, target=51,
                                                                     turn_timer_seconds=90), metadata=auth("ann")).room
    assert (room.options.teams, room.options.target, room.options.turn_timer_seconds) == (False, 51, 90)
    assert teams(room) == [None] * 4  # solo: no seat has a team
    room = system.stub.UpdateRoomOptions(pb.UpdateRoomOptionsRequest(room_id=room.room_id, variant="draw-2"),
                                         metadata=auth("ann")).room
    assert seats(room) == ["ann", ""] and room.options.target == 51


def test_starting_a_full_room_starts_a_real_match_with_its_seats_and_options(system):
    room = system.create_room("ann", target=51, turn_timer_seconds=30)
    system.join("bob", room.code, seat=1)
    system.add_bot("ann", room.room_id, "greedy", seat=2)
    system.add_bot("ann", room.room_id, "strong", seat=3)
    started = system.start("ann", room.room_id)
    assert started.status == pb.ROOM_STATUS_PLAYING and started.match_id
    view = system.match_view(started.match_id)
    assert [s.player_id for s in view.seats] == ["ann", "bob", "bot:greedy:2", "bot:strong:3"]
    assert (view.variant, view.teams, view.target, view.turn_timer_seconds) == ("block-4", True, 51, 30)
    assert view.status == match_pb.MATCH_STATUS_IN_PROGRESS
    # the players can play it with their own tokens
    mine = system.match.stub.GetMatch(match_pb.GetMatchRequest(match_id=started.match_id), metadata=auth("bob")).view
    assert mine.your_seat == 1 and len(mine.hand) == 7
    assert system.start("ann", room.room_id).match_id == started.match_id  # a retried start


def test_the_host_leaving_closes_the_room_and_frees_everyone(system):
    room = system.create_room("ann")
    system.join("bob", room.code)
    left = system.stub.LeaveRoom(pb.LeaveRoomRequest(room_id=room.room_id), metadata=auth("ann")).room
    assert left.status == pb.ROOM_STATUS_CLOSED and left.closed_reason == pb.ROOM_CLOSED_REASON_HOST_LEFT
    assert system.request_table("bob").status == pb.TICKET_STATUS_WAITING


def test_a_player_who_leaves_may_go_elsewhere(system):
    room = system.create_room("ann")
    system.join("bob", room.code)
    left = system.stub.LeaveRoom(pb.LeaveRoomRequest(room_id=room.room_id), metadata=auth("bob")).room
    assert seats(left) == ["ann", "", "", ""]
    assert system.create_room("bob").host_player_id == "bob"


def test_watch_room_streams_every_change_to_everyone_in_it(system):
    room = system.create_room("ann", variant="draw-2")
    system.join("bob", room.code)
    streams = {p: system.stub.WatchRoom(pb.WatchRoomRequest(room_id=room.room_id), metadata=auth(p), timeout=20)
               for p in ("ann", "bob")}
    seen: dict[str, list[pb.RoomView]] = {p: [] for p in streams}

    def read(player: str) -> None:
        for reply in streams[player]:
            seen[player].append(reply.room)

    readers = [threading.Thread(target=read, args=(p,)) for p in streams]
    for reader in readers:
        reader.start()
    system.stub.UpdateRoomOptions(pb.UpdateRoomOptionsRequest(room_id=room.room_id, target=71), metadata=auth("ann"))
    system.stub.ChangeSeat(pb.ChangeSeatRequest(room_id=room.room_id, seat=1), metadata=auth("bob"))
    match_id = system.start("ann", room.room_id).match_id
    system.app.ends.release_match(match_id)  # the match ends: the room closes and the streams end
    for reader in readers:
        reader.join(20)
    for player, views in seen.items():
        assert views[0].version <= 3 and views[-1].status == pb.ROOM_STATUS_CLOSED, player
        assert [v.version for v in views] == sorted({v.version for v in views})  # in order, no repeats
        assert any(v.status == pb.ROOM_STATUS_PLAYING and v.match_id == match_id for v in views)
        assert any(v.options.target == 71 for v in views)


def test_watch_room_resumes_after_a_known_version(system):
    room = system.create_room("ann")
    system.join("bob", room.code)
    stream = system.stub.WatchRoom(pb.WatchRoomRequest(room_id=room.room_id, from_version=room.version),
                                   metadata=auth("ann"), timeout=10)
    first = next(stream)
    stream.cancel()
    assert first.room.version == room.version + 1 and seats(first.room)[1] == "bob"


def test_a_watch_ends_when_the_watcher_leaves(system):
    room = system.create_room("ann")
    system.join("bob", room.code)
    stream = system.stub.WatchRoom(pb.WatchRoomRequest(room_id=room.room_id), metadata=auth("bob"), timeout=10)
    next(stream)
    system.stub.LeaveRoom(pb.LeaveRoomRequest(room_id=room.room_id), metadata=auth("bob"))
    rest = list(stream)
    assert rest and "bob" not in seats(rest[-1].room)


def test_a_bot_added_without_a_strength_plays_at_the_rooms_default(system):
    room = system.create_room("ann", rules="all-fives", variant="", seat_count=2)
    room = system.add_bot("ann", room.room_id, None)
    default = system.shape("all-fives", "", 2, False).default_bot_strength
    assert room.seats[1].bot_strength == default != match_pb.BOT_STRENGTH_UNSPECIFIED
    name = next(info.name for info in system.rules().bot_strengths if info.strength == default)
    assert seats(room) == ["ann", f"bot:{name}:1"]


def test_every_room_view_carries_the_servers_clock(system):
    system.clock.advance(12.5)
    room = system.create_room("ann")
    stream = system.stub.WatchRoom(pb.WatchRoomRequest(room_id=room.room_id), metadata=auth("ann"), timeout=10)
    watched = next(stream).room
    stream.cancel()
    for view in (room, watched, system.presence("ann").room):
        assert view.server_time.ToNanoseconds() == int(system.clock() * 1e9)


def test_a_room_is_seen_by_id_by_its_members_only(system):
    room = system.create_room("ann")
    with pytest.raises(grpc.RpcError) as caught:
        system.stub.GetRoom(pb.GetRoomRequest(room_id=room.room_id), metadata=auth("zed"))
    assert caught.value.code() == grpc.StatusCode.PERMISSION_DENIED
    assert system.stub.GetRoom(pb.GetRoomRequest(room_id=room.room_id), metadata=auth("ann")).room.code == room.code
