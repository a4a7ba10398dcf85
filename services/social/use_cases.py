"""The social service's use cases: friend codes, friend requests, friendships, blocks and
their lists (docs/social.md), pure of gRPC. Each runs in one store transaction and does all
it says or nothing; a transaction that loses a race is run again (services/common/sql.py's
Conflict), and after a few losses the call is Busy. Time comes from the injected clock.

Who a display name or a friend code names is the account service's to say (the Directory
port: services/social/account_client.py over gRPC, a fake in the unit tests); it is asked
outside the transaction, and the block and friendship rules are then applied inside it.

A block is never revealed to the blocked player: whatever the blocked player asks about the
blocker is answered as if the blocker did not exist (PLAYER_NOT_FOUND).
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any, Callable, Protocol

from services.common.bot_ids import is_bot
from services.common.sql import Conflict

from . import codes
from .errors import Busy, Exhausted, InvalidRequest, NotFound, Refused, RequestIdReused
from .inbox import Announced, Inbox
from .notices import Draft, notice_id
from .paging import check_page_size, next_page_token, page_start
from .store import Row, SocialStore
from .transactions import retried_on_conflict

log = logging.getLogger("domino.social")
HOUR = 3600.0
DAY = 86400.0
CODE_DRAWS = 8  # a new code that another player holds is drawn again, this many times at most
MAX_REQUEST_ID = 64
MAX_PLAYER_ID = 200
MAX_DISPLAY_NAME = 80
EXPORT_ROWS = 100_000  # far above every limit: the export holds every row


class Directory(Protocol):
    """The account service's side: who is behind a display name, and whether an account
    still exists."""

    def find_by_display_name(self, display_name: str) -> str | None: ...

    def exists(self, player_id: str) -> bool: ...


@dataclass(frozen=True)
class Limits:
    friends: int = 200
    pending_requests: int = 50
    requests_per_hour: int = 20
    blocks: int = 1000
    incoming_requests: int = 100


@dataclass(frozen=True)
class FriendView:
    player_id: str
    since: float


@dataclass(frozen=True)
class RequestView:
    player_id: str  # the other player
    incoming: bool
    sent_at: float


@dataclass(frozen=True)
class BlockView:
    player_id: str
    blocked_at: float


@dataclass(frozen=True)
class SendOutcome:
    """A pending request (``request``) or, when theirs was accepted, a friendship (``friend``)."""
    request: RequestView | None = None
    friend: FriendView | None = None


@dataclass(frozen=True)
class PlayerData:
    """A player's part of the social store, for ExportMyData."""
    friend_code: str
    friend_code_created_at: float | None
    friends: list[FriendView]
    requests: list[RequestView]
    blocks: list[BlockView]


@dataclass(frozen=True)
class Page:
    items: list[Any]
    next_page_token: str


@dataclass(frozen=True)
class Target:
    """Whom a SendFriendRequest names: by ``display_name`` or by ``friend_code``."""
    display_name: str = ""
    friend_code: str = ""


