"""Matchmaking on the real stores: written once, run on SQLite and on PostgreSQL.

What a replica stored, a restarted (or another) replica reads back the same: rooms, tickets,
a long queue from its snapshot, and starts that were interrupted by a crash.
"""

from __future__ import annotations

import pytest

from services.matchmaking.application import MatchmakingApplication
from services.matchmaking.presence import Presence
from services.matchmaking.rooms import Room
from services.matchmaking.tables import Queue
from services.matchmaking.options import Options
from tests.support.clock import Clock
from tests.support.fakes import FakeMatches

pytestmark = pytest.mark.integration

BLOCK_4 = Options.chosen("egyptian", "block-4")
DRAW_2 = Options.chosen("egyptian", "draw-2")


class MatchmakingStoreContract:
    @pytest.fixture
    def env(self):
        raise NotImplementedError

    @pytest.fixture
    def replicas(self, env):
        """Applications on one store, made on demand and closed at the end."""
        made = []

        def make(matches=None, clock=None) -> MatchmakingApplication:
            app = MatchmakingApplication(env=env, matches=matches or FakeMatches(), clock=clock or Clock())
            made.append(app)
            return app

        yield make
        for app in made:
            app.close()

    def test_rooms_tickets_and_links_read_back_the_same_on_another_replica(self, replicas):
        first = replicas()
        room = first.rooms.create_room("ann", "c1", BLOCK_4, None)
        first.rooms.join_room("bob", room.code, 2)
        first.rooms.add_bot("ann", room.id, None, "strong")
        first.rooms.add_bot("ann", room.id, None, "greedy")
        started = first.rooms.start_room("ann", room.id)
        tickets = [first.tables.request_table(p, "r1", DRAW_2) for p in ("cat", "dan")]

        second = replicas()
        again = second.rooms.room(room.id)
        assert (again.seats, again.status, again.match_id, again.code) == \
               (started.seats, Room.PLAYING, started.match_id, room.code)
        assert second.rooms.room_by_code("zed", room.code.lower()).id == room.id
        assert second.tables.ticket("dan", tickets[1].ticket_id) == first.tables.ticket("dan", tickets[1].ticket_id)
        assert second.ends.release_match(started.match_id)
        assert first.rooms.room(room.id).status == Room.CLOSED
        assert not first.ends.release_match(started.match_id)

    def test_a_long_queue_is_snapshotted_and_another_replica_loads_it_the_same(self, replicas):
        first = replicas()
        kept = {"p10", "p50"}
        for n in range(60):
            ticket = first.tables.request_table(f"p{n}", f"r{n}", BLOCK_4)
            if f"p{n}" not in kept:
                first.tables.cancel_ticket(f"p{n}", ticket.ticket_id)
        queue_id = Queue.create_id("egyptian", "block-4", True)
        assert first.store.load(Queue, queue_id).version > 100
        assert list(first.snapshots.get(queue_id)), "no snapshot was taken"
        second = replicas()
        assert second.store.load(Queue, queue_id).waiting == first.store.load(Queue, queue_id).waiting
        assert [p for _, p, _ in second.store.load(Queue, queue_id).waiting] == ["p10", "p50"]
        assert second.store.load(Presence, Presence.create_id("p3")).tickets == \
               first.store.load(Presence, Presence.create_id("p3")).tickets

    def test_a_start_interrupted_by_a_crash_is_finished_by_a_restarted_replica(self, replicas):
        down = FakeMatches()
        down.down = True
        clock = Clock()
        crashed = replicas(down, clock)
        tickets = [crashed.tables.request_table(p, "r1", DRAW_2) for p in ("ann", "bob")]
        assert crashed.tables.ticket("ann", tickets[0].ticket_id).match_id == ""

        clock.now += 60
        restarted = replicas(FakeMatches(), clock)
        restarted.pending_starts.follow_store()
        assert restarted.pending_starts.step() == 1
        assert restarted.tables.ticket("bob", tickets[1].ticket_id).match_id


class TestWithSQLite(MatchmakingStoreContract):
    @pytest.fixture
    def env(self, fresh_sqlite_env):
        return fresh_sqlite_env


class TestWithPostgres(MatchmakingStoreContract):
    @pytest.fixture
    def env(self, fresh_postgres_env):
        return fresh_postgres_env


def test_with_sqlite_matchmaking_keeps_its_own_file_beside_the_match_services(tmp_path, monkeypatch):
    """SQLite tables are named the same for every application, so sharing the match
    service's file would put rooms into the match service's log (and its relay)."""
    from services.common.config import Settings, persistence_env
    from services.match.application import MatchApplication
    from services.matchmaking.settings import matchmaking_persistence_env

    for key in ("PERSISTENCE_MODULE", "SQLITE_DBNAME", "MATCHMAKING_SQLITE_DBNAME"):
        monkeypatch.delenv(key, raising=False)
    settings = Settings(var_dir=str(tmp_path))
    match_app = MatchApplication(env=persistence_env(settings))
    app = MatchmakingApplication(env=matchmaking_persistence_env(settings), matches=FakeMatches())
    try:
        app.rooms.create_room("ann", "c1", BLOCK_4, None)
        assert app.recorder.max_notification_id() == 3  # Presence.Registered, .RoomEntered, Room.Created
        assert not match_app.recorder.max_notification_id()
        assert sorted(p.name for p in tmp_path.glob("*.sqlite")) == ["match.sqlite", "matchmaking.sqlite"]
    finally:
        app.close()
        match_app.close()
