"""The sessions that ended before their access tokens did, as this process knows them: the
match service and matchmaking refuse a listed session's token (its `sid`) before any
handler runs, and end its open streams.

A player token is checked by its signature and expiry alone, so a session signed out,
revoked for a reused refresh token, its device removed or its account deleted kept playing
for up to 15 minutes. The account service lists every such session until its last token
expires (services/accounts/revocation_list.py), and one ``Revocations`` per process reads
that list since its cursor (``step``, called by ``run``, and by tests with an injected
clock), like a certificate revocation list. Each read is held by the account service until
something is revoked or ``WAIT_SECONDS`` pass (services/accounts/revocation_waits.py), and
``run`` reads at most every DOMINO_REVOCATION_POLL_SECONDS.

We ask rather than take a push over NATS: the match service needs no NATS today, and a
JetStream consumer per process would need consumer-create rights the services deliberately
lack (docs/security.md, "Consumers are the admin's"). A read held until there is an answer
costs nothing while nothing is revoked; the plain poll a second it replaced was half of an
idle match replica's CPU.

Bounded: an entry is forgotten once its tokens have all expired (a token past that is
refused for its expiry anyway), and beyond ``cap`` entries those that expire soonest go
first, counted (``dropped``), so a flood of sign-outs costs memory up to the cap and no
more. While the account service cannot be asked, what is known stays known, and what is
revoked meanwhile is accepted until it expires: failing open, counted and alerted
(``poll_errors``, ``seconds_since_success``; alert DominoRevocationListStale), because refusing
every player while one service is away would stop every match for an outage that, unread,
costs no more than the 15 minutes every token had before this list existed.
"""

from __future__ import annotations

import asyncio
import heapq
import logging
import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Callable, Hashable, Iterator, Protocol

from .auth import AuthError, Identity
from .logs import Warnings
from .wakes import first_set

log = logging.getLogger("domino.revocations")
_warnings = Warnings(log)

ENDED = "this session has ended: sign in again"
# The reason a listed session's token is refused with, whatever ended it (signed out, revoked,
# its device removed, its account deleted): the account service's own for an ended session or a
# deleted account's token, so a client signs in again on one reason (docs/api.md, "Errors").
ENDED_REASON = "SESSION_ENDED"
REVOKED = "revoked"  # the cause a revoked stream is woken with (services/common/changes.py)
PAGE_SIZE = 500
PAGES_PER_STEP = 20  # a step reads at most this many pages; the rest at the next
# How long the account service holds a read that finds nothing new: well under the 20 s
# past which the staleness alert (DominoRevocationListStale) fires.
WAIT_SECONDS = 10.0


class CursorAhead(Exception):
    """The account service has never listed this far: its store was replaced."""


class Unreachable(Exception):
    """The account service did not answer the read (away, slow, refusing)."""


@dataclass(frozen=True)
class Page:
    sessions: tuple[tuple[str, float], ...]  # (session id, when its last token expires)
    next_cursor: int
    more: bool


class Source(Protocol):
    """Where the list is read: AccountService.ListRevokedSessions (revocations_client.py).
    With ``wait_seconds``, an empty page is answered only when something is revoked or the
    wait ends."""

    async def page(self, after_cursor: int, page_size: int, wait_seconds: float = 0) -> Page: ...


class Feed(Protocol):
    def publish(self, key: Any, cause: str = ...) -> bool: ...


