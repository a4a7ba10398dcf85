"""Posting the rooms' outboxes (notices.py) to the social service's inbox.

A use case that queued notices posts them at once, after its save, so the invitee learns of
an invite within the call; when the social service is away the call still succeeds and the
notices wait. `NoticePosting` follows the store's notification log (noted by PendingStarts'
pass, as the bot-fill timer is) for every outbox that queued something and posts what each
still holds on every timer pass (DOMINO_MATCHMAKING_POLL_SECONDS) until the social service
has stored it. Every replica may post the same notice: its id is fixed, the social service
stores it once. A batch the social service refuses (invalid, or not matchmaking's to post) is
posted again one by one, and a notice refused alone is dropped, logged and counted: posted
again it would be refused again, and would hold back the room's other notices forever.
"""

from __future__ import annotations

import logging
from uuid import UUID

from eventsourcing.utils import get_topic

from services.common.logs import Warnings

from .errors import NoticesRefused, SocialUnavailable
from .notices import RoomNotices
from .plumbing import Observer, Store
from .social import Social

log = logging.getLogger("domino.matchmaking")


class NoticePosting:
    TOPIC = get_topic(RoomNotices.Queued)

    def __init__(self, store: Store, social: Social, observer: Observer) -> None:
        self.store = store
        self.social = social
        self.observer = observer
        self.pending: set[UUID] = set()  # outboxes that may hold notices
        self.warnings = Warnings(log)

    def noted(self, topic: str, originator_id: object) -> None:
        if topic == self.TOPIC:
            self.pending.add(UUID(str(originator_id)))

    def post_room(self, room_id: str) -> bool:
        return self.post(RoomNotices.create_id(room_id))

    def post(self, outbox_id: UUID) -> bool:
        """Post what the outbox holds; True once it holds nothing (a failure is logged and counted)."""
        outbox = self.store.load(RoomNotices, outbox_id)
        if outbox is None or not outbox.pending:
            return True
        notices = list(outbox.pending.values())
        done: list[str] = []
        batches = [notices]
        while batches:
            batch = batches.pop()
            try:
                self.social.post(batch)
            except SocialUnavailable as e:
                self._forget(outbox_id, done)
                waiting = len(notices) - len(done)
                self.observer.notices_not_posted(waiting)
                self.warnings.warn("notices_not_posted", "invite notifications not posted yet; they will be again",
                                   room=outbox.room_id, error=str(e)[:200])
                return False
            except NoticesRefused as e:
                if len(batch) > 1:  # one bad notice must not hold back the others: one by one
                    batches += [[notice] for notice in batch]
                    continue
                self.observer.notice_refused()
                log.error("the social service refused an invite notification; it is dropped",
                          extra={"room": outbox.room_id, "notification_id": batch[0]["id"], "error": str(e)[:200]})
            else:
                self.observer.notices_posted(len(batch))
            done += [n["id"] for n in batch]
        self._forget(outbox_id, done)
        return True

    def _forget(self, outbox_id: UUID, ids: list[str]) -> None:
        if not ids:
            return

        def attempt() -> None:
            current = self.store.load_saved(RoomNotices, outbox_id)
            current.posted(ids)
            self.store.save_changes(current)

        self.store.run(attempt)

    def step(self) -> int:
        """Post every outbox still holding notices; how many were emptied."""
        emptied = 0
        for outbox_id in list(self.pending):
            try:
                done = self.post(outbox_id)
            except Exception:  # one outbox's fault must not hold up the others
                log.exception("posting invite notifications failed", extra={"outbox": str(outbox_id)})
                continue
            if done:
                self.pending.discard(outbox_id)
                emptied += 1
        return emptied
