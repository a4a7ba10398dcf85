"""The relay against a real nats-server: every stored event reaches JetStream once, in order."""

from __future__ import annotations

import asyncio
import json

import nats
import pytest

from services.common import bus
from services.match.application import MatchApplication, SeatSpec
from services.match.relay import Relay
from tests.integration.fresh_bus import fresh_bus
from tests.support.matches import Matches, act, create

pytestmark = pytest.mark.integration


async def stream_messages(url: str) -> list:
    nc = await nats.connect(url)
    js = nc.jetstream()
    info = await js.stream_info(bus.STREAM)
    msgs = [await js.get_msg(bus.STREAM, seq=s) for s in range(info.state.first_seq, info.state.last_seq + 1)]
    await nc.close()
    return msgs


async def fresh_stream(url: str) -> None:
    nc = await nats.connect(url)
    await fresh_bus(nc.jetstream())
    await nc.close()


async def relay_until_idle(app, url: str, position: int | None = None) -> Relay:
    nc = await nats.connect(url)
    relay = Relay(app, nc.jetstream(), batch=7, record_seconds=0)  # records after every pass
    await relay.start()
    if position is not None:
        relay.position = position
    while await relay.pump():
        pass
    await nc.close()
    return relay


def played(app, matches=2, actions=12, seats: list[str] | None = None):
    """Matches of draw-2 (with ``seats``) or block-4 (people), ``actions`` in."""
    ids = []
    for m in range(matches):
        if seats is None:
            match = create(app, request_id=f"m{m}")
        else:
            match = app.create_match(f"m{m}", "egyptian", "draw-2", None, None, 0,
                                     [SeatSpec(p, f"seed-{p}") for p in seats])
        for n in range(actions):
            match = act(app, match, n)
        ids.append(match.id)
    return ids


BOTS = ["bot:greedy:0", "bot:random:1"]  # every turn of theirs is sent on the bots' subject


def test_every_stored_event_is_published_once_in_order_per_match(fresh_sqlite_env, nats_server):
    asyncio.run(fresh_stream(nats_server.url))
    app = Matches(MatchApplication(env=fresh_sqlite_env))
    ids = played(app)
    asyncio.run(relay_until_idle(app, nats_server.url))
    msgs = asyncio.run(stream_messages(nats_server.url))
    events = [m for m in msgs if ".match." in m.subject]
    for match_id in ids:
        versions = [json.loads(m.data)["version"] for m in events if str(match_id) in m.subject]
        assert versions == list(range(1, app.get_match(match_id).version + 1))
    assert len({m.headers["Nats-Msg-Id"] for m in events}) == len(events)
    app.close()


def test_a_relay_that_sends_everything_again_is_deduplicated(fresh_sqlite_env, nats_server):
    asyncio.run(fresh_stream(nats_server.url))
    app = Matches(MatchApplication(env=fresh_sqlite_env))
    played(app, matches=1)
    asyncio.run(relay_until_idle(app, nats_server.url))
    before = len(asyncio.run(stream_messages(nats_server.url)))
    again = asyncio.run(relay_until_idle(app, nats_server.url, position=0))
    assert again.stats.published == again.stats.duplicates > 0
    assert len(asyncio.run(stream_messages(nats_server.url))) == before
    app.close()


def test_a_restarted_relay_resumes_after_the_last_message_in_the_stream(fresh_sqlite_env, nats_server):
    asyncio.run(fresh_stream(nats_server.url))
    app = Matches(MatchApplication(env=fresh_sqlite_env))
    played(app, matches=1, actions=4)
    first = asyncio.run(relay_until_idle(app, nats_server.url))
    played_more = create(app, request_id="later")
    act(app, played_more, 0)
    second = asyncio.run(relay_until_idle(app, nats_server.url))
    assert second.stats.duplicates == 0 and second.position > first.position
    app.close()


def test_published_events_carry_no_hands_boneyard_or_unrevealed_seed(fresh_sqlite_env, nats_server):
    asyncio.run(fresh_stream(nats_server.url))
    app = Matches(MatchApplication(env=fresh_sqlite_env))
    (match_id,) = played(app, matches=1)
    asyncio.run(relay_until_idle(app, nats_server.url))
    seed = app.get_match(match_id).server_seed
    for msg in asyncio.run(stream_messages(nats_server.url)):
        body = json.loads(msg.data)
        assert "hands" not in body and "boneyard" not in body and seed not in msg.data.decode()
        if body.get("event") == "tile_drawn":
            assert "tile" not in body
    app.close()


