"""Every matchmaking RPC refuses bad input with a clear status and stores nothing.

Codes (docs/design.md, "Errors"): no/bad token UNAUTHENTICATED; malformed request or an
option outside the allowed values INVALID_ARGUMENT; unknown code/room/ticket NOT_FOUND;
not the host / not in the room PERMISSION_DENIED; full room, seat taken, unfilled room,
options after the start, already elsewhere FAILED_PRECONDITION; too many failed joins
RESOURCE_EXHAUSTED. Every refusal is told apart by its ErrorInfo reason (domain
"domino.matchmaking"), a malformed field is named by a BadRequest, and the first one a
request gets is the real one: its own fields before what depends on them. Each test checks
that neither matchmaking's store nor the match service's holds an event more than before
the call. The one documented exception: a join with an unknown code records the failed
attempt (FailedJoins), and nothing else.
"""

from __future__ import annotations

import uuid
from contextlib import contextmanager

import grpc
import pytest

from domino.match.v1 import match_service_pb2 as match_pb
from domino.matchmaking.v1 import matchmaking_service_pb2 as pb
from services.common.auth import KeyRing, mint_token
from services.common.bot_ladder import ladder
from services.common.bot_strengths import OFFERED
from services.history.summary import rating_key
from services.common.rule_options import value_pb
from services.matchmaking.rooms import FailedJoins
from tests.support.errors import refusal
from tests.support.keys import KEYS, auth

from .matchmaking_harness import bot_strength, running_system

UNKNOWN_STRENGTH = 99  # a BotStrength of a newer API: no strength this server knows

@pytest.fixture(scope="module")
def system():
    with running_system() as running:
        yield running


@pytest.fixture
def names(request):
    """Player names no other test uses (the module shares one system)."""
    test = request.node.name.replace("[", "-").replace("]", "")
    return lambda who: f"{who}@{test}"


@pytest.fixture
def room(system, names):
    """An open block-4 room: the host at 0, a guest at 1, a bot at 2, seat 3 free."""
    room = system.create_room(names("host"))
    system.join(names("guest"), room.code, seat=1)
    return system.add_bot(names("host"), room.room_id, "greedy", seat=2)


@pytest.fixture
def ticket(system, names):
    """A waiting block-3 ticket, withdrawn after the test: the module shares one system, and
    three tickets left waiting by three tests would sit at a table together."""
    waiting = system.request_table(names("waiter"), variant="block-3")
    yield waiting
    try:
        system.stub.CancelTicket(pb.CancelTicketRequest(ticket_id=waiting.ticket_id), metadata=auth(names("waiter")))
    except grpc.RpcError:
        pass  # the test cancelled it itself


@contextmanager
def nothing_stored(system):
    before = system.stored()
    yield
    assert system.stored() == before, "the call stored events"


def rejected(code: grpc.StatusCode, thunk, *words: str, reason: str, field: str | None = None) -> str:
    """The refusal's message, once its code, its ErrorInfo reason, its BadRequest field (or
    none) and its words are as expected."""
    with pytest.raises(grpc.RpcError) as caught:
        thunk()
    error = caught.value
    assert error.code() == code, f"{error.code()}: {error.details()}"
    said = refusal(error)
    assert (said.reason, said.domain) == (reason, "domino.matchmaking"), f"{said}"
    assert said.fields == ((field,) if field else ()), f"{said}"
    for word in words:
        assert word.lower() in (error.details() or "").lower(), f"{word!r} not in {error.details()!r}"
    return error.details()


def first(stream):
    try:
        return next(stream)
    finally:
        stream.cancel()


def refused(system, code, thunk, *words, reason: str, field: str | None = None):
    with nothing_stored(system):
        return rejected(code, thunk, *words, reason=reason, field=field)


# ---- every RPC: credentials and identities -------------------------------------------------

