"""PlayerAdminService over gRPC, as the console uses it: staff find and describe players, ban,
unban, end sessions, export and delete them, and every change leaves its entry in the
operator log, whose hash chain links up (a real server, SQLite)."""

from __future__ import annotations

import json
import threading
import time

import grpc
import pytest
from google.protobuf.timestamp_pb2 import Timestamp

from domino.account.v1 import account_service_pb2 as pb
from domino.admin.v1 import player_admin_service_pb2 as admin
from services.accounts.operator_log import LogEntry, first_break
from services.common.auth import verify_token
from tests.support.errors import refusal
from tests.support.keys import KEYS

from .account_harness import bearer, running_accounts
from .admin_harness import admin_stub, auditor, operator, support, viewer

DAY = 86400


@pytest.fixture(scope="module")
def svc(tmp_path_factory):
    with running_accounts(tmp_path_factory.mktemp("player-admin")) as service:
        yield service


@pytest.fixture(scope="module")
def stub(svc):
    return admin_stub(svc)


def ahead(seconds: float) -> Timestamp:
    stamp = Timestamp()
    stamp.FromSeconds(int(time.time() + seconds))
    return stamp


def newest(stub, target: str = "") -> admin.OperatorLogEntry:
    return stub.ListOperatorLog(admin.ListOperatorLogRequest(page_size=1, target=target), metadata=support()).entries[0]


def whole_log(stub) -> list[admin.OperatorLogEntry]:
    entries, token = [], ""
    while True:
        page = stub.ListOperatorLog(admin.ListOperatorLogRequest(page_size=7, page_token=token), metadata=auditor())
        entries += page.entries
        token = page.next_page_token
        if not token:
            return entries[::-1]


def as_entry(e: admin.OperatorLogEntry) -> LogEntry:
    return LogEntry(e.sequence, e.at.ToMicroseconds(), e.staff_id, e.staff_name, tuple(e.staff_roles), e.action,
                    e.target, e.why, e.details, e.hash)


def refresh_code(svc, session) -> grpc.StatusCode:
    try:
        svc.stub.RefreshSession(pb.RefreshSessionRequest(refresh_token=session.refresh_token))
    except grpc.RpcError as error:
        return error.code()
    return grpc.StatusCode.OK


# ---- finding and describing ------------------------------------------------------------

def test_find_players_by_the_start_of_a_name_folds_case_and_look_alikes(svc, stub):
    found = svc.sign_up("Zebulon Finder")
    reply = stub.FindPlayers(admin.FindPlayersRequest(query="ZEBUL0N f"), metadata=support())
    assert [(p.player_id, p.display_name, p.standing) for p in reply.players] == \
        [(found.player_id, "Zebulon Finder", admin.STANDING_ACTIVE)]


def test_find_players_by_an_exact_player_id(svc, stub):
    found = svc.sign_up("Found By Id")
    reply = stub.FindPlayers(admin.FindPlayersRequest(query=found.player_id), metadata=operator())
    assert [p.player_id for p in reply.players] == [found.player_id]
    assert reply.players[0].created_at.seconds > 0


def test_find_players_keeps_to_the_page_size(svc, stub):
    for n in range(3):
        svc.sign_up(f"Paged Quokka {n}")
    reply = stub.FindPlayers(admin.FindPlayersRequest(query="paged quokka", page_size=2), metadata=support())
    assert len(reply.players) == 2


def test_a_deleted_account_is_found_by_its_id_only_and_shows_deleted(svc, stub):
    gone = svc.sign_up("Gone Walrus")
    stub.DeletePlayer(admin.DeletePlayerRequest(player_id=gone.player_id, why="asked by email"), metadata=operator())
    by_id = stub.FindPlayers(admin.FindPlayersRequest(query=gone.player_id), metadata=support()).players
    assert [(p.player_id, p.standing) for p in by_id] == [(gone.player_id, admin.STANDING_DELETED)]
    assert not stub.FindPlayers(admin.FindPlayersRequest(query="Gone Walrus"), metadata=support()).players


