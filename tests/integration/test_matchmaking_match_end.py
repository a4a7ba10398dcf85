"""Matchmaking learns from NATS that a match ended: the room closes and the players are free.

The whole path is real: matches started by matchmaking on a real match service are played
to their end (every seat times out, then is played by the server), the relay publishes the
stored events to a real nats-server's JetStream, and matchmaking's durable consumer
handles `match_ended`.
"""

from __future__ import annotations

import asyncio
import time

import nats
import pytest

from domino.match.v1 import match_service_pb2 as match_pb
from domino.matchmaking.v1 import matchmaking_service_pb2 as pb
from services.common import bus
from services.match.relay import Relay
from services.match.timers import TurnTimer
from services.matchmaking.match_end_consumer import MatchEndConsumer
from tests.service.matchmaking_harness import running_system
from tests.support.keys import auth

pytestmark = pytest.mark.integration


from tests.integration.fresh_bus import fresh_bus as fresh_stream  # noqa: E402


def play_to_the_end(system, match_ids: list[str]) -> None:
    """Let every turn time out: after two timeouts a seat is away and the server plays it."""
    timer = TurnTimer(system.match.app)
    for _ in range(200):
        if all(system.match_view(m).status == match_pb.MATCH_STATUS_ENDED for m in match_ids):
            return
        system.clock.advance(91)
        timer.follow_store()
        system.match.run(timer.step())
    raise AssertionError("the matches did not end")


async def relay_and_consume(system, url: str, released: list[str], app=None, timeout: float = 15.0) -> None:
    """Publish the match service's events and run matchmaking's consumer until ``released``
    are all released."""
    nc = await nats.connect(url)
    js = nc.jetstream()
    await fresh_stream(js)
    consumer = MatchEndConsumer(js, app or system.app)
    await consumer.start()
    relay = Relay(system.match.app, js)
    await relay.start()
    while await relay.pump():
        pass
    deadline = time.monotonic() + timeout
    try:
        while not all(system.app.match_link(m).released for m in released):
            assert time.monotonic() < deadline, "match_ended was not handled"
            await asyncio.sleep(0.05)
    finally:
        await consumer.stop()
        await nc.close()


def test_a_match_ended_on_nats_closes_its_room_and_frees_its_players(nats_server):
    with running_system() as system:
        room = system.create_room("ann", variant="block-4", target=51, turn_timer_seconds=90)
        for player in ("bob", "cat", "dan"):
            system.join(player, room.code)
        room_match = system.start("ann", room.room_id).match_id
        tickets = {p: system.request_table(p, variant="draw-2") for p in ("eve", "fay")}
        table_match = system.ticket("eve", tickets["eve"].ticket_id).match_id
        assert room_match and table_match

        play_to_the_end(system, [room_match, table_match])
        assert system.stub.GetRoom(pb.GetRoomRequest(room_id=room.room_id), metadata=auth("ann")).room.status == \
            pb.ROOM_STATUS_PLAYING  # the store does not know yet: only NATS tells matchmaking

        asyncio.run(relay_and_consume(system, nats_server.url, [room_match, table_match]))

        closed = system.stub.GetRoom(pb.GetRoomRequest(room_id=room.room_id), metadata=auth("ann")).room
        assert closed.status == pb.ROOM_STATUS_CLOSED and closed.closed_reason == pb.ROOM_CLOSED_REASON_MATCH_ENDED
        for player, ticket in tickets.items():
            assert system.ticket(player, ticket.ticket_id).status == pb.TICKET_STATUS_ENDED
        for player in ("ann", "bob", "cat", "dan", "eve", "fay"):  # everyone may play again
            assert system.request_table(player, variant="block-3", request_id="again").status in (
                pb.TICKET_STATUS_WAITING, pb.TICKET_STATUS_SEATED)


class FlakyApp:
    """Matchmaking whose store fails the first time a match end is handled."""

    def __init__(self, app) -> None:
        self.matches = app.matches
        self.ends = self  # what the consumer releases through: this, failing once, then app's
        self.app_ends = app.ends
        self.failures = 0

    def release_match(self, match_id: str) -> bool:
        if not self.failures:
            self.failures += 1
            raise ConnectionError("the store is away")
        return self.app_ends.release_match(match_id)


