"""The relay: the store's notification log, published to JetStream in order, exactly once.

Commands never publish. The relay reads the notification log after its position and
publishes each event (public fields only) with `Nats-Msg-Id` = `<match>:<version>`; after
each batch it publishes whose turn it now is in every match the batch touched. Its
position is the `Domino-Notification-Id` header of the stream's last message, so it is
exactly what reached NATS: a crash between the store and the bus loses nothing, and what a
restarted relay sends again falls inside the stream's duplicate window and is dropped.
Run one relay per store (ordering per match relies on one publisher).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from dataclasses import dataclass
from typing import Callable
from uuid import UUID

from nats.js.errors import NotFoundError

from services.common import bus

from .application import MatchApplication, UnknownMatch
from .public_events import event_name, public_event

log = logging.getLogger("domino.relay")


@dataclass
class RelayStats:
    published: int = 0
    duplicates: int = 0
    lag_events: int = 0  # notifications in the store not yet published
    lag_seconds: float = 0.0  # age of the oldest unpublished event when last seen


class Relay:
    def __init__(self, app: MatchApplication, js, batch: int = 200,
                 on_publish: Callable[[bool], None] = lambda duplicate: None) -> None:
        self.app = app
        self.js = js
        self.batch = batch
        self.on_publish = on_publish
        self.position: int | None = None
        self.stats = RelayStats()

    async def start(self) -> None:
        await bus.ensure_stream(self.js)
        self.position = await self.recorded_position()
        await self._republish_recent_turns()

    async def _republish_recent_turns(self) -> None:
        """A relay stopped between a batch's events and its turn messages left those turns
        unsent; publish the turns of the matches its last batches touched (a turn that did
        reach the stream is dropped as a duplicate, and answering a turn is idempotent)."""
        lookback = 2 * self.batch
        start = max(0, self.position - lookback)
        notes = await asyncio.to_thread(self.app.recorder.select_notifications, start, lookback,
                                        stop=self.position, inclusive_of_start=False)
        last_version = {note.originator_id: note.originator_version for note in notes}
        for match_id, version in last_version.items():
            await self._publish_turn(match_id, version)

    async def recorded_position(self) -> int:
        """The notification id of the last message that reached the stream (0: none)."""
        info = await self.js.stream_info(bus.STREAM)
        if not info.state.last_seq:
            return 0
        try:
            msg = await self.js.get_msg(bus.STREAM, seq=info.state.last_seq)
        except NotFoundError:
            return 0
        return int((msg.headers or {}).get(bus.NOTIFICATION_HEADER, 0))

    async def pump(self) -> int:
        """Publish the next batch; returns how many events were published."""
        notes = await asyncio.to_thread(self.app.recorder.select_notifications, self.position, self.batch,
                                        inclusive_of_start=False)
        if not notes:
            self.stats.lag_events = 0
            self.stats.lag_seconds = 0.0
            return 0
        last_version: dict[UUID, int] = {}
        for note in notes:
            event = self.app.mapper.to_domain_event(note)
            self.stats.lag_seconds = max(0.0, time.time() - event.timestamp.timestamp())
            ack = await self.js.publish(
                bus.match_event_subject(event.originator_id, event_name(event)),
                json.dumps(public_event(event)).encode(),
                headers={"Nats-Msg-Id": bus.event_msg_id(event.originator_id, event.originator_version),
                         bus.NOTIFICATION_HEADER: str(note.id)},
            )
            self.stats.published += 1
            self.stats.duplicates += bool(ack.duplicate)
            self.on_publish(bool(ack.duplicate))
            self.position = note.id
            last_version[event.originator_id] = event.originator_version
        for match_id, version in last_version.items():
            await self._publish_turn(match_id, version)
        newest = await asyncio.to_thread(self.app.recorder.max_notification_id)
        self.stats.lag_events = max(0, (newest or 0) - self.position)
        return len(notes)

    async def _publish_turn(self, match_id: UUID, version: int) -> None:
        try:
            match = await asyncio.to_thread(self.app.get_match, match_id)
        except UnknownMatch:
            return
        # Only once the stream has caught up with the match, so turns follow their events.
        if match.version != version or match.finished:
            return
        rnd = match.state.round
        if rnd is None or rnd.outcome is not None:
            return
        turn = {"match_id": str(match_id), "version": version, "seat": rnd.turn, "player_id": match.seats[rnd.turn],
                "round": match.round_number, "turn_no": match.turn_no, "deadline": match.deadline}
        await self.js.publish(
            bus.turn_subject(match_id), json.dumps(turn).encode(),
            headers={"Nats-Msg-Id": bus.turn_msg_id(match_id, version), bus.NOTIFICATION_HEADER: str(self.position)},
        )

    async def run(self, stopping: asyncio.Event, idle_seconds: float = 0.05) -> None:
        if self.position is None:
            await self.start()
        while not stopping.is_set():
            try:
                published = await self.pump()
            except Exception:  # NATS or the store is away: try again shortly, lose nothing
                log.exception("relay pass failed; retrying")
                published = 0
                idle = 1.0
            else:
                idle = idle_seconds
            if not published:
                try:
                    await asyncio.wait_for(stopping.wait(), idle)
                except asyncio.TimeoutError:
                    pass
