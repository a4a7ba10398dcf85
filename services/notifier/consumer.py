"""The notifier's side of NATS: the admin's three durable consumers (services/common/
consumers.py), bound only as `domino nats setup` made them, shared by every notifier
replica through their queue groups.

- ``notifier`` (notices): claim and push (pusher.py).
- ``notifier-turns`` (seat_turn): a person's turn; a YOUR_TURN notification when their app
  has no stream open (turns.py). A turn is first looked at ``grace_seconds`` after it began:
  a message younger than that is put back with the rest of the grace as its delay (nak with
  delay: no slot is held meanwhile), so a player who brings the app up within a second or
  two gets no push.
- ``notifier-ends`` (match_ended): results and rating changes (results.py).

As the bots' and matchmaking's consumers: a payload that is not ours, or whose subject
does not match it, is terminated and counted; a message JetStream did not deliver is
dropped; a failure asks for redelivery with a delay, at most ``bus.MAX_DELIVER`` times;
each consumer handles at most ``concurrency`` messages at once (JetStream holds the rest,
``max_ack_pending`` bounds them there)."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Awaitable, Callable, Protocol

from services.common import bus, consumers
from services.common.logs import Warnings

from . import metrics
from .match_client import settled
from .pusher import Pusher
from .results import results
from .turns import your_turn

log = logging.getLogger("domino.notifier")


class Matches(Protocol):
    async def turn_attention(self, match_id: str, version: int): ...

    async def match_end(self, match_id: str): ...


class Poster(Protocol):
    async def post(self, notifications: list) -> int: ...


class NotifierConsumer:
    def __init__(self, js, pusher: Pusher, matches: Matches, poster: Poster, concurrency: int = 64,
                 grace_seconds: float = 3.0, on_message: Callable[[str, str], None] = lambda consumer, outcome: None,
                 on_mismatch: Callable[[str, bool], None] = lambda consumer, mismatched: None,
                 bind_retry_seconds: float = 2.0, clock: Callable[[], float] = time.time) -> None:
        self.js = js
        self.pusher = pusher
        self.matches = matches
        self.poster = poster
        self.grace_seconds = grace_seconds
        self.on_message = on_message
        self.on_mismatch = on_mismatch
        self.bind_retry_seconds = bind_retry_seconds
        self.clock = clock
        self.concurrency = concurrency
        self.subscriptions: list = []
        self.bound: set[str] = set()
        self._tasks: set[asyncio.Task] = set()
        self.warnings = Warnings(log)

    async def start(self, stopping: asyncio.Event | None = None) -> None:
        """Bind the three consumers, waiting while one is missing or differs (until ``stopping``)."""
        for spec, handle in ((consumers.NOTICES, self._notice), (consumers.SEAT_TURNS, self._turn),
                             (consumers.NOTIFIER_ENDS, self._end)):
            if spec.name in self.bound:
                continue
            subscription = await consumers.bind_when_ready(self.js, spec, self._receiver(spec.name, handle),
                                                           stopping, self.on_mismatch, self.bind_retry_seconds)
            if subscription is None:
                return
            self.subscriptions.append(subscription)
            self.bound.add(spec.name)

    def _receiver(self, name: str, handle: Callable[[object], Awaitable[str]]):
        slots = asyncio.Semaphore(self.concurrency)

        async def receive(msg) -> None:
            await slots.acquire()
            task = asyncio.create_task(self._guarded(name, handle, msg, slots))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        return receive

    async def _guarded(self, name: str, handle, msg, slots: asyncio.Semaphore) -> None:
        try:
            if not consumers.from_stream(msg):
                await self._drop(name, msg, "not_jetstream", "a message on the deliver subject that JetStream did "
                                                             "not send; dropped")
                return
            try:
                outcome = await handle(msg)
            except bus.BadMessage as e:
                await self._drop(name, msg, "malformed", f"a message that is not ours; dropped: {e}")
                return
            except Exception as e:
                code = settled(e)
                if code is not None:
                    await self._drop(name, msg, "refused", f"the match service refused ({code}); dropped")
                    return
                await self._retry(name, msg, e)
                return
            if outcome != "delayed":
                await msg.ack()
            self._count(name, outcome)
        except Exception:  # a fault here must not end the task silently, nor hold its slot
            self.warnings.warn("unhandled", "a notifier message could not be handled", subject=msg.subject[:200])
        finally:
            slots.release()

    async def _notice(self, msg) -> str:
        notice = bus.read_notice(msg.data)
        if msg.subject != bus.notice_subject(notice.kind):
            raise bus.BadMessage("the payload names another kind than the subject")
        return await self.pusher.push(notice.notification_id, _claim_id(msg))

    async def _turn(self, msg) -> str:
        turn = bus.read_turn(msg.data)
        if msg.subject != bus.seat_turn_subject(turn.match_id):
            raise bus.BadMessage("the payload names another match than the subject")
        wait = self._grace_left(msg)
        if wait > 0:
            await msg.nak(delay=wait)
            return "delayed"
        attention = await self.matches.turn_attention(turn.match_id, turn.version)
        if attention.player_id and attention.player_id != turn.player_id:
            raise bus.BadMessage("the match service names another player than the payload")
        notice = your_turn(turn.match_id, turn.version, attention, (turn.round, turn.turn_no) if turn.round else None)
        if notice is None:
            return "streaming" if attention.to_act and attention.streaming else "moved"
        await self.poster.post([notice])
        metrics.POSTED.labels("your_turn").inc()
        return "posted"

    def _grace_left(self, msg) -> float:
        """The rest of the grace on a turn's first delivery; 0 after it, or on a later one."""
        if self.grace_seconds <= 0 or _delivered(msg) > 1:
            return 0.0
        try:
            published = msg.metadata.timestamp.timestamp()
        except Exception:
            return 0.0
        return max(0.0, min(self.grace_seconds, self.grace_seconds - (self.clock() - published)))

    async def _end(self, msg) -> str:
        match_id, _ = bus.read_match_event(msg.data)
        if msg.subject != bus.match_event_subject(match_id, "match_ended"):
            raise bus.BadMessage("the payload names another match than the subject")
        end = await self.matches.match_end(match_id)
        notices = results(end)
        if not notices:
            return "nobody"
        await self.poster.post(notices)
        for n in notices:
            metrics.POSTED.labels("rating_change" if n.text_key == "notice.rating_change" else "match_result").inc()
        return "posted"

    async def _retry(self, name: str, msg, error: Exception) -> None:
        if _delivered(msg) >= bus.MAX_DELIVER:
            await self._drop(name, msg, "gave_up", f"a message failed {bus.MAX_DELIVER} times; dropped: "
                                                   f"{type(error).__name__}")
            return
        self.warnings.warn("retried", f"handling a message failed ({type(error).__name__}); asking for redelivery",
                           consumer=name)
        self._count(name, "retried")
        await msg.nak(delay=1)

    async def _drop(self, name: str, msg, reason: str, message: str) -> None:
        self.warnings.warn(reason, message, subject=msg.subject[:200])
        self._count(name, f"dropped:{reason}")
        if consumers.from_stream(msg):
            await msg.term()

    def _count(self, name: str, outcome: str) -> None:
        metrics.MESSAGES.labels(name, outcome).inc()
        self.on_message(name, outcome)

    async def stop(self) -> None:
        """Stop taking messages and finish the ones in hand."""
        for subscription in self.subscriptions:
            await subscription.unsubscribe()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)


def _delivered(msg) -> int:
    try:
        return msg.metadata.num_delivered
    except Exception:  # not a JetStream message
        return 1


def _claim_id(msg) -> str:
    """The notice's place in the stream: the same on each redelivery of it, another for any
    other message."""
    try:
        return f"stream:{msg.metadata.sequence.stream}"
    except Exception:  # not a JetStream message (tests)
        return ""
