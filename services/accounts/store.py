"""The account store: the only place personal data lives (display names, linked identities,
devices), with the sessions and the hashes of refresh tokens.

It is not event sourced on purpose: what the right to be forgotten erases must be erasable,
so these are plain rows that `DeleteAccount` deletes (SQLite with `secure_delete`, so the
file keeps no copy). What stays after a deletion is the account id in
`domino_deleted_accounts`: pseudonymous, leading to no one, and needed to refuse the id and
to finish erasing its history in the match service.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Sequence

from services.common.sql import Database, Execute

from .notices import TABLE as NOTICES, PendingNotices
from .operator_log import TABLE as OPERATOR_LOG, OperatorLog
from .revocation_list import TABLE as REVOCATIONS, RevocationList

TABLES = ("domino_accounts", "domino_account_devices", "domino_account_identities", "domino_account_sessions",
          "domino_account_refresh_tokens", "domino_deleted_accounts", "domino_account_bans",
          "domino_account_used_id_tokens", "domino_account_store", REVOCATIONS, NOTICES, OPERATOR_LOG)
_SCHEMA = [
    "CREATE TABLE IF NOT EXISTS domino_accounts (account_id TEXT PRIMARY KEY, display_name TEXT NOT NULL, "
    "name_key TEXT NOT NULL UNIQUE, created_at DOUBLE PRECISION NOT NULL, name_changes TEXT NOT NULL, "
    "banned_until DOUBLE PRECISION, ban_reason TEXT)",
    "CREATE TABLE IF NOT EXISTS domino_account_devices (device_id TEXT PRIMARY KEY, account_id TEXT NOT NULL, "
    "secret_hash TEXT NOT NULL, created_at DOUBLE PRECISION NOT NULL, last_used_at DOUBLE PRECISION NOT NULL)",
    "CREATE INDEX IF NOT EXISTS domino_account_devices_account ON domino_account_devices (account_id)",
    "CREATE TABLE IF NOT EXISTS domino_account_identities (issuer TEXT NOT NULL, subject TEXT NOT NULL, "
    "provider TEXT NOT NULL, account_id TEXT NOT NULL, linked_at DOUBLE PRECISION NOT NULL, "
    "PRIMARY KEY (issuer, subject))",
    "CREATE INDEX IF NOT EXISTS domino_account_identities_account ON domino_account_identities (account_id)",
    "CREATE TABLE IF NOT EXISTS domino_account_sessions (session_id TEXT PRIMARY KEY, account_id TEXT NOT NULL, "
    "method TEXT NOT NULL, signed_in_at DOUBLE PRECISION NOT NULL, revoked_at DOUBLE PRECISION, revoked_why TEXT)",
    "CREATE INDEX IF NOT EXISTS domino_account_sessions_account ON domino_account_sessions (account_id)",
    "CREATE TABLE IF NOT EXISTS domino_account_refresh_tokens (token_hash TEXT PRIMARY KEY, "
    "session_id TEXT NOT NULL, account_id TEXT NOT NULL, issued_at DOUBLE PRECISION NOT NULL, "
    "expires_at DOUBLE PRECISION NOT NULL, used_at DOUBLE PRECISION)",
    "CREATE INDEX IF NOT EXISTS domino_account_refresh_session ON domino_account_refresh_tokens (session_id)",
    "CREATE INDEX IF NOT EXISTS domino_account_refresh_account ON domino_account_refresh_tokens (account_id)",
    "CREATE TABLE IF NOT EXISTS domino_deleted_accounts (account_id TEXT PRIMARY KEY, "
    "deleted_at DOUBLE PRECISION NOT NULL, erased_at DOUBLE PRECISION)",
    # A ban binds the credentials that led to the account when it was banned (hashes of its
    # identities and devices), until it ends, so neither a new account nor a deletion escapes it.
    "CREATE TABLE IF NOT EXISTS domino_account_bans (credential_hash TEXT PRIMARY KEY, account_id TEXT NOT NULL, "
    "banned_until DOUBLE PRECISION NOT NULL, ban_reason TEXT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS domino_account_bans_account ON domino_account_bans (account_id)",
    # Facts about the store itself: which version of the display-name key its rows hold.
    "CREATE TABLE IF NOT EXISTS domino_account_store (name TEXT PRIMARY KEY, value TEXT NOT NULL)",
    # ID tokens already signed in with, until they are too old to be accepted anyway.
    "CREATE TABLE IF NOT EXISTS domino_account_used_id_tokens (token_hash TEXT PRIMARY KEY, "
    "expires_at DOUBLE PRECISION NOT NULL)",
]
# Columns added after the tables first shipped: (table, column, type), added where missing.
_ADDED_COLUMNS = [
    ("domino_account_sessions", "device_id", "TEXT"),  # the device a session signed in with, if any
    ("domino_accounts", "name_attempts", "TEXT"),  # when a rename was refused as taken (JSON list)
    ("domino_account_sessions", "provider", "TEXT"),  # the identity's provider a session signed in with, if any
]


@dataclass(frozen=True)
class AccountRow:
    account_id: str
    display_name: str
    created_at: float
    name_changes: tuple[float, ...]
    banned_until: float | None
    ban_reason: str | None

    def banned_at(self, now: float) -> bool:
        return self.banned_until is not None and self.banned_until > now


def account_row(row: Sequence[Any]) -> AccountRow:
    """An AccountRow from the columns account_id, display_name, created_at, name_changes,
    banned_until, ban_reason."""
    return AccountRow(row[0], row[1], float(row[2]), tuple(json.loads(row[3])),
                      None if row[4] is None else float(row[4]), row[5])


@dataclass(frozen=True)
class IdentityRow:
    provider: str
    issuer: str
    subject: str
    linked_at: float


@dataclass(frozen=True)
class SessionRow:
    session_id: str
    account_id: str
    method: str
    device_id: str | None
    signed_in_at: float
    revoked_at: float | None


@dataclass(frozen=True)
class RefreshRow:
    session_id: str
    account_id: str
    expires_at: float
    used_at: float | None
    revoked_at: float | None
    signed_in_at: float


class AccountStore:
    """Rows in, rows out: the use cases (application.py) decide, in one transaction each."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.transaction = db.transaction
        self.revocations = RevocationList(db.postgres)  # what other services refuse: sessions that ended
        self.notices = PendingNotices()  # what the social service has yet to put in inboxes
        self.operator_log = OperatorLog(db.postgres)  # what staff did, append-only

    @classmethod
    def for_env(cls, env: dict[str, str], sqlite_file: str = "accounts.sqlite") -> "AccountStore":
        return cls(Database.for_env(env, sqlite_file, pool_size=8, keep=True,
                                    pragmas=("secure_delete = ON", "journal_mode = WAL")))

    @property
    def postgres(self) -> bool:
        return self.db.postgres

    def create(self) -> None:
        with self.transaction() as execute:
            for statement in (_SCHEMA + self.revocations.schema() + self.notices.schema()
                              + self.operator_log.schema()):
                execute(statement)
            for table, column, kind in _ADDED_COLUMNS:
                if column not in self._columns(execute, table):
                    execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")

    def _columns(self, execute: Execute, table: str) -> set[str]:
        if self.postgres:
            rows = execute("SELECT column_name FROM information_schema.columns WHERE table_name = ? "
                           "AND table_schema = current_schema()", table).fetchall()
            return {r[0] for r in rows}
        return {r[1] for r in execute(f"PRAGMA table_info({table})").fetchall()}

    def _locked(self, lock: str) -> str:
        """PostgreSQL's row lock clause; SQLite's transactions (BEGIN IMMEDIATE) already run
        one at a time."""
        return f" FOR {lock.upper()}" if lock and self.postgres else ""

    def close(self) -> None:
        self.db.close()

    def scrub(self) -> None:
        """After an erasure: SQLite's write-ahead log may still hold the erased rows' pages;
        copy it into the (secure_delete) file and empty it. PostgreSQL: VACUUM's job."""
        self.db.checkpoint()

    # ---- reads inside a transaction -----------------------------------------------------

    def account(self, execute: Execute, account_id: str, lock: str = "") -> AccountRow | None:
        """``lock``: "share" for a transaction that adds rows to the account (a session, an
        identity, a device), "update" for one that deletes it, so on PostgreSQL the two wait
        for each other instead of leaving rows of a deleted account behind."""
        row = execute("SELECT account_id, display_name, created_at, name_changes, banned_until, ban_reason "
                      "FROM domino_accounts WHERE account_id = ?" + self._locked(lock), account_id).fetchone()
        return None if row is None else account_row(row)

    @staticmethod
    def device(execute: Execute, device_id: str) -> tuple[str, str] | None:
        """(account id, secret hash) of a known device."""
        row = execute("SELECT account_id, secret_hash FROM domino_account_devices WHERE device_id = ?",
                      device_id).fetchone()
        return None if row is None else (row[0], row[1])

    @staticmethod
    def identity_owner(execute: Execute, issuer: str, subject: str) -> str | None:
        row = execute("SELECT account_id FROM domino_account_identities WHERE issuer = ? AND subject = ?",
                      issuer, subject).fetchone()
        return None if row is None else row[0]

    @staticmethod
    def identities(execute: Execute, account_id: str) -> list[IdentityRow]:
        rows = execute("SELECT provider, issuer, subject, linked_at FROM domino_account_identities "
                       "WHERE account_id = ? ORDER BY linked_at", account_id).fetchall()
        return [IdentityRow(r[0], r[1], r[2], float(r[3])) for r in rows]

    @staticmethod
    def devices(execute: Execute, account_id: str) -> list[tuple[str, float, float]]:
        """(device id, created at, last used at) of each device of the account."""
        rows = execute("SELECT device_id, created_at, last_used_at FROM domino_account_devices WHERE account_id = ? "
                       "ORDER BY created_at", account_id).fetchall()
        return [(r[0], float(r[1]), float(r[2])) for r in rows]

    @staticmethod
    def refresh(execute: Execute, token_hash: str) -> RefreshRow | None:
        row = execute("SELECT t.session_id, t.account_id, t.expires_at, t.used_at, s.revoked_at, s.signed_in_at "
                      "FROM domino_account_refresh_tokens t JOIN domino_account_sessions s "
                      "ON s.session_id = t.session_id WHERE t.token_hash = ?", token_hash).fetchone()
        if row is None:
            return None
        return RefreshRow(row[0], row[1], float(row[2]), None if row[3] is None else float(row[3]),
                          None if row[4] is None else float(row[4]), float(row[5]))

    def session(self, execute: Execute, session_id: str, lock: str = "") -> SessionRow | None:
        row = execute("SELECT session_id, account_id, method, device_id, signed_in_at, revoked_at "
                      "FROM domino_account_sessions WHERE session_id = ?" + self._locked(lock), session_id).fetchone()
        if row is None:
            return None
        return SessionRow(row[0], row[1], row[2], row[3], float(row[4]), None if row[5] is None else float(row[5]))

    @staticmethod
    def ban_on(execute: Execute, credential_hashes: list[str], now: float) -> tuple[str, float] | None:
        """(reason, until) of a ban still running that binds one of these credentials."""
        if not credential_hashes:
            return None
        marks = ", ".join("?" for _ in credential_hashes)
        row = execute(f"SELECT ban_reason, banned_until FROM domino_account_bans WHERE credential_hash IN ({marks}) "
                      "AND banned_until > ? ORDER BY banned_until DESC LIMIT 1", *credential_hashes, now).fetchone()
        return None if row is None else (row[0], float(row[1]))

    @staticmethod
    def deleted(execute: Execute, account_id: str) -> bool:
        return execute("SELECT 1 FROM domino_deleted_accounts WHERE account_id = ?", account_id).fetchone() is not None

    @staticmethod
    def names(execute: Execute, account_ids: list[str]) -> dict[str, str]:
        if not account_ids:
            return {}
        marks = ", ".join("?" for _ in account_ids)
        rows = execute(f"SELECT account_id, display_name FROM domino_accounts WHERE account_id IN ({marks})",
                       *account_ids).fetchall()
        return {r[0]: r[1] for r in rows}

    @staticmethod
    def name_owner(execute: Execute, name_key: str) -> str | None:
        row = execute("SELECT account_id FROM domino_accounts WHERE name_key = ?", name_key).fetchone()
        return None if row is None else row[0]

    # ---- writes inside a transaction ----------------------------------------------------

    @staticmethod
    def add_account(execute: Execute, account_id: str, name: str, name_key: str, now: float) -> None:
        execute("INSERT INTO domino_accounts (account_id, display_name, name_key, created_at, name_changes) "
                "VALUES (?, ?, ?, ?, '[]')", account_id, name, name_key, now)

    @staticmethod
    def rename(execute: Execute, account_id: str, name: str, name_key: str, changes: list[float]) -> None:
        execute("UPDATE domino_accounts SET display_name = ?, name_key = ?, name_changes = ? WHERE account_id = ?",
                name, name_key, json.dumps(changes), account_id)

    @staticmethod
    def fact(execute: Execute, name: str) -> str | None:
        row = execute("SELECT value FROM domino_account_store WHERE name = ?", name).fetchone()
        return None if row is None else row[0]

    @staticmethod
    def set_fact(execute: Execute, name: str, value: str) -> None:
        execute("INSERT INTO domino_account_store (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE "
                "SET value = ?", name, value, value)

    @staticmethod
    def all_names(execute: Execute) -> list[tuple[str, str, str]]:
        """(account id, display name, name key) of every account, the oldest first."""
        return [tuple(r) for r in execute("SELECT account_id, display_name, name_key FROM domino_accounts "
                                          "ORDER BY created_at, account_id").fetchall()]

    @staticmethod
    def set_name_key(execute: Execute, account_id: str, name: str, name_key: str) -> None:
        execute("UPDATE domino_accounts SET display_name = ?, name_key = ? WHERE account_id = ?",
                name, name_key, account_id)

    @staticmethod
    def name_attempts(execute: Execute, account_id: str) -> list[float]:
        row = execute("SELECT name_attempts FROM domino_accounts WHERE account_id = ?", account_id).fetchone()
        return [] if row is None or not row[0] else [float(at) for at in json.loads(row[0])]

    @staticmethod
    def set_name_attempts(execute: Execute, account_id: str, attempts: list[float]) -> None:
        execute("UPDATE domino_accounts SET name_attempts = ? WHERE account_id = ?", json.dumps(attempts), account_id)

    @staticmethod
    def add_device(execute: Execute, device_id: str, account_id: str, secret_hash: str, now: float) -> None:
        execute("INSERT INTO domino_account_devices (device_id, account_id, secret_hash, created_at, last_used_at) "
                "VALUES (?, ?, ?, ?, ?)", device_id, account_id, secret_hash, now, now)

    @staticmethod
    def device_used(execute: Execute, device_id: str, now: float) -> None:
        execute("UPDATE domino_account_devices SET last_used_at = ? WHERE device_id = ?", now, device_id)

    @staticmethod
    def add_identity(execute: Execute, identity: IdentityRow, account_id: str) -> None:
        execute("INSERT INTO domino_account_identities (issuer, subject, provider, account_id, linked_at) "
                "VALUES (?, ?, ?, ?, ?)", identity.issuer, identity.subject, identity.provider, account_id,
                identity.linked_at)

    @staticmethod
    def remove_identity_row(execute: Execute, issuer: str, subject: str) -> None:
        execute("DELETE FROM domino_account_identities WHERE issuer = ? AND subject = ?", issuer, subject)

    def revoke_device_sessions(self, execute: Execute, account_id: str, device_id: str, now: float, keep: str) -> int:
        """Ends (and lists) every session the device signed in but ``keep``; how many were live."""
        execute("DELETE FROM domino_account_refresh_tokens WHERE session_id IN (SELECT session_id FROM "
                "domino_account_sessions WHERE account_id = ? AND device_id = ? AND session_id <> ?)",
                account_id, device_id, keep)
        ended = execute("UPDATE domino_account_sessions SET revoked_at = ?, revoked_why = 'device secret rotated' "
                        "WHERE account_id = ? AND device_id = ? AND session_id <> ? AND revoked_at IS NULL "
                        "RETURNING session_id", now, account_id, device_id, keep).fetchall()
        return self.revocations.list(execute, [r[0] for r in ended], now)

    @staticmethod
    def remove_identity(execute: Execute, account_id: str, provider: str) -> int:
        return execute("DELETE FROM domino_account_identities WHERE account_id = ? AND provider = ?",
                       account_id, provider).rowcount

    def remove_device(self, execute: Execute, account_id: str, device_id: str, now: float) -> int:
        """Removes the device and ends (and lists) the sessions it signed in."""
        execute("DELETE FROM domino_account_refresh_tokens WHERE session_id IN (SELECT session_id FROM "
                "domino_account_sessions WHERE account_id = ? AND device_id = ?)", account_id, device_id)
        ended = execute("UPDATE domino_account_sessions SET revoked_at = ?, revoked_why = 'device removed' "
                        "WHERE account_id = ? AND device_id = ? AND revoked_at IS NULL RETURNING session_id",
                        now, account_id, device_id).fetchall()
        removed = execute("DELETE FROM domino_account_devices WHERE account_id = ? AND device_id = ?",
                          account_id, device_id).rowcount
        self.revocations.list(execute, [r[0] for r in ended], now)
        return removed

    @staticmethod
    def remove_devices_except(execute: Execute, account_id: str, keep: str | None) -> int:
        """Removes every device of the account but ``keep`` (the caller's own; None: all)."""
        if keep is None:
            return execute("DELETE FROM domino_account_devices WHERE account_id = ?", account_id).rowcount
        return execute("DELETE FROM domino_account_devices WHERE account_id = ? AND device_id <> ?",
                       account_id, keep).rowcount

    @staticmethod
    def set_device_secret(execute: Execute, device_id: str, secret_hash: str) -> None:
        execute("UPDATE domino_account_devices SET secret_hash = ? WHERE device_id = ?", secret_hash, device_id)

    @staticmethod
    def add_session(execute: Execute, session_id: str, account_id: str, method: str, now: float,
                    device_id: str | None = None, provider: str | None = None) -> None:
        execute("INSERT INTO domino_account_sessions (session_id, account_id, method, signed_in_at, device_id, "
                "provider) VALUES (?, ?, ?, ?, ?, ?)", session_id, account_id, method, now, device_id, provider)

    @staticmethod
    def add_refresh(execute: Execute, token_hash: str, session_id: str, account_id: str, now: float,
                    expires_at: float) -> None:
        execute("INSERT INTO domino_account_refresh_tokens (token_hash, session_id, account_id, issued_at, expires_at) "
                "VALUES (?, ?, ?, ?, ?)", token_hash, session_id, account_id, now, expires_at)

    @staticmethod
    def retire_refresh(execute: Execute, token_hash: str, now: float) -> bool:
        """Marks the token used; False when it already was (a concurrent refresh won)."""
        return execute("UPDATE domino_account_refresh_tokens SET used_at = ? WHERE token_hash = ? AND used_at IS NULL",
                       now, token_hash).rowcount == 1

    def revoke_sessions(self, execute: Execute, now: float, why: str, session_id: str | None = None,
                        account_id: str | None = None) -> int:
        """Ends (and lists) one session, or every session of an account; how many were still live."""
        where, key = ("session_id = ?", session_id) if session_id is not None else ("account_id = ?", account_id)
        ended = execute(f"UPDATE domino_account_sessions SET revoked_at = ?, revoked_why = ? "
                        f"WHERE {where} AND revoked_at IS NULL RETURNING session_id", now, why, key).fetchall()
        execute(f"DELETE FROM domino_account_refresh_tokens WHERE {where}", key)
        return self.revocations.list(execute, [r[0] for r in ended], now)

    @staticmethod
    def ban(execute: Execute, account_id: str, until: float | None, reason: str | None,
            credential_hashes: Sequence[str] = ()) -> bool:
        """Bans (``until``) or unbans (None) the account and the credentials that lead to it."""
        if execute("UPDATE domino_accounts SET banned_until = ?, ban_reason = ? WHERE account_id = ?",
                   until, reason, account_id).rowcount != 1:
            return False
        execute("DELETE FROM domino_account_bans WHERE account_id = ?", account_id)
        if until is not None:
            for credential in credential_hashes:
                execute("INSERT INTO domino_account_bans (credential_hash, account_id, banned_until, ban_reason) "
                        "VALUES (?, ?, ?, ?) ON CONFLICT (credential_hash) DO UPDATE SET account_id = ?, "
                        "banned_until = ?, ban_reason = ?", credential, account_id, until, reason, account_id,
                        until, reason)
        return True

    @staticmethod
    def use_id_token(execute: Execute, token_hash: str, expires_at: float) -> bool:
        """Records an ID token as used; False when it already was."""
        return execute("INSERT INTO domino_account_used_id_tokens (token_hash, expires_at) VALUES (?, ?) "
                       "ON CONFLICT (token_hash) DO NOTHING", token_hash, expires_at).rowcount == 1

    @staticmethod
    def forget_ended_bans(execute: Execute, now: float) -> int:
        return max(0, execute("DELETE FROM domino_account_bans WHERE banned_until <= ?", now).rowcount)

    @staticmethod
    def forget_used_id_tokens(execute: Execute, now: float) -> int:
        return max(0, execute("DELETE FROM domino_account_used_id_tokens WHERE expires_at <= ?", now).rowcount)

    def erase(self, execute: Execute, account_id: str, now: float) -> None:
        """Every row that holds the account's personal data; the id stays as a tombstone (and
        a running ban's credential hashes, until the ban ends: docs/security.md). Its live
        sessions are listed as revoked, by their random ids alone."""
        live = execute("SELECT session_id FROM domino_account_sessions WHERE account_id = ? AND revoked_at IS NULL",
                       account_id).fetchall()
        for table in ("domino_account_refresh_tokens", "domino_account_sessions", "domino_account_identities",
                      "domino_account_devices", "domino_accounts"):
            execute(f"DELETE FROM {table} WHERE account_id = ?", account_id)
        self.notices.erase(execute, account_id)
        execute("INSERT INTO domino_deleted_accounts (account_id, deleted_at) VALUES (?, ?) "
                "ON CONFLICT (account_id) DO NOTHING", account_id, now)
        self.revocations.list(execute, [r[0] for r in live], now)

    @staticmethod
    def unerased(execute: Execute, limit: int = 100) -> list[str]:
        """Deleted accounts whose history the match service has not yet confirmed erased."""
        return [r[0] for r in execute("SELECT account_id FROM domino_deleted_accounts WHERE erased_at IS NULL "
                                      "ORDER BY deleted_at LIMIT ?", limit).fetchall()]

    @staticmethod
    def count_unerased(execute: Execute) -> int:
        return int(execute("SELECT COUNT(*) FROM domino_deleted_accounts WHERE erased_at IS NULL").fetchone()[0])

    @staticmethod
    def erased(execute: Execute, account_id: str, now: float) -> None:
        execute("UPDATE domino_deleted_accounts SET erased_at = ? WHERE account_id = ?", now, account_id)

    def dump(self) -> dict[str, list[Any]]:
        """Every row of every table (tests search them after an erasure)."""
        with self.transaction() as execute:
            return {table: [tuple(r) for r in execute(f"SELECT * FROM {table}").fetchall()] for table in TABLES}
