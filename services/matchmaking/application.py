"""Matchmaking's application: private rooms, public tables, practice against bots.

The use cases live in room_use_cases.py and table_use_cases.py (and presence_use_cases.py,
where a player is now, which reads both), on the plumbing they share
(plumbing.py: load, save every changed aggregate in one atomic call, retry a lost race);
this class combines them and injects the clock, the invite codes, the observer and the
match service (its MatchCreator and Ratings ports), so tests need no sleeping.
"""

from __future__ import annotations

import threading
import time
from typing import Callable
from uuid import UUID

from eventsourcing.utils import EnvType

from .match_starts import MatchCreator, MatchStarts, PendingStarts, Unavailable, release_match, release_players
from .options import check_strength, queue_kinds
from .plumbing import LOCK_STRIPES, Observer
from .presence import MatchLink, Presence
from .presence_use_cases import PresenceUseCases, Whereabouts
from .room_use_cases import CODE_ALPHABET, CODE_LENGTH, new_invite_code, normalized_code
from .rooms import FailedJoins
from .standings import AnyoneMayPlay, Standings
from .table_choice import NoRatings, Ratings
from .table_use_cases import TicketState
from .tables import Queue
from .waiting_queues import WaitingQueues

__all__ = ["MatchmakingApplication", "Observer", "TicketState", "Whereabouts", "CODE_ALPHABET", "CODE_LENGTH",
           "normalized_code"]


class MatchmakingApplication(PresenceUseCases):  # which is RoomUseCases and TableUseCases too
    name = "Matchmaking"  # PostgreSQL tables matchmaking_events, matchmaking_snapshots
    env = {"AGGREGATE_CACHE_MAXSIZE": "5000", "COMPRESSOR_TOPIC": ""}
    snapshotting_intervals = {Queue: 100, Presence: 50, FailedJoins: 50}

    def __init__(self, env: EnvType | None = None, matches: MatchCreator | None = None,
                 clock: Callable[[], float] = time.time, table_wait_seconds: float = 20.0,
                 table_bot_strength: str = "greedy", observer: Observer | None = None,
                 on_change: Callable[[UUID], object] = lambda aggregate_id: None,
                 code_source: Callable[[], str] = new_invite_code, ratings: Ratings | None = None,
                 table_rating_spread: float = 10.0, standings: Standings | None = None) -> None:
        check_strength(table_bot_strength)
        if table_rating_spread < 0:
            raise ValueError("table_rating_spread must not be negative")
        super().__init__(env)
        self.clock = clock
        self.table_wait_seconds = table_wait_seconds
        self.table_rating_spread = table_rating_spread  # table_choice.py
        self.ratings = ratings if ratings is not None else NoRatings()
        self.table_bot_strength = table_bot_strength
        self.observer = observer or Observer()
        self.on_change = on_change
        self.code_source = code_source
        self.standings = standings if standings is not None else AnyoneMayPlay()
        self.starts = MatchStarts(self, matches or Unavailable())
        self.waiting_queues = WaitingQueues(Queue.create_id(*kind) for kind in queue_kinds())
        self.pending_starts = PendingStarts(self)
        self._locks = [threading.Lock() for _ in range(LOCK_STRIPES)]

    # ---- match lifecycle ---------------------------------------------------------------

    def release_players(self, match_id: str, players: list[str]) -> list[str]:
        """Players who left a match that goes on without them: free them."""
        return release_players(self, match_id, players)

    def release_match(self, match_id: str) -> bool:
        """A match ended: close its room or table and free its players (idempotent)."""
        return release_match(self, match_id)

    def match_link(self, match_id: str) -> MatchLink | None:
        return self.load(MatchLink, MatchLink.create_id(match_id))
