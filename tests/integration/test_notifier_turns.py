"""The notifier's seat_turn and match-end consumers against a real NATS, a real match
service (GetTurnAttention, DescribeMatchEnd), a real social service and the fake APNs: a
person whose app is closed is told it is their turn once, with the seconds left, collapsed
per match; one watching the match, or who moved (within the grace too), is not; a finished
match posts each person's result, and their rating change when it was rated."""

from __future__ import annotations

import asyncio
import json
import uuid
from contextlib import ExitStack

import nats
import pytest

from domino.match.v1 import match_service_pb2 as mpb
from domino.social.v1 import social_service_pb2 as pb
from services.common import bus
from services.match.history_projection import HistoryProjection
from services.history.view import View
from services.match.application import MatchApplication
from services.match.open_streams import OpenStreams
from services.notifier import turns
from tests.service.account_harness import bearer
from tests.service.notice_harness import Watching, replica
from tests.support.clock import Clock
from tests.support.grpc_matches import play_whole_match
from tests.support.keys import auth

from .notifier_harness import running_notifier, running_world

pytestmark = pytest.mark.integration
IPHONE = "cd" * 32


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def world(tmp_path, nats_server, fresh_sqlite_env, clock):
    with ExitStack() as stack:
        app = MatchApplication(env=fresh_sqlite_env, clock=clock)
        stack.callback(app.close)
        view = View.for_env(fresh_sqlite_env)
        stack.callback(view.close)
        projection = HistoryProjection(app, view)
        projection.start()
        svc = stack.enter_context(replica(app, OpenStreams(clock=clock), history=view))
        world = stack.enter_context(running_world(tmp_path, nats_server.url))
        world.match_address = f"127.0.0.1:{svc.port}"
        world.svc, world.projection = svc, projection
        ann, bob = world.sign_up("Ann"), world.sign_up("Bob")
        world.phone(bob, IPHONE)
        world.players = {ann.player_id: ann, bob.player_id: bob}
        yield world


def new_match(world, **options) -> str:
    return world.svc.create(variant="draw-2", players=tuple(world.players), request_id="m1",
                            turn_timer_seconds=45, **options).match_id


def current(world, match_id: str) -> mpb.MatchView:
    return world.svc.stub.GetMatch(mpb.GetMatchRequest(match_id=match_id), metadata=auth("observer", "service")).view


def play_one(world, match_id: str) -> None:
    """The seat to act finishes its turn: a seat that must draw draws until it plays or passes
    (a draw alone leaves the turn with it, and a "your turn" for it is still due)."""
    seat = current(world, match_id).turn
    for n in range(30):
        view = current(world, match_id)
        if view.turn != seat:
            return
        player = view.seats[seat].player_id
        move = world.svc.stub.GetMatch(mpb.GetMatchRequest(match_id=match_id), metadata=auth(player)).view.legal_moves[0]
        if move.kind == mpb.MOVE_KIND_DRAW:
            world.svc.stub.DrawTile(mpb.DrawTileRequest(match_id=match_id, request_id=f"p{n}"), metadata=auth(player))
        else:
            world.svc.stub.PlayTile(mpb.PlayTileRequest(match_id=match_id, request_id=f"p{n}", tile=move.tile,
                                                        end=move.end), metadata=auth(player))
    raise AssertionError("the seat kept the turn after 30 moves")


async def publish_turn(world, match_id: str, player_id: str | None = None, subject_match: str | None = None) -> int:
    view = current(world, match_id)
    payload = {"match_id": match_id, "version": view.version, "seat": view.turn,
               "player_id": player_id or view.seats[view.turn].player_id, "round": 1, "turn_no": 1, "deadline": ""}
    nc = await nats.connect(world.nats_url)
    await nc.jetstream().publish(bus.seat_turn_subject(subject_match or match_id), json.dumps(payload).encode())
    await nc.close()
    return view.version


def post_result(world, player_id: str) -> None:
    world.social.PostNotifications(pb.PostNotificationsRequest(notifications=[pb.NewNotification(
        notification_id=str(uuid.uuid4()), recipient_player_id=player_id, kind=pb.NOTIFICATION_KIND_MATCH_RESULT,
        text_key="notice.match_won")]), metadata=auth("notifier", "service"))


def inbox(world, player_id: str):
    return world.social.ListNotifications(pb.ListNotificationsRequest(),
                                          metadata=bearer(world.players[player_id])).notifications


def turn_to_bob(world) -> str:
    """A match where Bob's seat is to act (one move played when Ann's seat began)."""
    match_id = new_match(world)
    view = current(world, match_id)
    if view.seats[view.turn].player_id != next(p for p, s in world.players.items() if s.display_name == "Bob"):
        play_one(world, match_id)
    return match_id


def test_a_person_whose_app_is_closed_is_pushed_their_turn_with_the_seconds_left(world, clock):
    match_id = turn_to_bob(world)
    bob = current(world, match_id).seats[current(world, match_id).turn].player_id

    async def scenario():
        async with running_notifier(world) as notifier:
            version = await publish_turn(world, match_id)
            await notifier.until("notifier-turns", "posted")
            await notifier.until("notifier", "send")
            return version

    version = asyncio.run(scenario())
    [got] = world.apns.wait_for(1)
    assert got.headers["apns-priority"] == "10" and got.headers["apns-collapse-id"] == f"turn-{match_id}"
    assert got.headers["apns-id"] == turns.notification_id(match_id, version, (1, 1))
    assert got.payload["aps"]["alert"]["loc-key"] == "notice.your_turn"
    assert got.payload["domino"]["args"]["seconds_left"] == "45"
    [notice] = inbox(world, bob)
    assert notice.kind == pb.NOTIFICATION_KIND_YOUR_TURN and notice.expires_at.seconds == int(clock.now + 45)