class Revocations:
    """``check(who)`` before a handler runs; ``ending(who, feed, key)`` around a stream, and
    ``check`` again each time it wakes; ``step()`` to read what was revoked since."""

    def __init__(self, source: Source | None = None, clock: Callable[[], float] = time.time, cap: int = 100_000,
                 page_size: int = PAGE_SIZE, pages_per_step: int = PAGES_PER_STEP,
                 on_error: Callable[[], None] = lambda: None, on_dropped: Callable[[int], None] = lambda n: None) -> None:
        self.source = source  # None: nothing is ever revoked here (a service without an account service)
        self.clock = clock
        self.on_error = on_error  # counts a failed read (metrics)
        self.on_dropped = on_dropped  # counts entries forgotten over the cap
        self.cap = cap
        self.page_size = page_size
        self.pages_per_step = pages_per_step
        self.cursor = 0
        self._expiry: dict[str, float] = {}
        self._soonest: list[tuple[float, str]] = []  # (expires at, session): what to forget first
        self._streams: dict[str, list[tuple[Feed, Hashable]]] = {}  # session -> its open streams' wakes
        self._listeners: list[Callable[[tuple[str, ...]], None]] = []  # told of each step's newly revoked
        self.poll_errors = 0
        self.dropped = 0
        self.started = clock()
        self.last_success: float | None = None
        self._failing = True  # until the first read: its success is logged

    @property
    def known(self) -> int:
        return len(self._expiry)

    def seconds_since_success(self) -> float:
        """How long this process has gone without reading the list (since it started, if never)."""
        return max(0.0, self.clock() - (self.last_success if self.last_success is not None else self.started))

    def revoked(self, session: str) -> bool:
        return bool(session) and session in self._expiry

    def check(self, who: Identity) -> None:
        """AuthError (UNAUTHENTICATED, SESSION_ENDED) for a token of a listed session."""
        if self.revoked(who.session):
            raise AuthError(ENDED, ENDED_REASON)

    def on_revoked(self, listener: Callable[[tuple[str, ...]], None]) -> None:
        """``listener(sessions)`` after each read that learned of newly revoked sessions (the
        social service forgets their push tokens). It runs on the loop: it must not wait."""
        self._listeners.append(listener)

    @contextmanager
    def ending(self, who: Identity, feed: Feed, key: Hashable) -> Iterator[None]:
        """While a stream of ``who`` is open: a step that finds its session revoked wakes it
        (``feed.publish(key)``), and the stream, checking on each wake, ends."""
        if not who.session:
            yield
            return
        registration = (feed, key)
        self._streams.setdefault(who.session, []).append(registration)
        try:
            yield
        finally:
            open_ = self._streams.get(who.session, [])
            if registration in open_:
                open_.remove(registration)
            if not open_:
                self._streams.pop(who.session, None)

    async def step(self, wait_seconds: float = 0) -> bool:
        """One read of what was revoked since the cursor (a page at a time, while there are
        more, up to ``pages_per_step``; the first held up to ``wait_seconds`` until something
        is revoked); wakes the streams of what it found. False when the account service could
        not be asked: nothing is forgotten but what expired."""
        if self.source is None:
            return True
        try:
            for n in range(self.pages_per_step):
                try:
                    page = await self.source.page(self.cursor, self.page_size, 0 if n else wait_seconds)
                except CursorAhead:
                    log.warning("the revocation list's cursor is past the account service's newest: reading it "
                                "again from the start", extra={"cursor": self.cursor})
                    self.cursor = 0
                    page = await self.source.page(self.cursor, self.page_size)
                self._learn(page.sessions)
                self.cursor = page.next_cursor
                if not page.more:
                    break
        except Unreachable as error:
            self.poll_errors += 1
            self.on_error()
            self._failing = True
            _warnings.warn("unreachable", "cannot read the revocation list: tokens of sessions revoked meanwhile "
                           "are accepted until they expire", error=str(error)[:200],
                           seconds_since_success=round(self.seconds_since_success(), 1))
            return False
        finally:
            self._forget_expired()
        if self._failing:
            self._failing = False
            log.info("reading the revocation list", extra={"cursor": self.cursor, "known": self.known})
        self.last_success = self.clock()
        return True

    async def run(self, stopping: asyncio.Event, every: float, wait_seconds: float = WAIT_SECONDS) -> None:
        """``step`` until ``stopping``, each read held by the account service until something
        is revoked (``wait_seconds``), and at most one read every ``every`` seconds (the
        account service away, or one that answers at once); a fault in one step never stops
        the next."""
        loop = asyncio.get_running_loop()
        while not stopping.is_set():
            began = loop.time()
            step, stop = asyncio.ensure_future(self.step(wait_seconds)), asyncio.ensure_future(stopping.wait())
            try:
                await asyncio.wait({step, stop}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                stop.cancel()
                if not step.done():
                    step.cancel()  # stopping: a held read is not waited for
            try:
                await step
            except asyncio.CancelledError:
                if not stopping.is_set():
                    raise
            except Exception:  # noqa: BLE001 - logged; the next step tries again
                self.poll_errors += 1
                self.on_error()
                log.exception("a revocation list step failed")
            await first_set(stopping, None, began + every - loop.time())

    def _learn(self, sessions: tuple[tuple[str, float], ...]) -> None:
        now = self.clock()
        learned: list[str] = []
        for session, expires_at in sessions:
            if expires_at <= now or session in self._expiry:
                continue
            self._expiry[session] = expires_at
            learned.append(session)
            heapq.heappush(self._soonest, (expires_at, session))
            for feed, key in list(self._streams.get(session, ())):
                feed.publish(key, REVOKED)
        for listener in self._listeners if learned else ():
            try:
                listener(tuple(learned))
            except Exception:  # noqa: BLE001 - one listener's fault never stops the list
                log.exception("a listener of revoked sessions failed")
        over = max(0, len(self._expiry) - self.cap)
        for _ in range(over):
            _, session = heapq.heappop(self._soonest)
            del self._expiry[session]
        if over:
            self.dropped += over
            self.on_dropped(over)
            _warnings.warn("over-cap", "more revoked sessions than the revocation list keeps: those expiring "
                           "soonest were forgotten, and their tokens are accepted until they expire",
                           cap=self.cap, dropped=self.dropped)

    def _forget_expired(self) -> None:
        now = self.clock()
        while self._soonest and self._soonest[0][0] <= now:
            expires_at, session = heapq.heappop(self._soonest)
            if self._expiry.get(session) == expires_at:
                del self._expiry[session]
