"""The bots' side of NATS: a durable JetStream consumer shared by every bot replica.

The consumer is the admin's (`domino nats setup`, services/common/consumers.py): the bots
bind to it by name and refuse to consume while it is missing or not as the setup made it.
It delivers to a queue group, so one replica or ten share the turns and each turn
message goes to one of them. A message is acknowledged only once its turn is answered
(or can no longer be), and a failure asks for redelivery, so a bot replica killed
mid-turn loses nothing: another replica, or the same one restarted, answers it.

Every payload is checked: one that is not a turn of ours is terminated at once (never
redelivered), a turn that keeps failing is given up after ``bus.MAX_DELIVER`` tries, each
drop is counted (``on_turn("dropped:<reason>")``) and warned about at most every few
seconds, so a flood of bad messages can neither stall the bots nor flood the log.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Callable

from services.common import bus, consumers
from services.common.logs import Warnings

from .player import BotPlayer, refusal

log = logging.getLogger("domino.bots")


class TurnConsumer:
    def __init__(self, js, player: BotPlayer, concurrency: int = consumers.MAX_ACK_PENDING,
                 on_turn: Callable[[str], None] = lambda outcome: None, transient_seconds: float = 120.0,
                 ack_wait: float = 30.0,
                 on_mismatch: Callable[[str, bool], None] = lambda consumer, mismatched: None,
                 bind_retry_seconds: float = 2.0) -> None:
        self.js = js
        self.player = player
        self.on_turn = on_turn
        self._slots = asyncio.Semaphore(concurrency)
        self._tasks: set[asyncio.Task] = set()
        self.subscription = None
        self.warnings = Warnings(log)
        self.transient_seconds = transient_seconds
        self.spec = consumers.bots(ack_wait)
        self.on_mismatch = on_mismatch
        self.bind_retry_seconds = bind_retry_seconds

    async def start(self, stopping: asyncio.Event | None = None) -> None:
        """Bind to the admin's consumer, waiting while it is missing or differs (until ``stopping``)."""
        self.subscription = await consumers.bind_when_ready(self.js, self.spec, self._receive, stopping,
                                                            self.on_mismatch, self.bind_retry_seconds)

    async def _receive(self, msg) -> None:
        await self._slots.acquire()
        task = asyncio.create_task(self._answer(msg))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _answer(self, msg) -> None:
        try:
            await self._handle(msg)
        except Exception:  # a fault here must not end the task silently (nor hold its slot)
            self.warnings.warn("unhandled", "a turn message could not be handled", subject=msg.subject[:200])
        finally:
            self._slots.release()

    async def _handle(self, msg) -> None:
        if not consumers.from_stream(msg):
            await self._drop(msg, "not_jetstream", "a message on the deliver subject that JetStream did not send; "
                                                   "dropped")
            return
        try:
            turn = bus.read_turn(msg.data)
            if msg.subject != bus.turn_subject(turn.match_id):
                raise bus.BadMessage("the payload names another match than the subject")
        except bus.BadMessage as e:
            await self._drop(msg, "malformed", f"a turn message that is not ours; dropped: {e}")
            return
        try:
            await self._play(msg, turn)
        except Exception as e:
            refused = refusal(e)  # the match service's answer, told apart by the gRPC client (player.py)
            if refused is None:
                log.exception("turn failed")
                await self._retry(msg, "error", f"turn failed ({type(e).__name__}); asking for redelivery")
            elif refused.settled:
                log.info("turn settled without a move", extra={"code": refused.code, "details": refused.details[:200]})
                self.on_turn("settled")
                await msg.ack()
            else:
                await self._retry(msg, "retried", f"turn failed ({refused.code}); asking for redelivery")
        else:
            self.on_turn("answered")
            await msg.ack()

    async def _play(self, msg, turn: bus.Turn) -> None:
        """Play the turn, waiting out a match service that is away for a while (a replica
        restarting, its store down) while keeping the message: redeliveries are capped, and a
        turn given up would leave its match waiting for a move nobody else makes."""
        waited, attempt = 0.0, 0
        while True:
            try:
                await self.player.play_turn(turn.match_id, turn.player_id, turn.version)
                return
            except Exception as e:
                refused = refusal(e)
                if refused is None or not refused.transient or waited >= self.transient_seconds:
                    raise
                self.warnings.warn("waiting", f"the match service is away ({refused.code}); the turn waits")
                self.on_turn("waited")
                pause = min(2.0, 0.1 * 2 ** attempt)
                await asyncio.sleep(pause)
                waited, attempt = waited + pause, attempt + 1
                await msg.in_progress()  # still ours: not redelivered meanwhile

    async def _retry(self, msg, outcome: str, message: str) -> None:
        if _delivered(msg) >= bus.MAX_DELIVER:
            await self._drop(msg, "gave_up", f"a turn failed {bus.MAX_DELIVER} times; dropped")
            return
        self.warnings.warn(outcome, message)
        self.on_turn(outcome)
        await msg.nak(delay=1)

    async def _drop(self, msg, reason: str, message: str) -> None:
        self.warnings.warn(reason, message, subject=msg.subject[:200])
        self.on_turn(f"dropped:{reason}")
        if consumers.from_stream(msg):
            await msg.term()

    async def stop(self) -> None:
        """Stop taking turns and finish the ones in hand."""
        if self.subscription is not None:
            await self.subscription.unsubscribe()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)


def _delivered(msg) -> int:
    try:
        return msg.metadata.num_delivered
    except Exception:  # not a JetStream message (tests)
        return 1
