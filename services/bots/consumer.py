"""The bots' side of NATS: a durable JetStream consumer shared by every bot replica.

The consumer sits in a queue group, so one replica or ten share the turns and each turn
message goes to one of them. A message is acknowledged only once its turn is answered
(or can no longer be), and a failure asks for redelivery, so a bot replica killed
mid-turn loses nothing: another replica, or the same one restarted, answers it.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Callable

import grpc
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy

from services.common import bus

from .player import BotPlayer

log = logging.getLogger("domino.bots")
DURABLE = "bots"
# Statuses that mean the turn is gone or was never ours: redelivery would not help.
SETTLED = {grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.NOT_FOUND, grpc.StatusCode.PERMISSION_DENIED}


class TurnConsumer:
    def __init__(self, js, player: BotPlayer, concurrency: int = 8,
                 on_turn: Callable[[str], None] = lambda outcome: None) -> None:
        self.js = js
        self.player = player
        self.on_turn = on_turn
        self._slots = asyncio.Semaphore(concurrency)
        self._tasks: set[asyncio.Task] = set()
        self.subscription = None

    async def start(self) -> None:
        await bus.ensure_stream(self.js)
        config = ConsumerConfig(ack_policy=AckPolicy.EXPLICIT, deliver_policy=DeliverPolicy.ALL, ack_wait=30,
                                max_ack_pending=256)
        self.subscription = await self.js.subscribe(bus.ALL_TURNS, queue=DURABLE, durable=DURABLE, cb=self._receive,
                                                    manual_ack=True, config=config)

    async def _receive(self, msg) -> None:
        await self._slots.acquire()
        task = asyncio.create_task(self._answer(msg))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _answer(self, msg) -> None:
        try:
            turn = json.loads(msg.data)
            await self.player.play_turn(turn["match_id"], turn["player_id"])
        except grpc.aio.AioRpcError as e:
            if e.code() in SETTLED:
                log.info("turn settled without a move", extra={"code": e.code().name, "details": e.details()})
                self.on_turn("settled")
                await msg.ack()
            else:
                log.warning("turn failed; asking for redelivery", extra={"code": e.code().name})
                self.on_turn("retried")
                await msg.nak(delay=1)
        except Exception:
            log.exception("turn failed; asking for redelivery")
            self.on_turn("error")
            await msg.nak(delay=1)
        else:
            self.on_turn("answered")
            await msg.ack()
        finally:
            self._slots.release()

    async def stop(self) -> None:
        """Stop taking turns and finish the ones in hand."""
        if self.subscription is not None:
            await self.subscription.unsubscribe()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
