"""The history projection: follows the match store's notification log and keeps the view
(services/history/view.py) of every player's matches and ratings.

It is the match service's adapter to the history, not a part of the history: it decodes
Match events and replays matches, so it lives beside the aggregate, and the history
(summary.py, view.py) keeps the read model and its rules knowing nothing of Match
(docs/design.md, "The parts").

It reads notifications after the position the view recorded, turns the ones that matter
(a match started, a match ended) into facts (services/history/summary.py) and applies each
batch with its position in one transaction. It runs in the relay's process (one per store, like the relay,
so the view has one writer), and `domino projections rebuild` runs it from nothing.

A match's result is never read from its MatchEnded: the winner and the totals stored there
are outside the hash chain, and an editor of the store could swap them. The projection
replays the match up to its end instead and takes the engine's result; applying the stored
results checks them against the same replay (services/match/results.py), so a rewritten
result makes the replay refuse the match. Such a match is not recorded at all (its rows
stay as they were, no rating moves): the refusal is logged as an error and counted
(``refused``, the relay's `domino_history_result_mismatch_total`), and the match service
answers DATA_LOSS for it.

Who left is read from the same replay (a seat's SeatLeft before the end), and whether the
match is rated from its MatchStarted, so a rebuild decides both exactly as the live
projection did.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any, Callable, cast

from eventsourcing.utils import get_topic

from services.common.wakes import first_set
from services.history.summary import Ended, Started, counts_for_ratings
from services.history.view import View

from .domainmodel import Match
from .errors import CorruptLog

log = logging.getLogger("domino.history")
_KEPT = frozenset(get_topic(kind) for kind in (Match.MatchStarted, Match.MatchEnded))  # the events the view keeps


def started_of(event: Match.MatchStarted) -> Started:
    seats = tuple(event.seats)
    return Started(str(event.originator_id), event.rules, event.variant or "", bool(event.teams), seats,
                   event.timestamp.timestamp(),
                   counts_for_ratings(event.rated, event.request_id, seats))


def ended_of(match: Match, ended_at: float) -> Ended:
    """How the replayed ``match`` ended, from the engine's state, not from any stored result,
    and who had left it by then (the replay's SeatLeft events)."""
    winner = None if match.abandoned else match.state.winner
    return Ended(str(match.id), winner, tuple(match.state.scores), match.abandoned, ended_at, tuple(sorted(match.left)))


class HistoryProjection:
    def __init__(self, app, view: View, batch: int = 500, on_refused: Callable[[], None] = lambda: None) -> None:
        self.app = app  # the match application: its recorder, mapper and replay
        self.view = view
        self.batch = batch
        self.on_refused = on_refused  # a match's end the replay does not confirm (the relay counts it)
        self.position = 0
        self.lag_events = 0
        self.refused: list[str] = []  # matches not recorded because replay refuses them, in this run

    def start(self) -> None:
        self.view.create()
        self.position = self.view.position()

    def pump(self) -> int:
        """Apply the next batch; returns how many notifications it read."""
        notes = self.app.recorder.select_notifications(self.position, self.batch, inclusive_of_start=False)
        if not notes:
            self.lag_events = 0
            return 0
        facts: list[Started | Ended] = []
        for note in notes:
            if note.topic not in _KEPT:
                continue  # decode only what the view keeps
            event = cast(Any, self.app.mapper.to_domain_event(note))
            if isinstance(event, Match.MatchStarted):
                facts.append(started_of(event))
            elif isinstance(event, Match.MatchEnded) and (ended := self._replayed_end(event)) is not None:
                facts.append(ended)
        self.view.apply(facts, notes[-1].id)
        self.position = notes[-1].id
        if len(notes) < self.batch:  # the read reached the store's end: nothing left behind
            self.lag_events = 0
        else:
            self.lag_events = max(0, (self.app.recorder.max_notification_id() or 0) - self.position)
        return len(notes)

    def _replayed_end(self, event: Match.MatchEnded) -> Ended | None:
        """The match's result from its replay up to this end; None (logged, counted) when the
        replay refuses the log: a stored result that disagrees with it, or any other edit."""
        try:
            match = self.app.match_at(event.originator_id, event.originator_version)
        except CorruptLog as refused:
            self.refused.append(str(event.originator_id))
            self.on_refused()
            log.error("a match's stored end is not what its replay gives: its result is not recorded in the "
                      "history or the ratings", extra={"match": str(event.originator_id), "version": refused.version,
                                                       "topic": refused.topic, "reason": refused.reason[:300]})
            return None
        return ended_of(match, event.timestamp.timestamp())

    def catch_up(self) -> int:
        read = 0
        while (n := self.pump()):
            read += n
        return read

    async def run(self, stopping: asyncio.Event, idle_seconds: float = 0.5, moved: asyncio.Event | None = None,
                  safety_seconds: float = 10.0) -> None:
        """Apply what is stored until ``stopping``. With ``moved`` (raised by the relay when it
        published something) it reads only after that, at most every ``idle_seconds``, and
        otherwise every ``safety_seconds``: while nobody moves it reads nothing. Without, it
        reads every ``idle_seconds``."""
        loop = asyncio.get_running_loop()
        while not stopping.is_set():
            began = loop.time()
            if moved is not None:
                moved.clear()
            try:
                read = await asyncio.to_thread(self.pump)
            except Exception:  # the store or the view away: try again shortly, lose nothing
                log.exception("history projection pass failed; retrying")
                read = 0
            if read:
                continue
            if moved is None:
                await first_set(stopping, None, idle_seconds)
            elif await first_set(stopping, moved, safety_seconds) is moved:
                await first_set(stopping, None, began + idle_seconds - loop.time())


def rebuild(app, view: View) -> dict[str, Any]:
    """Drop the view and build it again from every stored event."""
    started = time.perf_counter()
    view.drop()
    projection = HistoryProjection(app, view)
    projection.start()
    read = projection.catch_up()
    dump = view.dump()
    return {"events_read": read, "history_rows": len(dump["history"]), "ratings": len(dump["ratings"]),
            "results_refused": projection.refused, "seconds": round(time.perf_counter() - started, 3)}
