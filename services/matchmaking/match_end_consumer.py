"""Matchmaking's side of NATS: a durable JetStream consumer of `match_ended` events.

Every replica joins the same queue group, so each match's end is handled once (and, since
releasing is idempotent, a redelivery or a second handler changes nothing). A message is
acknowledged only once the match's room or table is closed and its players are free; a
failure asks for redelivery, so nothing is lost when the store is briefly away.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Callable

from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy

from services.common import bus

from .application import MatchmakingApplication

log = logging.getLogger("domino.matchmaking")
DURABLE = "matchmaking"
MATCH_ENDED_SUBJECT = bus.match_event_subject("*", "match_ended")


class MatchEndConsumer:
    def __init__(self, js, app: MatchmakingApplication,
                 on_message: Callable[[str], None] = lambda outcome: None) -> None:
        self.js = js
        self.app = app
        self.on_message = on_message
        self.subscription = None
        self._tasks: set[asyncio.Task] = set()

    async def start(self) -> None:
        await bus.ensure_stream(self.js)
        config = ConsumerConfig(ack_policy=AckPolicy.EXPLICIT, deliver_policy=DeliverPolicy.ALL, ack_wait=30,
                                max_ack_pending=256)
        self.subscription = await self.js.subscribe(MATCH_ENDED_SUBJECT, queue=DURABLE, durable=DURABLE,
                                                    cb=self._receive, manual_ack=True, config=config)

    async def _receive(self, msg) -> None:
        task = asyncio.create_task(self._handle(msg))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _handle(self, msg) -> None:
        try:
            match_id = str(json.loads(msg.data)["match_id"])
        except (ValueError, KeyError, TypeError):
            log.error("a match_ended message without a match id; dropped", extra={"subject": msg.subject})
            self.on_message("malformed")
            await msg.term()
            return
        try:
            released = await asyncio.to_thread(self.app.release_match, match_id)
        except Exception:
            log.exception("handling match_ended failed; asking for redelivery")
            self.on_message("retried")
            await msg.nak(delay=1)
            return
        log.info("match ended", extra={"match_id": match_id, "released": released})
        self.on_message("released" if released else "ignored")
        await msg.ack()

    async def stop(self) -> None:
        """Stop taking messages and finish the ones in hand."""
        if self.subscription is not None:
            await self.subscription.unsubscribe()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
