"""Which public-table queues the bot-fill timer has to look at.

The timer fills tables whose players have waited long enough. Loading every queue kind
(about twenty) every second to find the few with someone waiting cost two queries each
for the queues nobody ever opened, and one for the others: forty of an idle matchmaking's
statements a second, and most of its CPU. A queue can only gain a waiting player through
one of its own events, and every event reaches the store's notification log, which the
timer already follows for its match starts (match_starts.py ``PendingStarts``), and this
process's own saves say so as they happen (plumbing.py ``save_changes``). So a queue is
looked at once at start, then only after an event of its own, and for as long as it still
has someone waiting; a queue found empty is left alone until its next event.
"""

from __future__ import annotations

import threading
from typing import Iterable
from uuid import UUID

from eventsourcing.utils import get_topic

from .tables import Queue

QUEUE_TOPIC_PREFIX = get_topic(Queue) + "."  # the topic of every event of a Queue


class WaitingQueues:
    def __init__(self, queue_ids: Iterable[UUID]) -> None:
        self._lock = threading.Lock()  # the timer's thread and request threads share it
        self._maybe_waiting: set[UUID] = set(queue_ids)  # every queue is looked at once at start
        self._changes: dict[UUID, int] = {}  # events noted per queue, so a look never hides a newer one

    def changed(self, queue_id: UUID) -> None:
        """An event of the queue was stored (here or by another replica): look at it again."""
        with self._lock:
            self._maybe_waiting.add(queue_id)
            self._changes[queue_id] = self._changes.get(queue_id, 0) + 1

    def noted(self, topic: str, originator_id: object) -> None:
        """A notification read from the store: a queue's event makes it worth a look."""
        if topic.startswith(QUEUE_TOPIC_PREFIX):
            self.changed(originator_id if isinstance(originator_id, UUID) else UUID(str(originator_id)))

    def to_look_at(self) -> list[tuple[UUID, int]]:
        """The queues to load, each with how many of its events were noted before the load."""
        with self._lock:
            return [(queue_id, self._changes.get(queue_id, 0)) for queue_id in sorted(self._maybe_waiting)]

    def looked_at(self, queue_id: UUID, queue: Queue | None, noted: int) -> None:
        """The timer loaded the queue (None: never opened) after ``noted`` of its events: one
        nobody waits in is left alone until its next event, unless an event was noted while
        it was being loaded."""
        with self._lock:
            if (queue is None or not queue.waiting) and self._changes.get(queue_id, 0) == noted:
                self._maybe_waiting.discard(queue_id)
