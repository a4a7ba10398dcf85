"""Blocks between the people at a match, asked of the social service when a WatchMatch
stream opens: a spectator who blocks (or is blocked by) a seated person is refused, and a
seated person's stream leaves out the phrases of the seats they block or are blocked by.

One question per stream open (social_client.py: CheckRelations, sub "match", under a
deadline), its answer kept a few seconds (bounded) so a reconnecting client or a crowd of
spectators costs the social service little. A block made while a stream is open applies
from the stream's next open: nothing is asked per event.

When the social service does not answer, the stream opens as if no block stood (fail open:
chat is a fixed set of phrases and spectators see a delayed, public view), counted in
`unanswered` and logged at most every ten seconds; refusing every stream while the social
service is away would stop the game itself (docs/social.md, "Blocks at the table").
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from typing import Awaitable, Callable, Protocol

from services.common.bot_ids import is_bot
from services.common.logs import Warnings

log = logging.getLogger("domino.match")

MAX_OTHERS = 100  # CheckRelations takes at most this many others a call; a table seats far fewer


class RelationsUnknown(Exception):
    """The social service did not say who blocks whom (away, late, or refusing our token)."""


class Blocks(Protocol):
    async def blocked(self, player_id: str, others: list[str]) -> frozenset[str]:
        """Those of ``others`` whom ``player_id`` blocks or is blocked by."""


class NoBlocks:
    """No social service configured (DOMINO_SOCIAL_ADDRESS empty): no block is checked."""

    async def blocked(self, player_id: str, others: list[str]) -> frozenset[str]:
        return frozenset()


class KeptBlocks:
    """``ask(player_id, people)`` (the social service's answer, RelationsUnknown when it has
    none) kept ``cache_seconds``, at most ``cache_size`` answers, failing open."""

    def __init__(self, ask: Callable[[str, list[str]], Awaitable[frozenset[str]]], cache_seconds: float = 10.0,
                 cache_size: int = 10_000, clock: Callable[[], float] = time.monotonic) -> None:
        self.ask = ask
        self.cache_seconds = cache_seconds
        self.cache_size = cache_size
        self.clock = clock
        self._kept: OrderedDict[tuple[str, tuple[str, ...]], tuple[float, frozenset[str]]] = OrderedDict()
        self.unanswered = 0  # questions the social service did not answer: those streams opened unchecked
        self.warnings = Warnings(log)

    def __len__(self) -> int:
        return len(self._kept)

    async def blocked(self, player_id: str, others: list[str]) -> frozenset[str]:
        people = tuple(sorted({p for p in others if p and p != player_id and not is_bot(p)}))[:MAX_OTHERS]
        if not people or is_bot(player_id):
            return frozenset()
        key = (player_id, people)
        now = self.clock()
        kept = self._kept.get(key)
        if kept is not None and kept[0] > now:
            return kept[1]
        try:
            found = await self.ask(player_id, list(people))
        except RelationsUnknown as error:
            self.unanswered += 1
            self.warnings.warn("blocks_unanswered", "the social service did not say who blocks whom; the stream "
                               "opens unchecked", error=str(error)[:200])
            return frozenset()
        self._kept[key] = (now + self.cache_seconds, found)
        self._kept.move_to_end(key)
        while len(self._kept) > self.cache_size:
            self._kept.popitem(last=False)
        return found
