"""How far behind a spectator watches: one full turn (docs/design.md, "Spectators").

A spectator gets the public view (no hand), and never the newest turn: the actions of the
seat that acted last (its draws and its play or pass) are held back until another seat
acts, so nobody watching can tell a player at the table what just happened before the
table itself has moved on. A round's deal shows nothing a spectator may not see, and once
the match has ended everything is shown.

The delay takes each event once: an event of a batch that it already holds or has shown
(a batch read again from the version last shown overlaps the held ones) is skipped, so
nothing downstream ever applies an event twice.
"""

from __future__ import annotations

from typing import Any

from .domainmodel import Match

_ACTIONS = (Match.TilePlayed, Match.TileDrawn, Match.TurnPassed)


class SpectatorDelay:
    def __init__(self) -> None:
        self._held: list[Any] = []
        self._last_seat: int | None = None
        self._turn_start: int | None = None  # the version that began the newest turn
        self._ended = False
        self._taken = 0  # the newest version taken (held or shown)

    def visible(self, events: list[Any]) -> list[Any]:
        """Take the match's newest events; give back, in order, those a spectator may see now."""
        for event in events:
            if event.originator_version <= self._taken:
                continue  # held or shown already
            self._taken = event.originator_version
            self._held.append(event)
            if isinstance(event, _ACTIONS):
                if event.seat != self._last_seat:
                    self._turn_start = event.originator_version
                self._last_seat = event.seat
            elif isinstance(event, Match.RoundDealt):
                self._last_seat = None
            elif isinstance(event, Match.MatchEnded):
                self._ended = True
        limit = None if self._ended or self._turn_start is None else self._turn_start
        shown = [e for e in self._held if limit is None or e.originator_version < limit]
        self._held = self._held[len(shown):]
        return shown
