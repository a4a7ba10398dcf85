"""The relay: the store's notification log, published to JetStream in order, exactly once.

Commands never publish. The relay reads the notification log after its position and
publishes each event (public fields only) with `Nats-Msg-Id` = `<match>:<version>`, a batch
sent in order and its acknowledgements awaited together (a round trip per batch, not per
event); after each batch it publishes whose turn it now is in every match the batch touched
(from its own copies of the matches, the batch's events applied to them, so a turn costs
the store no read; a match it has no whole copy of is read from the store): a bot's turn on
`domino.v1.turn.<match>`, the bots' own subject (people's turns there were each stored,
delivered to the bots, parsed and acknowledged for nothing), a person's on
`domino.v1.seat_turn.<match>`, which the notifier alone reads (a "your turn" push to a
player whose app has no stream open). It records its
position (the last notification id published) in its own key-value bucket, which only the
relay may write (NATS permissions), at most once a second and when it stops. A crash between the store and the bus loses
nothing, and what a restarted relay sends again falls inside the stream's duplicate window
and is dropped. A recorded position is believed only if the store has that notification: a
position beyond the store's end would skip events, so it is refused, loudly.

A relay with no recorded position yet (a first start, or an installation from before the
bucket) takes the `Domino-Notification-Id` of the stream's last event message, but only if
that message is the very event the store has at that position; else it starts from 0 and
the duplicate window and idempotent consumers absorb what is sent again.
Run one relay per store (ordering per match relies on one publisher).

An idle relay on PostgreSQL waits for the store's notification of an append
(store_listener.py) instead of reading it every 50 ms: at human pace most reads found
nothing, and they were most of an idle system's CPU (docs/operations.md, "Where a command's
CPU goes").
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, cast
from uuid import UUID

from eventsourcing.utils import get_topic
from nats.js.errors import KeyNotFoundError, NotFoundError

from services.common import bus
from services.common.bot_ids import is_bot

from .application import MatchApplication
from .domainmodel import Match
from .errors import UnknownMatch
from .heads import Signer
from .public_events import event_name, public_event
from .store_listener import SAFETY_SECONDS, StoreListener

if TYPE_CHECKING:
    from nats.js.kv import KeyValue

log = logging.getLogger("domino.relay")
ACK_SECONDS = 10.0
MATCH_TOPIC = get_topic(Match) + "."  # the prefix of every Match event's topic
KEPT_MATCHES = 2000  # matches the relay keeps a copy of (the least recently changed are dropped)
RECORD_SECONDS = 1.0  # the position is recorded at most this often (and when the relay stops)


@dataclass
class RelayStats:
    published: int = 0
    duplicates: int = 0
    lag_events: int = 0  # notifications in the store not yet published
    lag_seconds: float = 0.0  # age of the oldest unpublished event when last seen


class Relay:
    def __init__(self, app: MatchApplication, js, batch: int = 200,
                 on_publish: Callable[[bool], None] = lambda duplicate: None, signer: Signer | None = None,
                 record_seconds: float = RECORD_SECONDS) -> None:
        self.app = app
        self.signer = signer  # signs the witness heads of finished matches; None: no witness (tests)
        self.witnessed = 0  # final heads the witness stream stored
        self.witness_failures = 0
        self.js = js
        self.batch = batch
        self.on_publish = on_publish
        self.position = 0  # the last notification id published; start() reads it from the bucket
        self.recorded = 0  # the position last recorded in the bucket
        self.record_seconds = record_seconds
        self._recorded_at = -math.inf
        self.bucket: KeyValue | None = None  # opened by start()
        self.stats = RelayStats()
        self.moved = asyncio.Event()  # raised at each publish: the history projection reads then
        self.kept: OrderedDict[UUID, Match] = OrderedDict()  # match -> as the events published so far leave it

    async def start(self) -> None:
        await bus.wait_for_stream(self.js)
        self.bucket = await bus.relay_bucket(self.js)
        self.position = self.recorded = await self.recorded_position()
        await self._republish_recent_turns()

    async def _republish_recent_turns(self) -> None:
        """A relay stopped between a batch's events and its turn messages left those turns
        unsent; publish the turns of the matches its last batches touched (a turn that did
        reach the stream is dropped as a duplicate, and answering a turn is idempotent)."""
        lookback = 2 * self.batch
        start = max(0, self.position - lookback)
        notes = await asyncio.to_thread(self.app.recorder.select_notifications, start, lookback,
                                        stop=self.position, inclusive_of_start=False)
        last_version = {UUID(str(note.originator_id)): note.originator_version for note in notes}
        for match_id, version in last_version.items():
            await self._publish_turn(match_id, version)

    async def recorded_position(self) -> int:
        """The last notification id published, as the relay recorded it (0: none)."""
        newest = await asyncio.to_thread(self.app.recorder.max_notification_id) or 0
        assert self.bucket is not None  # opened by start()
        try:
            entry = await self.bucket.get(bus.RELAY_POSITION_KEY)
        except KeyNotFoundError:
            return await self._position_from_stream(newest)
        try:
            position = int(entry.value or b"")  # no value: not a position
        except (TypeError, ValueError):
            position = -1
        if not 0 <= position <= newest:
            log.error("the relay's recorded position is not in the store; publishing from the start again",
                      extra={"recorded": str(entry.value)[:40], "store_end": newest})
            return 0
        return position

    async def _position_from_stream(self, newest: int, lookback: int = 50) -> int:
        """The position of the stream's last event message, if the store confirms it."""
        info = await self.js.stream_info(bus.STREAM)
        last = info.state.last_seq or 0
        for seq in range(last, max(info.state.first_seq or 1, last - lookback + 1) - 1, -1):
            try:
                msg = await self.js.get_msg(bus.STREAM, seq=seq)
            except NotFoundError:
                continue
            headers = msg.headers or {}
            msg_id, claimed = headers.get("Nats-Msg-Id", ""), headers.get(bus.NOTIFICATION_HEADER, "")
            if ":turn:" in msg_id or ":seat_turn:" in msg_id:
                continue
            if claimed.isdigit() and 0 < int(claimed) <= newest and await self._is_note(int(claimed), msg_id):
                return int(claimed)
            log.error("the stream's last event does not match the store; publishing from the start again",
                      extra={"claimed": claimed[:40], "msg_id": msg_id[:100], "store_end": newest})
            return 0
        return 0

    async def _is_note(self, position: int, msg_id: str) -> bool:
        notes = await asyncio.to_thread(self.app.recorder.select_notifications, position, 1)
        return bool(notes) and notes[0].id == position and \
            bus.event_msg_id(notes[0].originator_id, notes[0].originator_version) == msg_id

    async def pump(self) -> int:
        """Publish the next batch; returns how many events were published."""
        notes = await asyncio.to_thread(self.app.recorder.select_notifications, self.position, self.batch,
                                        inclusive_of_start=False)
        if not notes:
            self.stats.lag_events = 0
            self.stats.lag_seconds = 0.0
            await self.record_position()  # an idle relay's position is recorded within a read or two
            return 0
        last_version: dict[UUID, int] = {}
        acks = []
        witnesses = []
        for note in notes:  # sent in order, their acknowledgements awaited together
            if not note.topic.startswith(MATCH_TOPIC):
                continue  # table talk (table_talk.py): WatchMatch delivers it, not the bus
            event = cast(Match.Event, self.app.mapper.to_domain_event(note))
            self.stats.lag_seconds = max(0.0, time.time() - event.timestamp.timestamp())
            acks.append(await self.js.publish_async(
                bus.match_event_subject(event.originator_id, event_name(event)),
                json.dumps(public_event(event)).encode(),
                headers={"Nats-Msg-Id": bus.event_msg_id(event.originator_id, event.originator_version),
                         bus.NOTIFICATION_HEADER: str(note.id)},
            ))
            last_version[event.originator_id] = event.originator_version
            self._keep(event)
            if isinstance(event, Match.MatchEnded) and event.link and self.signer is not None:
                witnesses.append(self._witness(event))
        await self._acknowledged(acks)
        await asyncio.gather(*witnesses)
        position = notes[-1].id
        # A full batch means the store has more: its copies are behind the store, so those
        # turns are read from the store (and skipped if the match has moved on).
        current = len(notes) < self.batch
        turns = await asyncio.gather(*(self._turn(match_id, version, position, current)
                                       for match_id, version in last_version.items()))
        await self._acknowledged([await self.js.publish_async(*turn[:2], headers=turn[2]) for turn in turns if turn],
                                 events=False)
        self.position = position  # only now: a pass that fails sends its events (deduplicated) and turns again
        await self.record_position()
        if current:  # the read reached the store's end: nothing was left behind (and no query to say so)
            self.stats.lag_events = 0
        else:
            newest = await asyncio.to_thread(self.app.recorder.max_notification_id)
            self.stats.lag_events = max(0, (newest or 0) - self.position)
        for match_id in last_version:
            if (kept := self.kept.get(match_id)) is not None and kept.finished:
                del self.kept[match_id]
        return len(notes)

    async def record_position(self, now: bool = False) -> None:
        """Record the position in the bucket, at most every ``record_seconds`` unless ``now``.
        A pass of one event, as at human pace, need not pay a JetStream write of its own:
        a restarted relay sends again the events of that second, which the stream's
        duplicate window (two minutes) drops."""
        if self.position == self.recorded:
            return
        if not now and time.monotonic() - self._recorded_at < self.record_seconds:
            return
        assert self.bucket is not None  # opened by start()
        await self.bucket.put(bus.RELAY_POSITION_KEY, str(self.position).encode())
        self.recorded, self._recorded_at = self.position, time.monotonic()

    def _keep(self, event: Match.Event) -> None:
        """Apply a published event to the relay's copy of its match. Only a copy that has
        every event before it is kept; an event seen again (a pass sent twice) is skipped."""
        match_id, version = event.originator_id, event.originator_version
        match = self.kept.get(match_id)
        if match is not None and match.version >= version:
            return
        if (match.version if match is not None else 0) != version - 1:
            self.kept.pop(match_id, None)
            return
        try:
            self.kept[match_id] = cast(Match, event.mutate(match))
        except Exception:  # noqa: BLE001 - the store's own read says what is wrong with the log
            self.kept.pop(match_id, None)
            return
        self.kept.move_to_end(match_id)
        while len(self.kept) > KEPT_MATCHES:
            self.kept.popitem(last=False)

    def _kept_at(self, match_id: UUID, version: int) -> Match | None:
        match = self.kept.get(match_id)
        return match if match is not None and match.version == version else None

    async def _witness(self, ended: Match.MatchEnded) -> None:
        """Store the finished match's signed final head in the witness stream, before the
        position moves on. A witness that refuses it (full, or away) must not stop the game's
        events: the failure is counted and logged with the match, for an operator to re-send
        (`domino audit witness --publish`)."""
        assert self.signer is not None
        try:
            match = self._kept_at(ended.originator_id, ended.originator_version)
            if match is None:
                match = await asyncio.to_thread(self.app.match_at, ended.originator_id, ended.originator_version)
            head = self.signer.head(str(match.id), match.version, match.chain_entries, match.chain_head)
            await self.js.publish(bus.witness_subject(match.id), json.dumps(head.to_json()).encode(),
                                  timeout=ACK_SECONDS,
                                  headers={"Nats-Msg-Id": bus.witness_msg_id(match.id, match.version)})
        except Exception as error:  # noqa: BLE001 - whatever it was, the operator must hear of it
            self.witness_failures += 1
            log.error("the witness did not store a finished match's head", extra={
                "match": str(ended.originator_id), "version": ended.originator_version, "error": str(error)[:300]})
        else:
            self.witnessed += 1

    async def _acknowledged(self, acks: list, events: bool = True) -> None:
        """Wait for JetStream to have stored every message sent; a pass that times out is
        retried from the recorded position (whatever did arrive is dropped as a duplicate)."""
        for ack in await asyncio.wait_for(asyncio.gather(*acks), ACK_SECONDS):
            if events:
                self.stats.published += 1
                self.stats.duplicates += bool(ack.duplicate)
                self.on_publish(bool(ack.duplicate))

    async def _turn(self, match_id: UUID, version: int, position: int,
                    current: bool = False) -> tuple[str, bytes, dict[str, str]] | None:
        """The turn message for the match as it stands at ``version``, if a seat is to act
        (``current``: the relay's copy at ``version`` is as new as the store was when read)."""
        match = self._kept_at(match_id, version) if current else None
        if match is None:
            try:
                match = await asyncio.to_thread(self.app.get_match, match_id)
            except UnknownMatch:
                return None
        # Only once the stream has caught up with the match, so turns follow their events.
        if match.version != version or match.finished:
            return None
        rnd = match.state.round
        if rnd is None or rnd.outcome is not None:
            return None
        player = match.seats[rnd.turn]
        turn = {"match_id": str(match_id), "version": version, "seat": rnd.turn, "player_id": player,
                "round": match.round_number, "turn_no": match.turn_no, "deadline": match.deadline}
        # the bots' subject carries bots' turns alone: they never see a person's
        subject, msg_id = (bus.turn_subject, bus.turn_msg_id) if is_bot(player) else \
            (bus.seat_turn_subject, bus.seat_turn_msg_id)
        return (subject(match_id), json.dumps(turn).encode(),
                {"Nats-Msg-Id": msg_id(match_id, version), bus.NOTIFICATION_HEADER: str(position)})

    async def _publish_turn(self, match_id: UUID, version: int) -> None:
        turn = await self._turn(match_id, version, self.position)
        if turn is not None:
            await self.js.publish(turn[0], turn[1], headers=turn[2])

    async def run(self, stopping: asyncio.Event, idle_seconds: float = 0.05,
                  listener: StoreListener | None = None, safety_seconds: float = SAFETY_SECONDS) -> None:
        """Publish until ``stopping``. A relay whose read found nothing reads again after
        ``idle_seconds``, so what is stored meanwhile goes out in one batch; with a
        ``listener`` (PostgreSQL) that next read waits, beyond those ``idle_seconds``, until
        the store notifies an append (or ``safety_seconds`` pass), and the relay polls as
        before while the listener is not listening. Waking at each notification instead
        would read (and record a position, and send turns) once per append: under load that
        doubled the relay's CPU."""
        if self.bucket is None:  # not started yet
            await self.start()
        listening = asyncio.create_task(listener.run(stopping)) if listener is not None else None
        try:
            while not stopping.is_set():
                if listener is not None:
                    listener.clear()  # before the read: what is stored from now on wakes the wait below
                try:
                    published = await self.pump()
                except Exception:  # NATS or the store is away: try again shortly, lose nothing
                    log.exception("relay pass failed; retrying")
                    await _idle(stopping, 1.0, None)
                    continue
                if published:
                    self.moved.set()
                    continue
                await _idle(stopping, idle_seconds, None if listener is None or listener.listening else listener)
                if listener is not None and listener.listening:
                    await _idle(stopping, safety_seconds, listener)  # at once if notified meanwhile
        finally:
            if listening is not None:
                listening.cancel()
                await asyncio.gather(listening, return_exceptions=True)
            try:
                await self.record_position(now=True)  # a clean stop sends nothing again
            except Exception:  # noqa: BLE001 - NATS away: the next start sends that second again
                log.warning("the relay's last position was not recorded", extra={"position": self.position})


async def _idle(stopping: asyncio.Event, seconds: float, listener: StoreListener | None) -> None:
    """Wait ``seconds``, or less: until ``stopping``, or the listener's next notification."""
    if listener is not None and listener.notified.is_set():
        return
    waits: list[asyncio.Task] = [asyncio.create_task(stopping.wait())]
    if listener is not None:
        waits.append(asyncio.create_task(listener.wait(seconds)))
    try:
        await asyncio.wait(waits, timeout=seconds, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for wait in waits:
            wait.cancel()
