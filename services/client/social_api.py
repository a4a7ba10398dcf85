"""The social service as the client uses it (domino.social.v1): friends, requests and
blocks, and the inbox. Lists are read whole, a page at a time, up to a bound: a screen
shows them all, and a player has a few hundred at most (docs/social.md's limits)."""

from __future__ import annotations

from typing import Any, Callable, Iterable, TypeVar

from domino.social.v1 import social_service_pb2 as so
from domino.social.v1 import social_service_pb2_grpc as so_grpc

from .api import CALL_TIMEOUT, TokenSource, _Stub, request_id

PAGE = 100  # the most a page may hold
MAX_PAGES = 20  # 2,000 rows: more than any list the server's limits allow
INBOX_PAGE = 30  # notifications shown at a time

T = TypeVar("T")


class SocialApi(_Stub):
    def __init__(self, address: str, token: str | TokenSource, **kw) -> None:
        super().__init__(address, token, **kw)
        self.stub = so_grpc.SocialServiceStub(self.channel)

    def friend_code(self) -> str:
        return self.call(self.stub.GetFriendCode, so.GetFriendCodeRequest(), retry=True).friend_code

    def send_request(self, display_name: str = "", friend_code: str = "") -> so.SendFriendRequestResponse:
        """By name or by code (one of the two). Retried with its request id: a second send
        answers the first outcome."""
        request = so.SendFriendRequestRequest(request_id=request_id())
        if friend_code:
            request.friend_code = friend_code
        else:
            request.display_name = display_name
        return self.call(self.stub.SendFriendRequest, request, retry=True)

    def accept(self, player_id: str) -> so.Friend:
        return self.call(self.stub.AcceptFriendRequest, so.AcceptFriendRequestRequest(player_id=player_id),
                         retry=True).friend

    def decline(self, player_id: str) -> None:
        self.call(self.stub.DeclineFriendRequest, so.DeclineFriendRequestRequest(player_id=player_id))

    def cancel(self, player_id: str) -> None:
        self.call(self.stub.CancelFriendRequest, so.CancelFriendRequestRequest(player_id=player_id))

    def remove(self, player_id: str) -> bool:
        return self.call(self.stub.RemoveFriend, so.RemoveFriendRequest(player_id=player_id), retry=True).removed

    def block(self, player_id: str) -> None:
        self.call(self.stub.BlockPlayer, so.BlockPlayerRequest(player_id=player_id), retry=True)

    def unblock(self, player_id: str) -> bool:
        return self.call(self.stub.UnblockPlayer, so.UnblockPlayerRequest(player_id=player_id), retry=True).unblocked

    def friends(self) -> list[so.Friend]:
        return _all(lambda token: self.call(self.stub.ListFriends, so.ListFriendsRequest(
            page_size=PAGE, page_token=token), retry=True), lambda page: page.friends)

    def requests(self) -> list[so.FriendRequest]:
        """Pending requests both ways, the newest first."""
        return _all(lambda token: self.call(self.stub.ListFriendRequests, so.ListFriendRequestsRequest(
            page_size=PAGE, page_token=token), retry=True), lambda page: page.requests)

    def blocked(self) -> list[so.BlockedPlayer]:
        return _all(lambda token: self.call(self.stub.ListBlockedPlayers, so.ListBlockedPlayersRequest(
            page_size=PAGE, page_token=token), retry=True), lambda page: page.blocked)

    # ---- the inbox ----------------------------------------------------------------------

    def notifications(self, page_token: str = "", page_size: int = INBOX_PAGE) -> so.ListNotificationsResponse:
        request = so.ListNotificationsRequest(page_size=page_size, page_token=page_token)
        return self.call(self.stub.ListNotifications, request, retry=True)

    def unread_count(self, timeout: float = CALL_TIMEOUT) -> int:
        request = so.ListNotificationsRequest(page_size=1, unread_only=True)
        return self.call(self.stub.ListNotifications, request, timeout=timeout).unread_count

    def mark_read(self, notification_ids: list[str] | None = None) -> int:
        """Those named, or every one when none is; the unread count after."""
        request = so.MarkNotificationsReadRequest(notification_ids=notification_ids or [], all=not notification_ids)
        return self.call(self.stub.MarkNotificationsRead, request, retry=True).unread_count

    def watch_notifications(self):
        """The WatchNotifications call (iterate it; ``cancel()`` ends it)."""
        return self.stream(self.stub.WatchNotifications, so.WatchNotificationsRequest())

    def _probe(self):
        return self.stub.GetFriendCode, so.GetFriendCodeRequest()


def _all(page_of: Callable[[str], Any], rows_of: Callable[[Any], Iterable[T]]) -> list[T]:
    rows: list[T] = []
    token = ""
    for _ in range(MAX_PAGES):
        page = page_of(token)
        rows.extend(rows_of(page))
        token = page.next_page_token
        if not token:
            break
    return rows
