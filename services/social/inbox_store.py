"""The inbox's rows in the social store's database: notifications (their outbox and push
claim flags included) and the tombstones of erased recipients.

A notification row is its own outbox entry: `published` is 0 until the bus acknowledged
it, so a crash between the commit and the publish loses nothing. Pages read newest first
by (created_at, notification_id), the page token's key; streams and the publisher read
oldest first. A tombstone holds a keyed hash of an erased player's id (HMAC-SHA256 with a
key made once in the database), so a search of the store for the id finds nothing, yet a
post to it is still recognised and skipped."""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from dataclasses import dataclass
from typing import Any

from services.common.sql import Execute

TABLES = ("domino_social_notifications", "domino_social_erased", "domino_social_secrets", "domino_social_claims")
SCHEMA = [
    "CREATE TABLE IF NOT EXISTS domino_social_notifications (notification_id TEXT PRIMARY KEY, "
    "recipient_id TEXT NOT NULL, kind TEXT NOT NULL, text_key TEXT NOT NULL, args TEXT NOT NULL, "
    "player_id TEXT NOT NULL, match_id TEXT NOT NULL, room_id TEXT NOT NULL, invite_id TEXT NOT NULL, "
    "created_at DOUBLE PRECISION NOT NULL, expires_at DOUBLE PRECISION NOT NULL, read INTEGER NOT NULL, "
    "claimed INTEGER NOT NULL, published INTEGER NOT NULL)",
    "CREATE INDEX IF NOT EXISTS domino_social_notifications_inbox ON domino_social_notifications "
    "(recipient_id, created_at)",
    "CREATE INDEX IF NOT EXISTS domino_social_notifications_about ON domino_social_notifications (player_id)",
    "CREATE INDEX IF NOT EXISTS domino_social_notifications_from ON domino_social_notifications "
    "(recipient_id, player_id)",
    "CREATE INDEX IF NOT EXISTS domino_social_notifications_expiry ON domino_social_notifications (expires_at)",
    "CREATE INDEX IF NOT EXISTS domino_social_notifications_outbox ON domino_social_notifications "
    "(created_at, notification_id) WHERE published = 0",
    "CREATE TABLE IF NOT EXISTS domino_social_erased (player_hash TEXT PRIMARY KEY, "
    "erased_at DOUBLE PRECISION NOT NULL)",
    "CREATE TABLE IF NOT EXISTS domino_social_secrets (name TEXT PRIMARY KEY, secret TEXT NOT NULL)",
    # who took each claimed notification, so that claim's retry is answered as it was (ids only)
    "CREATE TABLE IF NOT EXISTS domino_social_claims (notification_id TEXT PRIMARY KEY, claim_id TEXT NOT NULL, "
    "decision TEXT NOT NULL, at DOUBLE PRECISION NOT NULL)",
    "CREATE INDEX IF NOT EXISTS domino_social_claims_at ON domino_social_claims (at)",
]
_COLUMNS = ("notification_id, recipient_id, kind, text_key, args, player_id, match_id, room_id, invite_id, "
            "created_at, expires_at, read, claimed")
TOMBSTONE_KEY = "tombstones"


@dataclass(frozen=True)
class Stored:
    notification_id: str
    recipient_id: str
    kind: str
    text_key: str
    args: dict[str, str]
    player_id: str
    match_id: str
    room_id: str
    invite_id: str
    created_at: float
    expires_at: float
    read: bool
    claimed: bool


@dataclass(frozen=True)
class Key:
    """Where a page ends: its last row's (created_at, notification_id)."""
    created_at: float
    notification_id: str


def _stored(row: Any) -> Stored:
    return Stored(row[0], row[1], row[2], row[3], json.loads(row[4]), row[5], row[6], row[7], row[8],
                  float(row[9]), float(row[10]), bool(row[11]), bool(row[12]))


