"""SocialService's inbox RPCs (ListNotifications, MarkNotificationsRead, WatchNotifications):
a mixin of SocialServicer, which gives it ``self.social`` (its ``inbox``), ``self.presence``,
``self.wakes``, ``self.inbox_streams``, ``self.poll_seconds``, ``self._caller`` and the
status mapping.

A stream sends first how things stand (the unread count, the server's clock), then each
notification stored for the caller after it opened, once, whatever replica stored it
(notice_wakeups.py). It lives no longer than its token, ends when its session is revoked
(as WatchMatch does), and counts the player as online while it is open (presence.py)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, AsyncIterator

from domino.social.v1 import social_service_pb2 as pb
from services.common.grpc_status import end_at_expiry

from .inbox import STREAM_BATCH, STREAM_MARGIN
from .inbox_store import Key, Stored
from .notice_wakeups import player_key
from .statuses import DOMAIN, run, statuses, timestamp

if TYPE_CHECKING:
    from .statuses import Context


def notification_pb(n: Stored) -> pb.Notification:
    return pb.Notification(notification_id=n.notification_id, kind=_kind(n.kind), text_key=n.text_key,
                           args=n.args, created_at=timestamp(n.created_at), expires_at=timestamp(n.expires_at),
                           read=n.read, player_id=n.player_id, match_id=n.match_id, room_id=n.room_id,
                           invite_id=n.invite_id)


def _kind(name: str) -> Any:
    return pb.NotificationKind.Value("NOTIFICATION_KIND_" + name.upper())


class InboxRpcs:
    social: Any
    presence: Any
    wakes: Any
    inbox_streams: Any
    revocations: Any
    poll_seconds: float

    async def ListNotifications(self, request: pb.ListNotificationsRequest,
                                context: Context) -> pb.ListNotificationsResponse:
        async with statuses(context):
            page = await run(self.social.inbox.page, self._player(context), request.page_size,  # type: ignore[attr-defined]
                             request.page_token, request.unread_only)
            return pb.ListNotificationsResponse(notifications=[notification_pb(n) for n in page.items],
                                                next_page_token=page.next_page_token,
                                                unread_count=page.unread_count)

    async def MarkNotificationsRead(self, request: pb.MarkNotificationsReadRequest,
                                    context: Context) -> pb.MarkNotificationsReadResponse:
        async with statuses(context):
            unread = await run(self.social.inbox.mark_read, self._player(context),  # type: ignore[attr-defined]
                               list(request.notification_ids), request.all)
            return pb.MarkNotificationsReadResponse(unread_count=unread)

    async def WatchNotifications(self, request: pb.WatchNotificationsRequest,
                                 context: Context) -> AsyncIterator[pb.WatchNotificationsResponse]:
        async with statuses(context):
            who = self._caller(context)  # type: ignore[attr-defined]
            player = who.subject
            self.inbox_streams.acquire(player)
        try:
            async with statuses(context):
                try:
                    await self.presence.opened(player)  # counted at once: a cancel while it writes is closed too
                    with self.revocations.ending(who, self.wakes, player_key(player)):
                        async for reply in self._watch_inbox(who, context):
                            yield reply
                finally:
                    self.presence.close_soon(player)
        finally:
            self.inbox_streams.release(player)

    async def _batches(self, player: str, low: float) -> AsyncIterator[tuple[list[Stored], int]]:
        """What inbox.since holds from ``low`` on, batch after batch: a full batch goes on
        after its last (created_at, id), so however many were stored in one margin, each
        is read."""
        after = None
        while True:
            rows, unread = await run(self.social.inbox.since, player, low, after)
            yield rows, unread
            if len(rows) < STREAM_BATCH:
                return
            after = Key(rows[-1].created_at, rows[-1].notification_id)

    async def _watch_inbox(self, who: Any, context: Context) -> AsyncIterator[pb.WatchNotificationsResponse]:
        inbox = self.social.inbox
        player = who.subject
        low = inbox.clock() - STREAM_MARGIN
        sent: dict[str, float] = {}
        async for rows, unread in self._batches(player, low):
            sent.update((n.notification_id, n.created_at) for n in rows)  # there before it opened: not sent
        yield pb.WatchNotificationsResponse(unread_count=unread, server_time=timestamp(inbox.clock()))
        while True:
            with self.wakes.waiter(player_key(player)) as waiter:
                self.revocations.check(who)  # its session revoked (the wake says so): UNAUTHENTICATED
                newest = None
                async for rows, unread in self._batches(player, low):
                    for n in rows:
                        if n.notification_id not in sent:
                            sent[n.notification_id] = n.created_at
                            yield pb.WatchNotificationsResponse(notification=notification_pb(n),
                                                                unread_count=unread,
                                                                server_time=timestamp(inbox.clock()))
                    newest = rows[-1].created_at if rows else newest
                if newest is not None:
                    low = max(low, newest - STREAM_MARGIN)
                    sent = {i: at for i, at in sent.items() if at >= low}
                if self.wakes.closed:
                    return
                await end_at_expiry(context, who, DOMAIN)
                await waiter.wait(min(self.poll_seconds, max(0.0, who.expires_at - time.time())))

