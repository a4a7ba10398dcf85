"""A match store's rows read as someone with write access may have left them: for the
operator's tools that read the store (`domino audit replay-all`, `repair-report`).

eventsourcing turns a stored topic into a class by importing the module it names, so a row
whose topic was set to `this:s` printed the Zen of Python into replay-all's `--json`, and any
importable module's top level would run. Here a topic is taken only when it names one of
the Match aggregate's own events (or an old name its module registered for one, as
`Match.SeatAway`); anything else, undecodable state, or an id that is no UUID, is an
`UnreadableRow` that names the row, and the tool goes on with the next match.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from eventsourcing.domain import Aggregate
from eventsourcing.persistence import StoredEvent
from eventsourcing.sqlite import SQLiteAggregateRecorder
from eventsourcing.utils import TopicError, get_topic, resolve_topic

from services.match.domainmodel import Match

EVENT_CLASSES = frozenset(v for v in vars(Match).values() if isinstance(v, type) and issubclass(v, Aggregate.Event)
                          and v not in (Match.Event, Match.Created))  # the bases are never stored
_TOPICS = {get_topic(cls): cls for cls in EVENT_CLASSES}
_RENAMED = get_topic(Match) + "."  # where an old name of an event is registered (domainmodel.register_topic)
STARTED = get_topic(Match.MatchStarted)


class UnreadableRow(Exception):
    """A stored row the tools cannot take as a match's event; the message names it."""


def event_class(topic: str) -> type | None:
    """The Match event ``topic`` names, or None; imports nothing the store names (the only
    module a topic may name is the aggregate's own, imported already)."""
    found = _TOPICS.get(topic)
    if found is None and topic.startswith(_RENAMED):
        try:
            resolved = resolve_topic(topic)
        except (TopicError, AttributeError):
            return None
        found = resolved if resolved in EVENT_CLASSES else None
    return found


def decoded(app, row: StoredEvent) -> Any:
    """The row as the Match event it stores; ``UnreadableRow`` when it is none."""
    if event_class(row.topic) is None:
        raise UnreadableRow(f"the event at version {row.originator_version} has the topic {row.topic[:200]!r}, "
                            "which is not an event of a match")
    try:
        return app.mapper.to_domain_event(row)
    except Exception as error:  # noqa: BLE001 - whatever the decoder said, the row is the fault
        raise UnreadableRow(f"the event at version {row.originator_version} ({row.topic.rsplit('.', 1)[-1]}) "
                            f"cannot be decoded: {type(error).__name__}") from error


def match_id_of(stored_id: Any) -> UUID:
    """A listed match's id as a UUID; ``UnreadableRow`` when it is none."""
    if isinstance(stored_id, UUID):
        return stored_id
    try:
        return UUID(str(stored_id))
    except ValueError:
        raise UnreadableRow(f"the match is stored under the id {str(stored_id)[:200]!r}, which is not a UUID") from None


def started_matches(app, position: int, batch: int, stop: int) -> list[tuple[int, Any]]:
    """(notification id, id as stored) of each match started after ``position`` up to
    ``stop``, ``batch`` of them. SQLite keeps ids as text, which eventsourcing's listing
    turns into UUIDs and so fails whole on one that is none: there they are read as text."""
    recorder = app.recorder
    if isinstance(recorder, SQLiteAggregateRecorder):
        with recorder.datastore.transaction(commit=False) as cursor:
            cursor.execute(f"SELECT rowid, originator_id FROM {recorder.events_table_name} "
                           "WHERE rowid > ? AND rowid <= ? AND topic = ? ORDER BY rowid LIMIT ?",
                           [position, stop, STARTED, batch])
            return [(row[0], row[1]) for row in cursor.fetchall()]
    notes = recorder.select_notifications(position, batch, stop=stop, topics=[STARTED], inclusive_of_start=False)
    return [(note.id, note.originator_id) for note in notes]


def rows_under_text_id(app, stored_id: str) -> list[tuple[int, str]]:
    """(version, topic) of each row stored under ``stored_id``, an id that is no UUID, so
    that an operator can look at what replay-all names by it. Only SQLite keeps such ids
    (as text); PostgreSQL's uuid column refuses them, so there it is []. Nothing decoded."""
    recorder = app.recorder
    if not isinstance(recorder, SQLiteAggregateRecorder):
        return []
    with recorder.datastore.transaction(commit=False) as cursor:
        cursor.execute(f"SELECT originator_version, topic FROM {recorder.events_table_name} "
                       "WHERE originator_id = ? ORDER BY originator_version", [stored_id])
        return [(row[0], row[1]) for row in cursor.fetchall()]
