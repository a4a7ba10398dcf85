"""Freeing the room or table of a match that ended, and its players.

The bus tells matchmaking that a match ended (match_end_consumer.py), but later than a
player may ask for their next place: so a use case that finds the player held at a room or
table for a match asks the match service whether it has ended (``ended_match``) and, if it
has, frees them in the same atomic save as their new place (``releasing``), as the bus's
message would have. Either way the release is the same, and idempotent: whichever comes
second finds the match released and changes nothing.
"""

from __future__ import annotations

from typing import Iterable
from uuid import UUID

from eventsourcing.domain import Aggregate

from .match_starts import MATCH_ENDED, MatchCreator, source_of
from .plumbing import Store
from .presence import MatchLink, Presence
from .rooms import Room
from .tables import Table


class MatchEnds:
    """Frees the room or table of a match that ended, and its players: told by the bus
    (match_end_consumer.py), or found by a player's next request before the bus has told
    (``ended_match``), so a seat is free the moment the match service has stored the end."""

    def __init__(self, store: Store, creator: MatchCreator) -> None:
        self.store = store
        self.creator = creator

    def link(self, match_id: str) -> MatchLink | None:
        """What matchmaking recorded of a match it started: its room or table and players."""
        return self.store.load(MatchLink, MatchLink.create_id(match_id))

    def release_match(self, match_id: str) -> bool:
        """The match ended: close its room or table and free its players. Idempotent; False
        for matches matchmaking did not start (or already released)."""
        def attempt() -> bool:
            changed = self.releasing(match_id)
            if changed:
                self.store.save_changes(*changed)
            return bool(changed)

        return self.store.run(attempt)

    def releasing(self, match_id: str, known: Iterable[Aggregate] = ()) -> list[Aggregate]:
        """The match's link, room or table and players' presences, changed by its end and
        not yet saved, for the caller to save in one atomic call with its own changes; []
        for a match matchmaking did not start or has released. ``known``: aggregates the
        caller has loaded (and saves), changed in place rather than loaded again: a caller that
        loads the match's link before a player's presence gives it here, so a release another
        writer stored in between is either seen in both or a conflict of the save."""
        known = list(known)
        given = [a for a in known if isinstance(a, MatchLink) and a.match_id == match_id]
        link = given[0] if given else self.link(match_id)
        if link is None or link.released:
            return []
        loaded = {aggregate.id: aggregate for aggregate in known}
        source_id = UUID(link.source_id)
        known_source = loaded.get(source_id)
        source = known_source if isinstance(known_source, (Room, Table)) else source_of(self.store, link.source_kind,
                                                                                       source_id)
        changed: list[Aggregate] = [link]
        if source is not None:
            source.close(MATCH_ENDED)
            changed.append(source)
        place = "room" if link.source_kind == "room" else "table"
        for player in link.players:
            presence_id = Presence.create_id(player)
            presence = loaded.get(presence_id) or self.store.load(Presence, presence_id)
            if isinstance(presence, Presence):
                presence.release(place, link.source_id, MATCH_ENDED)
                changed.append(presence)
        link.release(MATCH_ENDED)
        return changed

    def ended_match(self, player_id: str) -> str:
        """The match of the player's room or table when the match service says it has ended
        and matchmaking has not released it yet (the bus has not told); "" otherwise.
        MatchServiceUnavailable when the match service cannot say now."""
        match_id = self.match_of(self.store.presence(player_id))
        return match_id if match_id and self.creator.has_ended(match_id) else ""

    def has_ended(self, match_id: str) -> bool:
        """Whether a match matchmaking still holds players for has ended, by the match
        service (MatchServiceUnavailable when it cannot say now)."""
        link = self.link(match_id) if match_id else None
        return link is not None and not link.released and self.creator.has_ended(match_id)

    def match_of(self, presence: Presence) -> str:
        """The match of the player's room or table, while matchmaking holds them there for it."""
        place = presence.place
        if place is None or place["kind"] not in ("room", "table"):
            return ""
        source = source_of(self.store, place["kind"], UUID(place["id"]))
        match_id = source.match_id if source is not None else ""
        link = self.link(match_id) if match_id else None
        return match_id if link is not None and not link.released else ""

    def release_players(self, match_id: str, players: list[str]) -> list[str]:
        """Players who left a match that goes on without them (the server plays their seats):
        free them, and only them. Idempotent; returns who was freed now."""
        def attempt() -> list[str]:
            link = self.link(match_id)
            if link is None or link.released:
                return []
            place = "room" if link.source_kind == "room" else "table"
            freed: list[str] = []
            changed: list[Aggregate] = []
            for player in players:
                presence = self.store.load(Presence, Presence.create_id(player)) if player in link.players else None
                if presence is not None and presence.is_at(place, link.source_id):
                    presence.release(place, link.source_id, "left the match")
                    changed.append(presence)
                    freed.append(player)
            if changed:
                self.store.save_changes(*changed)
            return freed

        return self.store.run(attempt)
