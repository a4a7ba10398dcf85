"""Wakes this replica's WatchNotifications streams when a notification is stored anywhere.

What this replica stores wakes its streams directly (a listener of the inbox). What
another replica stores reaches every replica through the bus: each holds a plain core
subscription to `domino.v1.notice.>` (no JetStream consumer: a wake-up missed while
disconnected is caught up by the streams' slow poll) and wakes the streams of the
recipient the message names. Without NATS, only the in-process wake-ups remain."""

from __future__ import annotations

import json
import logging
import uuid
from typing import Any

from prometheus_client import Counter

from services.common import bus
from services.common.changes import PUSH, ChangeFeed

log = logging.getLogger("domino.social")
BAD = Counter("domino_social_notice_wakeups_bad_total", "notice messages heard that named no recipient")
PENDING_MESSAGES = 10_000  # what the subscription holds unread at most; beyond, nats-py drops (and says so)


def player_key(player_id: str) -> uuid.UUID:
    """The key a player's streams wait on in the ChangeFeed."""
    return uuid.uuid5(uuid.NAMESPACE_URL, "domino-inbox:" + player_id)


def waking_local_streams(feed: ChangeFeed):
    """A listener of the inbox: the recipients' streams on this replica wake."""
    def wake(stored: list[tuple[str, str, str]]) -> None:
        for recipient in {recipient for _, recipient, _ in stored}:
            feed.publish(player_key(recipient))
    return wake


async def subscribe(nc: Any, feed: ChangeFeed) -> Any:
    """The core subscription that wakes the streams of each notice's recipient."""
    async def heard(msg: Any) -> None:
        try:
            recipient = json.loads(msg.data)["player_id"]
            if not isinstance(recipient, str) or not 0 < len(recipient) <= bus.MAX_ID:
                raise ValueError
        except (ValueError, KeyError, TypeError):
            BAD.inc()
            return
        feed.publish(player_key(recipient), PUSH)

    return await nc.subscribe(bus.ALL_NOTICES, cb=heard, pending_msgs_limit=PENDING_MESSAGES)