class Social:
    def __init__(self, store: SocialStore, directory: Directory, limits: Limits | None = None,
                 clock: Callable[[], float] = time.time, inbox: Inbox | None = None) -> None:
        self.store = store
        self.directory = directory
        self.limits = limits or Limits()
        self.clock = clock
        self.inbox = inbox if inbox is not None else Inbox(store, clock)

    # ---- friend codes -----------------------------------------------------------------------

    @retried_on_conflict
    def friend_code(self, player_id: str) -> str:
        """The player's code, made at the first call (a code another holds is drawn again)."""
        with self.store.transaction() as execute:
            found = self.store.code_of(execute, player_id)
        if found is not None:
            return codes.shown(found)
        for _ in range(CODE_DRAWS):
            code = codes.new_code()
            try:
                with self.store.transaction() as execute:
                    if self.store.code_of(execute, player_id) is None and self.store.code_owner(execute, code) is None:
                        self.store.add_code(execute, player_id, code, self.clock())
                    mine = self.store.code_of(execute, player_id)
            except Conflict:
                continue  # another call made this player's code, or another player holds this one
            if mine is not None:
                return codes.shown(mine)
        raise Busy("could not make a friend code; try again", retry_after=0.1)

    # ---- requests ---------------------------------------------------------------------------

    def send_request(self, player_id: str, request_id: str, target: Target) -> SendOutcome:
        """Validates the request, answers a request id's first outcome, counts the send
        against the hour's, asks who the target is, then applies the rules."""
        check_request_id(request_id)
        fingerprint = self._target_fingerprint(target)
        known = self._replay(player_id, request_id, fingerprint)
        if known is not None:
            return known
        self._count_send(player_id)
        other = self._resolve(target)
        return self._send(player_id, request_id, fingerprint, other)

    @staticmethod
    def _target_fingerprint(target: Target) -> str:
        if target.display_name:
            if len(target.display_name) > MAX_DISPLAY_NAME:
                raise InvalidRequest(f"display_name is longer than {MAX_DISPLAY_NAME} characters", "display_name")
            return "name:" + target.display_name
        if target.friend_code:
            code = codes.normalized(target.friend_code)
            if code is None:
                raise InvalidRequest("friend_code must be 8 letters and digits (XXXX-XXXX)", "friend_code")
            return "code:" + code
        raise InvalidRequest("name the player by display_name or friend_code", "display_name")

    def _replay(self, player_id: str, request_id: str, fingerprint: str) -> SendOutcome | None:
        with self.store.transaction() as execute:
            found = self.store.outcome(execute, player_id, request_id)
        if found is None:
            return None
        if found[0] != fingerprint:
            raise RequestIdReused("this request_id was used for another request; make a new one for each request")
        return _outcome_of(found[1])

    @retried_on_conflict
    def _count_send(self, player_id: str) -> None:
        now = self.clock()
        with self.store.transaction() as execute:
            sent = self.store.sends_since(execute, player_id, now - HOUR)
            if len(sent) >= self.limits.requests_per_hour:
                wait = max(1.0, sent[len(sent) - self.limits.requests_per_hour] + HOUR - now)
                raise Exhausted(f"at most {self.limits.requests_per_hour} friend requests an hour; the next one in "
                                f"{int(wait // 60) + 1} minutes", retry_after=wait)
            self.store.count_send(execute, player_id, now, now - HOUR)

    def _resolve(self, target: Target) -> str:
        if target.display_name:
            found = self.directory.find_by_display_name(target.display_name)
        else:
            code = codes.normalized(target.friend_code)
            assert code is not None  # checked by _target_fingerprint
            with self.store.transaction() as execute:
                found = self.store.code_owner(execute, code)
            if found is not None and not self.directory.exists(found):
                found = None  # a deleted account's code leads to no one
        if found is None or is_bot(found):
            raise NotFound("no player by that name or code")
        return found

    @retried_on_conflict
    def _send(self, player_id: str, request_id: str, fingerprint: str, other: str) -> SendOutcome:
        now = self.clock()
        told: Announced = []
        with self.store.transaction() as execute:
            if other == player_id:
                raise Refused("that is you", error_reason="YOURSELF")
            if self.store.blocked_at(execute, other, player_id) is not None:
                raise NotFound("no player by that name or code")  # the block is not revealed
            if self.store.blocked_at(execute, player_id, other) is not None:
                raise Refused("you block this player: unblock them first", error_reason="PLAYER_BLOCKED")
            if self.store.friends_since(execute, player_id, other) is not None:
                raise Refused("you are friends already", error_reason="ALREADY_FRIENDS")
            theirs = self.store.request(execute, other, player_id)
            mine = self.store.request(execute, player_id, other)
            if theirs is not None:
                self._room_for_a_friend(execute, player_id, other)
                self.store.remove_request(execute, other, player_id)
                self.store.befriend(execute, player_id, other, now)
                told += self._tell(execute, other, "friend_accepted", player_id, now)
                outcome = SendOutcome(friend=FriendView(other, now))
            elif mine is not None:
                outcome = SendOutcome(request=RequestView(other, False, mine.sent_at))
            else:
                if self.store.pending_sent(execute, player_id) >= self.limits.pending_requests:
                    raise Refused(f"you have {self.limits.pending_requests} friend requests waiting for an answer, "
                                  "as many as one may: cancel one first", error_reason="TOO_MANY_PENDING_REQUESTS",
                                  )
                if self.store.friend_count(execute, player_id) >= self.limits.friends:
                    raise Refused(f"you have {self.limits.friends} friends, as many as one may: remove one first",
                                  error_reason="TOO_MANY_FRIENDS")
                if self.store.pending_received(execute, other) >= self.limits.incoming_requests:
                    raise Refused(f"this player has {self.limits.incoming_requests} friend requests waiting for "
                                  "their answer, as many as one may hold", error_reason="TOO_MANY_PENDING_REQUESTS")
                self.store.add_request(execute, player_id, other, now)
                told += self._tell(execute, other, "friend_request", player_id, now)
                outcome = SendOutcome(request=RequestView(other, False, now))
            self.store.keep_outcome(execute, player_id, request_id, fingerprint, _outcome_json(outcome), now,
                                    now - DAY)
        self.inbox.announce(told)
        return outcome

    def _tell(self, execute: Any, recipient: str, kind: str, about: str, now: float) -> Announced:
        """In the action's own transaction: ``recipient``'s notification of it."""
        draft = Draft(notice_id(kind, about, recipient, now), recipient, kind, f"notice.{kind}", {}, player_id=about)
        return [(draft.notification_id, recipient, kind)] if self.inbox.add(execute, draft, now) else []

    def _room_for_a_friend(self, execute: Any, player_id: str, other: str) -> None:
        if self.store.friend_count(execute, player_id) >= self.limits.friends:
            raise Refused(f"you have {self.limits.friends} friends, as many as one may: remove one first",
                          error_reason="TOO_MANY_FRIENDS")
        if self.store.friend_count(execute, other) >= self.limits.friends:
            raise Refused(f"this player has {self.limits.friends} friends, as many as one may",
                          error_reason="TOO_MANY_FRIENDS")

    @retried_on_conflict
    def accept(self, player_id: str, sender_id: str) -> FriendView:
        check_player_id(sender_id)
        now = self.clock()
        with self.store.transaction() as execute:
            since = self.store.friends_since(execute, player_id, sender_id)
            if since is not None:
                return FriendView(sender_id, since)  # accepted already: a retry
            if self.store.request(execute, sender_id, player_id) is None:
                raise NotFound("no friend request from this player", error_reason="FRIEND_REQUEST_NOT_FOUND")
            self._room_for_a_friend(execute, player_id, sender_id)
            self.store.remove_request(execute, sender_id, player_id)
            self.store.remove_request(execute, player_id, sender_id)
            self.store.befriend(execute, player_id, sender_id, now)
            told = self._tell(execute, sender_id, "friend_accepted", player_id, now)
        self.inbox.announce(told)
        return FriendView(sender_id, now)

    @retried_on_conflict
    def decline(self, player_id: str, sender_id: str) -> None:
        check_player_id(sender_id)
        with self.store.transaction() as execute:
            if not self.store.remove_request(execute, sender_id, player_id):
                raise NotFound("no friend request from this player", error_reason="FRIEND_REQUEST_NOT_FOUND")

    @retried_on_conflict
    def cancel(self, player_id: str, recipient_id: str) -> None:
        check_player_id(recipient_id)
        with self.store.transaction() as execute:
            if not self.store.remove_request(execute, player_id, recipient_id):
                raise NotFound("no friend request of yours to this player", error_reason="FRIEND_REQUEST_NOT_FOUND")

    # ---- friendships and blocks -------------------------------------------------------------

    @retried_on_conflict
    def remove_friend(self, player_id: str, friend_id: str) -> bool:
        check_player_id(friend_id)
        with self.store.transaction() as execute:
            return self.store.unfriend(execute, player_id, friend_id)

    def block(self, player_id: str, other: str) -> BlockView:
        check_player_id(other)
        if other == player_id:
            raise Refused("you cannot block yourself", error_reason="YOURSELF")
        if is_bot(other) or not self.directory.exists(other):
            raise NotFound("no such player")
        return self._block(player_id, other)

    @retried_on_conflict
    def _block(self, player_id: str, other: str) -> BlockView:
        now = self.clock()
        with self.store.transaction() as execute:
            since = self.store.blocked_at(execute, player_id, other)
            if since is not None:
                return BlockView(other, since)
            if self.store.block_count(execute, player_id) >= self.limits.blocks:
                raise Refused(f"you block {self.limits.blocks} players, as many as one may: unblock one first",
                              error_reason="TOO_MANY_BLOCKS")
            self.store.block(execute, player_id, other, now)
        return BlockView(other, now)

    @retried_on_conflict
    def unblock(self, player_id: str, other: str) -> bool:
        check_player_id(other)
        with self.store.transaction() as execute:
            return self.store.unblock(execute, player_id, other)

    # ---- lists ------------------------------------------------------------------------------

    def friends(self, player_id: str, page_size: int, page_token: str) -> Page:
        size, after = _paging(page_size, page_token, "f")
        with self.store.transaction() as execute:
            rows = self.store.friends(execute, player_id, after, size + 1)
        return _page([FriendView(r.player_id, r.at) for r in rows[:size]], rows, size, "f")

    def requests(self, player_id: str, incoming: bool, outgoing: bool, page_size: int, page_token: str) -> Page:
        kind = "r" + ("i" if incoming else "") + ("o" if outgoing else "")
        size, after = _paging(page_size, page_token, kind)
        with self.store.transaction() as execute:
            rows = self.store.requests(execute, player_id, incoming, outgoing, after, size + 1)
        return _page([RequestView(r.player_id, inbound, r.at) for r, inbound in rows[:size]], [r for r, _ in rows],
                     size, kind)

    def blocks(self, player_id: str, page_size: int, page_token: str) -> Page:
        size, after = _paging(page_size, page_token, "b")
        with self.store.transaction() as execute:
            rows = self.store.blocks(execute, player_id, after, size + 1)
        return _page([BlockView(r.player_id, r.at) for r in rows[:size]], rows, size, "b")


    # ---- for matchmaking ----------------------------------------------------------------------

    def relations(self, player_id: str, others: list[str]) -> list[tuple[str, bool, bool]]:
        """(other, friends, a block either way) for each of ``others``, in their order."""
        check_player_id(player_id)
        for other in others:
            if not other or len(other) > MAX_PLAYER_ID:
                raise InvalidRequest(f"each of others must be a player id of 1-{MAX_PLAYER_ID} characters", "others")
        with self.store.transaction() as execute:
            return [(other, self.store.friends_since(execute, player_id, other) is not None,
                     self.store.blocked_at(execute, player_id, other) is not None
                     or self.store.blocked_at(execute, other, player_id) is not None) for other in others]

    # ---- a player's data, for the account service -------------------------------------------

    def export(self, player_id: str) -> PlayerData:
        """What the store holds about ``player_id``: its code, friends, pending requests both
        ways and whom it blocks (not who blocks it: that is the blocker's data)."""
        check_erasable(player_id)
        with self.store.transaction() as execute:
            code = self.store.code_row(execute, player_id)
            friends = self.store.friends(execute, player_id, None, EXPORT_ROWS)
            requests = self.store.requests(execute, player_id, True, True, None, EXPORT_ROWS)
            blocks = self.store.blocks(execute, player_id, None, EXPORT_ROWS)
        return PlayerData(friend_code=codes.shown(code[0]) if code else "",
                          friend_code_created_at=code[1] if code else None,
                          friends=[FriendView(r.player_id, r.at) for r in friends],
                          requests=[RequestView(r.player_id, inbound, r.at) for r, inbound in requests],
                          blocks=[BlockView(r.player_id, r.at) for r in blocks])

    @retried_on_conflict
    def erase(self, player_id: str) -> int:
        """Every row naming a deleted account's ``player_id`` goes; how many (0 the second time)."""
        check_erasable(player_id)
        with self.store.transaction() as execute:
            rows = self.store.erase(execute, player_id, self.clock())
        log.info("social data erased for a deleted account", extra={"player": player_id, "rows": rows})
        return rows


