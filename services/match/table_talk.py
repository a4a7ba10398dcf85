"""Table talk: the quick-chat phrases sent at a match, kept apart from the match itself.

A fixed set of phrases and emotes, so there is nothing to moderate. Each match's phrases
are their own aggregate in the same store (``TableTalk``, one per match): never part of the
Match's events, so never in its record or its hash chain, and a chat never races a move for
the match's next version. WatchMatch reads them beside the match's events.
"""

from __future__ import annotations

import uuid
from typing import Any

from eventsourcing.domain import Aggregate, event

PHRASES = ("hello", "good_luck", "well_played", "thanks", "oops", "hurry_up", "nice_move", "good_game",
           "emote_smile", "emote_laugh", "emote_thinking", "emote_sad")
TALK_NAMESPACE = uuid.UUID("b6a3c0de-2f1e-4c55-9d0b-7a1c3e5f9a21")


def talk_id(match_id: uuid.UUID) -> uuid.UUID:
    return uuid.uuid5(TALK_NAMESPACE, str(match_id))


class TableTalk(Aggregate):
    """The phrases sent at one match, in order."""

    @staticmethod
    def create_id(match_id: uuid.UUID, **_: Any) -> uuid.UUID:
        return talk_id(match_id)

    @event("Opened")
    def __init__(self, match_id: uuid.UUID) -> None:
        self.match_id = match_id
        self.sent = 0

    class PhraseSent(Aggregate.Event):
        seat: int
        player_id: str
        phrase: str

    @event(PhraseSent)
    def send(self, seat: int, player_id: str, phrase: str) -> None:
        self.sent += 1
