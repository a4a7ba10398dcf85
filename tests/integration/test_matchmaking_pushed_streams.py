"""A WatchTicket stream on one matchmaking replica follows what another replica stores,
woken by the store's notifications through its change tail, not by re-reading on a timer
(real PostgreSQL and SQLite; the stream's safety-net re-read is an hour here, so every
update it sends was pushed)."""

from __future__ import annotations

import asyncio
import queue
import threading

import grpc
import pytest

from domino.matchmaking.v1 import matchmaking_service_pb2 as pb
from domino.matchmaking.v1 import matchmaking_service_pb2_grpc as pb_grpc
from services.common.change_tail import tail_for
from services.common.changes import ChangeFeed
from services.matchmaking.application import MatchmakingApplication
from services.matchmaking.bootstrap import create_server
from services.matchmaking.options import Options
from tests.service.harness import UNLIMITED
from tests.support.background import serving_in_background
from tests.support.clock import Clock
from tests.support.fakes import FakeMatches
from tests.support.keys import KEYS, auth

pytestmark = pytest.mark.integration

HOUR = 3600.0
DEADLINE = 30.0  # a guard against hanging, not a measure of speed
DRAW_2 = Options.chosen("egyptian", "draw-2")


def test_a_ticket_watched_on_one_replica_follows_the_table_and_match_another_replica_stored(either_store_env):
    clock = Clock()
    changes = ChangeFeed()
    watched_side = MatchmakingApplication(env=either_store_env, matches=FakeMatches(), clock=clock,
                                          on_change=changes.publish)
    other_matches = FakeMatches()
    other_matches.down = True  # the table forms there without its match: the match comes later, alone
    other_side = MatchmakingApplication(env=either_store_env, matches=other_matches, clock=clock)
    tail = tail_for(watched_side.recorder, changes, safety_seconds=HOUR)

    def create():
        server, port = create_server("127.0.0.1:0", watched_side, KEYS, changes, None, HOUR, UNLIMITED())
        tail.stop_with(server.wait_for_termination)
        return server, port

    updates: queue.Queue = queue.Queue()
    try:
        with serving_in_background(create, mark_serving=True) as (port, loop):
            asyncio.run_coroutine_threadsafe(tail.started(), loop).result(DEADLINE)
            with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
                stub = pb_grpc.MatchmakingServiceStub(channel)
                ticket = stub.RequestTable(pb.RequestTableRequest(request_id="r1", variant="draw-2"),
                                           metadata=auth("ann")).ticket
                stream = stub.WatchTicket(pb.WatchTicketRequest(ticket_id=ticket.ticket_id), metadata=auth("ann"),
                                          timeout=DEADLINE)
                reader = threading.Thread(target=lambda: [updates.put(r.ticket) for r in stream], daemon=True)
                reader.start()
                assert updates.get(timeout=DEADLINE).status == pb.TICKET_STATUS_WAITING

                other_side.tables.request_table("bob", "r1", DRAW_2)  # its match service is down: formed, not started
                seated = updates.get(timeout=DEADLINE)
                assert seated.status == pb.TICKET_STATUS_SEATED and list(seated.player_ids) == ["ann", "bob"]
                assert not seated.match_id

                other_matches.down = False
                clock.now += 60
                other_side.pending_starts.follow_store()
                assert other_side.pending_starts.step() == 1  # the table alone changes: its match id
                started = updates.get(timeout=DEADLINE)
                assert started.match_id and started.table_id == seated.table_id

                other_side.ends.release_match(started.match_id)
                assert updates.get(timeout=DEADLINE).status == pb.TICKET_STATUS_ENDED
                reader.join(DEADLINE)
    finally:
        other_side.close()
        watched_side.close()
