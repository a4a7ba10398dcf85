"""Table talk over the match service's API: SendChat stores a phrase (match/table_talk.py),
rate-limited per player and match, and wakes the match's streams; WatchMatch asks ``sent``
whether a wake may have brought a phrase (docs/design.md, "History, ratings, spectators and
table talk")."""

from __future__ import annotations

import uuid
from collections import Counter

from domino.match.v1 import match_service_pb2 as pb
from services.common.auth import Identity
from services.common.changes import ChangeFeed
from services.common.limits import RateLimit

from .application import MatchApplication
from .callers import seated
from .errors import InvalidRequest
from .messages import PHRASE_OF
from .request_checks import match_id as parse_match_id
from .table_talk import talk_id

MAX_TALK_COUNTERS = 100_000  # matches whose phrases this replica counts
CHAT_RATE, CHAT_BURST = 0.5, 3.0  # phrases a second per player and match, on average, and in a burst


class TalkRpcs:
    def __init__(self, app: MatchApplication, changes: ChangeFeed) -> None:
        self.app = app
        self.changes = changes
        self.rates = RateLimit(CHAT_RATE, CHAT_BURST)  # per player and match: table talk, not a flood
        self._sent: Counter[uuid.UUID] = Counter()  # phrases sent through this replica, per match
        # A match's table talk is an aggregate of its own: what the tail hears of it wakes the match's streams.
        changes.watch_aliases(lambda match_id: (talk_id(match_id),))

    async def send_chat(self, request: pb.SendChatRequest, who: Identity) -> pb.SendChatResponse:
        who = seated(who)
        match_id = parse_match_id(request.match_id)
        phrase = PHRASE_OF.get(request.chat_phrase)
        if phrase is None:
            raise InvalidRequest("chat_phrase must be one of DescribeRules' chat_phrases", "chat_phrase")
        self.rates.take(f"{who.subject}:{match_id}")
        await self.app.send_chat(match_id, who.subject, phrase)
        if len(self._sent) >= MAX_TALK_COUNTERS:
            self._sent.clear()  # streams then read the talk once more: harmless
        self._sent[match_id] += 1  # after the phrase is stored, before streams wake
        self.changes.publish(match_id)
        return pb.SendChatResponse()

    def sent(self, match_id: uuid.UUID) -> int:
        """Phrases sent to the match through this replica (a count that changes, not a version):
        a stream woken by a change made here reads the talk again only when it moved."""
        return self._sent.get(match_id, 0)