def calls(system, room: pb.RoomView, ticket: pb.TicketView) -> dict:
    """A plausible request for every RPC, given the caller's metadata."""
    s = system.stub
    return {
        "CreateRoom": lambda md: s.CreateRoom(pb.CreateRoomRequest(request_id="r", variant="draw-2"), metadata=md),
        "GetRoom": lambda md: s.GetRoom(pb.GetRoomRequest(room_id=room.room_id), metadata=md),
        "JoinRoom": lambda md: s.JoinRoom(pb.JoinRoomRequest(code=room.code), metadata=md),
        "LeaveRoom": lambda md: s.LeaveRoom(pb.LeaveRoomRequest(room_id=room.room_id), metadata=md),
        "ChangeSeat": lambda md: s.ChangeSeat(pb.ChangeSeatRequest(room_id=room.room_id, seat=3), metadata=md),
        "AddBot": lambda md: s.AddBot(pb.AddBotRequest(room_id=room.room_id, bot_strength=bot_strength("greedy")),
                                      metadata=md),
        "RemoveBot": lambda md: s.RemoveBot(pb.RemoveBotRequest(room_id=room.room_id, seat=2), metadata=md),
        "UpdateRoomOptions": lambda md: s.UpdateRoomOptions(
            pb.UpdateRoomOptionsRequest(room_id=room.room_id, target=51), metadata=md),
        "StartRoom": lambda md: s.StartRoom(pb.StartRoomRequest(room_id=room.room_id), metadata=md),
        "WatchRoom": lambda md: first(s.WatchRoom(pb.WatchRoomRequest(room_id=room.room_id), metadata=md, timeout=5)),
        "RequestTable": lambda md: s.RequestTable(pb.RequestTableRequest(request_id="t", variant="draw-2"), metadata=md),
        "GetTicket": lambda md: s.GetTicket(pb.GetTicketRequest(ticket_id=ticket.ticket_id), metadata=md),
        "WatchTicket": lambda md: first(s.WatchTicket(pb.WatchTicketRequest(ticket_id=ticket.ticket_id), metadata=md,
                                                      timeout=5)),
        "CancelTicket": lambda md: s.CancelTicket(pb.CancelTicketRequest(ticket_id=ticket.ticket_id), metadata=md),
        "StartPractice": lambda md: s.StartPractice(pb.StartPracticeRequest(request_id="p", variant="draw-2"),
                                                    metadata=md),
        "GetPresence": lambda md: s.GetPresence(pb.GetPresenceRequest(), metadata=md),
        "InviteToRoom": lambda md: s.InviteToRoom(pb.InviteToRoomRequest(request_id="i", room_id=room.room_id,
                                                                         player_ids=["friend"]), metadata=md),
        "GetInvite": lambda md: s.GetInvite(pb.GetInviteRequest(invite_id=str(uuid.uuid4())), metadata=md),
        "AnswerInvite": lambda md: s.AnswerInvite(pb.AnswerInviteRequest(invite_id=str(uuid.uuid4()), accept=True),
                                                  metadata=md),
        "RequestRematch": lambda md: s.RequestRematch(pb.RequestRematchRequest(match_id=str(uuid.uuid4())),
                                                      metadata=md),
    }


RPCS = ("CreateRoom", "GetRoom", "JoinRoom", "LeaveRoom", "ChangeSeat", "AddBot", "RemoveBot", "UpdateRoomOptions",
        "StartRoom", "WatchRoom", "RequestTable", "GetTicket", "WatchTicket", "CancelTicket", "StartPractice",
        "GetPresence", "InviteToRoom", "GetInvite", "AnswerInvite", "RequestRematch")
BAD_CREDENTIALS = {
    "no token": ((), "missing", "TOKEN_MISSING"),
    "not a bearer token": ((("authorization", "Token abc.def.ghi"),), "Bearer <token>", "TOKEN_INVALID"),
    "not a jwt": ((("authorization", "Bearer not-a-jwt"),), "not valid", "TOKEN_INVALID"),
    "expired": ((("authorization", f"Bearer {mint_token('ann', KEYS, ttl_seconds=-10)}"),), "expired",
                "TOKEN_EXPIRED"),
    "another secret": ((("authorization", f"Bearer {mint_token('ann', KeyRing.generate())}"),),
                       "signature", "TOKEN_INVALID"),
}


def test_the_service_covers_every_rpc_of_the_proto():
    assert set(RPCS) == set(pb.DESCRIPTOR.services_by_name["MatchmakingService"].methods_by_name)


@pytest.mark.parametrize("rpc", RPCS)
@pytest.mark.parametrize("credentials", BAD_CREDENTIALS)
def test_bad_credentials_are_unauthenticated(system, room, ticket, rpc, credentials):
    metadata, words, reason = BAD_CREDENTIALS[credentials]
    details = refused(system, grpc.StatusCode.UNAUTHENTICATED, lambda: calls(system, room, ticket)[rpc](metadata), words,
                      reason=reason)
    assert "abc.def.ghi" not in details and "not-a-jwt" not in details


@pytest.mark.parametrize("rpc", RPCS)
@pytest.mark.parametrize("identity", [("bot:greedy:1", "player"), ("matchmaking", "service"), ("aud", "auditor")])
def test_bots_services_and_auditors_take_no_seats(system, room, ticket, rpc, identity):
    refused(system, grpc.StatusCode.PERMISSION_DENIED, lambda: calls(system, room, ticket)[rpc](auth(*identity)),
            "only players", reason="NOT_A_PLAYER")


# ---- ids and codes -----------------------------------------------------------------------

ROOM_RPCS = ("GetRoom", "LeaveRoom", "ChangeSeat", "AddBot", "RemoveBot", "UpdateRoomOptions", "StartRoom", "WatchRoom")
TICKET_RPCS = ("GetTicket", "WatchTicket", "CancelTicket")


