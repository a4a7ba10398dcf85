"""Fakes at the ports of the services under test."""

from __future__ import annotations

import uuid

from services.matchmaking.errors import MatchRefused, MatchServiceUnavailable
from services.matchmaking.match_starts import CreatedMatch
from services.matchmaking.options import Options


class FakeMatches:
    """Matchmaking's match service (its MatchCreator port): records CreateMatch calls; the
    same request id always names the same match. Set ``down`` or ``refusal`` to fail them;
    add a match id to ``finished`` to have it said ended (GetMatch)."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Options, tuple[str, ...]]] = []
        self.down = False
        self.refusal = ""
        self.ended = False
        self.rated: dict[str, bool | None] = {}  # request id -> whether the match was asked to be rated
        self.finished: set[str] = set()
        self.asked: list[str] = []  # the match ids has_ended was asked about

    def create_match(self, request_id, options, seats, rated=None):
        self.calls.append((request_id, options, tuple(seats)))
        self.rated[request_id] = rated
        if self.down:
            raise MatchServiceUnavailable("the match service is down")
        if self.refusal:
            raise MatchRefused(self.refusal)
        return CreatedMatch(str(uuid.uuid5(uuid.NAMESPACE_URL, request_id)), self.ended)

    def has_ended(self, match_id):
        self.asked.append(match_id)
        if self.down:
            raise MatchServiceUnavailable("the match service is down")
        return match_id in self.finished
