"""Matchmaking's side of NATS: durable JetStream consumers of `match_ended` events (the
match's room or table closes, its players are free) and `seat_left` events (the player who
left a match that goes on is free).

The consumers are the admin's (`domino nats setup`, services/common/consumers.py):
matchmaking binds to them by name and refuses to consume while one is missing or not as
the setup made it. Every replica joins the same queue group, so each match's end is handled once (and, since
releasing is idempotent, a redelivery or a second handler changes nothing). A message is
acknowledged only once the match's room or table is closed and its players are free; a
failure asks for redelivery (at most ``bus.MAX_DELIVER`` times), so nothing is lost when the
store is briefly away.

Nothing on the bus is believed that the match service can confirm: a payload that is not
ours is terminated, and a match is released only once the match service says it ended (a
forged `match_ended` for a match in play frees nobody). Every dropped message is counted
(``on_message("dropped:<reason>")``) and warned about at most every few seconds.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Callable, Protocol

from services.common import bus, consumers
from services.common.logs import Warnings

from .match_ends import MatchEnds
from .match_starts import MatchCreator

log = logging.getLogger("domino.matchmaking")


class Matchmaking(Protocol):
    """What the consumers use of matchmaking (MatchmakingApplication): the match service,
    which confirms what the bus says, and the match ends it releases."""

    @property
    def matches(self) -> MatchCreator: ...

    @property
    def ends(self) -> MatchEnds: ...


class MatchEndConsumer:
    def __init__(self, js, app: Matchmaking,
                 on_message: Callable[[str], None] = lambda outcome: None,
                 on_mismatch: Callable[[str, bool], None] = lambda consumer, mismatched: None,
                 bind_retry_seconds: float = 2.0) -> None:
        self.js = js
        self.app = app
        self.on_message = on_message
        self.on_mismatch = on_mismatch
        self.bind_retry_seconds = bind_retry_seconds
        self.subscriptions: list = []
        self.bound: set[str] = set()
        self._tasks: set[asyncio.Task] = set()
        self.warnings = Warnings(log)

    async def start(self, stopping: asyncio.Event | None = None) -> None:
        """Bind to the admin's two consumers, waiting while one is missing or differs (until ``stopping``)."""
        for spec, handle in ((consumers.MATCH_ENDED, self._handle), (consumers.SEAT_LEFT, self._handle_leave)):
            if spec.name in self.bound:
                continue  # bound on an earlier try
            subscription = await consumers.bind_when_ready(self.js, spec, self._receiver(handle), stopping,
                                                           self.on_mismatch, self.bind_retry_seconds)
            if subscription is None:
                return
            self.subscriptions.append(subscription)
            self.bound.add(spec.name)

    def _receiver(self, handle):
        async def receive(msg) -> None:
            task = asyncio.create_task(self._guarded(handle, msg))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        return receive

    async def _guarded(self, handle, msg) -> None:
        """``handle(msg)``, dropping what JetStream did not send; a fault must not end the task silently."""
        try:
            if not consumers.from_stream(msg):
                await self._drop(msg, "not_jetstream", "a message on the deliver subject that JetStream did not "
                                                       "send; dropped")
                return
            await handle(msg)
        except Exception:
            self.warnings.warn("unhandled", "a match event message could not be handled", subject=msg.subject[:200])

    async def _handle_leave(self, msg) -> None:
        try:
            match_id, _ = bus.read_match_event(msg.data)
        except bus.BadMessage as e:
            await self._drop(msg, "malformed", f"a seat_left message that is not ours; dropped: {e}")
            return
        if not msg.subject.startswith(bus.match_event_subject(match_id, "")):
            await self._drop(msg, "malformed", "a seat_left message about another match than its subject; dropped")
            return
        try:
            left = await asyncio.to_thread(self.app.matches.left_players, match_id)
            if not left:
                await self._drop(msg, "not_left", "a seat_left message for a match nobody left; dropped")
                return
            freed = await asyncio.to_thread(self.app.ends.release_players, match_id, left)
        except Exception as e:
            if _delivered(msg) >= bus.MAX_DELIVER:
                await self._drop(msg, "gave_up", f"seat_left could not be handled in {bus.MAX_DELIVER} tries; "
                                                 f"dropped: {e}")
                return
            self.warnings.warn("retried", "handling seat_left failed; asking for redelivery", error=str(e)[:200])
            self.on_message("retried")
            await msg.nak(delay=1)
            return
        log.info("players left a match", extra={"match_id": match_id, "freed": freed})
        self.on_message("player_freed" if freed else "ignored")
        await msg.ack()

    async def _drop(self, msg, reason: str, message: str) -> None:
        self.warnings.warn(reason, message, subject=msg.subject[:200])
        self.on_message(f"dropped:{reason}")
        if consumers.from_stream(msg):
            await msg.term()

    async def _handle(self, msg) -> None:
        try:
            match_id, _ = bus.read_match_event(msg.data)
        except bus.BadMessage as e:
            await self._drop(msg, "malformed", f"a match_ended message that is not ours; dropped: {e}")
            return
        if not msg.subject.startswith(bus.match_event_subject(match_id, "")):
            await self._drop(msg, "malformed", "a match_ended message about another match than its subject; dropped")
            return
        try:
            ended = await asyncio.to_thread(self.app.matches.has_ended, match_id)
            if not ended:
                await self._drop(msg, "not_ended", "a match_ended message for a match the match service says is "
                                                   "still being played; dropped")
                return
            released = await asyncio.to_thread(self.app.ends.release_match, match_id)
        except Exception as e:
            if _delivered(msg) >= bus.MAX_DELIVER:
                await self._drop(msg, "gave_up", f"match_ended could not be handled in {bus.MAX_DELIVER} tries; "
                                                 f"dropped: {e}")
                return
            self.warnings.warn("retried", "handling match_ended failed; asking for redelivery", error=str(e)[:200])
            self.on_message("retried")
            await msg.nak(delay=1)
            return
        log.info("match ended", extra={"match_id": match_id, "released": released})
        self.on_message("released" if released else "ignored")
        await msg.ack()

    async def stop(self) -> None:
        """Stop taking messages and finish the ones in hand."""
        for subscription in self.subscriptions:
            await subscription.unsubscribe()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)


def _delivered(msg) -> int:
    try:
        return msg.metadata.num_delivered
    except Exception:  # not a JetStream message (tests)
        return 1