def with_room_id(system, rpc: str, room_id: str, metadata):
    fake = pb.RoomView(room_id=room_id, code="ZZZZZZZZ")
    return calls(system, fake, pb.TicketView())[rpc](metadata)


def with_ticket_id(system, rpc: str, ticket_id: str, metadata):
    return calls(system, pb.RoomView(), pb.TicketView(ticket_id=ticket_id))[rpc](metadata)


@pytest.mark.parametrize("rpc", ROOM_RPCS)
@pytest.mark.parametrize("bad", ["", "room-1", "1234"])
def test_a_malformed_room_id_is_invalid_argument(system, names, rpc, bad):
    refused(system, grpc.StatusCode.INVALID_ARGUMENT, lambda: with_room_id(system, rpc, bad, auth(names("p"))),
            "room_id", reason="INVALID_REQUEST", field="room_id")


@pytest.mark.parametrize("rpc", ROOM_RPCS)
def test_an_unknown_room_is_not_found(system, names, rpc):
    unknown = str(uuid.uuid4())
    refused(system, grpc.StatusCode.NOT_FOUND, lambda: with_room_id(system, rpc, unknown, auth(names("p"))), "no room",
            reason="ROOM_NOT_FOUND")


@pytest.mark.parametrize("rpc", TICKET_RPCS)
@pytest.mark.parametrize("bad", ["", "ticket-1"])
def test_a_malformed_ticket_id_is_invalid_argument(system, names, rpc, bad):
    refused(system, grpc.StatusCode.INVALID_ARGUMENT, lambda: with_ticket_id(system, rpc, bad, auth(names("p"))),
            "ticket_id", reason="INVALID_REQUEST", field="ticket_id")


@pytest.mark.parametrize("rpc", TICKET_RPCS)
def test_an_unknown_ticket_is_not_found(system, names, rpc):
    unknown = str(uuid.uuid4())
    refused(system, grpc.StatusCode.NOT_FOUND, lambda: with_ticket_id(system, rpc, unknown, auth(names("p"))),
            "no ticket", reason="TICKET_NOT_FOUND")


@pytest.mark.parametrize("rpc", TICKET_RPCS)
def test_another_players_ticket_is_not_found(system, names, ticket, rpc):
    refused(system, grpc.StatusCode.NOT_FOUND, lambda: with_ticket_id(system, rpc, ticket.ticket_id, auth(names("p"))),
            "no ticket", reason="TICKET_NOT_FOUND")


def test_get_room_needs_an_id_or_a_code(system, names):
    refused(system, grpc.StatusCode.INVALID_ARGUMENT,
            lambda: system.stub.GetRoom(pb.GetRoomRequest(), metadata=auth(names("p"))), "room_id or code",
            reason="INVALID_REQUEST", field="room_id")


@pytest.mark.parametrize("code", ["", "ABC", "ABCDEFGHI", "ABCDEF0O", "ABCD-EF1"])
def test_a_malformed_invite_code_is_invalid_argument(system, names, code):
    refused(system, grpc.StatusCode.INVALID_ARGUMENT,
            lambda: system.stub.JoinRoom(pb.JoinRoomRequest(code=code), metadata=auth(names("p"))), "code",
            reason="INVALID_REQUEST", field="code")


def test_an_unknown_invite_code_is_not_found_and_records_only_the_failed_attempt(system, names):
    before = system.stored()
    rejected(grpc.StatusCode.NOT_FOUND,
             lambda: system.stub.JoinRoom(pb.JoinRoomRequest(code="ZZZZ2222"), metadata=auth(names("p"))),
             "no room has this invite code", reason="ROOM_NOT_FOUND")
    after = system.stored()
    assert after[1] == before[1] and after[0] == before[0] + 2  # FailedJoins.Opened and .JoinFailed
    guard = system.app.store.load(FailedJoins, FailedJoins.create_id(names("p")))
    assert guard is not None and len(guard.failures) == 1


def test_too_many_unknown_codes_refuse_even_the_right_one(system, names, room):
    guesser = names("guesser")
    for n in range(FailedJoins.LIMIT):
        code = f"ZZZZ{n + 2:04d}".replace("0", "2").replace("1", "3")
        rejected(grpc.StatusCode.NOT_FOUND,
                 lambda: system.stub.JoinRoom(pb.JoinRoomRequest(code=code), metadata=auth(guesser)),
                 reason="ROOM_NOT_FOUND")
    for call in (lambda: system.stub.JoinRoom(pb.JoinRoomRequest(code=room.code), metadata=auth(guesser)),
                 lambda: system.stub.GetRoom(pb.GetRoomRequest(code=room.code), metadata=auth(guesser))):
        refused(system, grpc.StatusCode.RESOURCE_EXHAUSTED, call, "try again in", reason="TOO_MANY_FAILED_JOINS")
        with pytest.raises(grpc.RpcError) as caught:
            call()
        assert 0 < refusal(caught.value).retry_after <= FailedJoins.WINDOW_SECONDS  # when to try again
    system.clock.advance(FailedJoins.WINDOW_SECONDS)
    assert system.join(guesser, room.code).seats[3].player_id == guesser


