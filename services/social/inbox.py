"""The inbox's use cases: storing notifications (posted by services, or by the social
service's own use cases inside their transactions), listing them, marking them read,
reading what a stream has not sent yet, claiming one for a push, sweeping expired ones.

Who may not get a notification is decided here, in the storing transaction: a bot, an
erased account (its tombstone), a notification naming an erased player, the recipient who
blocks the player a FRIEND_REQUEST, INVITE, REMATCH or INVITE_ANSWERED comes from (a
blocked player cannot make the blocker's phone buzz), and the recipient who already holds
``per_sender`` live unread ones of that kind from that player (no one fills another's
inbox or buzzes their phone without end). What was stored is announced after the commit
(``listeners``): this replica's streams and its outbox publisher wake at once."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from services.common.bot_ids import is_bot
from services.common.sql import Execute

from .errors import InvalidRequest, NotFound
from .inbox_store import InboxStore, Key, Stored
from .notices import FROM_A_PLAYER, Draft, lifetime
from .paging import check_page_size, next_page_token, page_start
from .store import SocialStore
from .transactions import retried_on_conflict

log = logging.getLogger("domino.social")
MAX_MARKED = 100
# How far back a stream looks for notifications stored late (a slow transaction, another
# replica's clock): it sends each one once whatever their order.
STREAM_MARGIN = 10.0
STREAM_BATCH = 100
CLAIM_RETRY_SECONDS = 3600.0  # how long a claim's own retry is answered as the claim was
Announced = list[tuple[str, str, str]]  # (notification id, recipient, kind) of what was stored


@dataclass(frozen=True)
class InboxPage:
    items: list[Stored]
    next_page_token: str
    unread_count: int


@dataclass(frozen=True)
class Claim:
    """``decision`` "gone", "already_claimed", or what ``decide`` said of the first claim
    ("send", "opted_out", ...), with the phones to push to."""
    decision: str
    notification: Stored | None = None
    targets: list[Any] = field(default_factory=list)


Decide = Callable[[Execute, str, str, float], tuple[str, list[Any]]]
Phones = Callable[[Execute, str], list[Any]]


class Inbox:
    def __init__(self, store: SocialStore, clock: Callable[[], float] = time.time,
                 default_days: float = 30.0, per_sender: int = 3, export_max: int = 1000) -> None:
        self.store = store
        self.clock = clock
        self.default_days = default_days
        self.per_sender = per_sender
        self.export_max = export_max
        self.listeners: list[Callable[[Announced], None]] = []

    def create(self) -> None:
        with self.store.transaction() as execute:
            InboxStore.make_key(execute)

    # ---- storing -----------------------------------------------------------------------------

    @retried_on_conflict
    def post(self, drafts: list[Draft]) -> int:
        """Stores what is new among ``drafts`` (checked by notices.checked); how many were."""
        now = self.clock()
        stored: Announced = []
        with self.store.transaction() as execute:
            for draft in drafts:
                if self.add(execute, draft, now):
                    stored.append((draft.notification_id, draft.recipient_id, draft.kind))
        self.announce(stored)
        return len(stored)

    def add(self, execute: Execute, draft: Draft, now: float) -> bool:
        """Inside a caller's transaction: stores ``draft`` unless its recipient may not get it
        or its id is stored already; whether it was stored (then ``announce`` it after the
        commit)."""
        named = [draft.recipient_id, draft.player_id] if draft.player_id else [draft.recipient_id]
        if is_bot(draft.recipient_id) or InboxStore.buried(execute, named):
            return False
        if draft.kind in FROM_A_PLAYER and draft.player_id and (
                SocialStore.blocked_at(execute, draft.recipient_id, draft.player_id) is not None
                or InboxStore.unread_from(execute, draft.recipient_id, draft.player_id, draft.kind, now)
                >= self.per_sender):
            return False
        expires_at = draft.expires_at if draft.expires_at is not None else now + lifetime(draft.kind,
                                                                                          self.default_days)
        if expires_at <= now:
            return False
        return InboxStore.insert(execute, draft, now, expires_at)

    def announce(self, stored: Announced) -> None:
        if not stored:
            return
        for listener in self.listeners:
            try:
                listener(stored)
            except Exception:  # noqa: BLE001 - a wake-up lost is caught up by the next poll
                log.exception("a listener of stored notifications failed")

    # ---- reading -----------------------------------------------------------------------------

    def page(self, player_id: str, page_size: int, page_token: str, unread_only: bool) -> InboxPage:
        size = check_page_size(page_size)
        kind = "nu" if unread_only else "n"
        after = _after(page_token, kind)
        now = self.clock()
        with self.store.transaction() as execute:
            rows = InboxStore.page(execute, player_id, now, unread_only, after, size + 1)
            unread = InboxStore.unread(execute, player_id, now)
        token = ""
        if len(rows) > size:
            last = rows[size - 1]
            token = next_page_token(kind, "i", last.notification_id, last.created_at)
        return InboxPage(rows[:size], token, unread)

    def unread(self, player_id: str) -> int:
        with self.store.transaction() as execute:
            return InboxStore.unread(execute, player_id, self.clock())

    def since(self, player_id: str, since: float, after: Key | None = None) -> tuple[list[Stored], int]:
        """The player's live notifications created at ``since`` or later (and past ``after``,
        the last of the batch before), the oldest first, a batch; and their unread count."""
        now = self.clock()
        with self.store.transaction() as execute:
            return (InboxStore.since(execute, player_id, since, now, STREAM_BATCH, after),
                    InboxStore.unread(execute, player_id, now))

    @retried_on_conflict
    def mark_read(self, player_id: str, ids: list[str], every: bool) -> int:
        """Marks the named notifications (or all) read; the unread count after. Ids the
        player's inbox does not hold: NOTIFICATION_NOT_FOUND, and none is marked."""
        if every and ids:
            raise InvalidRequest("name notification_ids or set all, not both", "notification_ids")
        if not every and not ids:
            raise InvalidRequest("name the notification_ids to mark, or set all", "notification_ids")
        if len(ids) > MAX_MARKED:
            raise InvalidRequest(f"at most {MAX_MARKED} notification_ids a call", "notification_ids")
        if any(not i or len(i) > 64 for i in ids):
            raise InvalidRequest("a notification id is empty or longer than 64 characters", "notification_ids")
        now = self.clock()
        with self.store.transaction() as execute:
            if not every:
                wanted = sorted({i.lower() for i in ids})
                if InboxStore.live_ids(execute, player_id, wanted, now) != set(wanted):
                    raise NotFound("no such notification in your inbox", error_reason="NOTIFICATION_NOT_FOUND")
                InboxStore.mark_read(execute, player_id, wanted)
            else:
                InboxStore.mark_read(execute, player_id, None)
            return InboxStore.unread(execute, player_id, now)

    # ---- pushes and upkeep -------------------------------------------------------------------

    @retried_on_conflict
    def claim(self, notification_id: str, decide: Decide, claim_id: str = "",
              phones: Phones | None = None) -> Claim:
        """In one transaction, the first claim of a live, unread notification takes it (one a
        player sent is gone once the recipient blocks that player) and
        ``decide(execute, recipient, kind, now)`` (push_tokens.Pushes.decide_in) says whether
        and where it may buzz; later claims are told it was claimed. The retry of the claim
        that took it (the same ``claim_id``: the notifier's reply was lost to its deadline) is
        answered that decision again, with the phones as they are (``phones``), not counted."""
        now = self.clock()
        with self.store.transaction() as execute:
            found = InboxStore.get(execute, notification_id.lower())
            if found is None or found.expires_at <= now or found.read:
                return Claim("gone")
            if found.kind in FROM_A_PLAYER and found.player_id and \
                    SocialStore.blocked_at(execute, found.recipient_id, found.player_id) is not None:
                return Claim("gone")
            if found.claimed or not InboxStore.claim(execute, found.notification_id):
                taken = InboxStore.claimed_by(execute, found.notification_id) if claim_id else None
                if taken is None or taken[0] != claim_id:
                    return Claim("already_claimed", found)
                again = phones(execute, found.recipient_id) if phones and taken[1] == "send" else []
                return Claim(taken[1], found, again)
            decision, targets = decide(execute, found.recipient_id, found.kind, now)
            if claim_id:
                InboxStore.record_claim(execute, found.notification_id, claim_id, decision, now)
        return Claim(decision, found, targets)

    def sweep(self, limit: int = 500) -> int:
        """Deletes up to ``limit`` expired notifications, and claims an hour old (their retries
        came long before)."""
        with self.store.transaction() as execute:
            InboxStore.forget_claims(execute, self.clock() - CLAIM_RETRY_SECONDS, limit)
            return InboxStore.sweep(execute, self.clock(), limit)

    def held_for(self, player_id: str) -> list[Stored]:
        """The newest ``export_max`` rows addressed to the player (an export stays far below
        gRPC's message size however full the inbox is)."""
        with self.store.transaction() as execute:
            return InboxStore.held_for(execute, player_id, self.export_max)


def _after(page_token: str, kind: str) -> Key | None:
    start = page_start(page_token, kind, "i")
    return None if start is None else Key(start[1], start[0])
