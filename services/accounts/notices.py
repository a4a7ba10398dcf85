"""The notices the account service leaves in a player's inbox: a ban, its end, and a sign-in
with the account's linked identity (a device that proved it is them; an ID-token sign-in
names no device, so each such new session counts as one).

A notice is a row written in the transaction of what it tells, then posted to the social
service (PostNotifications, with the `account` token) right after the commit and again by
the erasure's retry pass (bootstrap.erase_pending, every 30 s) until the social service has
it. So a ban or a sign-in never waits on the social service beyond one call's deadline,
never fails because it is away, and no notice is lost when it is. Each notification id is a
uuid5 of the event, so a post repeated after a lost answer stores nothing twice. A deleted
account's pending notices are erased with it (store.erase)."""

from __future__ import annotations

import datetime
import json
import logging
import uuid
from dataclasses import dataclass, field
from typing import Protocol

from services.common.sql import Execute

log = logging.getLogger("domino.accounts")

TABLE = "domino_account_notices"
NAMESPACE = uuid.UUID("5b0f6d0e-4a52-4c0e-9a57-6f1d2b8c3e71")  # the account service's notices, forever
BATCH = 100  # PostNotifications takes at most 100 at once
MAX_PENDING = 10_000  # a social service away for days: the oldest notices beyond this are dropped
BAN, ACCOUNT = "ban", "account"  # NotificationKind's names, lower case


@dataclass(frozen=True)
class Notice:
    notification_id: str
    account_id: str
    kind: str
    text_key: str
    args: dict[str, str] = field(default_factory=dict)


class NoticesRefused(ValueError):
    """The social service called the notices invalid: posting them again cannot help."""


class Poster(Protocol):
    """The social service's PostNotifications (social_client.GrpcSocial.post)."""

    def post(self, notices: list[Notice]) -> None: ...


def _rfc3339(seconds: float) -> str:
    """The instant in RFC 3339 (UTC), or "" for one no calendar holds (a ban without end)."""
    try:
        return datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc).isoformat().replace("+00:00", "Z")
    except (OverflowError, OSError, ValueError):
        return ""


def _id(*event: object) -> str:
    return str(uuid.uuid5(NAMESPACE, ":".join(str(part) for part in event)))


def banned(account_id: str, until: float) -> Notice:
    """One per ban: a ban changed to another end is another event, and tells again."""
    return Notice(_id("banned", account_id, repr(until)), account_id, BAN, "notice.banned",
                  {"until": _rfc3339(until)})


def unbanned(account_id: str, ended_ban_until: float) -> Notice:
    """The end of the ban that was to run until ``ended_ban_until``."""
    return Notice(_id("unbanned", account_id, repr(ended_ban_until)), account_id, BAN, "notice.unbanned")


def device_added(account_id: str, id_token_hash: str, provider: str) -> Notice:
    """A sign-in with the ID token of hash ``id_token_hash``: single-use, so one per sign-in."""
    return Notice(_id("device_added", account_id, id_token_hash), account_id, ACCOUNT, "notice.account.device_added",
                  {"provider": provider})


class PendingNotices:
    """The rows of notices the social service has not confirmed."""

    @staticmethod
    def schema() -> list[str]:
        return [f"CREATE TABLE IF NOT EXISTS {TABLE} (notification_id TEXT PRIMARY KEY, account_id TEXT NOT NULL, "
                "kind TEXT NOT NULL, text_key TEXT NOT NULL, args TEXT NOT NULL, created_at DOUBLE PRECISION NOT NULL)",
                f"CREATE INDEX IF NOT EXISTS {TABLE}_account ON {TABLE} (account_id)"]

    @staticmethod
    def add(execute: Execute, notice: Notice, now: float) -> None:
        execute(f"INSERT INTO {TABLE} (notification_id, account_id, kind, text_key, args, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (notification_id) DO NOTHING", notice.notification_id,
                notice.account_id, notice.kind, notice.text_key, json.dumps(notice.args, sort_keys=True), now)

    @staticmethod
    def due(execute: Execute, only: list[str] | None = None, limit: int = BATCH) -> list[Notice]:
        """The oldest pending notices (of ``only`` when given)."""
        if only is not None:
            if not only:
                return []
            marks = ", ".join("?" for _ in only)
            rows = execute(f"SELECT notification_id, account_id, kind, text_key, args FROM {TABLE} "
                           f"WHERE notification_id IN ({marks}) ORDER BY created_at", *only).fetchall()
        else:
            rows = execute(f"SELECT notification_id, account_id, kind, text_key, args FROM {TABLE} "
                           "ORDER BY created_at LIMIT ?", limit).fetchall()
        return [Notice(r[0], r[1], r[2], r[3], json.loads(r[4])) for r in rows]

    @staticmethod
    def posted(execute: Execute, notification_ids: list[str]) -> None:
        if notification_ids:
            marks = ", ".join("?" for _ in notification_ids)
            execute(f"DELETE FROM {TABLE} WHERE notification_id IN ({marks})", *notification_ids)

    @staticmethod
    def count(execute: Execute) -> int:
        return int(execute(f"SELECT COUNT(*) FROM {TABLE}").fetchone()[0])

    @staticmethod
    def trim(execute: Execute, keep: int = MAX_PENDING) -> int:
        """Drops the oldest pending notices beyond ``keep``; how many went."""
        extra = PendingNotices.count(execute) - keep
        if extra <= 0:
            return 0
        oldest = [r[0] for r in execute(f"SELECT notification_id FROM {TABLE} ORDER BY created_at LIMIT ?",
                                         extra).fetchall()]
        PendingNotices.posted(execute, oldest)
        return len(oldest)

    @staticmethod
    def erase(execute: Execute, account_id: str) -> None:
        execute(f"DELETE FROM {TABLE} WHERE account_id = ?", account_id)


def post_pending(store, poster: Poster | None, only: list[str] | None = None, keep: int = MAX_PENDING) -> int:
    """Posts pending notices (``only`` those, or a batch of the oldest after trimming them to
    ``keep``) and forgets the ones the social service took; how many are still pending.
    Never raises for the social service: a failed post is logged and kept for the next pass."""
    with store.transaction() as execute:
        dropped = PendingNotices.trim(execute, keep) if only is None else 0
        notices = PendingNotices.due(execute, only)
    if dropped:
        log.warning("the oldest account notices were dropped: the social service has been away too long",
                    extra={"dropped": dropped, "kept": keep})
    if poster is None or not notices:
        with store.transaction() as execute:
            return PendingNotices.count(execute)
    batches = [notices]
    while batches:
        batch = batches.pop()
        try:
            poster.post(batch)
        except NoticesRefused as error:
            if len(batch) > 1:  # one bad notice must not hold back the others: one by one
                batches += [[notice] for notice in batch]
                continue
            log.error("the social service refused an account notice; it is dropped",
                      extra={"notification_id": batch[0].notification_id, "error": str(error)[:200]})
        except Exception as error:  # noqa: BLE001 - kept and posted again by the next pass
            log.warning("posting account notices to the social service failed; will retry",
                        extra={"notices": len(batch), "error": str(error)[:200]})
            break
        with store.transaction() as execute:
            PendingNotices.posted(execute, [n.notification_id for n in batch])
    with store.transaction() as execute:
        return PendingNotices.count(execute)
