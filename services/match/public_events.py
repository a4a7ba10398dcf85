"""Stored events as anyone may see them: secrets never leave the match service.

What each event shows is an allow-list: hands as dealt, the boneyard, drawn tiles and the
server seed (until MatchEnded reveals it) are never copied out.
"""

from __future__ import annotations

from typing import Any

from .domainmodel import Match

# Each event class: its name on the wire (NATS subjects, MatchEvent.kind) and the fields anyone
# may see. Wire names are a public contract and outlive renames of the classes.
PUBLIC: dict[type, tuple[str, tuple[str, ...]]] = {
    Match.MatchStarted: ("match_started", ("rules", "variant", "teams", "target", "turn_timer", "seats",
                                           "client_seeds", "commitment", "options", "awaiting", "deadline")),
    Match.RoundDealt: ("round_dealt", ("round_index", "deadline", "leader")),
    Match.TilePlayed: ("tile_played", ("seat", "tile", "end", "timeout", "deadline")),
    Match.TileDrawn: ("tile_drawn", ("seat", "timeout", "deadline")),
    Match.TurnPassed: ("turn_passed", ("seat", "timeout", "deadline")),
    Match.RoundEnded: ("round_ended", ("reason", "winner", "points", "scores", "play_points", "written",
                                       "remembered", "pot")),
    Match.MatchEnded: ("match_ended", ("winner", "scores", "server_seed", "goats", "abandoned")),
    Match.SeatWentAway: ("seat_away", ("seat",)),
    Match.SeatReturned: ("seat_returned", ("seat",)),
    Match.SeatLeft: ("seat_left", ("seat",)),
    Match.SeedSubmitted: ("seed_submitted", ("seat", "seed")),
    Match.SeedsClosed: ("seeds_closed", ()),
}


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
