"""Stored events as anyone may see them: secrets never leave the match service.

What each event shows is an allow-list, the fields its declaration marks ``Public``
(visibility.py): hands as dealt, the boneyard, drawn tiles and the server seed (until
MatchEnded reveals it) are never copied out.
"""

from __future__ import annotations

from typing import Any

from .domainmodel import EVENTS, Match
from .visibility import public_fields

# Each event class: its name on the wire (NATS subjects, MatchEvent.kind) and the fields anyone
# may see, both as the class declares them (``wire_name``, ``Public``). Wire names are a public
# contract and outlive renames of the classes.
PUBLIC: dict[type, tuple[str, tuple[str, ...]]] = {
    event_class: (event_class.wire_name, public_fields(event_class)) for event_class in EVENTS}


def event_name(event: Match.Event) -> str:
    return PUBLIC[type(event)][0]


def public_event(event: Match.Event) -> dict[str, Any]:
    name, fields = PUBLIC[type(event)]
    out: dict[str, Any] = {"match_id": str(event.originator_id), "version": event.originator_version, "event": name,
                           "occurred_at": event.timestamp.isoformat()}
    for field in fields:
        value = getattr(event, field, None)  # events stored before a field existed lack it
        out[field] = list(value) if isinstance(value, tuple) else value
    if isinstance(event, Match.RoundDealt):
        out["tile_counts"] = [len(hand) for hand in event.hands]
    return out
