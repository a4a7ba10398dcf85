"""Blocks between the people at a match, asked of the social service when a WatchMatch
stream opens: a spectator who blocks (or is blocked by) a seated person is refused, and a
seated person's stream leaves out the phrases of the seats they block or are blocked by.

One SocialService.CheckRelations call per stream open (the match service's `service` token,
sub "match"), under a deadline, its answer kept a few seconds (bounded) so a reconnecting
client or a crowd of spectators costs the social service little. A block made while a
stream is open applies from the stream's next open: nothing is asked per event.

When the social service does not answer, the stream opens as if no block stood (fail open:
chat is a fixed set of phrases and spectators see a delayed, public view), counted in
`unanswered` and logged at most every ten seconds; refusing every stream while the social
service is away would stop the game itself (docs/social.md, "Blocks at the table").
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from typing import Callable, Protocol

import grpc

from domino.social.v1 import social_service_pb2 as pb
from domino.social.v1 import social_service_pb2_grpc as pb_grpc
from services.common.auth import KeyRing
from services.common.bot_ids import is_bot
from services.common.logs import Warnings
from services.common.service_tokens import ServiceToken

log = logging.getLogger("domino.match")

SERVICE_SUBJECT = "match"
TOKEN_TTL_SECONDS = 600
MAX_OTHERS = 100  # CheckRelations takes at most this many others a call; a table seats far fewer


class Blocks(Protocol):
    async def blocked(self, player_id: str, others: list[str]) -> frozenset[str]:
        """Those of ``others`` whom ``player_id`` blocks or is blocked by."""


class NoBlocks:
    """No social service configured (DOMINO_SOCIAL_ADDRESS empty): no block is checked."""

    async def blocked(self, player_id: str, others: list[str]) -> frozenset[str]:
        return frozenset()


class SocialBlocks:
    def __init__(self, address: str, keys: KeyRing, timeout_seconds: float = 1.0, cache_seconds: float = 10.0,
                 cache_size: int = 10_000, clock: Callable[[], float] = time.monotonic) -> None:
        self.channel = grpc.aio.insecure_channel(address)
        self.stub = pb_grpc.SocialServiceStub(self.channel)
        self.token = ServiceToken(SERVICE_SUBJECT, keys, TOKEN_TTL_SECONDS)
        self.timeout_seconds = timeout_seconds
        self.cache_seconds = cache_seconds
        self.cache_size = cache_size
        self.clock = clock
        self._cache: OrderedDict[tuple[str, tuple[str, ...]], tuple[float, frozenset[str]]] = OrderedDict()
        self.unanswered = 0  # calls the social service did not answer: those streams opened unchecked
        self.warnings = Warnings(log)

    async def blocked(self, player_id: str, others: list[str]) -> frozenset[str]:
        people = tuple(sorted({p for p in others if p and p != player_id and not is_bot(p)}))[:MAX_OTHERS]
        if not people or is_bot(player_id):
            return frozenset()
        key = (player_id, people)
        now = self.clock()
        kept = self._cache.get(key)
        if kept is not None and kept[0] > now:
            return kept[1]
        request = pb.CheckRelationsRequest(player_id=player_id, others=list(people))
        try:
            reply = await self.stub.CheckRelations(request, metadata=self.token.metadata(),
                                                   timeout=self.timeout_seconds)
        except grpc.RpcError as error:
            self.unanswered += 1
            self.warnings.warn("blocks_unanswered", "the social service did not say who blocks whom; the stream "
                               "opens unchecked", code=error.code().name, details=(error.details() or "")[:200])
            return frozenset()
        found = frozenset(r.player_id for r in reply.relations if r.blocked)
        self._cache[key] = (now + self.cache_seconds, found)
        self._cache.move_to_end(key)
        while len(self._cache) > self.cache_size:
            self._cache.popitem(last=False)
        return found

    async def close(self) -> None:
        await self.channel.close()
