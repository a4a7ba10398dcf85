"""The inbox's unread count as the menu shows it, kept by a WatchNotifications stream while
the menu is open (which also shows the player online to their friends).

The stream's Pump (inbox.Pump) puts into this object instead of the client's queue: the
menu waits on typed lines only, and a count needs no queue, just its latest value. When
the stream is not there (lost, or a server without an inbox) the count is asked once per
menu with ListNotifications, and left out when that fails too."""

from __future__ import annotations

import logging
from typing import Any

from domino.social.v1 import social_service_pb2 as so

from .api import ApiError
from .inbox import Inbox, Pump
from .social_api import SocialApi

ASK_TIMEOUT = 2.0  # the menu waits no longer than this for a count
log = logging.getLogger(__name__)


class UnreadCount(Inbox):
    def __init__(self, social: SocialApi) -> None:
        super().__init__()
        self.social = social
        self.count: int | None = None  # None: not known from the stream now
        self.latest: so.Notification | None = None  # the newest the stream brought
        self.pump: Pump | None = None

    def put(self, kind: str, value: Any = None, source: object = None) -> None:
        if kind == "notice":
            self.count = value.unread_count
            if value.HasField("notification"):
                self.latest = value.notification
        elif kind == "stream-error":
            log.info("the notifications stream ended: %s", value)
            self.count = None
        elif kind == "link" and value == "lost":
            self.count = None

    def start(self) -> None:
        if self.pump is None:
            self.pump = Pump(self, "notice", lambda last: self.social.watch_notifications(),
                             reopen_when_done=lambda last: True).start()

    def stop(self) -> None:
        if self.pump is not None:
            self.pump.stop()
            self.pump = None

    def set(self, count: int) -> None:
        """The count a call just answered (MarkNotificationsRead): the stream tells only of new ones."""
        self.count = count
        if count == 0:
            self.latest = None

    def now(self) -> int | None:
        """The unread count: the stream's, else asked (None when neither answers)."""
        if self.count is not None:
            return self.count
        try:
            return self.social.unread_count(ASK_TIMEOUT)
        except ApiError:
            return None

    def label(self) -> str:
        count = self.now()
        return "Inbox" + (f" ({count} unread)" if count else "")
