"""Table talk: the quick-chat phrases sent at a match, kept apart from the match itself.

A fixed set of phrases and emotes, so there is nothing to moderate. Each match's phrases
are their own aggregate in the same store (``TableTalk``, one per match): never part of the
Match's events, so never in its record or its hash chain, and a chat never races a move for
the match's next version. WatchMatch reads them beside the match's events.

Every phrase is a stored event, so the talk is bounded: a match takes phrases while it is
played and for ``GRACE_SECONDS`` after it ended (time for "good game"), then refuses them
(``TableTalkClosed``, FAILED_PRECONDITION); and one player sends a match at most
``MAX_PHRASES_PER_PLAYER`` (``TableTalkFull``, RESOURCE_EXHAUSTED), at most four times that
per match. Without them a player with old matches could store phrases into every one of
them, forever, at the rate limit's pace (docs/security.md).
"""

from __future__ import annotations

import uuid
from typing import Any

from eventsourcing.domain import Aggregate, event

from .errors import TableTalkClosed, TableTalkFull

PHRASES = ("hello", "good_luck", "well_played", "thanks", "oops", "hurry_up", "nice_move", "good_game",
           "emote_smile", "emote_laugh", "emote_thinking", "emote_sad")
TALK_NAMESPACE = uuid.UUID("b6a3c0de-2f1e-4c55-9d0b-7a1c3e5f9a21")
GRACE_SECONDS = 60  # after a match ended, its table still takes phrases this long
MAX_PHRASES_PER_PLAYER = 200  # phrases one player may send one match


def check_open(finished: bool, ended_at: float | None, now: float) -> None:
    """Refuse a phrase to a match that ended more than the grace ago (``ended_at``: by the
    service's clock; None in a match that ended before its end time was stored: long ago)."""
    if not finished:
        return
    if ended_at is None or now - ended_at > GRACE_SECONDS:
        ago = "" if ended_at is None else f" {int(now - ended_at)} s ago"
        raise TableTalkClosed(f"this match ended{ago}: its table takes phrases only for {GRACE_SECONDS} s "
                              "after the end")


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
        self.sent_by: dict[int, int] = {}  # seat -> phrases it sent

    class PhraseSent(Aggregate.Event):
        seat: int
        player_id: str
        phrase: str

    def send(self, seat: int, player_id: str, phrase: str) -> None:
        """Store the phrase, unless the seat has sent as many as one player may."""
        if self.sent_by.get(seat, 0) >= MAX_PHRASES_PER_PLAYER:
            raise TableTalkFull(f"you have sent {MAX_PHRASES_PER_PLAYER} phrases at this match, as many as one "
                                "player may; nothing was sent")
        self._phrase_sent(seat=seat, player_id=player_id, phrase=phrase)

    @event(PhraseSent)
    def _phrase_sent(self, seat: int, player_id: str, phrase: str) -> None:
        self.sent += 1
        self.sent_by = {**self.sent_by, seat: self.sent_by.get(seat, 0) + 1}
