"""WatchMatch on PostgreSQL without polling: a stream learns of a move stored through another
replica from the change tail's LISTEN alone; a lost notification, or a LISTEN connection
that was away, is made good by the tail's catch-up read (its safety net, or the read after
it reconnects); and an open stream nobody moves in reads nothing from the store."""

from __future__ import annotations

import queue
import threading
import time

import psycopg
import pytest

from domino.match.v1 import match_service_pb2 as pb
from services.common.changes import ChangeFeed
from services.match.application import MatchApplication
from services.match.bootstrap import change_tail
from tests.service.harness import running_service
from tests.support.clock import Clock
from tests.support.grpc_matches import act
from tests.support.keys import auth

pytestmark = pytest.mark.integration
SERVICE = auth("svc", "service")
NEVER = 3600.0  # a safety net that never runs during a test: what arrives came by the push


def act_once(svc, match_id: str, n: int) -> int:
    """The seat to act makes a move through ``svc``; the version it stored."""
    return act(svc, match_id, svc.stub.GetMatch(pb.GetMatchRequest(match_id=match_id), metadata=SERVICE).view, n).version


class Updates:
    """A stream's event versions, pumped by a thread so a test can wait for one with a timeout."""

    def __init__(self, svc, match_id: str, who=SERVICE) -> None:
        self.start = svc.stub.GetMatch(pb.GetMatchRequest(match_id=match_id), metadata=SERVICE).view.version
        # From the version before, so the first update says the stream has made its first read:
        # whatever the test does next reaches it by a wake.
        self.stream = svc.stub.WatchMatch(pb.WatchMatchRequest(match_id=match_id, from_version=self.start - 1),
                                          metadata=who)
        self.versions: queue.Queue[int] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()
        self.until(self.start, seconds=10.0)

    def _pump(self) -> None:
        try:
            for update in self.stream:
                if update.HasField("event"):
                    self.versions.put(update.event.version)
        except Exception:  # noqa: BLE001 - cancelled at the end of the test
            pass

    def until(self, version: int, seconds: float) -> float:
        """Seconds until the stream showed ``version``; fails after ``seconds``."""
        began = time.monotonic()
        while True:
            left = seconds - (time.monotonic() - began)
            assert left > 0, f"version {version} did not arrive within {seconds} s"
            try:
                if self.versions.get(timeout=left) >= version:
                    return time.monotonic() - began
            except queue.Empty:
                continue

    def nothing_for(self, seconds: float) -> bool:
        try:
            self.versions.get(timeout=seconds)
            return False
        except queue.Empty:
            return True


@pytest.fixture
def replicas(fresh_postgres_env):
    """(the watched replica's app, the other's), each a MatchApplication on one database."""
    watched, other = MatchApplication(env=fresh_postgres_env, clock=Clock()), MatchApplication(env=fresh_postgres_env, clock=Clock())
    yield watched, other
    watched.close()
    other.close()


def store_reads(app, monkeypatch) -> list:
    """Every read a stream makes of the store (events and table talk), as it is made."""
    reads: list = []
    events_after, phrases_after = app.events_after, app.phrases_after

    def counted_events(match_id, version):
        reads.append(("events", version))
        return events_after(match_id, version)

    def counted_talk(match_id, version):
        reads.append(("talk", version))
        return phrases_after(match_id, version)

    monkeypatch.setattr(app, "events_after", counted_events)
    monkeypatch.setattr(app, "phrases_after", counted_talk)
    return reads


def terminate(app, pid: int) -> None:
    params = app.recorder.datastore.pool.kwargs
    with psycopg.connect(autocommit=True, **{k: params[k] for k in ("dbname", "host", "port", "user", "password")}) as c:
        c.execute("SELECT pg_terminate_backend(%s)", (pid,))


def test_a_move_through_another_replica_reaches_a_stream_by_the_push_alone(replicas):
    watched, other = replicas
    tail = change_tail(watched, ChangeFeed(), safety_seconds=NEVER)
    with running_service(watched, tail=tail) as one, running_service(other) as two:
        match_id = one.create().match_id
        updates = Updates(one, match_id)
        try:
            took = [updates.until(act_once(two, match_id, n), seconds=1.0) for n in range(3)]
        finally:
            updates.stream.cancel()
    assert tail.reads == 0  # no catch-up: the notifications said it all
    assert max(took) < 1.0