# ---- rooms ---------------------------------------------------------------------------------

@pytest.mark.parametrize("fields, words, reason, field", [
    ({"variant": "draw-2"}, ["request_id"], "INVALID_REQUEST", "request_id"),
    ({"request_id": "r", "variant": "block-5"}, ["variant"], "INVALID_OPTIONS", "variant"),
    ({"request_id": "r", "rules": "chess", "variant": "block-4"}, ["rules"], "INVALID_OPTIONS", "rules"),
    ({"request_id": "r", "variant": "block-4", "target": 100}, ["target"], "INVALID_OPTIONS", "target"),
    ({"request_id": "r", "variant": "block-4", "turn_timer_seconds": 120}, ["turn_timer"], "INVALID_OPTIONS",
     "turn_timer_seconds"),
    ({"request_id": "r", "variant": "draw-2", "teams": True}, ["teams"], "INVALID_OPTIONS", "teams"),
    ({"request_id": "r", "variant": "draw-2", "seat_count": 4}, ["2, not 4"], "INVALID_OPTIONS", "seat_count"),
    ({"request_id": "r", "variant": "draw-2", "seat": 2}, ["seat 2"], "BAD_SEAT", "seat"),
    ({"request_id": "r", "variant": "draw-2", "seat": -1}, ["seat -1"], "BAD_SEAT", "seat"),
    ({"request_id": "r" * 201, "variant": "draw-2"}, ["request_id"], "INVALID_REQUEST", "request_id"),
])
def test_create_room_with_bad_options_is_invalid_argument(system, names, fields, words, reason, field):
    refused(system, grpc.StatusCode.INVALID_ARGUMENT,
            lambda: system.stub.CreateRoom(pb.CreateRoomRequest(**fields), metadata=auth(names("p"))), *words,
            reason=reason, field=field)


def test_a_host_cannot_create_a_second_room(system, room, names):
    refused(system, grpc.StatusCode.FAILED_PRECONDITION,
            lambda: system.create_room(names("host"), request_id="another"), "already in room", reason="ALREADY_SEATED")


def test_a_full_room_refuses_a_join(system, room, names):
    system.join(names("fourth"), room.code)
    refused(system, grpc.StatusCode.FAILED_PRECONDITION, lambda: system.join(names("fifth"), room.code), "full",
            reason="ROOM_FULL")


def test_a_taken_seat_refuses_a_join_or_a_move(system, room, names):
    refused(system, grpc.StatusCode.FAILED_PRECONDITION, lambda: system.join(names("p"), room.code, seat=2), "taken",
            reason="SEAT_TAKEN")
    refused(system, grpc.StatusCode.FAILED_PRECONDITION, lambda: system.stub.ChangeSeat(
        pb.ChangeSeatRequest(room_id=room.room_id, seat=0), metadata=auth(names("guest"))), "taken", reason="SEAT_TAKEN")


@pytest.mark.parametrize("seat", [-1, 4])
def test_a_seat_the_room_does_not_have_is_invalid_argument(system, room, names, seat):
    for call in (lambda: system.join(names("p"), room.code, seat=seat),
                 lambda: system.stub.ChangeSeat(pb.ChangeSeatRequest(room_id=room.room_id, seat=seat),
                                                metadata=auth(names("guest"))),
                 lambda: system.add_bot(names("host"), room.room_id, "greedy", seat=seat),
                 lambda: system.stub.RemoveBot(pb.RemoveBotRequest(room_id=room.room_id, seat=seat),
                                               metadata=auth(names("host")))):
        refused(system, grpc.StatusCode.INVALID_ARGUMENT, call, "seat", reason="BAD_SEAT", field="seat")


@pytest.mark.parametrize("rpc", ["GetRoom", "LeaveRoom", "ChangeSeat", "WatchRoom"])
def test_outsiders_cannot_see_or_act_in_a_room(system, room, ticket, names, rpc):
    refused(system, grpc.StatusCode.PERMISSION_DENIED, lambda: calls(system, room, ticket)[rpc](auth(names("p"))),
            "not in this room" if rpc in ("LeaveRoom", "ChangeSeat") else "members", reason="NOT_IN_ROOM")


@pytest.mark.parametrize("rpc", ["AddBot", "RemoveBot", "UpdateRoomOptions", "StartRoom"])
@pytest.mark.parametrize("who", ["guest", "outsider"])
def test_only_the_host_manages_the_room(system, room, ticket, names, rpc, who):
    refused(system, grpc.StatusCode.PERMISSION_DENIED, lambda: calls(system, room, ticket)[rpc](auth(names(who))),
            "only the host", reason="NOT_HOST")


