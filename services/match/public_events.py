"""Stored events as anyone may see them: secrets never leave the match service.

What each event shows is an allow-list: hands as dealt, the boneyard, drawn tiles and the
server seed (until MatchEnded reveals it) are never copied out.
"""

from __future__ import annotations

PUBLIC_FIELDS = {
    "MatchStarted": ("rules", "variant", "teams", "target", "turn_timer", "seats", "client_seeds", "commitment",
                     "options", "awaiting", "deadline"),
    "RoundDealt": ("round_index", "deadline", "leader"),
    "TilePlayed": ("seat", "tile", "end", "timeout", "deadline"),
    "TileDrawn": ("seat", "timeout", "deadline"),
    "TurnPassed": ("seat", "timeout", "deadline"),
    "RoundEnded": ("reason", "winner", "points", "scores", "play_points", "written", "remembered", "pot"),
    "MatchEnded": ("winner", "scores", "server_seed", "goats", "abandoned"),
    "SeatAway": ("seat",),
    "SeatReturned": ("seat",),
    "SeatLeft": ("seat",),
    "SeedSubmitted": ("seat", "seed"),
    "SeedsClosed": (),
}
EVENT_NAMES = {"MatchStarted": "match_started", "RoundDealt": "round_dealt", "TilePlayed": "tile_played",
               "TileDrawn": "tile_drawn", "TurnPassed": "turn_passed", "RoundEnded": "round_ended",
               "MatchEnded": "match_ended", "SeatAway": "seat_away", "SeatReturned": "seat_returned",
               "SeatLeft": "seat_left", "SeedSubmitted": "seed_submitted", "SeedsClosed": "seeds_closed"}


def event_name(event) -> str:
    return EVENT_NAMES[type(event).__name__]


def public_event(event) -> dict:
    kind = type(event).__name__
    out = {"match_id": str(event.originator_id), "version": event.originator_version, "event": EVENT_NAMES[kind],
           "occurred_at": event.timestamp.isoformat()}
    for name in PUBLIC_FIELDS[kind]:
        value = getattr(event, name, None)  # events stored before a field existed lack it
        out[name] = list(value) if isinstance(value, tuple) else value
    if kind == "RoundDealt":
        out["tile_counts"] = [len(hand) for hand in event.hands]
    return out
