"""What the history projection has not applied yet, read from the store for one player, so
ListMyMatches answers a match's result the moment its MatchEnded is stored.

The projection runs in the relay's process and applies the notification log in batches
(history_projection.py), so its view lags the store: by a pass idle, by seconds under load.
A player who lists their matches right after one ended would read it "in play" with no
scores, and an app would have to retry on a guess. So the match service reads what the view
has not applied: the notifications after the position the view recorded, only its two kinds
of fact (MatchStarted, MatchEnded: a read filtered by topic), and answers from them as the
projection will: the player's matches started since, and the results of those that ended
since, from their replay to the end (``history_projection.ended_of``,
``summary.result_of``). A match whose replay refuses is left in play, as the projection
leaves its row. Ratings are not
recomputed here: they follow the projection.
"""

from __future__ import annotations

import logging
from typing import Any, cast
from uuid import UUID

from eventsourcing.utils import get_topic

from services.history.summary import Started, result_of
from services.history.view import PlayedMatch

from .domainmodel import Match
from .errors import CorruptLog
from .history_projection import ended_of, started_of

log = logging.getLogger("domino.history")
_TOPICS = (get_topic(Match.MatchStarted), get_topic(Match.MatchEnded))
PAGE = 1000
MOST = 20_000  # notifications of these two kinds read at most (10,000 matches behind): past it, what the view says


def pending(app: Any, position: int) -> tuple[list[Started], dict[str, tuple[int, float]]]:
    """(the matches started after ``position``, the version and time at which each match
    that ended after it ended), from the store alone; a plain read for ``app.read``."""
    started: list[Started] = []
    ended: dict[str, tuple[int, float]] = {}
    read = 0
    while read < MOST:
        notes = app.recorder.select_notifications(position, PAGE, topics=_TOPICS, inclusive_of_start=False)
        for note in notes:
            event = cast(Any, app.mapper.to_domain_event(note))
            if isinstance(event, Match.MatchStarted):
                started.append(started_of(event))
            elif isinstance(event, Match.MatchEnded):
                ended[str(event.originator_id)] = (event.originator_version, event.timestamp.timestamp())
        read += len(notes)
        if len(notes) < PAGE:
            return started, ended
        position = notes[-1].id
    log.warning("the history projection is far behind: ListMyMatches answers from its view beyond this",
                extra={"read": read})
    return started, ended


async def fresher(app: Any, rows: list[PlayedMatch], player: str, position: int,
                  after: tuple[float, str] | None, limit: int) -> list[PlayedMatch]:
    """``rows`` (the view's, newest first) with what the store holds beyond ``position``:
    the player's matches the view does not list yet and the results of those that ended
    since, newest first, at most ``limit``, after the page position ``after``."""
    started, ended = await app.read(pending, app, position)
    mine = [s for s in started if player in s.seats and s.match_id not in {r.match_id for r in rows}
            and (after is None or (s.started_at, s.match_id) < after)]
    if not mine and not any(r.match_id in ended and r.result == "in_play" for r in rows):
        return rows
    merged: list[PlayedMatch] = []
    for row in [*rows, *(_in_play(s, player) for s in mine)]:
        if row.result == "in_play" and row.match_id in ended:
            row = await _ended_row(app, row, ended[row.match_id])
        merged.append(row)
    merged.sort(key=lambda r: (r.started_at, r.match_id), reverse=True)
    return merged[:limit]


def _in_play(s: Started, player: str) -> PlayedMatch:
    return PlayedMatch(s.match_id, s.rules, s.variant, s.teams, list(s.seats), s.seats.index(player), "in_play", [],
                       s.started_at, None, s.rated)


async def _ended_row(app: Any, row: PlayedMatch, end_at: tuple[int, float]) -> PlayedMatch:
    """``row`` as the projection will write it once it applies the end (its version and time)."""
    version, ended_at = end_at
    try:
        match = await app.read(app.match_at, UUID(row.match_id), version)
    except CorruptLog:
        return row  # the projection records no result for it either
    end = ended_of(match, ended_at)
    started = Started(row.match_id, row.rules, row.variant, row.teams, tuple(row.seats), row.started_at, row.rated)
    return PlayedMatch(row.match_id, row.rules, row.variant, row.teams, row.seats, row.seat,
                       result_of(row.seat, started, end), list(end.scores), row.started_at, end.ended_at, row.rated,
                       end.left)