def test_a_turn_told_twice_is_posted_and_pushed_once(world):
    match_id = turn_to_bob(world)

    async def scenario():
        async with running_notifier(world) as notifier:
            await publish_turn(world, match_id)
            await notifier.until("notifier", "send")
            await publish_turn(world, match_id)  # a relay publishing again after its Msg-Id window
            await notifier.until("notifier-turns", "posted", count=2)
            post_result(world, bob)  # the outbox keeps its order: a second "your turn" would come first
            await notifier.until("notifier", "send", count=2)

    bob = current(world, match_id).seats[current(world, match_id).turn].player_id
    asyncio.run(scenario())
    keys = [r.payload["aps"]["alert"]["loc-key"] for r in world.apns.wait_for(2)]
    assert keys == ["notice.your_turn", "notice.match_won"]


def test_a_your_turn_whose_turn_was_played_before_its_claim_is_not_pushed(world):
    match_id = turn_to_bob(world)
    view = current(world, match_id)
    notice = turns.your_turn(match_id, view.version, world.svc.turn_attention(match_id, view.version))
    play_one(world, match_id)

    async def scenario():
        async with running_notifier(world) as notifier:
            world.social.PostNotifications(pb.PostNotificationsRequest(notifications=[notice]),
                                           metadata=auth("notifier", "service"))
            await notifier.until("notifier", "moved")

    asyncio.run(scenario())
    assert world.apns.received == []


def test_a_player_watching_the_match_is_not_pushed(world):
    match_id = turn_to_bob(world)
    view = current(world, match_id)
    watching = Watching(world.svc, match_id, view.seats[view.turn].player_id)

    async def scenario():
        async with running_notifier(world) as notifier:
            await publish_turn(world, match_id)
            await notifier.until("notifier-turns", "streaming")

    try:
        asyncio.run(scenario())
    finally:
        watching.close()
    assert world.apns.received == []


def test_a_turn_played_within_the_grace_is_not_pushed(world):
    match_id = turn_to_bob(world)

    async def scenario():
        async with running_notifier(world, grace_seconds=0.5) as notifier:
            await publish_turn(world, match_id)
            await notifier.until("notifier-turns", "delayed")
            play_one(world, match_id)
            await notifier.until("notifier-turns", "moved")

    asyncio.run(scenario())
    assert world.apns.received == []


def test_a_seat_turn_about_another_match_than_its_subject_is_terminated_and_counted(world):
    match_id = turn_to_bob(world)

    async def scenario():
        async with running_notifier(world) as notifier:
            await publish_turn(world, match_id, subject_match="0b6f5d0e-3c8e-4d59-9a51-7a4c1f0e2b11")
            await notifier.until("notifier-turns", "dropped:malformed")
            return notifier.dropped("notifier-turns", "malformed")

    assert asyncio.run(scenario()) == 1


def test_a_seat_turn_naming_another_player_than_the_match_service_is_terminated(world):
    match_id = turn_to_bob(world)

    async def scenario():
        async with running_notifier(world) as notifier:
            await publish_turn(world, match_id, player_id="someone-else")
            await notifier.until("notifier-turns", "dropped:malformed")

    asyncio.run(scenario())
    assert world.apns.received == []


def test_a_finished_rated_match_posts_each_persons_result_and_rating_change(world):
    match_id = new_match(world, rated=True)
    final = play_whole_match(world.svc, match_id)
    world.projection.catch_up()

    async def scenario():
        async with running_notifier(world) as notifier:
            nc = await nats.connect(world.nats_url)
            await nc.jetstream().publish(bus.match_event_subject(match_id, "match_ended"),
                                         json.dumps({"match_id": match_id, "version": final.version}).encode())
            await nc.close()
            await notifier.until("notifier-ends", "posted")
            await notifier.until("notifier", "send", count=2)  # Bob's phone: his result and his rating

    asyncio.run(scenario())
    for seat, player_id in enumerate(s.player_id for s in final.seats):
        kinds = {n.kind: n for n in inbox(world, player_id)}
        won = final.winner == seat
        assert kinds[pb.NOTIFICATION_KIND_MATCH_RESULT].text_key == ("notice.match_won" if won else "notice.match_lost")
        change = kinds[pb.NOTIFICATION_KIND_RATING_CHANGE]
        assert change.text_key == "notice.rating_change" and len(change.args["after"].split(".")[1]) == 1
    assert {r.payload["aps"]["alert"]["loc-key"] for r in world.apns.wait_for(2)} >= {"notice.rating_change"}


def test_a_match_ended_message_for_a_match_still_played_is_dropped(world):
    match_id = new_match(world)

    async def scenario():
        async with running_notifier(world) as notifier:
            nc = await nats.connect(world.nats_url)
            await nc.jetstream().publish(bus.match_event_subject(match_id, "match_ended"),
                                         json.dumps({"match_id": match_id, "version": 3}).encode())
            await nc.close()
            await notifier.until("notifier-ends", "dropped:refused")

    asyncio.run(scenario())
    assert all(not inbox(world, p) for p in world.players)