def test_a_turn_message_names_the_seat_to_act(fresh_sqlite_env, nats_server):
    asyncio.run(fresh_stream(nats_server.url))
    app = Matches(MatchApplication(env=fresh_sqlite_env))
    (match_id,) = played(app, matches=1, actions=3, seats=BOTS)
    asyncio.run(relay_until_idle(app, nats_server.url))
    turns = [json.loads(m.data) for m in asyncio.run(stream_messages(nats_server.url)) if ".turn." in m.subject]
    match = app.get_match(match_id)
    assert turns[-1]["seat"] == match.state.round.turn and turns[-1]["version"] == match.version
    app.close()


def store_reads(app, monkeypatch) -> list:
    """The matches the relay reads from the store (each call of ``get_match``)."""
    reads: list = []
    real = app.get_match

    def counted(match_id):
        reads.append(match_id)
        return real(match_id)

    monkeypatch.setattr(app, "get_match", counted)
    return reads


def relayed_turn(env, url: str, monkeypatch, position: int | None = None) -> tuple[bool, list, object]:
    """One match three actions in, relayed from ``position``: (the last turn message names the
    seat to act at the match's version, the matches the relay read from the store, the id)."""
    asyncio.run(fresh_stream(url))
    app = Matches(MatchApplication(env=env))
    try:
        (match_id,) = played(app, matches=1, actions=3, seats=BOTS)
        match = app.get_match(match_id)
        reads = store_reads(app, monkeypatch)
        asyncio.run(relay_until_idle(app, url, position))
        turns = [json.loads(m.data) for m in asyncio.run(stream_messages(url)) if ".turn." in m.subject]
        return (turns[-1]["seat"], turns[-1]["version"]) == (match.state.round.turn, match.version), reads, match_id
    finally:
        app.close()


def test_a_caught_up_relay_names_the_turn_from_its_own_copy_of_the_match(fresh_sqlite_env, nats_server, monkeypatch):
    right, reads, _ = relayed_turn(fresh_sqlite_env, nats_server.url, monkeypatch)
    assert right and reads == []


def test_a_relay_that_starts_inside_a_match_reads_the_turn_from_the_store(fresh_sqlite_env, nats_server, monkeypatch):
    # position 2: it never saw the match's first events
    right, reads, match_id = relayed_turn(fresh_sqlite_env, nats_server.url, monkeypatch, position=2)
    assert right and match_id in reads


async def publish_forged(url: str, headers: dict) -> None:
    nc = await nats.connect(url)
    js = nc.jetstream()
    await js.publish(bus.match_event_subject("00000000-0000-0000-0000-000000000009", "tile_played"),
                     b'{"match_id": "00000000-0000-0000-0000-000000000009", "version": 1}', headers=headers)
    await nc.close()


def test_a_forged_position_on_the_stream_does_not_make_a_restarted_relay_skip_events(fresh_sqlite_env, nats_server):
    asyncio.run(fresh_stream(nats_server.url))
    app = Matches(MatchApplication(env=fresh_sqlite_env))
    played(app, matches=1, actions=4)
    first = asyncio.run(relay_until_idle(app, nats_server.url))
    asyncio.run(publish_forged(nats_server.url, {bus.NOTIFICATION_HEADER: "1000000000", "Nats-Msg-Id": "forged"}))
    later = create(app, request_id="later")
    act(app, later, 0)
    second = asyncio.run(relay_until_idle(app, nats_server.url))
    assert second.position > first.position
    published = [json.loads(m.data) for m in asyncio.run(stream_messages(nats_server.url)) if ".match." in m.subject]
    assert {"match_id": str(later.id), "version": 1} in [{k: p[k] for k in ("match_id", "version")} for p in published]
    app.close()


def test_a_first_start_believes_the_streams_last_event_only_if_the_store_has_it(fresh_sqlite_env, nats_server):
    asyncio.run(fresh_stream(nats_server.url))
    app = Matches(MatchApplication(env=fresh_sqlite_env))
    played(app, matches=1, actions=4)
    asyncio.run(publish_forged(nats_server.url, {bus.NOTIFICATION_HEADER: "1000000000", "Nats-Msg-Id": "forged"}))
    relay = asyncio.run(relay_until_idle(app, nats_server.url))
    assert relay.stats.published == app.recorder.max_notification_id()  # from the start: nothing skipped
    app.close()


