"""Two matchmaking replicas on one PostgreSQL, under load: nobody is seated twice.

200 players ask for block-4 tables at once, half through each replica, all contending on
the one block-4 queue aggregate. Optimistic concurrency (and the presence aggregate saved
with the queue) must seat every player exactly once, at a table of four distinct players
whose match really exists on the match service.
"""

from __future__ import annotations

import time
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack

import grpc
import pytest
from prometheus_client import CollectorRegistry

from domino.matchmaking.v1 import matchmaking_service_pb2 as pb
from domino.matchmaking.v1 import matchmaking_service_pb2_grpc as pb_grpc
from services.match.application import MatchApplication
from services.common.changes import ChangeFeed
from services.matchmaking.application import MatchmakingApplication
from services.matchmaking.tables import Queue
from services.matchmaking.match_client import GrpcMatchCreator
from services.matchmaking.metrics import PrometheusObserver
from tests.service.harness import running_service
from tests.service.matchmaking_harness import SERVICE, running_matchmaking
from tests.support.clock import Clock
from tests.support.keys import KEYS, auth

pytestmark = pytest.mark.integration

PLAYERS = 200


def stored_events(app: MatchmakingApplication) -> list:
    notes = app.recorder.select_notifications(0, 100_000, inclusive_of_start=False)
    return [app.mapper.to_domain_event(note) for note in notes]


def test_200_players_asking_for_block_4_at_once_on_two_replicas_are_each_seated_exactly_once(fresh_postgres_env):
    clock = Clock()
    match_app = MatchApplication(env=fresh_postgres_env, clock=clock)
    with ExitStack() as stack:
        stack.callback(match_app.close)
        match = stack.enter_context(running_service(match_app))
        stubs, apps, registries = [], [], []
        for _ in range(2):
            creator = GrpcMatchCreator(f"127.0.0.1:{match.port}", KEYS)
            stack.callback(creator.close)
            changes = ChangeFeed()
            registries.append(CollectorRegistry())
            app = MatchmakingApplication(env=fresh_postgres_env, matches=creator, clock=clock, on_change=changes.publish,
                                         observer=PrometheusObserver(registries[-1]))
            stack.callback(app.close)
            port = stack.enter_context(running_matchmaking(app, changes))
            channel = stack.enter_context(grpc.insecure_channel(f"127.0.0.1:{port}"))
            stubs.append(pb_grpc.MatchmakingServiceStub(channel))
            apps.append(app)

        def ask(n: int) -> tuple[str, str]:
            player = f"player-{n:03d}"
            reply = stubs[n % 2].RequestTable(pb.RequestTableRequest(request_id=f"req-{n}", variant="block-4"),
                                              metadata=auth(player), timeout=60)
            return player, reply.ticket.ticket_id

        started = time.perf_counter()
        with ThreadPoolExecutor(max_workers=50) as pool:
            asked = list(pool.map(ask, range(PLAYERS)))
        elapsed = time.perf_counter() - started

        tickets = {player: stubs[1].GetTicket(pb.GetTicketRequest(ticket_id=ticket_id), metadata=auth(player)).ticket
                   for player, ticket_id in asked}
        assert len(tickets) == PLAYERS
        assert {t.status for t in tickets.values()} == {pb.TICKET_STATUS_SEATED}, elapsed

        tables: dict[str, list[str]] = defaultdict(list)
        for player, ticket in tickets.items():
            assert ticket.HasField("your_seat") and ticket.player_ids[ticket.your_seat] == player
            tables[ticket.table_id].append(player)
        assert len(tables) == PLAYERS // 4
        for table_id, players in tables.items():
            assert len(players) == 4 == len(set(players)), table_id
        seated = Counter(p for players in tables.values() for p in players)
        assert set(seated) == set(tickets) and set(seated.values()) == {1}

        # The store agrees: one TableFormed per table, every player in exactly one of them.
        events = stored_events(apps[0])
        formed = [e for e in events if type(e).__qualname__ == "Queue.TableFormed"]
        assert len(formed) == PLAYERS // 4
        assert Counter(p for e in formed for p in e.players) == Counter({p: 1 for p in tickets})
        assert Counter(type(e).__qualname__ for e in events)["Presence.TicketSeated"] == PLAYERS
        queue = apps[1].store.load(Queue, Queue.create_id("egyptian", "block-4", True))
        assert queue.waiting == []

        # Every table's match exists, once, with the table's four players in its seats.
        match_ids = {t.table_id: t.match_id for t in tickets.values()}
        assert len(set(match_ids.values())) == PLAYERS // 4 and all(match_ids.values())
        for table_id, match_id in match_ids.items():
            view = match.stub.GetMatch(_get(match_id), metadata=SERVICE).view
            assert sorted(s.player_id for s in view.seats) == sorted(tables[table_id])
        assert Counter(type(e).__qualname__ for e in events)["MatchLink.Linked"] == PLAYERS // 4

        # Metrics: every wait observed once, every table started once (by one replica or the other).
        def total(name: str, labels: dict | None = None) -> float:
            return sum(r.get_sample_value(name, labels or {}) or 0 for r in registries)

        assert total("domino_matchmaking_queue_wait_seconds_count") == PLAYERS
        assert total("domino_matchmaking_tables_started_total", {"kind": "public"}) == PLAYERS // 4
        print(f"{PLAYERS} players seated in {elapsed:.2f} s; races lost and retried: "
              f"{total('domino_matchmaking_races_lost_total'):.0f}")


def _get(match_id: str):
    from domino.match.v1 import match_service_pb2 as match_pb

    return match_pb.GetMatchRequest(match_id=match_id)
