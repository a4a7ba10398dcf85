"""The revocation list's table: every session that ended before its access tokens did, with
when the last of them expires, in the order the sessions were revoked.

The match service and matchmaking check a player token's signature and expiry on their own;
what they cannot see is a session that ended (signed out, revoked for a reused refresh
token, its device removed or rotated, its account deleted), whose tokens stay valid for up
to 15 minutes. They read this list since a cursor (AccountService.ListRevokedSessions) and
refuse a listed session's tokens, like a certificate revocation list. A row holds only the
random session id and an expiry: no account id, nothing that leads to a person.

The cursor only grows, in commit order, so a reader that asks "since my cursor" misses
nothing: on SQLite transactions run one at a time and AUTOINCREMENT never reuses a value;
on PostgreSQL an identity column is assigned at insert, not commit, so each insert first
takes the table's EXCLUSIVE lock (reads go on; the next insert waits for this commit).
Callers list as their transaction's last statement, after its row locks, so no transaction
holding the lock ever waits for another. Rows go once they expire, except the newest,
which keeps the cursor's high-water mark: a cursor past it is from a replaced store.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from services.common.auth import MAX_LIFETIME
from services.common.sql import Execute

TABLE = "domino_account_revocations"
# A player token lives at most this long (auth.MAX_LIFETIME), whatever the service's
# DOMINO_ACCESS_TOKEN_SECONDS was when it was minted: listed that long, none outlives its entry.
LISTED_SECONDS = float(MAX_LIFETIME["player"])
_CURSOR = {False: "cursor INTEGER PRIMARY KEY AUTOINCREMENT",
           True: "cursor BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY"}


@dataclass(frozen=True)
class Revoked:
    session_id: str
    expires_at: float


@dataclass(frozen=True)
class RevokedPage:
    sessions: tuple[Revoked, ...]
    next_cursor: int
    more: bool


class RevocationList:
    """The table's SQL, on SQLite or PostgreSQL (``postgres``), inside the caller's transaction."""

    def __init__(self, postgres: bool) -> None:
        self.postgres = postgres

    def schema(self) -> list[str]:
        return [f"CREATE TABLE IF NOT EXISTS {TABLE} ({_CURSOR[self.postgres]}, session_id TEXT NOT NULL UNIQUE, "
                "expires_at DOUBLE PRECISION NOT NULL)",
                f"CREATE INDEX IF NOT EXISTS {TABLE}_expiry ON {TABLE} (expires_at)"]

    def list(self, execute: Execute, session_ids: Iterable[str], revoked_at: float) -> int:
        """Lists the sessions just revoked, until their last token expires; how many."""
        ids = sorted(set(session_ids))
        if not ids:
            return 0
        if self.postgres:
            execute(f"LOCK TABLE {TABLE} IN EXCLUSIVE MODE")
        for session_id in ids:
            execute(f"INSERT INTO {TABLE} (session_id, expires_at) VALUES (?, ?) ON CONFLICT (session_id) DO NOTHING",
                    session_id, revoked_at + LISTED_SECONDS)
        return len(ids)

    @staticmethod
    def newest(execute: Execute) -> int:
        """The newest cursor given out (0: none yet)."""
        row = execute(f"SELECT MAX(cursor) FROM {TABLE}").fetchone()
        return int(row[0]) if row and row[0] is not None else 0

    @staticmethod
    def since(execute: Execute, after_cursor: int, page_size: int, now: float) -> RevokedPage:
        """What was listed after ``after_cursor``, at most ``page_size`` rows; the expired
        are passed over (the cursor still moves past them)."""
        rows = execute(f"SELECT cursor, session_id, expires_at FROM {TABLE} WHERE cursor > ? ORDER BY cursor LIMIT ?",
                       after_cursor, page_size + 1).fetchall()
        page = rows[:page_size]
        return RevokedPage(tuple(Revoked(r[1], float(r[2])) for r in page if float(r[2]) > now),
                           int(page[-1][0]) if page else after_cursor, len(rows) > page_size)

    @staticmethod
    def forget_expired(execute: Execute, now: float) -> int:
        """Rows whose tokens have all expired, but the newest (the cursor's high-water mark)."""
        return max(0, execute(f"DELETE FROM {TABLE} WHERE expires_at <= ? AND cursor < (SELECT MAX(cursor) FROM "
                              f"{TABLE})", now).rowcount)