def test_describe_player_shows_providers_devices_and_how_each_session_signed_in(svc, stub):
    by_device = svc.sign_up("Described Heron")
    svc.clock.advance(1)
    token = svc.id_token("google", "described-heron")
    svc.stub.LinkIdentity(pb.LinkIdentityRequest(provider="google", id_token=token, nonce="n-0123456789"),
                          metadata=bearer(by_device))
    by_google = svc.stub.SignInWithIdToken(pb.SignInWithIdTokenRequest(
        provider="google", id_token=svc.id_token("google", "described-heron"), nonce="n-0123456789")).session
    reply = stub.DescribePlayer(admin.DescribePlayerRequest(player_id=by_device.player_id), metadata=support())
    assert reply.card.display_name == "Described Heron" and reply.card.standing == admin.STANDING_ACTIVE
    assert [p.provider for p in reply.providers] == ["google"]
    assert "described-heron" not in str(reply)  # the subject is never shown
    assert len(reply.devices) == 1
    assert sorted(s.signed_in_with for s in reply.sessions) == ["device", "google"]
    assert {s.session_id for s in reply.sessions} == {verify_token(t.access_token, KEYS).session
                                                      for t in (by_google, by_device)}
    assert not reply.HasField("ban")


def test_describe_player_leaves_out_ended_sessions(svc, stub):
    player = svc.sign_up("Signed Out Crane")
    svc.stub.SignOut(pb.SignOutRequest(), metadata=bearer(player))
    reply = stub.DescribePlayer(admin.DescribePlayerRequest(player_id=player.player_id), metadata=support())
    assert list(reply.sessions) == []


# ---- the changes and their entries -----------------------------------------------------

def test_an_operator_bans_and_that_players_refresh_is_refused_at_once(svc, stub):
    player = svc.sign_up("Banned Badger")
    reply = stub.BanPlayer(admin.BanPlayerRequest(player_id=player.player_id, reason="cheating", until=ahead(DAY),
                                                  why="ticket 42: collusion"), metadata=operator())
    assert reply.ban.reason == "cheating"
    assert refresh_code(svc, player) == grpc.StatusCode.PERMISSION_DENIED
    described = stub.DescribePlayer(admin.DescribePlayerRequest(player_id=player.player_id), metadata=support())
    assert described.card.standing == admin.STANDING_BANNED and described.ban.reason == "cheating"
    entry = newest(stub, player.player_id)
    assert (entry.action, entry.staff_id, entry.staff_name, list(entry.staff_roles), entry.why) == \
        ("player.ban", "oidc|ops-1", "Olive Ops", ["operator"], "ticket 42: collusion")
    assert json.loads(entry.details)["reason"] == "cheating"


def test_an_unban_lets_the_player_refresh_again_and_is_logged(svc, stub):
    player = svc.sign_up("Unbanned Otter")
    stub.BanPlayer(admin.BanPlayerRequest(player_id=player.player_id, reason="spam", until=ahead(DAY), why="spam"),
                   metadata=operator())
    stub.UnbanPlayer(admin.UnbanPlayerRequest(player_id=player.player_id, why="appeal upheld"), metadata=operator())
    assert refresh_code(svc, player) == grpc.StatusCode.OK
    assert (newest(stub, player.player_id).action, newest(stub, player.player_id).why) == \
        ("player.unban", "appeal upheld")


def test_end_sessions_refuses_every_refresh_of_the_player_and_counts_them(svc, stub):
    first = svc.sign_up("Ended Stoat")
    second = svc.stub.SignInWithDevice(pb.SignInWithDeviceRequest(device_id="stoat-second-device-0001",
                                                                  device_secret="cd" * 32)).session
    assert second.player_id != first.player_id  # another account: only the named player's sessions end
    reply = stub.EndSessions(admin.EndSessionsRequest(player_id=first.player_id, why="stolen phone"),
                             metadata=support())
    assert reply.ended == 1
    assert refresh_code(svc, first) == grpc.StatusCode.UNAUTHENTICATED
    assert refresh_code(svc, second) == grpc.StatusCode.OK
    entry = newest(stub, first.player_id)
    assert entry.action == "player.end_sessions" and json.loads(entry.details) == {"ended": 1}


def test_export_player_data_is_the_players_own_export_and_is_logged(svc, stub):
    player = svc.sign_up("Exported Lynx")
    own = svc.stub.ExportMyData(pb.ExportMyDataRequest(), metadata=bearer(player)).data_json
    reply = stub.ExportPlayerData(admin.ExportPlayerDataRequest(player_id=player.player_id, why="DSAR 7"),
                                  metadata=support())
    assert json.loads(reply.data.decode()) == json.loads(own)
    assert newest(stub, player.player_id).action == "player.export"


def test_delete_player_erases_the_account_as_its_own_deletion_does_and_keeps_the_entry(svc, stub):
    player = svc.sign_up("Deleted Marten")
    reply = stub.DeletePlayer(admin.DeletePlayerRequest(player_id=player.player_id, why="GDPR request 9"),
                              metadata=operator())
    assert reply.deleted_at.seconds > 0
    assert "Deleted Marten" not in json.dumps(svc.app.store.dump())
    assert refresh_code(svc, player) == grpc.StatusCode.UNAUTHENTICATED
    assert newest(stub, player.player_id).action == "player.delete"
    described = stub.DescribePlayer(admin.DescribePlayerRequest(player_id=player.player_id), metadata=support())
    assert described.card.standing == admin.STANDING_DELETED


