"""InviteToRoom, GetInvite, AnswerInvite and RequestRematch refuse bad input with the right
status, an ErrorInfo reason of domain "domino.matchmaking" and, for a malformed field, a
BadRequest naming it; a request's own fields are checked before anything they name, and a
refused call stores nothing in matchmaking nor in the social service's inboxes. (Bad tokens
and callers that are no players: tests/service/test_matchmaking_bad_input.py covers every
RPC.)"""

from __future__ import annotations

import uuid
from contextlib import contextmanager

import grpc
import pytest

from domino.matchmaking.v1 import matchmaking_service_pb2 as pb
from tests.support.errors import refusal

from .account_harness import bearer
from .invites_harness import running_friends


@pytest.fixture(scope="module")
def friends(tmp_path_factory):
    with running_friends(tmp_path_factory.mktemp("invites-bad-input")) as running:
        yield running


@pytest.fixture
def ann_and_bob(friends):
    """Two friends; Ann's open block-4 room; Ann's pending invite of Bob to it."""
    ann, bob = friends.player("Ann"), friends.player("Bob")
    friends.befriend(ann, bob)
    room = friends.create_room(ann)
    [invite] = friends.invite(ann, room.room_id, bob)
    return ann, bob, room, invite


@contextmanager
def nothing_stored(friends, *players):
    before = friends.stored(), [len(friends.inbox(p)) for p in players]
    yield
    assert (friends.stored(), [len(friends.inbox(p)) for p in players]) == before, "the call stored something"


def refused(friends, players, code, call, reason: str, field: str | None = None) -> str:
    with nothing_stored(friends, *players):
        with pytest.raises(grpc.RpcError) as caught:
            call()
    said = refusal(caught.value)
    assert (said.code, said.reason, said.domain) == (code, reason, "domino.matchmaking"), f"{said}"
    assert said.fields == ((field,) if field else ()), f"{said}"
    return said.message


def invite(friends, who, request_id="i-bad", room_id="", player_ids=()):
    request = pb.InviteToRoomRequest(request_id=request_id, room_id=room_id, player_ids=list(player_ids))
    return lambda: friends.stub.InviteToRoom(request, metadata=bearer(who))


# ---- InviteToRoom --------------------------------------------------------------------------

def test_an_invite_without_a_request_id_names_it_first(friends, ann_and_bob):
    ann, bob, _, _ = ann_and_bob
    refused(friends, (ann, bob), grpc.StatusCode.INVALID_ARGUMENT, invite(friends, ann, request_id="", room_id="x"),
            "INVALID_REQUEST", "request_id")


@pytest.mark.parametrize("room_id", ["", "room-1"])
def test_an_invite_to_a_malformed_room_id_is_invalid(friends, ann_and_bob, room_id):
    ann, bob, _, _ = ann_and_bob
    refused(friends, (ann, bob), grpc.StatusCode.INVALID_ARGUMENT,
            invite(friends, ann, room_id=room_id, player_ids=[bob.player_id]), "INVALID_REQUEST", "room_id")


@pytest.mark.parametrize("players", [[], ["x"] * 9, [""], ["p" * 201], ["bot:greedy:1"], ["p", "p"]],
                         ids=["none", "too many", "empty id", "long id", "a bot", "twice"])
def test_an_invite_of_malformed_player_ids_is_invalid(friends, ann_and_bob, players):
    ann, bob, room, _ = ann_and_bob
    refused(friends, (ann, bob), grpc.StatusCode.INVALID_ARGUMENT,
            invite(friends, ann, room_id=room.room_id, player_ids=players), "INVALID_REQUEST", "player_ids")


def test_inviting_oneself_is_invalid(friends, ann_and_bob):
    ann, bob, room, _ = ann_and_bob
    refused(friends, (ann, bob), grpc.StatusCode.INVALID_ARGUMENT,
            invite(friends, ann, room_id=room.room_id, player_ids=[ann.player_id]), "INVALID_REQUEST", "player_ids")


def test_an_invite_to_an_unknown_room_is_not_found(friends, ann_and_bob):
    ann, bob, _, _ = ann_and_bob
    refused(friends, (ann, bob), grpc.StatusCode.NOT_FOUND,
            invite(friends, ann, room_id=str(uuid.uuid4()), player_ids=[bob.player_id]), "ROOM_NOT_FOUND")