def test_an_unknown_bot_strength_is_invalid_argument(system, room, names):
    refused(system, grpc.StatusCode.INVALID_ARGUMENT, lambda: system.stub.AddBot(
        pb.AddBotRequest(room_id=room.room_id, bot_strength=UNKNOWN_STRENGTH), metadata=auth(names("host"))),
        "unknown bot strength 99", reason="STRENGTH_NOT_OFFERED", field="bot_strength")


def test_removing_a_person_or_an_empty_seat_is_refused(system, room, names):
    for seat in (1, 3):
        refused(system, grpc.StatusCode.FAILED_PRECONDITION, lambda: system.stub.RemoveBot(
            pb.RemoveBotRequest(room_id=room.room_id, seat=seat), metadata=auth(names("host"))), "no bot",
            reason="NO_BOT_THERE")


def test_adding_a_bot_to_a_full_room_is_refused(system, room, names):
    system.add_bot(names("host"), room.room_id)
    refused(system, grpc.StatusCode.FAILED_PRECONDITION, lambda: system.add_bot(names("host"), room.room_id), "full",
            reason="ROOM_FULL")


@pytest.mark.parametrize("fields, words, field", [
    ({"target": 50}, ["target"], "target"), ({"turn_timer_seconds": 20}, ["turn_timer"], "turn_timer_seconds"),
    ({"variant": "block-9"}, ["variant"], "variant"), ({"variant": "draw-2", "teams": True}, ["teams"], "teams"),
    ({"rules": "chess"}, ["rules"], "rules"), ({"seat_count": 3}, ["4, not 3"], "seat_count"),
])
def test_options_outside_the_allowed_values_are_invalid_argument(system, room, names, fields, words, field):
    refused(system, grpc.StatusCode.INVALID_ARGUMENT, lambda: system.stub.UpdateRoomOptions(
        pb.UpdateRoomOptionsRequest(room_id=room.room_id, **fields), metadata=auth(names("host"))), *words,
        reason="INVALID_OPTIONS", field=field)


def test_a_variant_whose_seats_are_occupied_is_refused(system, room, names):
    refused(system, grpc.StatusCode.FAILED_PRECONDITION, lambda: system.stub.UpdateRoomOptions(
        pb.UpdateRoomOptionsRequest(room_id=room.room_id, variant="draw-2"), metadata=auth(names("host"))),
        "free seats 2", reason="SEATS_IN_THE_WAY")


def test_starting_an_unfilled_room_is_refused(system, room, names):
    refused(system, grpc.StatusCode.FAILED_PRECONDITION, lambda: system.start(names("host"), room.room_id),
            "every seat", "3", reason="ROOM_NOT_FILLED")


def test_after_the_start_options_and_seats_are_locked(system, room, ticket, names):
    system.add_bot(names("host"), room.room_id)
    system.start(names("host"), room.room_id)
    host, guest = auth(names("host")), auth(names("guest"))
    for rpc, metadata in (("UpdateRoomOptions", host), ("AddBot", host), ("RemoveBot", host), ("LeaveRoom", guest),
                          ("ChangeSeat", guest)):
        refused(system, grpc.StatusCode.FAILED_PRECONDITION, lambda: calls(system, room, ticket)[rpc](metadata),
                "started", reason="ROOM_LOCKED")


def test_only_the_host_lets_spectators_in_and_only_before_the_start(system, room, names):
    spectators = lambda who: system.stub.UpdateRoomOptions(  # noqa: E731
        pb.UpdateRoomOptionsRequest(room_id=room.room_id, spectators=True), metadata=auth(names(who)))
    refused(system, grpc.StatusCode.PERMISSION_DENIED, lambda: spectators("guest"), "only the host", reason="NOT_HOST")
    system.add_bot(names("host"), room.room_id)
    system.start(names("host"), room.room_id)
    refused(system, grpc.StatusCode.FAILED_PRECONDITION, lambda: spectators("host"), "started", reason="ROOM_LOCKED")


@pytest.mark.parametrize("from_version", [-1, 99])
def test_watch_room_from_an_impossible_version_is_invalid_argument(system, room, names, from_version):
    refused(system, grpc.StatusCode.INVALID_ARGUMENT, lambda: first(system.stub.WatchRoom(
        pb.WatchRoomRequest(room_id=room.room_id, from_version=from_version), metadata=auth(names("host")),
        timeout=5)), "from_version", reason="INVALID_REQUEST", field="from_version")


# ---- tables and practice -------------------------------------------------------------------

