"""The relay tells the notifier of people's turns on `domino.v1.seat_turn.<match>` (Nats-Msg-Id
`<match>:seat_turn:<version>`, the bots' payload), and the bots' subject keeps bots' turns
alone; against a real nats-server."""

from __future__ import annotations

import asyncio
import json

import nats
import pytest

from services.common import bus
from services.common.bot_ids import is_bot
from services.match.application import MatchApplication, SeatSpec
from services.match.relay import Relay
from tests.integration.fresh_bus import fresh_bus
from tests.support.matches import Matches, act

pytestmark = pytest.mark.integration
TURN_FIELDS = {"match_id", "version", "seat", "player_id", "round", "turn_no", "deadline"}


async def messages(url: str) -> list:
    nc = await nats.connect(url)
    js = nc.jetstream()
    info = await js.stream_info(bus.STREAM)
    msgs = [await js.get_msg(bus.STREAM, seq=s) for s in range(info.state.first_seq, info.state.last_seq + 1)]
    await nc.close()
    return msgs


async def fresh(url: str) -> None:
    nc = await nats.connect(url)
    await fresh_bus(nc.jetstream())
    await nc.close()


async def relayed(app, url: str, forget_position: bool = False) -> Relay:
    nc = await nats.connect(url)
    if forget_position:  # a first start: no recorded position, only the stream's messages
        await (await bus.relay_bucket(nc.jetstream())).purge(bus.RELAY_POSITION_KEY)
    relay = Relay(app, nc.jetstream(), batch=7, record_seconds=0)
    await relay.start()
    while await relay.pump():
        pass
    await nc.close()
    return relay


@pytest.fixture
def app(fresh_sqlite_env, nats_server):
    asyncio.run(fresh(nats_server.url))
    matches = Matches(MatchApplication(env=fresh_sqlite_env))
    yield matches
    matches.close()


def new_match(app, seats) -> object:
    return app.create_match("m1", "egyptian", "draw-2", None, None, 45, [SeatSpec(p, f"seed-{p}") for p in seats])


def test_a_persons_turn_is_published_on_the_seat_turn_subject(app, nats_server):
    match = new_match(app, ["ann", "bob"])
    asyncio.run(relayed(app, nats_server.url))
    (turn,) = [m for m in asyncio.run(messages(nats_server.url)) if m.subject == bus.seat_turn_subject(match.id)]
    body = json.loads(turn.data)
    assert set(body) == TURN_FIELDS
    assert (body["version"], body["seat"], body["player_id"]) == (match.version, match.state.round.turn,
                                                                  match.seats[match.state.round.turn])
    assert body["deadline"] == match.deadline
    assert turn.headers["Nats-Msg-Id"] == bus.seat_turn_msg_id(match.id, match.version)


def test_people_s_turns_go_to_the_notifier_and_bots_turns_to_the_bots_alone(app, nats_server):
    match = new_match(app, ["ann", "bot:greedy:1"])
    to_act = {}
    for n in range(10):
        asyncio.run(relayed(app, nats_server.url))  # a pass at every version
        if match.state.round is not None and match.state.round.outcome is None:
            to_act[match.version] = match.seats[match.state.round.turn]
        match = act(app, match, n)
    msgs = asyncio.run(messages(nats_server.url))
    people = [json.loads(m.data) for m in msgs if m.subject.startswith("domino.v1.seat_turn.")]
    bots = [json.loads(m.data) for m in msgs if m.subject.startswith("domino.v1.turn.")]
    assert [t["version"] for t in people] == [v for v, p in to_act.items() if not is_bot(p)]
    assert [t["version"] for t in bots] == [v for v, p in to_act.items() if is_bot(p)]
    assert {t["player_id"] for t in people} == {"ann"} and {t["player_id"] for t in bots} == {"bot:greedy:1"}


def test_a_restarted_relay_sends_a_persons_turn_again_only_as_a_duplicate(app, nats_server):
    match = new_match(app, ["ann", "bob"])
    asyncio.run(relayed(app, nats_server.url))
    asyncio.run(relayed(app, nats_server.url))  # its start republishes the recent turns
    turns = [m for m in asyncio.run(messages(nats_server.url)) if m.subject == bus.seat_turn_subject(match.id)]
    assert len(turns) == 1


def test_a_first_start_resumes_after_the_last_event_when_a_seat_turn_follows_it(app, nats_server):
    new_match(app, ["ann", "bob"])
    first = asyncio.run(relayed(app, nats_server.url))
    last = asyncio.run(messages(nats_server.url))[-1]
    assert last.subject.startswith("domino.v1.seat_turn.")
    again = asyncio.run(relayed(app, nats_server.url, forget_position=True))
    assert again.position == first.position and again.stats.published == 0
