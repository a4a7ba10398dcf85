"""Matchmaking's application: private rooms, public tables, practice against bots.

The eventsourcing Application owns the store; this class composes the rest on it and is
the only place that does. Each use case object is given exactly what it uses: the `Store`
(plumbing.py: load, save every changed aggregate in one atomic call, retry a lost race),
the clock and invite codes (injected, so tests need no sleeping), the observer, the
account service's standings and the match service behind its MatchCreator and Ratings
ports. Callers use them by name: `rooms` (room_use_cases.py), `tables` (public tables and
practice, table_use_cases.py), `players` (where a player is, presence_use_cases.py),
`ends` (a match ended, or players left it), `starts` and `pending_starts` (match_starts.py),
`waiting_queues` (the bot-fill timer's, waiting_queues.py), `invites` (invite_use_cases.py),
`rematches` (rematch_use_cases.py) and `notices` (their notifications' posting to the social
service behind the Social port, notice_posting.py). One pass over the store's notification
log (PendingStarts.follow_store) tells the bot-fill timer, the notices' poster and the
rematch rooms' self-start what changed.
"""

from __future__ import annotations

import time
from typing import Callable
from uuid import UUID

from eventsourcing.application import Application
from eventsourcing.utils import EnvType

from services.common.store_settings import ExplicitStore

from .match_ends import MatchEnds
from .match_starts import MatchCreator, MatchStarts, PendingStarts, Unavailable
from .options import queue_kinds
from .plumbing import Observer, Store
from .presence import MatchLink, Presence
from .presence_use_cases import PresenceUseCases, Whereabouts
from .room_use_cases import CODE_ALPHABET, CODE_LENGTH, RoomUseCases, new_invite_code, normalized_code
from .invite_use_cases import InviteUseCases
from .notice_posting import NoticePosting
from .rematch_use_cases import RematchUseCases
from .rooms import FailedJoins
from .social import NoSocial, Social
from .standings import AnyoneMayPlay, Standings
from .table_choice import NoRatings, Ratings
from .table_use_cases import TableSettings, TableUseCases, TicketState
from .tables import Queue
from .waiting_queues import WaitingQueues

__all__ = ["MatchmakingApplication", "Observer", "TicketState", "Whereabouts", "CODE_ALPHABET", "CODE_LENGTH",
           "normalized_code"]


class MatchmakingApplication(ExplicitStore, Application[UUID]):
    name = "Matchmaking"  # PostgreSQL tables matchmaking_events, matchmaking_snapshots
    env = {"AGGREGATE_CACHE_MAXSIZE": "5000", "COMPRESSOR_TOPIC": ""}
    snapshotting_intervals = {Queue: 100, Presence: 50, FailedJoins: 50}

    def __init__(self, env: EnvType | None = None, matches: MatchCreator | None = None,
                 clock: Callable[[], float] = time.time, table_wait_seconds: float = 20.0,
                 table_bot_strength: str = "greedy", observer: Observer | None = None,
                 on_change: Callable[[UUID], object] = lambda aggregate_id: None,
                 code_source: Callable[[], str] = new_invite_code, ratings: Ratings | None = None,
                 table_rating_spread: float = 10.0, standings: Standings | None = None,
                 practice_rated: bool = False, social: Social | None = None,
                 invite_ttl_seconds: float = 600.0) -> None:
        settings = TableSettings(table_wait_seconds, table_bot_strength, table_rating_spread)  # refused before opening
        super().__init__(env)
        observer = observer or Observer()
        standings = standings if standings is not None else AnyoneMayPlay()
        self.matches: MatchCreator = matches or Unavailable()
        self.waiting_queues = WaitingQueues(Queue.create_id(*kind) for kind in queue_kinds())
        self.store = Store(self.repository, self.events, self.save, observer, on_change, self.waiting_queues.changed)
        self.ends = MatchEnds(self.store, self.matches)
        self.starts = MatchStarts(self.store, self.matches, observer, self.ends.release_match, practice_rated)
        self.notices = NoticePosting(self.store, social if social is not None else NoSocial(), observer)
        self.rooms = RoomUseCases(self.store, self.starts, self.ends, clock, code_source, standings)
        self.invites = InviteUseCases(self.store, self.starts, self.ends, self.notices.social, self.notices, clock,
                                      standings, invite_ttl_seconds)
        self.rematches = RematchUseCases(self.store, self.invites, self.starts, self.ends, self.matches, clock,
                                         code_source, standings, invite_ttl_seconds)
        self.pending_starts = PendingStarts(self.recorder, self.store, self.starts, clock, self._noted)
        self.tables = TableUseCases(self.store, self.starts, self.ends, clock, standings,
                                    ratings if ratings is not None else NoRatings(), observer, self.waiting_queues,
                                    settings)
        self.players = PresenceUseCases(self.store, self.tables.ticket, self.ends)
        self.clock = clock

    def _noted(self, topic: str, originator_id: object) -> None:
        self.waiting_queues.noted(topic, originator_id)
        self.notices.noted(topic, originator_id)
        self.rematches.noted(topic, originator_id)

    # Reads for operators and tests: what the store says of a player and of a match.

    def presence(self, player_id: str) -> Presence:
        return self.store.presence(player_id)

    def match_link(self, match_id: str) -> MatchLink | None:
        return self.ends.link(match_id)