@pytest.mark.parametrize("fields, words, reason, field", [
    ({"variant": "draw-2"}, ["request_id"], "INVALID_REQUEST", "request_id"),
    ({"request_id": "t", "variant": "block-5"}, ["variant"], "INVALID_OPTIONS", "variant"),
    ({"request_id": "t", "variant": "block-3", "teams": True}, ["teams"], "INVALID_OPTIONS", "teams"),
    ({"request_id": "t", "rules": "chess", "variant": "block-3"}, ["rules"], "INVALID_OPTIONS", "rules"),
    ({"request_id": "t", "rules": "all-fives", "seat_count": 6}, ["not 6"], "INVALID_OPTIONS", "seat_count"),
])
def test_request_table_with_bad_options_is_invalid_argument(system, names, fields, words, reason, field):
    refused(system, grpc.StatusCode.INVALID_ARGUMENT,
            lambda: system.stub.RequestTable(pb.RequestTableRequest(**fields), metadata=auth(names("p"))), *words,
            reason=reason, field=field)


def test_a_second_ticket_or_a_room_while_waiting_is_refused(system, ticket, names):
    waiter = names("waiter")
    for call in (lambda: system.request_table(waiter, variant="draw-2", request_id="another"),
                 lambda: system.create_room(waiter),
                 lambda: system.practice(waiter, "p", variant="draw-2")):
        refused(system, grpc.StatusCode.FAILED_PRECONDITION, call, "already waiting", reason="ALREADY_SEATED")


def test_a_request_id_reused_for_another_table_is_invalid_argument(system, ticket, names):
    refused(system, grpc.StatusCode.INVALID_ARGUMENT,
            lambda: system.request_table(names("waiter"), variant="draw-2", request_id="table-1"), "request_id",
            reason="REQUEST_ID_REUSED", field="request_id")


def test_a_request_id_reused_for_another_practice_is_invalid_argument(system, names):
    system.practice(names("p"), "p1", variant="draw-2")
    refused(system, grpc.StatusCode.INVALID_ARGUMENT, lambda: system.practice(names("p"), "p1", variant="block-3"),
            "request_id", reason="REQUEST_ID_REUSED", field="request_id")


def test_a_seated_ticket_cannot_be_cancelled(system, names):
    tickets = [system.request_table(names(p), variant="draw-2") for p in ("a", "b")]
    refused(system, grpc.StatusCode.FAILED_PRECONDITION, lambda: system.stub.CancelTicket(
        pb.CancelTicketRequest(ticket_id=tickets[0].ticket_id), metadata=auth(names("a"))), "seated",
        reason="TICKET_NOT_WAITING")


@pytest.mark.parametrize("from_version", [-1, 99])
def test_watch_ticket_from_an_impossible_version_is_invalid_argument(system, ticket, names, from_version):
    refused(system, grpc.StatusCode.INVALID_ARGUMENT, lambda: first(system.stub.WatchTicket(
        pb.WatchTicketRequest(ticket_id=ticket.ticket_id, from_version=from_version), metadata=auth(names("waiter")),
        timeout=5)), "from_version", reason="INVALID_REQUEST", field="from_version")


@pytest.mark.parametrize("fields, words, reason, field", [
    ({"variant": "draw-2"}, ["request_id"], "INVALID_REQUEST", "request_id"),
    ({"request_id": "p", "variant": "draw-2", "bot_strength": UNKNOWN_STRENGTH}, ["strength"],
     "STRENGTH_NOT_OFFERED", "bot_strength"),
    ({"request_id": "p", "variant": "draw-2", "target": 52}, ["target"], "INVALID_OPTIONS", "target"),
    ({"request_id": "p", "variant": "draw-2", "turn_timer_seconds": 5}, ["turn_timer"], "INVALID_OPTIONS",
     "turn_timer_seconds"),
    ({"request_id": "p", "variant": "draw-2", "teams": True}, ["teams"], "INVALID_OPTIONS", "teams"),
    ({"request_id": "p", "variant": "block-7"}, ["variant"], "INVALID_OPTIONS", "variant"),
    ({"request_id": "p", "rules": "classic", "seat_count": 1}, ["not 1"], "INVALID_OPTIONS", "seat_count"),
])
def test_start_practice_with_bad_options_is_invalid_argument(system, names, fields, words, reason, field):
    refused(system, grpc.StatusCode.INVALID_ARGUMENT,
            lambda: system.stub.StartPractice(pb.StartPracticeRequest(**fields), metadata=auth(names("p"))), *words,
            reason=reason, field=field)


# ---- the first error named is the real one ---------------------------------------------------

@pytest.mark.parametrize("fields, reason, field", [
    ({"request_id": "", "variant": "block-7", "bot_strength": UNKNOWN_STRENGTH}, "INVALID_REQUEST", "request_id"),
    ({"request_id": "p", "variant": "block-7", "bot_strength": UNKNOWN_STRENGTH}, "STRENGTH_NOT_OFFERED",
     "bot_strength"),
    ({"request_id": "p", "rules": "chess", "turn_timer_seconds": 7}, "INVALID_OPTIONS", "turn_timer_seconds"),
    ({"request_id": "p", "rules": "chess", "rule_options": [match_pb.OptionSetting(name="fish")]},
     "INVALID_OPTIONS", "rule_options"),
    ({"request_id": "p", "rules": "chess", "bot_strength": bot_strength("expert")}, "INVALID_OPTIONS", "rules"),
], ids=["request_id before strength and variant", "strength before variant", "timer before family",
        "unreadable rule_options before family", "family before a strength it does not offer"])
