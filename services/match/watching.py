"""Watching a match: the use case behind WatchMatch, with no gRPC in it.

``Watching.watch(match_id, who, from_version)`` decides what the caller may see (a seated
player their seat's view, services and auditors the public one, a spectator (and staff) the
public one a turn behind: spectators.py), and then yields domain updates as the match moves: ``Shown``
(the match as it stands, first, for a stream from version 0), ``Happened`` (an event and the
match it left) and ``Said`` (a table-talk phrase). The adapter (grpc_adapter.py) turns each
into a message through its view cache; that is all it does with them.

A stream never re-reads on a timer: it registers with the change feed (changes.py), reads,
and sleeps until the match changes, its token expires or its session is revoked. Streams of
one match woken by one change share one store read (watch_reads.py); one woken by changes
made through this replica alone takes them from what the replica kept
(``MatchApplication.recent_events``), and the table talk is read again only when a phrase
was sent through this replica (``talk_sent``) or stored by another process (published under
the talk's own id). The events are folded here, onto the match the stream last showed.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, AsyncGenerator, Callable, cast
from uuid import UUID

from services.common.auth import STREAM_EXPIRED, AuthError, Identity
from services.common.change_tail import ChangeTail
from services.common.changes import LOCAL, PUSH, SAFETY, ChangeFeed
from services.common.limits import StreamLimits
from services.common.revocations import Revocations

from .application import MatchApplication
from .blocks import Blocks, NoBlocks
from .domainmodel import Match
from .errors import InvalidRequest, NotWatchable
from .open_streams import OpenStreams
from .spectators import SpectatorDelay
from .table_talk import TableTalk
from .watch_reads import SharedReads


# The match an update carries is the stream's own, which the next event is folded onto
# (copying it for each update would cost more than the update): read it before asking for
# the next update. Not frozen: a frozen dataclass sets each field through
# object.__setattr__, a cost on every message of every stream.


@dataclass(slots=True)
class Shown:
    """The match as the stream begins with it, as ``seat`` sees it (-1: the public view)."""

    match: Match
    seat: int


@dataclass(slots=True)
class Happened:
    """An event, and the match it left, as ``seat`` sees them."""

    event: Any
    match: Match
    seat: int


@dataclass(slots=True)
class Said:
    phrase: TableTalk.PhraseSent


Update = Shown | Happened | Said


class Watching:
    """One per process, shared by all its streams (they share its reads)."""

    def __init__(self, app: MatchApplication, changes: ChangeFeed, tail: ChangeTail | None = None, *,
                 talk_sent: Callable[[UUID], int] = lambda match_id: 0, streams: StreamLimits | None = None,
                 open_streams: OpenStreams | None = None, blocks: Blocks | None = None,
                 revocations: Revocations | None = None, on_wake: Callable[[str], None] | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        self.app = app
        self.changes = changes
        self.tail = tail  # tells ``changes`` what other processes store; None: this process makes every change
        self.talk_sent = talk_sent  # phrases sent through this replica per match (talk_rpcs.TalkRpcs.sent)
        self.streams = streams or StreamLimits()
        self.open_streams = open_streams or OpenStreams()  # GetTurnAttention's ``streaming``
        self.blocks = blocks if blocks is not None else NoBlocks()
        self.revocations = revocations or Revocations()  # a revoked session's streams end
        self.on_wake = on_wake or (lambda cause: None)  # counts wakes by cause (local, push, safety)
        self.clock = clock  # against the token's expiry: wall time, as auth.py verified it, not the app's clock
        self.shared = SharedReads(changes)

    async def watch(self, match_id: UUID, who: Identity, from_version: int) -> AsyncGenerator[Update, None]:
        """What ``who`` may see of the match from ``from_version`` (0: as it stands), until it
        ends, the feed closes, or ``who``'s token expires or session is revoked (AuthError)."""
        match = await self.app.read(self.app.get_match, match_id)
        seat, spectator = self.watcher(match, who)
        hidden = await self._blocked_seats(match, who, spectator)
        if from_version > match.version:
            raise InvalidRequest(f"from_version {from_version} is beyond the match's version {match.version}",
                                 "from_version")
        # Spectators have a share of the streams of their own (per process and per match),
        # so however many watch, seated players (and services, auditors) find room.
        spectating = match_id if spectator else None
        self.streams.acquire(who.subject, spectating)
        person = seat >= 0 and who.role == "player"  # a seated person's stream: no "your turn" push meanwhile
        if person:
            self.open_streams.opened(str(match_id), who.subject)
        try:
            with self.revocations.ending(who, self.changes, match_id):
                if self.tail is not None:
                    await self.tail.started()  # it knows where the store stands before this stream reads
                stream = await self._begin(match, from_version, spectator, hidden)
                if not from_version:
                    yield Shown(stream.folded, seat)
                local_only = False  # woken by changes made through this replica alone
                talk_told = False  # woken by a phrase another process stored
                while True:
                    with self.changes.waiter(stream.match_id) as waiter:
                        self.revocations.check(who)  # its session revoked (the wake says so): AuthError
                        # Read here, not in a coroutine of its own: this runs at every wake of every stream.
                        after = stream.read_to
                        # Woken by a change made here: this replica holds the events it stored
                        # (and a gap sends it to the store); a change another process stored
                        # (pushed by the change tail) is asked of the store.
                        events = self.app.recent_events(stream.match_id, after) if local_only else None
                        if events is None:
                            events = await self.shared.read(waiter, ("events", after), lambda: self.app.read(
                                lambda: list(self.app.events_after(stream.match_id, after))))
                        if events:
                            stream.read_to = events[-1].originator_version
                        # The table talk is read again only when it may have changed: a phrase
                        # sent through this replica, or one another process stored (published
                        # under the talk's own id, an alias of the match's).
                        talk_now = self.talk_sent(stream.match_id)
                        if talk_told or talk_now != stream.talk_seen:
                            stream.talk_seen = talk_now
                            talk_after = stream.talk_version
                            phrases = await self.shared.read(waiter, ("talk", talk_after), lambda: self.app.read(
                                self.app.phrases_after, stream.match_id, talk_after))
                            if phrases:
                                stream.talk_version = phrases[-1].originator_version
                            for phrase in phrases:
                                if phrase.seat not in stream.hidden:
                                    yield Said(phrase)
                        if stream.held is not None:
                            events = stream.held.visible(events)
                        for event in events:
                            stream.folded = cast(Match, event.mutate(stream.folded))
                            yield Happened(event, stream.folded, seat)
                        if stream.folded.finished or self.changes.closed:
                            return  # ended; or the server is stopping and the client will resume elsewhere
                        if self.clock() >= who.expires_at:
                            raise AuthError(STREAM_EXPIRED, "TOKEN_EXPIRED")  # a stream lives no longer than its token
                        await waiter.wait(max(0.0, who.expires_at - self.clock()))
                        local_only = waiter.local_only
                        talk_told = waiter.through_alias or SAFETY in waiter.causes
                        cause = SAFETY if SAFETY in waiter.causes else PUSH if PUSH in waiter.causes else \
                            LOCAL if LOCAL in waiter.causes else None
                        if cause is not None:
                            self.on_wake(cause)
        finally:
            self.streams.release(who.subject, spectating)
            if person:
                self.open_streams.closed(str(match_id), who.subject)

    @staticmethod
    def watcher(match: Match, who: Identity) -> tuple[int, bool]:
        """(the seat whose view the caller gets, whether they are a spectator). Staff watch as
        spectators do (one turn behind, no hands), also a match that takes no spectators:
        they watch for the operator, not as guests of the table."""
        if who.is_service or who.is_auditor:
            return -1, False
        if who.is_staff:
            return -1, True
        if who.subject in match.seats:
            return match.seats.index(who.subject), False
        if not match.spectators:
            raise NotWatchable(f"{who.subject} has no seat at this match, and it does not allow spectators")
        return -1, True

    async def _blocked_seats(self, match: Match, who: Identity, spectator: bool) -> frozenset[int]:
        """The seats whose phrases the caller's stream leaves out: the people they block or
        are blocked by (blocks.py). A spectator with such a person seated is refused, in the
        words any player without a seat hears, so a block is not told."""
        if who.role != "player":
            return frozenset()
        blocked = await self.blocks.blocked(who.subject, [p for p in match.seats if p != who.subject])
        if spectator and blocked:
            raise NotWatchable(f"{who.subject} has no seat at this match and cannot watch it")
        return frozenset(s for s, p in enumerate(match.seats) if p in blocked)

    async def _begin(self, match: Match, version: int, spectator: bool, hidden: frozenset[int]) -> _Stream:
        """Where a stream starts (docs/design.md, "Where a stream starts"): from ``version``,
        the match at that version, to fold each later event onto; from 0, ``match`` as it
        stands, or for a spectator as far as the delay shows it, every event read so far
        handed to the delay, which keeps the newest turn back until the table moves on."""
        held = SpectatorDelay() if spectator else None
        if version and (version != match.version or held is not None):
            return _Stream(await self.app.read(self.app.match_at, match.id, version), version, held, hidden, match.id)
        if held is None:  # from 0, or resumed where the match stands (a phone back after a lost connection)
            return _Stream(match, match.version, held, hidden, match.id)
        events = await self.app.read(lambda: list(self.app.events_after(match.id, 0)))
        shown: Match | None = None
        for event in held.visible(events):
            shown = cast(Match, event.mutate(shown))
        assert shown is not None  # MatchStarted is never held
        return _Stream(shown, events[-1].originator_version, held, hidden, match.id)


class _Stream:
    """Where one stream stands: the match it last showed, how far it has read the match's
    events and its table talk (how far it has read, not shown: a spectator's delay holds
    read events back, and reading them again from the version shown would apply them twice)."""

    __slots__ = ("match_id", "folded", "read_to", "held", "hidden", "talk_version", "talk_seen")

    def __init__(self, folded: Match, read_to: int, held: SpectatorDelay | None, hidden: frozenset[int],
                 match_id: UUID) -> None:
        # One id object for every key it is looked up by: equal UUIDs that are not the same
        # object are compared in Python (uuid.UUID.__eq__), a cost paid on every message.
        self.match_id = match_id
        self.folded = folded
        self.read_to = read_to
        self.held = held  # a spectator's delay (spectators.py); None: everything is shown at once
        self.hidden = hidden  # the seats whose phrases it leaves out (blocks.py)
        self.talk_version = 0
        self.talk_seen = -1  # phrases sent through this replica when it last read the talk