# ---- request checks (each field alone) ------------------------------------------------------

def check_erasable(player_id: str) -> None:
    """A person's id, as the account service names a deleted account (bots hold no social rows)."""
    check_player_id(player_id)
    if is_bot(player_id):
        raise InvalidRequest("player_id must be a person's id, not a bot's", "player_id")


def check_request_id(request_id: str) -> None:
    if not request_id:
        raise InvalidRequest("request_id is required (a new random one per request, e.g. a UUID)", "request_id")
    if len(request_id) > MAX_REQUEST_ID:
        raise InvalidRequest(f"request_id is longer than {MAX_REQUEST_ID} characters", "request_id")


def check_player_id(player_id: str) -> None:
    if not player_id:
        raise InvalidRequest("player_id is required", "player_id")
    if len(player_id) > MAX_PLAYER_ID:
        raise InvalidRequest(f"player_id is longer than {MAX_PLAYER_ID} characters", "player_id")


def _paging(page_size: int, page_token: str, kind: str) -> tuple[int, Row | None]:
    size = check_page_size(page_size)
    start = page_start(page_token, kind, "p")
    return size, None if start is None else Row(*start)


def _page(items: list[Any], rows: list[Row], size: int, kind: str) -> Page:
    if len(rows) <= size:
        return Page(items, "")
    last = rows[size - 1]
    return Page(items, next_page_token(kind, "p", last.player_id, last.at))


def _outcome_json(outcome: SendOutcome) -> dict[str, Any]:
    if outcome.friend is not None:
        return {"friend": [outcome.friend.player_id, outcome.friend.since]}
    assert outcome.request is not None
    return {"request": [outcome.request.player_id, outcome.request.sent_at]}


def _outcome_of(kept: dict[str, Any]) -> SendOutcome:
    if "friend" in kept:
        return SendOutcome(friend=FriendView(kept["friend"][0], float(kept["friend"][1])))
    return SendOutcome(request=RequestView(kept["request"][0], False, float(kept["request"][1])))
