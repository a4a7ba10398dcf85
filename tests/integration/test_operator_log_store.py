"""The operator log on SQLite and PostgreSQL, through the real PlayerAdminService: writers at
once never fork the chain or leave a gap, the store refuses to change or remove an entry, and
an account's deletion leaves its entries."""

from __future__ import annotations

import threading
import time

import pytest
from google.protobuf.timestamp_pb2 import Timestamp

from domino.admin.v1 import player_admin_service_pb2 as admin
from services.accounts.operator_log import TABLE, first_break
from tests.service.account_harness import running_accounts
from tests.service.admin_harness import admin_stub, operator, support

pytestmark = pytest.mark.integration
WRITERS, EACH = 6, 5


@pytest.fixture
def svc(either_store_env, tmp_path):
    with running_accounts(tmp_path, env=either_store_env) as service:
        yield service


def log_rows(svc):
    with svc.app.store.transaction() as execute:
        return svc.app.store.operator_log.oldest_first(execute)


def test_writers_at_once_keep_the_sequence_gap_free_and_the_chain_whole(svc):
    stub = admin_stub(svc)
    players = [svc.sign_up(f"Racer Number {n}").player_id for n in range(WRITERS)]
    barrier = threading.Barrier(WRITERS)
    failures: list[BaseException] = []

    def write(n: int) -> None:
        barrier.wait(5)
        try:
            for i in range(EACH):
                if i % 2:
                    stub.EndSessions(admin.EndSessionsRequest(player_id=players[n], why=f"{n}.{i}"),
                                     metadata=support())
                else:
                    stub.RecordStaffAction(admin.RecordStaffActionRequest(action="race.step", why=f"{n}.{i}"),
                                           metadata=operator())
        except BaseException as error:  # noqa: BLE001 - asserted below
            failures.append(error)

    threads = [threading.Thread(target=write, args=(n,)) for n in range(WRITERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    entries = log_rows(svc)
    assert [e.sequence for e in entries] == list(range(1, WRITERS * EACH + 1))
    assert first_break(entries) is None


@pytest.mark.parametrize("change", [f"UPDATE {TABLE} SET why = 'nothing happened'", f"DELETE FROM {TABLE}"])
def test_the_store_refuses_to_change_or_remove_an_entry(svc, change):
    admin_stub(svc).RecordStaffAction(admin.RecordStaffActionRequest(action="console.sign_in"), metadata=support())
    before = log_rows(svc)
    with pytest.raises(Exception, match="append-only"):
        with svc.app.store.transaction() as execute:
            execute(change)
    assert log_rows(svc) == before


def test_an_accounts_deletion_leaves_its_entries(svc):
    stub = admin_stub(svc)
    player = svc.sign_up("Leaves Entries").player_id
    until = Timestamp()
    until.FromSeconds(int(time.time()) + 3600)
    stub.BanPlayer(admin.BanPlayerRequest(player_id=player, reason="spam", until=until, why="t-1"), metadata=operator())
    stub.DeletePlayer(admin.DeletePlayerRequest(player_id=player, why="t-2"), metadata=operator())
    assert [(e.action, e.target) for e in log_rows(svc)] == [("player.ban", player), ("player.delete", player)]
    assert first_break(log_rows(svc)) is None


def test_a_restart_creates_nothing_twice_and_the_store_still_refuses_changes(svc):
    admin_stub(svc).RecordStaffAction(admin.RecordStaffActionRequest(action="console.sign_in"), metadata=support())
    svc.app.store.create()
    svc.app.store.create()
    with pytest.raises(Exception, match="append-only"):
        with svc.app.store.transaction() as execute:
            execute(f"DELETE FROM {TABLE}")
    assert len(log_rows(svc)) == 1