def test_start_practice_names_its_own_malformed_field_before_anything_derived(system, names, fields, reason, field):
    refused(system, grpc.StatusCode.INVALID_ARGUMENT,
            lambda: system.stub.StartPractice(pb.StartPracticeRequest(**fields), metadata=auth(names("p"))),
            reason=reason, field=field)


@pytest.mark.parametrize("fields, reason, field", [
    ({"request_id": "", "rules": "chess", "seat": -1}, "INVALID_REQUEST", "request_id"),
    ({"request_id": "r", "rules": "chess", "seat": -1}, "BAD_SEAT", "seat"),
    ({"request_id": "r", "variant": "block-7", "seat": 3}, "INVALID_OPTIONS", "variant"),
], ids=["request_id before seat and family", "a negative seat before the family", "the family before its seats"])
def test_create_room_names_its_own_malformed_field_before_anything_derived(system, names, fields, reason, field):
    refused(system, grpc.StatusCode.INVALID_ARGUMENT,
            lambda: system.stub.CreateRoom(pb.CreateRoomRequest(**fields), metadata=auth(names("p"))),
            reason=reason, field=field)


def test_request_table_names_an_empty_request_id_before_an_unknown_family(system, names):
    refused(system, grpc.StatusCode.INVALID_ARGUMENT,
            lambda: system.stub.RequestTable(pb.RequestTableRequest(rules="chess"), metadata=auth(names("p"))),
            "request_id", reason="INVALID_REQUEST", field="request_id")


# ---- host options as rule_options: CreateRoom, UpdateRoomOptions, StartPractice ---------------

def setting(name: str, value) -> match_pb.OptionSetting:
    return match_pb.OptionSetting(name=name, value=value_pb(value))


GOAT = {"rules": "goat", "variant": "koza", "seat_count": 2}
BAD_RULE_OPTIONS = {
    "outside its values": (GOAT, {"rule_options": [setting("fish", "two")]}, ["fish", "all, one", "two"]),
    "of another type": (GOAT, {"rule_options": [setting("zero_zero", "10")]}, ["zero_zero", "0, 10, 25"]),
    "of another family": (GOAT, {"rule_options": [setting("domino_bonus", 20)]}, ["domino_bonus", "zero_zero"]),
    "for a family without options": ({"variant": "draw-2"}, {"rule_options": [setting("fish", "one")]},
                                     ["no options"]),
    "named twice": (GOAT, {"rule_options": [setting("fish", "one"), setting("fish", "all")]}, ["fish", "twice"]),
    "without a value": (GOAT, {"rule_options": [match_pb.OptionSetting(name="fish")]}, ["fish", "no value"]),
}


@pytest.mark.parametrize("case", BAD_RULE_OPTIONS, ids=str)
def test_create_room_with_bad_rule_options_is_invalid_argument(system, names, case):
    family, options, words = BAD_RULE_OPTIONS[case]
    request = pb.CreateRoomRequest(request_id="r", **family, **options)
    refused(system, grpc.StatusCode.INVALID_ARGUMENT,
            lambda: system.stub.CreateRoom(request, metadata=auth(names("p"))), *words,
            reason="INVALID_OPTIONS", field="rule_options")


@pytest.mark.parametrize("case", BAD_RULE_OPTIONS, ids=str)
def test_start_practice_with_bad_rule_options_is_invalid_argument(system, names, case):
    family, options, words = BAD_RULE_OPTIONS[case]
    request = pb.StartPracticeRequest(request_id="p", **family, **options)
    refused(system, grpc.StatusCode.INVALID_ARGUMENT,
            lambda: system.stub.StartPractice(request, metadata=auth(names("p"))), *words,
            reason="INVALID_OPTIONS", field="rule_options")


@pytest.mark.parametrize("case", BAD_RULE_OPTIONS, ids=str)
def test_update_room_options_with_bad_rule_options_is_invalid_argument(system, names, case):
    family, options, words = BAD_RULE_OPTIONS[case]
    room = system.create_room(names("host"), **family)
    request = pb.UpdateRoomOptionsRequest(room_id=room.room_id, **options)
    refused(system, grpc.StatusCode.INVALID_ARGUMENT,
            lambda: system.stub.UpdateRoomOptions(request, metadata=auth(names("host"))), *words,
            reason="INVALID_OPTIONS", field="rule_options")
    after = system.stub.GetRoom(pb.GetRoomRequest(room_id=room.room_id), metadata=auth(names("host"))).room
    assert after.options == room.options


