"""Starting the match of a started room or formed table.

A command first records the started room or formed table; only then is the match service
asked to create the match (CreateMatch, with the deterministic request id
`room:<id>`, `table:<id>` or `practice:<id>`, so a repeated call creates it once), and its
id is recorded on the room or table together with a `MatchLink` from the match back to
them. A crash between those steps loses nothing: `PendingStarts` follows the store's
notification log, finds rooms and tables still without a match after a grace period, and
starts them again. ``step`` is a plain function of the clock, like the match service's
turn timer. `MatchEnds` (match_ends.py) frees them when the match ends.

Each is given what it uses: the store (plumbing.py), the match service behind the
`MatchCreator` port (its gRPC implementation is match_client.py), the observer, the clock,
and `PendingStarts` the store's notification log; MatchmakingApplication (application.py)
wires them.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Callable, Protocol
from uuid import UUID

from eventsourcing.persistence import ApplicationRecorder
from eventsourcing.utils import get_topic

from .presence import MatchLink
from .rooms import Room
from .seating import humans, is_bot
from .tables import Table
from .errors import MatchRefused, MatchServiceUnavailable
from .options import Options
from .plumbing import Observer, Store
from .rated_matches import rated

log = logging.getLogger("domino.matchmaking")
MATCH_ENDED = "match ended"


@dataclass(frozen=True)
class CreatedMatch:
    match_id: str
    ended: bool = False  # already over when it was (re)created: free its players at once


class MatchCreator(Protocol):
    def create_match(self, request_id: str, options: Options, seats: list[str], rated: bool | None = None) -> CreatedMatch:
        """Create (or find, for a repeated request id) the match, ``rated`` or not
        (rated_matches.py; None: not said); MatchServiceUnavailable when it may work later,
        MatchRefused when it never will."""

    def has_ended(self, match_id: str) -> bool:
        """Whether the match service says the match has ended (MatchServiceUnavailable when
        it cannot say now). What NATS tells is believed only once this confirms it."""

    def left_players(self, match_id: str) -> list[str]:
        """The players the match service says have left the match (LeaveMatch)."""


class Unavailable:
    """The creator of an application built without a match service (pure tests)."""

    def create_match(self, request_id: str, options: Options, seats: list[str], rated: bool | None = None) -> CreatedMatch:
        raise MatchServiceUnavailable("no match service is configured")

    def has_ended(self, match_id: str) -> bool:
        raise MatchServiceUnavailable("no match service is configured")

    def left_players(self, match_id: str) -> list[str]:
        raise MatchServiceUnavailable("no match service is configured")


class MatchStarts:
    def __init__(self, store: Store, creator: MatchCreator, observer: Observer,
                 release_match: Callable[[str], bool], practice_rated: bool = False) -> None:
        self.store = store
        self.creator = creator
        self.observer = observer
        self.release_match = release_match  # MatchEnds.release_match: a match may be over when it is created
        self.practice_rated = practice_rated  # DOMINO_PRACTICE_RATED: see rated_matches.py

    def start(self, kind: str, source_id: UUID) -> bool:
        """Create the match of a started room (``kind`` "room") or a formed table ("table")
        and record it; False when there is nothing to do or it must be retried later."""
        source = source_of(self.store, kind, source_id)
        if source is None or not _awaits_match(source):
            return False
        prefix = "practice" if isinstance(source, Table) and source.kind == Table.PRACTICE else kind
        try:
            created = self.creator.create_match(f"{prefix}:{source_id}", source.match_options, list(source.seats),
                                                rated(source, self.practice_rated))
        except MatchServiceUnavailable as e:
            log.warning("match not started yet; it will be retried", extra={"source": str(source_id), "error": str(e)})
            return False
        except MatchRefused as e:
            log.error("the match service refused a match", extra={"source": str(source_id), "error": str(e)})
            self._refused(kind, source_id, str(e))
            return False
        if self._assign(kind, source_id, created.match_id) and created.ended:
            self.release_match(created.match_id)
        return True

    def _assign(self, kind: str, source_id: UUID, match_id: str) -> bool:
        def attempt() -> Room | Table | None:
            source = source_of(self.store, kind, source_id)
            if source is None or not source.assign_match(match_id):
                return None  # another replica recorded it first, or the room/table closed
            link = MatchLink(match_id=match_id, source_kind=kind, source_id=str(source_id),
                             players=humans(source.seats))
            self.store.save_changes(source, link)
            return source

        source = self.store.run(attempt)
        if source is None:
            return False
        label = source.kind if isinstance(source, Table) else "room"
        self.observer.match_started(label, sum(is_bot(p) for p in source.seats))
        return True

    def _refused(self, kind: str, source_id: UUID, reason: str) -> None:
        """A room goes back to open (the host may change it); a table closes, freeing its players."""
        def attempt() -> None:
            source = source_of(self.store, kind, source_id)
            if source is None or not _awaits_match(source):
                return
            if isinstance(source, Room):
                source.refuse_start(reason)
                self.store.save_changes(source)
                return
            source.close(f"the match service refused the match: {reason}")
            presences = [self.store.presence(p) for p in humans(source.seats)]
            for presence in presences:
                presence.release("table", str(source_id), source.closed_reason)
            self.store.save_changes(source, *presences)

        self.store.run(attempt)


def source_of(store: Store, kind: str, source_id: UUID) -> Room | Table | None:
    """The room (``kind`` "room") or the table ("table") a match is started for."""
    return store.load(Room, source_id) if kind == "room" else store.load(Table, source_id)


def _awaits_match(source: Room | Table) -> bool:
    if isinstance(source, Room):
        return source.status == Room.STARTING
    return not source.match_id and not source.closed


class PendingStarts:
    """Re-starts rooms and tables whose match was never recorded (a crash, the match
    service away). Follows the store's notification log; every replica may run one, the
    deterministic request ids and optimistic concurrency keep the outcome single."""

    TOPICS = {get_topic(Room.Started): "room", get_topic(Table.Formed): "table"}

    def __init__(self, notifications: ApplicationRecorder, store: Store, starts: MatchStarts,
                 clock: Callable[[], float], noted: Callable[[str, object], None],
                 grace_seconds: float = 10.0) -> None:
        self.notifications = notifications
        self.store = store
        self.starts = starts
        self.clock = clock
        self.noted = noted  # WaitingQueues.noted: the bot-fill timer follows the same log
        self.grace_seconds = grace_seconds
        self.position = 0  # last notification id read
        self.pending: dict[UUID, str] = {}

    def follow_store(self, batch: int = 500) -> int:
        """Note every room started and table formed since the last call (and, for the
        bot-fill timer, every queue that changed: waiting_queues.py)."""
        seen = 0
        while True:
            notes = self.notifications.select_notifications(self.position, batch, inclusive_of_start=False)
            for note in notes:
                self.noted(note.topic, note.originator_id)  # for the bot-fill timer
                kind = self.TOPICS.get(note.topic)
                if kind is not None:
                    self.pending[UUID(str(note.originator_id))] = kind  # a UUID, or its text in some stores
                    seen += 1
                self.position = note.id
            if len(notes) < batch:
                return seen

    def step(self, now: float | None = None) -> int:
        """Start every pending match older than the grace period; returns how many started."""
        now = self.clock() if now is None else now
        started = 0
        for source_id, kind in list(self.pending.items()):
            source = source_of(self.store, kind, source_id)
            if source is None or not _awaits_match(source):
                del self.pending[source_id]
                continue
            since = source.started_at if isinstance(source, Room) else source.formed_at
            if since is not None and now - since < self.grace_seconds:
                continue
            if self.starts.start(kind, source_id):
                started += 1
                del self.pending[source_id]
        return started
