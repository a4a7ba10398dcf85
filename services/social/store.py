"""The social store: friend codes, friendships, pending friend requests, blocks, the hour's
sent requests and the outcomes of request ids. Plain rows (services/common/sql.py): SQLite in
a file of its own beside the match store's (`social.sqlite` under var/ in the local run), or
PostgreSQL in the match store's database; the tables are made at start.

A friendship is two rows, one per player, so each player's list is one indexed read.
Lists are read newest first by (instant, player id), the page token's key."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from services.common.sql import Database, Execute

from . import inbox_store, presence_store
from .inbox_store import InboxStore
from .notices import FROM_A_PLAYER
from .presence_store import PresenceStore

TABLES = ("domino_social_codes", "domino_social_friends", "domino_social_requests", "domino_social_blocks",
          "domino_social_sends", "domino_social_request_ids", *inbox_store.TABLES, *presence_store.TABLES)
_SCHEMA = [
    "CREATE TABLE IF NOT EXISTS domino_social_codes (player_id TEXT PRIMARY KEY, code TEXT NOT NULL UNIQUE, "
    "created_at DOUBLE PRECISION NOT NULL)",
    "CREATE TABLE IF NOT EXISTS domino_social_friends (player_id TEXT NOT NULL, friend_id TEXT NOT NULL, "
    "since DOUBLE PRECISION NOT NULL, PRIMARY KEY (player_id, friend_id))",
    "CREATE TABLE IF NOT EXISTS domino_social_requests (sender_id TEXT NOT NULL, recipient_id TEXT NOT NULL, "
    "sent_at DOUBLE PRECISION NOT NULL, PRIMARY KEY (sender_id, recipient_id))",
    "CREATE INDEX IF NOT EXISTS domino_social_requests_recipient ON domino_social_requests (recipient_id)",
    "CREATE TABLE IF NOT EXISTS domino_social_blocks (blocker_id TEXT NOT NULL, blocked_id TEXT NOT NULL, "
    "blocked_at DOUBLE PRECISION NOT NULL, PRIMARY KEY (blocker_id, blocked_id))",
    "CREATE INDEX IF NOT EXISTS domino_social_blocks_blocked ON domino_social_blocks (blocked_id)",
    "CREATE TABLE IF NOT EXISTS domino_social_sends (player_id TEXT NOT NULL, sent_at DOUBLE PRECISION NOT NULL)",
    "CREATE INDEX IF NOT EXISTS domino_social_sends_player ON domino_social_sends (player_id, sent_at)",
    "CREATE TABLE IF NOT EXISTS domino_social_request_ids (player_id TEXT NOT NULL, request_id TEXT NOT NULL, "
    "fingerprint TEXT NOT NULL, outcome TEXT NOT NULL, at DOUBLE PRECISION NOT NULL, "
    "PRIMARY KEY (player_id, request_id))",
]


@dataclass(frozen=True)
class Row:
    """One entry of a list: the other player and when (befriended, sent, blocked)."""
    player_id: str
    at: float


@dataclass(frozen=True)
class RequestRow:
    sender_id: str
    recipient_id: str
    sent_at: float


class SocialStore:
    """Rows in, rows out, inside the use cases' transactions (use_cases.py decides)."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.transaction = db.transaction

    @classmethod
    def for_env(cls, env: dict[str, str], sqlite_file: str = "social.sqlite") -> "SocialStore":
        return cls(Database.for_env(env, sqlite_file, pool_size=4, keep=True,
                                    pragmas=("secure_delete = ON", "journal_mode = WAL")))

    def create(self) -> None:
        with self.transaction() as execute:
            for statement in (*_SCHEMA, *inbox_store.SCHEMA, *presence_store.SCHEMA):
                execute(statement)
            InboxStore.make_key(execute)

    def close(self) -> None:
        self.db.close()

    def dump(self) -> dict[str, list[tuple[Any, ...]]]:
        """Every row of every table, sorted (tests: a refused call changed nothing)."""
        with self.transaction() as execute:
            return {table: sorted(tuple(r) for r in execute(f"SELECT * FROM {table}").fetchall()) for table in TABLES}

    # ---- a player's data: the export and the erasure (for the account service) --------------

    @staticmethod
    def code_row(execute: Execute, player_id: str) -> tuple[str, float] | None:
        row = execute("SELECT code, created_at FROM domino_social_codes WHERE player_id = ?", player_id).fetchone()
        return None if row is None else (row[0], float(row[1]))

    @staticmethod
    def erase(execute: Execute, player_id: str, now: float = 0.0) -> int:
        """Deletes every row naming ``player_id``: its code, both sides of its friendships, its
        requests and blocks both ways, its sends, its request ids and the kept outcomes of
        others' request ids that name it (by its id, or by its code), the notifications
        addressed to it or naming it, its presence; how many rows went. Its tombstone (a keyed
        hash, inbox_store.py) stays, so nothing new is stored for it."""
        code = SocialStore.code_of(execute, player_id)
        pattern = "%" + player_id.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        statements: list[tuple[str, tuple[Any, ...]]] = [
            ("DELETE FROM domino_social_codes WHERE player_id = ?", (player_id,)),
            ("DELETE FROM domino_social_friends WHERE player_id = ? OR friend_id = ?", (player_id, player_id)),
            ("DELETE FROM domino_social_requests WHERE sender_id = ? OR recipient_id = ?", (player_id, player_id)),
            ("DELETE FROM domino_social_blocks WHERE blocker_id = ? OR blocked_id = ?", (player_id, player_id)),
            ("DELETE FROM domino_social_sends WHERE player_id = ?", (player_id,)),
            ("DELETE FROM domino_social_request_ids WHERE player_id = ? OR outcome LIKE ? ESCAPE '\\' "
             "OR fingerprint = ?", (player_id, pattern, f"code:{code}" if code else "")),
        ]
        rows = sum(max(0, execute(sql, *params).rowcount) for sql, params in statements)
        InboxStore.bury(execute, player_id, now)
        return rows + InboxStore.erase(execute, player_id) + PresenceStore.erase(execute, player_id)

    # ---- friend codes -----------------------------------------------------------------------

    @staticmethod
    def code_of(execute: Execute, player_id: str) -> str | None:
        row = execute("SELECT code FROM domino_social_codes WHERE player_id = ?", player_id).fetchone()
        return None if row is None else row[0]

    @staticmethod
    def code_owner(execute: Execute, code: str) -> str | None:
        row = execute("SELECT player_id FROM domino_social_codes WHERE code = ?", code).fetchone()
        return None if row is None else row[0]

    @staticmethod
    def add_code(execute: Execute, player_id: str, code: str, now: float) -> None:
        """A taken code (or a second code of one player) is a Conflict: the caller draws again."""
        execute("INSERT INTO domino_social_codes (player_id, code, created_at) VALUES (?, ?, ?)", player_id, code, now)

    # ---- friendships ------------------------------------------------------------------------

    @staticmethod
    def friends_since(execute: Execute, player_id: str, other_id: str) -> float | None:
        row = execute("SELECT since FROM domino_social_friends WHERE player_id = ? AND friend_id = ?",
                      player_id, other_id).fetchone()
        return None if row is None else float(row[0])

    @staticmethod
    def friend_count(execute: Execute, player_id: str) -> int:
        return int(execute("SELECT COUNT(*) FROM domino_social_friends WHERE player_id = ?", player_id).fetchone()[0])

    @staticmethod
    def befriend(execute: Execute, one: str, other: str, now: float) -> None:
        for a, b in ((one, other), (other, one)):
            execute("INSERT INTO domino_social_friends (player_id, friend_id, since) VALUES (?, ?, ?) "
                    "ON CONFLICT (player_id, friend_id) DO NOTHING", a, b, now)

    @staticmethod
    def unfriend(execute: Execute, one: str, other: str) -> bool:
        removed = execute("DELETE FROM domino_social_friends WHERE (player_id = ? AND friend_id = ?) "
                          "OR (player_id = ? AND friend_id = ?)", one, other, other, one).rowcount
        return removed > 0

    @staticmethod
    def friends(execute: Execute, player_id: str, after: Row | None, limit: int) -> list[Row]:
        return _page(execute, "SELECT friend_id, since FROM domino_social_friends WHERE player_id = ?", "since",
                     "friend_id", [player_id], after, limit)

    # ---- requests ---------------------------------------------------------------------------

    @staticmethod
    def request(execute: Execute, sender_id: str, recipient_id: str) -> RequestRow | None:
        row = execute("SELECT sent_at FROM domino_social_requests WHERE sender_id = ? AND recipient_id = ?",
                      sender_id, recipient_id).fetchone()
        return None if row is None else RequestRow(sender_id, recipient_id, float(row[0]))

    @staticmethod
    def add_request(execute: Execute, sender_id: str, recipient_id: str, now: float) -> None:
        execute("INSERT INTO domino_social_requests (sender_id, recipient_id, sent_at) VALUES (?, ?, ?)",
                sender_id, recipient_id, now)

    @staticmethod
    def remove_request(execute: Execute, sender_id: str, recipient_id: str) -> bool:
        return execute("DELETE FROM domino_social_requests WHERE sender_id = ? AND recipient_id = ?",
                       sender_id, recipient_id).rowcount > 0

    @staticmethod
    def pending_sent(execute: Execute, player_id: str) -> int:
        return int(execute("SELECT COUNT(*) FROM domino_social_requests WHERE sender_id = ?",
                           player_id).fetchone()[0])

    @staticmethod
    def pending_received(execute: Execute, player_id: str) -> int:
        return int(execute("SELECT COUNT(*) FROM domino_social_requests WHERE recipient_id = ?",
                           player_id).fetchone()[0])

    @staticmethod
    def requests(execute: Execute, player_id: str, incoming: bool, outgoing: bool, after: Row | None,
                 limit: int) -> list[tuple[Row, bool]]:
        """(the other player and when sent, whether it is incoming), the newest first."""
        parts: list[str] = []
        params: list[Any] = []
        if incoming:
            parts.append("SELECT sender_id AS other, sent_at, 1 AS incoming FROM domino_social_requests "
                         "WHERE recipient_id = ?")
            params.append(player_id)
        if outgoing:
            parts.append("SELECT recipient_id AS other, sent_at, 0 AS incoming FROM domino_social_requests "
                         "WHERE sender_id = ?")
            params.append(player_id)
        union = " UNION ALL ".join(parts)
        sql = f"SELECT other, sent_at, incoming FROM ({union}) AS both_ways"
        if after is not None:
            sql += " WHERE (sent_at < ? OR (sent_at = ? AND other > ?))"
            params += [after.at, after.at, after.player_id]
        sql += " ORDER BY sent_at DESC, other LIMIT ?"
        rows = execute(sql, *params, limit).fetchall()
        return [(Row(r[0], float(r[1])), bool(r[2])) for r in rows]

    # ---- blocks -----------------------------------------------------------------------------

    @staticmethod
    def blocked_at(execute: Execute, blocker_id: str, blocked_id: str) -> float | None:
        row = execute("SELECT blocked_at FROM domino_social_blocks WHERE blocker_id = ? AND blocked_id = ?",
                      blocker_id, blocked_id).fetchone()
        return None if row is None else float(row[0])

    @staticmethod
    def block_count(execute: Execute, player_id: str) -> int:
        return int(execute("SELECT COUNT(*) FROM domino_social_blocks WHERE blocker_id = ?", player_id).fetchone()[0])

    @staticmethod
    def block(execute: Execute, blocker_id: str, blocked_id: str, now: float) -> None:
        """The block, the end of the friendship and of the requests both ways, and of the
        unread friend requests, invites, rematches and answers the blocked player sent the
        blocker (they would still buzz the blocker's phone)."""
        execute("INSERT INTO domino_social_blocks (blocker_id, blocked_id, blocked_at) VALUES (?, ?, ?)",
                blocker_id, blocked_id, now)
        SocialStore.unfriend(execute, blocker_id, blocked_id)
        SocialStore.remove_request(execute, blocker_id, blocked_id)
        SocialStore.remove_request(execute, blocked_id, blocker_id)
        InboxStore.drop_unread_from(execute, blocker_id, blocked_id, sorted(FROM_A_PLAYER))

    @staticmethod
    def unblock(execute: Execute, blocker_id: str, blocked_id: str) -> bool:
        return execute("DELETE FROM domino_social_blocks WHERE blocker_id = ? AND blocked_id = ?",
                       blocker_id, blocked_id).rowcount > 0

    @staticmethod
    def blocks(execute: Execute, player_id: str, after: Row | None, limit: int) -> list[Row]:
        return _page(execute, "SELECT blocked_id, blocked_at FROM domino_social_blocks WHERE blocker_id = ?",
                     "blocked_at", "blocked_id", [player_id], after, limit)

    # ---- the hour's sends and request ids ---------------------------------------------------

    @staticmethod
    def sends_since(execute: Execute, player_id: str, since: float) -> list[float]:
        """When the player's sends after ``since`` were made, the oldest first."""
        rows = execute("SELECT sent_at FROM domino_social_sends WHERE player_id = ? AND sent_at > ? "
                       "ORDER BY sent_at", player_id, since).fetchall()
        return [float(r[0]) for r in rows]

    @staticmethod
    def count_send(execute: Execute, player_id: str, now: float, forget_before: float) -> None:
        execute("DELETE FROM domino_social_sends WHERE player_id = ? AND sent_at <= ?", player_id, forget_before)
        execute("INSERT INTO domino_social_sends (player_id, sent_at) VALUES (?, ?)", player_id, now)

    @staticmethod
    def outcome(execute: Execute, player_id: str, request_id: str) -> tuple[str, dict[str, Any]] | None:
        """(fingerprint, outcome) of a request id the player used."""
        row = execute("SELECT fingerprint, outcome FROM domino_social_request_ids WHERE player_id = ? "
                      "AND request_id = ?", player_id, request_id).fetchone()
        return None if row is None else (row[0], json.loads(row[1]))

    @staticmethod
    def keep_outcome(execute: Execute, player_id: str, request_id: str, fingerprint: str, outcome: dict[str, Any],
                     now: float, forget_before: float) -> None:
        execute("DELETE FROM domino_social_request_ids WHERE player_id = ? AND at <= ?", player_id, forget_before)
        execute("INSERT INTO domino_social_request_ids (player_id, request_id, fingerprint, outcome, at) "
                "VALUES (?, ?, ?, ?, ?)", player_id, request_id, fingerprint, json.dumps(outcome), now)


def _page(execute: Execute, select: str, at: str, other: str, params: list[Any], after: Row | None,
          limit: int) -> list[Row]:
    sql = select
    if after is not None:
        sql += f" AND ({at} < ? OR ({at} = ? AND {other} > ?))"
        params = [*params, after.at, after.at, after.player_id]
    rows = execute(f"{sql} ORDER BY {at} DESC, {other} LIMIT ?", *params, limit).fetchall()
    return [Row(r[0], float(r[1])) for r in rows]