def test_rule_options_for_another_family_are_refused_when_the_room_changes_to_it(system, room, names):
    refused(system, grpc.StatusCode.INVALID_ARGUMENT, lambda: system.stub.UpdateRoomOptions(
        pb.UpdateRoomOptionsRequest(room_id=room.room_id, rules="goat", rule_options=[setting("zero_zero", 7)]),
        metadata=auth(names("host"))), "zero_zero", "0, 10, 25", reason="INVALID_OPTIONS", field="rule_options")


# ---- where the caller is -------------------------------------------------------------------

@pytest.mark.parametrize("identity", [("matchmaking", "service"), ("aud", "auditor")])
def test_a_service_or_an_auditor_cannot_ask_where_a_player_is(system, ticket, identity):
    """Players ask for themselves only: there is no player_id to name anyone else."""
    details = refused(system, grpc.StatusCode.PERMISSION_DENIED,
                      lambda: system.stub.GetPresence(pb.GetPresenceRequest(), metadata=auth(*identity)), "only players",
                      reason="NOT_A_PLAYER")
    assert ticket.ticket_id not in details


def test_unknown_fields_name_nobody_else(system, names):
    """A request carrying a field of a newer client (say a player_id) is still about the caller."""
    request = pb.GetPresenceRequest()
    request.MergeFromString(b"\x0a\x03ann")  # field 1, a string: not in this version of the API
    with nothing_stored(system):
        asked = system.stub.GetPresence(request, metadata=auth(names("p")))
    assert asked.WhichOneof("place") is None and asked.match_id == ""


@pytest.mark.parametrize("place", ["nowhere", "ticket", "room"])
def test_asking_where_one_is_stores_nothing(system, room, ticket, names, place):
    player = {"nowhere": names("p"), "ticket": names("waiter"), "room": names("guest")}[place]
    with nothing_stored(system):
        asked = system.stub.GetPresence(pb.GetPresenceRequest(), metadata=auth(player))
    # (the module's waiters share one queue: by now this one may be seated with others)
    assert (asked.WhichOneof("place") or "nowhere") in ((place, "table") if place == "ticket" else (place,))


# ---- bot strengths the ladder does not offer in a family and team setting -----------------

def not_offered_in(rules: str, teams: bool) -> tuple[list[str], tuple[str, ...]]:
    offered = ladder().offered(rating_key(rules, teams))
    return [s for s in OFFERED if s not in offered], offered


def test_practice_against_expert_where_the_ladder_finds_it_no_stronger_than_strong_is_invalid_argument(system, names):
    missing, offered = not_offered_in("egyptian", False)
    assert "expert" in missing  # the committed ladder: within noise of strong there
    refused(system, grpc.StatusCode.INVALID_ARGUMENT,
            lambda: system.practice(names("p"), "p", variant="draw-2", strength="expert"),
            "expert bots are not offered in Egyptian solo", "strong", f"choose {' or '.join(offered)}",
            reason="STRENGTH_NOT_OFFERED", field="bot_strength")


def test_practice_and_a_bot_of_every_strength_not_offered_there_are_invalid_argument_naming_the_offered(system, names):
    for rules, variant, teams in (("egyptian", "block-4", True), ("goat", "koza", False), ("classic", "", False)):
        missing, offered = not_offered_in(rules, teams)
        room = system.create_room(names(f"host-{rules}"), rules=rules, variant=variant, teams=teams,
                                  request_id=f"r-{rules}")
        for strength in missing:
            refused(system, grpc.StatusCode.INVALID_ARGUMENT,
                    lambda: system.practice(names("p"), f"p-{strength}", rules=rules, variant=variant, teams=teams,
                                            strength=strength),
                    f"{strength} bots are not offered", f"choose {' or '.join(offered)}",
                    reason="STRENGTH_NOT_OFFERED", field="bot_strength")
            refused(system, grpc.StatusCode.INVALID_ARGUMENT,
                    lambda: system.add_bot(names(f"host-{rules}"), room.room_id, strength),
                    f"{strength} bots are not offered", f"choose {' or '.join(offered)}",
                    reason="STRENGTH_NOT_OFFERED", field="bot_strength")


def test_options_under_which_a_seated_bot_is_not_offered_are_refused_until_it_is_removed(system, names):
    offered_somewhere = [s for s in OFFERED if s in ladder().offered("all-fives/solo")]
    strength = next(s for s in offered_somewhere if s not in ladder().offered("egyptian/solo"))
    room = system.create_room(names("host"), rules="all-fives", variant="", seat_count=2)
    room = system.add_bot(names("host"), room.room_id, strength)
    refused(system, grpc.StatusCode.FAILED_PRECONDITION, lambda: system.stub.UpdateRoomOptions(
        pb.UpdateRoomOptionsRequest(room_id=room.room_id, rules="egyptian", variant="draw-2"),
        metadata=auth(names("host"))), f"{strength} bots are not offered in Egyptian solo", "seat 1",
        reason="BOTS_IN_THE_WAY")