def test_a_match_end_that_fails_to_be_handled_is_redelivered(nats_server):
    with running_system() as system:
        reply = system.stub.StartPractice(pb.StartPracticeRequest(request_id="p1", variant="draw-2",
                                                                  target=51), metadata=auth("ann"))
        play_to_the_end(system, [reply.match_id])
        flaky = FlakyApp(system.app)
        asyncio.run(relay_and_consume(system, nats_server.url, [reply.match_id], app=flaky))
        assert flaky.failures == 1
        assert system.app.presence("ann").place is None


async def consume_forged(system, url: str, payloads: list[tuple[str, bytes]], outcomes: list[str]) -> None:
    """Publish what an attacker on NATS would, and run matchmaking's consumer on it."""
    nc = await nats.connect(url)
    js = nc.jetstream()
    await fresh_stream(js)
    consumer = MatchEndConsumer(js, system.app, on_message=outcomes.append)
    await consumer.start()
    try:
        for subject, data in payloads:
            await js.publish(subject, data)
        deadline = time.monotonic() + 10
        while len(outcomes) < len(payloads):
            assert time.monotonic() < deadline, f"only {outcomes} were handled"
            await asyncio.sleep(0.05)
    finally:
        await consumer.stop()
        await nc.close()


def test_a_forged_match_ended_for_a_match_in_play_frees_nobody(nats_server):
    import json

    with running_system() as system:
        reply = system.stub.StartPractice(pb.StartPracticeRequest(request_id="p1", variant="draw-2"),
                                          metadata=auth("ann"))
        forged = json.dumps({"match_id": reply.match_id, "version": 99}).encode()
        outcomes: list[str] = []
        asyncio.run(consume_forged(system, nats_server.url,
                                   [(bus.match_event_subject(reply.match_id, "match_ended"), forged)], outcomes))
        assert outcomes == ["dropped:not_ended"]
        assert system.app.presence("ann").place is not None
        with pytest.raises(Exception) as caught:  # still in a live match: a second practice is refused
            system.stub.StartPractice(pb.StartPracticeRequest(request_id="p2", variant="draw-2"),
                                      metadata=auth("ann"))
        assert "already" in str(caught.value)


def test_malformed_match_ended_messages_are_terminated_and_counted(nats_server):
    with running_system() as system:
        subject = bus.match_event_subject("00000000-0000-0000-0000-000000000001", "match_ended")
        payloads = [(subject, b"not json"), (subject, b"[1, 2]"), (subject, b'{"match_id": "x", "version": 1}'),
                    (subject, b'{"match_id": "00000000-0000-0000-0000-000000000002", "version": 1}')]
        outcomes: list[str] = []
        asyncio.run(consume_forged(system, nats_server.url, payloads, outcomes))
        assert outcomes == ["dropped:malformed"] * 4


def test_a_player_who_leaves_a_stuck_match_is_freed_and_the_others_stay(nats_server):
    """A host starts a room with no turn timer and stops playing: the others are not trapped."""
    with running_system() as system:
        room = system.create_room("ann", variant="block-4", target=51, turn_timer_seconds=0)
        for player in ("bob", "cat", "dan"):
            system.join(player, room.code)
        match_id = system.start("ann", room.room_id).match_id
        with pytest.raises(Exception):  # bob is held by the room's match
            system.request_table("bob", variant="draw-2", request_id="elsewhere")
        system.match.stub.LeaveMatch(match_pb.LeaveMatchRequest(match_id=match_id), metadata=auth("bob"))

        async def relay_and_consume_leaves():
            nc = await nats.connect(nats_server.url)
            js = nc.jetstream()
            await fresh_stream(js)
            consumer = MatchEndConsumer(js, system.app)
            await consumer.start()
            relay = Relay(system.match.app, js)
            await relay.start()
            while await relay.pump():
                pass
            deadline = time.monotonic() + 10
            try:
                while system.app.presence("bob").place is not None:
                    assert time.monotonic() < deadline, "bob was not freed"
                    await asyncio.sleep(0.05)
            finally:
                await consumer.stop()
                await nc.close()

        asyncio.run(relay_and_consume_leaves())
        assert system.request_table("bob", variant="draw-2", request_id="elsewhere").status in (
            pb.TICKET_STATUS_WAITING, pb.TICKET_STATUS_SEATED)
        assert system.app.presence("cat").place is not None  # the others are still at the table
        assert system.match_view(match_id).seats[1].left