class TurnsNotAcknowledged:
    """JetStream as the relay sees it while NATS restarts: its turn messages of one pass go
    unacknowledged (events still are)."""

    def __init__(self, js) -> None:
        self.js = js
        self.failing = True

    def __getattr__(self, name):
        return getattr(self.js, name)

    async def publish_async(self, subject: str, payload: bytes = b"", **kwargs):
        if self.failing and subject.startswith("domino.v1.turn."):
            future = asyncio.get_running_loop().create_future()
            future.set_exception(asyncio.TimeoutError())
            return future
        return await self.js.publish_async(subject, payload, **kwargs)


def test_a_pass_whose_turn_messages_are_not_acknowledged_sends_them_again(fresh_sqlite_env, nats_server):
    asyncio.run(fresh_stream(nats_server.url))
    app = Matches(MatchApplication(env=fresh_sqlite_env))
    (match_id,) = played(app, matches=1, actions=3, seats=BOTS)

    async def two_passes() -> Relay:
        nc = await nats.connect(nats_server.url)
        js = TurnsNotAcknowledged(nc.jetstream())
        relay = Relay(app, js, batch=500)
        await relay.start()
        with pytest.raises(asyncio.TimeoutError):
            await relay.pump()
        js.failing = False
        while await relay.pump():
            pass
        await nc.close()
        return relay

    relay = asyncio.run(two_passes())
    turns = [json.loads(m.data) for m in asyncio.run(stream_messages(nats_server.url)) if ".turn." in m.subject]
    assert [t["version"] for t in turns] == [app.get_match(match_id).version]
    assert relay.position == app.recorder.max_notification_id()
    app.close()


def test_a_relay_a_batch_behind_counts_what_is_left_and_a_caught_up_one_counts_nothing(fresh_sqlite_env, nats_server):
    asyncio.run(fresh_stream(nats_server.url))
    app = Matches(MatchApplication(env=fresh_sqlite_env))
    played(app, matches=2, actions=12)
    stored = app.recorder.max_notification_id()

    async def pumped() -> list[int]:
        nc = await nats.connect(nats_server.url)
        relay = Relay(app, nc.jetstream(), batch=7)
        await relay.start()
        lags = []
        while await relay.pump():
            lags.append(relay.stats.lag_events)
        await nc.close()
        return lags

    lags = asyncio.run(pumped())
    assert lags[0] == stored - 7
    assert lags[-1] == 0
    app.close()


def test_the_bots_subject_carries_only_a_bots_turns(fresh_sqlite_env, nats_server):
    asyncio.run(fresh_stream(nats_server.url))
    app = Matches(MatchApplication(env=fresh_sqlite_env))
    (match_id,) = played(app, matches=1, actions=0, seats=["ann", "bot:greedy:1"])
    match = app.get_match(match_id)
    to_act = {}  # version -> who was to act then
    for n in range(10):
        asyncio.run(relay_until_idle(app, nats_server.url))  # a pass at every version
        if match.state.round is not None and match.state.round.outcome is None:
            to_act[match.version] = match.seats[match.state.round.turn]
        match = act(app, match, n)
    turns = [json.loads(m.data) for m in asyncio.run(stream_messages(nats_server.url)) if ".turn." in m.subject]
    assert set(to_act.values()) == {"ann", "bot:greedy:1"}
    assert [t["version"] for t in turns] == [v for v, player in to_act.items() if player == "bot:greedy:1"]
    assert {t["player_id"] for t in turns} == {"bot:greedy:1"}
    app.close()


def test_the_position_is_recorded_at_most_every_record_seconds_and_when_the_relay_stops(fresh_sqlite_env, nats_server):
    asyncio.run(fresh_stream(nats_server.url))
    app = Matches(MatchApplication(env=fresh_sqlite_env))
    played(app, matches=1, actions=3)

    async def recorded_positions() -> list[int]:
        nc = await nats.connect(nats_server.url)
        bucket = await bus.relay_bucket(nc.jetstream())

        async def recorded() -> int:
            return int((await bucket.get(bus.RELAY_POSITION_KEY)).value or b"0")

        relay = Relay(app, nc.jetstream(), batch=2, record_seconds=3600)
        await relay.start()
        await relay.pump()
        seen = [relay.position, await recorded()]  # the first pass records
        await relay.pump()  # the next two events
        seen += [relay.position, await recorded()]  # within the hour: not recorded
        stopping = asyncio.Event()
        stopping.set()
        await relay.run(stopping)
        seen.append(await recorded())  # stopped: recorded
        await nc.close()
        return seen

    first, first_recorded, second, second_recorded, at_stop = asyncio.run(recorded_positions())
    assert first_recorded == first and second > first
    assert second_recorded == first
    assert at_stop == second
    app.close()