def test_a_lost_notification_is_delivered_by_the_safety_net(replicas, monkeypatch):
    watched, other = replicas
    wakes: list[str] = []
    tail = change_tail(watched, ChangeFeed(), safety_seconds=0.3)
    heard = []

    async def deaf(notes):  # the notifications arrive and are dropped, as if lost on the way
        heard.extend(notes)
        return 0

    monkeypatch.setattr(tail, "take", deaf)
    with running_service(watched, tail=tail, on_wake=wakes.append) as one, running_service(other) as two:
        match_id = one.create().match_id
        updates = Updates(one, match_id)
        try:
            version = act_once(two, match_id, 0)
            updates.until(version, seconds=3.0)
        finally:
            updates.stream.cancel()
    assert heard  # it was told, and did not listen
    assert "safety" in wakes and "push" not in wakes


def test_after_its_listen_connection_comes_back_the_tail_delivers_what_happened_meanwhile(replicas, monkeypatch):
    watched, other = replicas
    tail = change_tail(watched, ChangeFeed(), safety_seconds=NEVER)
    connect = watched.recorder.connect_async
    away = threading.Event()
    away.set()

    async def while_away():
        if away.is_set() and tail.position is not None:
            raise psycopg.OperationalError("the database is away (a test)")
        return await connect()

    with running_service(watched, tail=tail) as one, running_service(other) as two:
        match_id = one.create().match_id
        updates = Updates(one, match_id)
        try:
            updates.until(act_once(two, match_id, 0), seconds=1.0)  # listening
            monkeypatch.setattr(watched.recorder, "connect_async", while_away)
            terminate(watched, tail.connection.info.backend_pid)
            time.sleep(0.3)
            missed = act_once(two, match_id, 1)  # stored while the tail cannot listen
            assert updates.nothing_for(1.0)
            assert tail.errors >= 1
            away.clear()  # it reconnects (backoff: well within a few seconds) and catches up
            updates.until(missed, seconds=8.0)
        finally:
            updates.stream.cancel()
    assert tail.reads >= 1


def test_idle_streams_read_nothing_from_the_store(replicas, monkeypatch):
    watched, other = replicas
    tail = change_tail(watched, ChangeFeed(), safety_seconds=0.2)  # the safety net runs often: it costs no stream a read
    reads = store_reads(watched, monkeypatch)
    with running_service(watched, tail=tail) as one, running_service(other) as two:
        matches = [one.create(request_id=f"idle {n}").match_id for n in range(2)]
        streams = [Updates(one, match_id, who) for match_id in matches
                   for who in (SERVICE, auth("ann"), auth("bob"), auth("cat"))]
        try:
            before = len(reads)  # every stream has made its first reads
            assert 0 < before <= 2 * len(streams)  # each stream's first reads (of the events, the talk), some shared
            time.sleep(2.0)  # nobody moves
            idle = reads[before:]
            catch_ups = tail.reads
            version = act_once(two, matches[0], 0)  # then one match moves elsewhere
            for updates in streams[:4]:
                updates.until(version, seconds=1.0)
        finally:
            for updates in streams:
                updates.stream.cancel()
    assert idle == []
    assert catch_ups >= 5  # the per-process safety net ran all along, and woke nobody
    moved = reads[before:]
    # The four streams of the match that moved read the events after their version (shared:
    # one read, unless a stream was late to its wake), not the talk, which did not change;
    # the other match's, nothing.
    assert set(moved) == {("events", streams[0].start)}, moved


def test_a_phrase_sent_through_another_replica_reaches_a_stream_by_the_push(replicas):
    watched, other = replicas
    tail = change_tail(watched, ChangeFeed(), safety_seconds=NEVER)
    with running_service(watched, tail=tail) as one, running_service(other) as two:
        match_id = one.create().match_id
        start = one.stub.GetMatch(pb.GetMatchRequest(match_id=match_id), metadata=SERVICE).view.version
        stream = one.stub.WatchMatch(pb.WatchMatchRequest(match_id=match_id, from_version=start),
                                     metadata=auth("bob"), timeout=5)
        two.stub.SendChat(pb.SendChatRequest(match_id=match_id, chat_phrase=pb.CHAT_PHRASE_GOOD_LUCK),
                          metadata=auth("ann"))
        try:
            chat = next(u for u in stream if u.HasField("chat"))
        finally:
            stream.cancel()
    assert chat.chat.chat_phrase == pb.CHAT_PHRASE_GOOD_LUCK