class InboxStore:
    """Statements over one transaction's ``execute`` (inbox.py decides)."""

    @staticmethod
    def insert(execute: Execute, n: Any, created_at: float, expires_at: float) -> bool:
        """Stores a Draft unless its id is stored already; whether it was new."""
        return execute(
            f"INSERT INTO domino_social_notifications ({_COLUMNS}, published) VALUES "
            "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, 0) ON CONFLICT (notification_id) DO NOTHING",
            n.notification_id, n.recipient_id, n.kind, n.text_key, json.dumps(n.args, sort_keys=True), n.player_id,
            n.match_id, n.room_id, n.invite_id, created_at, expires_at).rowcount > 0

    @staticmethod
    def page(execute: Execute, recipient_id: str, now: float, unread_only: bool, after: Key | None,
             limit: int) -> list[Stored]:
        sql = f"SELECT {_COLUMNS} FROM domino_social_notifications WHERE recipient_id = ? AND expires_at > ?"
        params: list[Any] = [recipient_id, now]
        if unread_only:
            sql += " AND read = 0"
        if after is not None:
            sql += " AND (created_at < ? OR (created_at = ? AND notification_id > ?))"
            params += [after.created_at, after.created_at, after.notification_id]
        rows = execute(sql + " ORDER BY created_at DESC, notification_id LIMIT ?", *params, limit).fetchall()
        return [_stored(r) for r in rows]

    @staticmethod
    def since(execute: Execute, recipient_id: str, since: float, now: float, limit: int,
              after: Key | None = None) -> list[Stored]:
        """The recipient's live notifications created at ``since`` or later (past ``after``),
        the oldest first."""
        sql = (f"SELECT {_COLUMNS} FROM domino_social_notifications WHERE recipient_id = ? "
               "AND created_at >= ? AND expires_at > ?")
        params: list[Any] = [recipient_id, since, now]
        if after is not None:
            sql += " AND (created_at > ? OR (created_at = ? AND notification_id > ?))"
            params += [after.created_at, after.created_at, after.notification_id]
        rows = execute(sql + " ORDER BY created_at, notification_id LIMIT ?", *params, limit).fetchall()
        return [_stored(r) for r in rows]

    @staticmethod
    def unread_from(execute: Execute, recipient_id: str, player_id: str, kind: str, now: float) -> int:
        """The recipient's live unread notifications of ``kind`` from ``player_id``."""
        return int(execute("SELECT COUNT(*) FROM domino_social_notifications WHERE recipient_id = ? "
                           "AND player_id = ? AND kind = ? AND read = 0 AND expires_at > ?",
                           recipient_id, player_id, kind, now).fetchone()[0])

    @staticmethod
    def drop_unread_from(execute: Execute, recipient_id: str, player_id: str, kinds: list[str]) -> int:
        """Deletes the recipient's unread notifications of ``kinds`` from ``player_id``; how many."""
        marks = ", ".join("?" for _ in kinds)
        return max(0, execute(f"DELETE FROM domino_social_notifications WHERE recipient_id = ? AND player_id = ? "
                              f"AND read = 0 AND kind IN ({marks})", recipient_id, player_id, *kinds).rowcount)

    @staticmethod
    def unread(execute: Execute, recipient_id: str, now: float) -> int:
        return int(execute("SELECT COUNT(*) FROM domino_social_notifications WHERE recipient_id = ? AND read = 0 "
                           "AND expires_at > ?", recipient_id, now).fetchone()[0])

    @staticmethod
    def live_ids(execute: Execute, recipient_id: str, ids: list[str], now: float) -> set[str]:
        """Which of ``ids`` are the recipient's live notifications."""
        marks = ", ".join("?" for _ in ids)
        rows = execute(f"SELECT notification_id FROM domino_social_notifications WHERE recipient_id = ? "
                       f"AND expires_at > ? AND notification_id IN ({marks})", recipient_id, now, *ids).fetchall()
        return {r[0] for r in rows}

    @staticmethod
    def mark_read(execute: Execute, recipient_id: str, ids: list[str] | None) -> None:
        """``ids`` None: every notification of the recipient's."""
        if ids is None:
            execute("UPDATE domino_social_notifications SET read = 1 WHERE recipient_id = ? AND read = 0",
                    recipient_id)
            return
        marks = ", ".join("?" for _ in ids)
        execute(f"UPDATE domino_social_notifications SET read = 1 WHERE recipient_id = ? AND read = 0 "
                f"AND notification_id IN ({marks})", recipient_id, *ids)

    @staticmethod
    def get(execute: Execute, notification_id: str) -> Stored | None:
        row = execute(f"SELECT {_COLUMNS} FROM domino_social_notifications WHERE notification_id = ?",
                      notification_id).fetchone()
        return None if row is None else _stored(row)

    @staticmethod
    def claim(execute: Execute, notification_id: str) -> bool:
        """Marks it claimed; False when another claim came first."""
        return execute("UPDATE domino_social_notifications SET claimed = 1 WHERE notification_id = ? "
                       "AND claimed = 0", notification_id).rowcount > 0

    @staticmethod
    def record_claim(execute: Execute, notification_id: str, claim_id: str, decision: str, now: float) -> None:
        execute("INSERT INTO domino_social_claims (notification_id, claim_id, decision, at) VALUES (?, ?, ?, ?)",
                notification_id, claim_id, decision, now)

    @staticmethod
    def claimed_by(execute: Execute, notification_id: str) -> tuple[str, str] | None:
        """(claim id, decision) of the claim that took the notification, when it named itself."""
        row = execute("SELECT claim_id, decision FROM domino_social_claims WHERE notification_id = ?",
                      notification_id).fetchone()
        return (row[0], row[1]) if row else None

    @staticmethod
    def forget_claims(execute: Execute, before: float, limit: int) -> int:
        """Deletes up to ``limit`` claims made before ``before`` (no retry comes that late)."""
        return max(0, execute("DELETE FROM domino_social_claims WHERE notification_id IN (SELECT notification_id "
                              "FROM domino_social_claims WHERE at < ? LIMIT ?)", before, limit).rowcount)

    # ---- the outbox --------------------------------------------------------------------------

    @staticmethod
    def unpublished(execute: Execute, limit: int) -> list[tuple[str, str, str, float]]:
        """(id, recipient, kind, created_at) of what the bus has not acknowledged, oldest first."""
        rows = execute("SELECT notification_id, recipient_id, kind, created_at FROM domino_social_notifications "
                       "WHERE published = 0 ORDER BY created_at, notification_id LIMIT ?", limit).fetchall()
        return [(r[0], r[1], r[2], float(r[3])) for r in rows]

    @staticmethod
    def mark_published(execute: Execute, ids: list[str]) -> None:
        marks = ", ".join("?" for _ in ids)
        execute(f"UPDATE domino_social_notifications SET published = 1 WHERE notification_id IN ({marks})", *ids)

    @staticmethod
    def sweep(execute: Execute, now: float, limit: int) -> int:
        """Deletes up to ``limit`` expired notifications; how many."""
        return max(0, execute("DELETE FROM domino_social_notifications WHERE notification_id IN (SELECT "
                              "notification_id FROM domino_social_notifications WHERE expires_at <= ? LIMIT ?)",
                              now, limit).rowcount)

    # ---- a player's data ---------------------------------------------------------------------

    @staticmethod
    def held_for(execute: Execute, recipient_id: str, limit: int) -> list[Stored]:
        """The newest ``limit`` rows addressed to the player, expired or not yet swept included."""
        rows = execute(f"SELECT {_COLUMNS} FROM domino_social_notifications WHERE recipient_id = ? "
                       "ORDER BY created_at DESC, notification_id LIMIT ?", recipient_id, limit).fetchall()
        return [_stored(r) for r in rows]

    @staticmethod
    def erase(execute: Execute, player_id: str) -> int:
        """Notifications addressed to the player or naming them (as player_id or in an arg);
        how many."""
        pattern = "%" + player_id.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        return max(0, execute("DELETE FROM domino_social_notifications WHERE recipient_id = ? OR player_id = ? "
                              "OR args LIKE ? ESCAPE '\\'", player_id, player_id, pattern).rowcount)

    @staticmethod
    def bury(execute: Execute, player_id: str, now: float) -> None:
        execute("INSERT INTO domino_social_erased (player_hash, erased_at) VALUES (?, ?) "
                "ON CONFLICT (player_hash) DO NOTHING", InboxStore._hash(execute, player_id), now)

    @staticmethod
    def buried(execute: Execute, player_ids: list[str]) -> set[str]:
        """Which of ``player_ids`` were erased."""
        if not player_ids:
            return set()
        hashes = {InboxStore._hash(execute, p): p for p in set(player_ids)}
        marks = ", ".join("?" for _ in hashes)
        rows = execute(f"SELECT player_hash FROM domino_social_erased WHERE player_hash IN ({marks})",
                       *hashes).fetchall()
        return {hashes[r[0]] for r in rows}

    @staticmethod
    def make_key(execute: Execute) -> None:
        execute("INSERT INTO domino_social_secrets (name, secret) VALUES (?, ?) ON CONFLICT (name) DO NOTHING",
                TOMBSTONE_KEY, secrets.token_hex(32))

    @staticmethod
    def _hash(execute: Execute, player_id: str) -> str:
        row = execute("SELECT secret FROM domino_social_secrets WHERE name = ?", TOMBSTONE_KEY).fetchone()
        return hmac.new(bytes.fromhex(row[0]), player_id.encode(), hashlib.sha256).hexdigest()