def test_record_staff_action_writes_the_consoles_own_entry(svc, stub):
    reply = stub.RecordStaffAction(admin.RecordStaffActionRequest(action="console.sign_in"), metadata=viewer())
    assert (reply.entry.action, reply.entry.staff_id, reply.entry.target) == ("console.sign_in", "oidc|viewer-1", "")
    assert newest(stub).sequence == reply.entry.sequence


# ---- the log ---------------------------------------------------------------------------

def test_the_log_pages_newest_first_and_filters_by_target(svc, stub):
    player = svc.sign_up("Logged Puffin")
    for n in range(3):
        stub.RecordStaffAction(admin.RecordStaffActionRequest(action="match.export", target=player.player_id,
                                                              why=f"look {n}"), metadata=auditor())
    first = stub.ListOperatorLog(admin.ListOperatorLogRequest(page_size=2, target=player.player_id),
                                 metadata=support())
    assert [e.why for e in first.entries] == ["look 2", "look 1"] and first.next_page_token
    rest = stub.ListOperatorLog(admin.ListOperatorLogRequest(page_size=2, target=player.player_id,
                                                             page_token=first.next_page_token), metadata=support())
    assert [e.why for e in rest.entries] == ["look 0"] and not rest.next_page_token


def test_the_log_is_numbered_without_gaps_and_its_hash_chain_links_up(svc, stub):
    stub.RecordStaffAction(admin.RecordStaffActionRequest(action="console.sign_in"), metadata=support())
    entries = whole_log(stub)
    assert [e.sequence for e in entries] == list(range(1, len(entries) + 1))
    assert first_break([as_entry(e) for e in entries]) is None


def test_concurrent_writers_keep_the_sequence_gap_free_and_the_chain_whole(svc, stub):
    players = [svc.sign_up(f"Racing Vole {n}") for n in range(4)]
    errors: list[BaseException] = []

    def write(n: int) -> None:
        try:
            for i in range(5):
                if i % 2:
                    stub.EndSessions(admin.EndSessionsRequest(player_id=players[n].player_id, why=f"race {i}"),
                                     metadata=support())
                else:
                    stub.RecordStaffAction(admin.RecordStaffActionRequest(action="race.step", why=f"{n}.{i}"),
                                           metadata=operator())
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=write, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    entries = whole_log(stub)
    assert [e.sequence for e in entries] == list(range(1, len(entries) + 1))
    assert first_break([as_entry(e) for e in entries]) is None
    assert sum(e.action in ("race.step", "player.end_sessions") and e.why.startswith(("race", "0.", "1.", "2.", "3."))
               for e in entries) >= 20


def test_an_entry_rewritten_in_the_store_breaks_the_chain_where_it_was_changed(svc, stub):
    stub.RecordStaffAction(admin.RecordStaffActionRequest(action="console.sign_in"), metadata=support())
    entries = [as_entry(e) for e in whole_log(stub)]
    changed = entries[:]
    victim = changed[1]
    changed[1] = LogEntry(victim.sequence, victim.at_us, victim.staff_id, victim.staff_name, victim.staff_roles,
                          victim.action, victim.target, "nothing to see", victim.details, victim.hash)
    assert first_break(changed) == victim.sequence


def test_a_refused_call_writes_no_entry(svc, stub):
    player = svc.sign_up("Refused Ibis")
    before = whole_log(stub)
    with pytest.raises(grpc.RpcError) as caught:
        stub.BanPlayer(admin.BanPlayerRequest(player_id=player.player_id, reason="x", until=ahead(DAY), why="w"),
                       metadata=support())
    assert refusal(caught.value).reason == "STAFF_ROLE_TOO_LOW"
    with pytest.raises(grpc.RpcError):
        stub.DeletePlayer(admin.DeletePlayerRequest(player_id="no-such-player", why="w"), metadata=operator())
    assert whole_log(stub) == before


def test_reflection_lists_the_staff_service_beside_the_account_service(svc):
    from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

    replies = reflection_pb2_grpc.ServerReflectionStub(svc.channel).ServerReflectionInfo(
        iter([reflection_pb2.ServerReflectionRequest(list_services="")]))
    names = {s.name for reply in replies for s in reply.list_services_response.service}
    assert {"domino.account.v1.AccountService", "domino.admin.v1.PlayerAdminService"} <= names