def test_a_request_id_used_for_other_players_is_reused(friends, ann_and_bob):
    ann, bob, room, _ = ann_and_bob
    cat = friends.player("Cat")
    friends.befriend(ann, cat)
    refused(friends, (ann, bob, cat), grpc.StatusCode.INVALID_ARGUMENT,
            invite(friends, ann, request_id="i-1", room_id=room.room_id, player_ids=[cat.player_id]),
            "REQUEST_ID_REUSED", "request_id")


def test_inviting_a_member_of_the_room_is_already_seated(friends, ann_and_bob):
    ann, bob, room, invite_of_bob = ann_and_bob
    friends.answer(bob, invite_of_bob.invite_id)
    refused(friends, (ann, bob), grpc.StatusCode.FAILED_PRECONDITION,
            invite(friends, ann, room_id=room.room_id, player_ids=[bob.player_id]), "ALREADY_SEATED")


def test_an_invite_to_a_started_room_is_locked(friends, ann_and_bob):
    ann, bob, room, _ = ann_and_bob
    for _ in range(3):
        friends.stub.AddBot(pb.AddBotRequest(room_id=room.room_id), metadata=bearer(ann))
    friends.stub.StartRoom(pb.StartRoomRequest(room_id=room.room_id), metadata=bearer(ann))
    cat = friends.player("Cat")
    friends.befriend(ann, cat)
    refused(friends, (ann, cat), grpc.StatusCode.FAILED_PRECONDITION,
            invite(friends, ann, room_id=room.room_id, player_ids=[cat.player_id]), "ROOM_LOCKED")


# ---- GetInvite and AnswerInvite ------------------------------------------------------------

def get_invite(friends, who, invite_id):
    return lambda: friends.stub.GetInvite(pb.GetInviteRequest(invite_id=invite_id), metadata=bearer(who))


def answer(friends, who, invite_id, accept=True):
    return lambda: friends.stub.AnswerInvite(pb.AnswerInviteRequest(invite_id=invite_id, accept=accept),
                                             metadata=bearer(who))


@pytest.mark.parametrize("rpc", [get_invite, answer], ids=["GetInvite", "AnswerInvite"])
@pytest.mark.parametrize("invite_id", ["", "invite-1"])
def test_a_malformed_invite_id_is_invalid(friends, ann_and_bob, rpc, invite_id):
    ann, bob, _, _ = ann_and_bob
    refused(friends, (ann, bob), grpc.StatusCode.INVALID_ARGUMENT, rpc(friends, bob, invite_id),
            "INVALID_REQUEST", "invite_id")


@pytest.mark.parametrize("rpc", [get_invite, answer], ids=["GetInvite", "AnswerInvite"])
def test_an_unknown_invite_is_not_found(friends, ann_and_bob, rpc):
    ann, bob, _, _ = ann_and_bob
    refused(friends, (ann, bob), grpc.StatusCode.NOT_FOUND, rpc(friends, bob, str(uuid.uuid4())), "INVITE_NOT_FOUND")


def test_a_room_id_is_no_invite(friends, ann_and_bob):
    ann, bob, room, _ = ann_and_bob
    refused(friends, (ann, bob), grpc.StatusCode.NOT_FOUND, answer(friends, bob, room.room_id), "INVITE_NOT_FOUND")


def test_answering_an_expired_invite_changes_nothing(friends, ann_and_bob):
    ann, bob, room, invite_of_bob = ann_and_bob
    friends.stub.LeaveRoom(pb.LeaveRoomRequest(room_id=room.room_id), metadata=bearer(ann))
    refused(friends, (ann, bob), grpc.StatusCode.FAILED_PRECONDITION, answer(friends, bob, invite_of_bob.invite_id),
            "INVITE_EXPIRED")


# ---- RequestRematch ------------------------------------------------------------------------

@pytest.mark.parametrize("match_id", ["", "match-1"])
def test_a_malformed_match_id_is_invalid(friends, ann_and_bob, match_id):
    ann, bob, _, _ = ann_and_bob
    refused(friends, (ann, bob), grpc.StatusCode.INVALID_ARGUMENT,
            lambda: friends.stub.RequestRematch(pb.RequestRematchRequest(match_id=match_id), metadata=bearer(ann)),
            "INVALID_REQUEST", "match_id")


def test_a_match_matchmaking_never_started_has_no_rematch(friends, ann_and_bob):
    ann, bob, _, _ = ann_and_bob
    refused(friends, (ann, bob), grpc.StatusCode.FAILED_PRECONDITION,
            lambda: friends.stub.RequestRematch(pb.RequestRematchRequest(match_id=str(uuid.uuid4())),
                                                metadata=bearer(ann)),
            "REMATCH_NOT_AVAILABLE")
