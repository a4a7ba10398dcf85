"""The history projection: follows the match store's notification log and keeps the view
(view.py) of every player's matches and ratings.

It reads notifications after the position the view recorded, turns the ones that matter
(a match started, a match ended) into facts (summary.py) and applies each batch with its
position in one transaction. It runs in the relay's process (one per store, like the relay,
so the view has one writer), and `domino projections rebuild` runs it from nothing.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any, cast

from services.match.domainmodel import Match

from .summary import Ended, Started
from .view import View

log = logging.getLogger("domino.history")
_STARTED = "services.match.domainmodel:Match.MatchStarted"
_ENDED = "services.match.domainmodel:Match.MatchEnded"


def fact_of(event: Any) -> Started | Ended | None:
    if isinstance(event, Match.MatchStarted):
        return Started(str(event.originator_id), event.rules, event.variant or "", bool(event.teams),
                       tuple(event.seats), event.timestamp.timestamp())
    if isinstance(event, Match.MatchEnded):
        return Ended(str(event.originator_id), event.winner, tuple(event.scores), bool(event.abandoned),
                     event.timestamp.timestamp())
    return None


class HistoryProjection:
    def __init__(self, app, view: View, batch: int = 500) -> None:
        self.app = app  # the match application: its recorder and mapper
        self.view = view
        self.batch = batch
        self.position = 0
        self.lag_events = 0

    def start(self) -> None:
        self.view.create()
        self.position = self.view.position()

    def pump(self) -> int:
        """Apply the next batch; returns how many notifications it read."""
        notes = self.app.recorder.select_notifications(self.position, self.batch, inclusive_of_start=False)
        if not notes:
            self.lag_events = 0
            return 0
        facts = []
        for note in notes:
            if note.topic not in (_STARTED, _ENDED):
                continue  # decode only what the view keeps
            fact = fact_of(cast(Any, self.app.mapper.to_domain_event(note)))
            if fact is not None:
                facts.append(fact)
        self.view.apply(facts, notes[-1].id)
        self.position = notes[-1].id
        self.lag_events = max(0, (self.app.recorder.max_notification_id() or 0) - self.position)
        return len(notes)

    def catch_up(self) -> int:
        read = 0
        while (n := self.pump()):
            read += n
        return read

    async def run(self, stopping: asyncio.Event, idle_seconds: float = 0.5) -> None:
        while not stopping.is_set():
            try:
                read = await asyncio.to_thread(self.pump)
            except Exception:  # the store or the view away: try again shortly, lose nothing
                log.exception("history projection pass failed; retrying")
                read = 0
            if not read:
                try:
                    await asyncio.wait_for(stopping.wait(), idle_seconds)
                except asyncio.TimeoutError:
                    pass


def rebuild(app, view: View) -> dict[str, float]:
    """Drop the view and build it again from every stored event."""
    started = time.perf_counter()
    view.drop()
    projection = HistoryProjection(app, view)
    projection.start()
    read = projection.catch_up()
    dump = view.dump()
    return {"events_read": read, "history_rows": len(dump["history"]), "ratings": len(dump["ratings"]),
            "seconds": round(time.perf_counter() - started, 3)}
