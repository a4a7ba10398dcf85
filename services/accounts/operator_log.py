"""The operator log: what staff did to accounts (and what the console did on its own), who did
it, when and why, kept where the change is made so the two cannot disagree.

Each entry is written in the transaction of the change it records (a refused or rolled-back
change leaves none) and is never updated or deleted: no code path does, and the store's
triggers refuse it. An account's deletion leaves the entries naming it, which hold its id
only. Entries are numbered 1, 2, ... with no gap, and each carries a hash linking it to the
one before (`entry_hash`), so a row rewritten or removed in the store shows when the chain
is checked (`first_break`).

Two writers at once must not both take the same number or the same previous hash: SQLite
runs one writing transaction at a time (BEGIN IMMEDIATE); on PostgreSQL each append first
takes the table's EXCLUSIVE lock (reads go on), as the revocation list does, and appends as
its transaction's last statement, so no transaction holding it waits for another.
"""

from __future__ import annotations

import datetime
import hashlib
import json
from dataclasses import dataclass
from typing import Any, Sequence

from services.common.sql import Execute

TABLE = "domino_account_operator_log"
GENESIS = "0" * 64  # the hash before the first entry


@dataclass(frozen=True)
class LogEntry:
    sequence: int
    at_us: int  # microseconds since the epoch, UTC
    staff_id: str
    staff_name: str
    staff_roles: tuple[str, ...]
    action: str
    target: str
    why: str
    details: str
    hash: str

    @property
    def at(self) -> float:
        return self.at_us / 1e6


@dataclass(frozen=True)
class LogPage:
    entries: tuple[LogEntry, ...]  # newest first
    more: bool


def rfc3339_us(at_us: int) -> str:
    """The instant as the hash reads it: UTC, always six digits of fraction, a `Z`."""
    moment = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc) + datetime.timedelta(microseconds=at_us)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def canonical(value: Any) -> bytes:
    """JSON with sorted keys, no spaces, UTF-8 unescaped: RFC 8785 for values without floats."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def hashed_fields(sequence: int, at_us: int, staff_id: str, staff_name: str, staff_roles: Sequence[str],
                  action: str, target: str, why: str, details: str) -> dict[str, Any]:
    return {"sequence": sequence, "at": rfc3339_us(at_us), "staff_id": staff_id, "staff_name": staff_name,
            "staff_roles": sorted(staff_roles), "action": action, "target": target, "why": why, "details": details}


def entry_hash(previous: str, fields: dict[str, Any]) -> str:
    """The entry's `hash`: hex SHA-256 over the 32 bytes of the previous entry's hash (for the
    first entry, 32 zero bytes: ``GENESIS``) followed by the canonical JSON (``canonical``) of
    the object ``hashed_fields`` builds from the entry's other fields: `sequence` (a number),
    `at` (RFC 3339 UTC with six fraction digits and `Z`, e.g. "2026-12-07T03:04:05.123456Z"),
    `staff_id`, `staff_name`, `staff_roles` (sorted list), `action`, `target`, `why` and
    `details` (strings, empty when unset). docs/security.md, "The operator log", says the same."""
    return hashlib.sha256(bytes.fromhex(previous) + canonical(fields)).hexdigest()


def first_break(oldest_first: Sequence[LogEntry], previous: str = GENESIS, after: int = 0) -> int | None:
    """The sequence of the first entry that does not follow from the one before (a number
    skipped, a field or a hash changed), or None when the whole run links up. ``previous``
    and ``after``: the hash and sequence of the entry just before the run (none: the start)."""
    for entry in oldest_first:
        fields = hashed_fields(entry.sequence, entry.at_us, entry.staff_id, entry.staff_name, entry.staff_roles,
                               entry.action, entry.target, entry.why, entry.details)
        if entry.sequence != after + 1 or entry.hash != entry_hash(previous, fields):
            return entry.sequence
        previous, after = entry.hash, entry.sequence
    return None


_COLUMNS = "sequence, at_us, staff_id, staff_name, staff_roles, action, target, why, details, hash"
_REFUSE = "the operator log is append-only"


class OperatorLog:
    """The table's SQL, on SQLite or PostgreSQL (``postgres``), inside the caller's transaction."""

    def __init__(self, postgres: bool) -> None:
        self.postgres = postgres

    def schema(self) -> list[str]:
        statements = [
            f"CREATE TABLE IF NOT EXISTS {TABLE} (sequence BIGINT PRIMARY KEY, at_us BIGINT NOT NULL, "
            "staff_id TEXT NOT NULL, staff_name TEXT NOT NULL, staff_roles TEXT NOT NULL, action TEXT NOT NULL, "
            "target TEXT NOT NULL, why TEXT NOT NULL, details TEXT NOT NULL, hash TEXT NOT NULL)",
            f"CREATE INDEX IF NOT EXISTS {TABLE}_target ON {TABLE} (target, sequence)",
        ]
        if self.postgres:  # created once, so replicas starting at once do not replace them under each other
            return statements + [
                f"DO $do$ BEGIN IF to_regprocedure('{TABLE}_refuse()') IS NULL THEN "
                f"CREATE FUNCTION {TABLE}_refuse() RETURNS trigger LANGUAGE plpgsql AS "
                f"$f$ BEGIN RAISE EXCEPTION '{_REFUSE}'; END $f$; END IF; "
                f"IF NOT EXISTS (SELECT 1 FROM pg_trigger WHERE tgname = '{TABLE}_append_only' "
                f"AND tgrelid = '{TABLE}'::regclass) THEN "
                f"CREATE TRIGGER {TABLE}_append_only BEFORE UPDATE OR DELETE ON {TABLE} "
                f"FOR EACH ROW EXECUTE FUNCTION {TABLE}_refuse(); END IF; END $do$",
            ]
        return statements + [
            f"CREATE TRIGGER IF NOT EXISTS {TABLE}_no_{change} BEFORE {change.upper()} ON {TABLE} "
            f"BEGIN SELECT RAISE(ABORT, '{_REFUSE}'); END" for change in ("update", "delete")]

    def append(self, execute: Execute, at_us: int, staff_id: str, staff_name: str, staff_roles: Sequence[str],
               action: str, target: str, why: str, details: str = "") -> LogEntry:
        """Adds the next entry, linked to the newest; call it last in the transaction."""
        if self.postgres:
            execute(f"LOCK TABLE {TABLE} IN EXCLUSIVE MODE")
        row = execute(f"SELECT sequence, hash FROM {TABLE} ORDER BY sequence DESC LIMIT 1").fetchone()
        sequence, previous = (int(row[0]) + 1, row[1]) if row else (1, GENESIS)
        roles = tuple(sorted(staff_roles))
        digest = entry_hash(previous, hashed_fields(sequence, at_us, staff_id, staff_name, roles, action, target,
                                                    why, details))
        execute(f"INSERT INTO {TABLE} ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", sequence, at_us, staff_id,
                staff_name, json.dumps(roles), action, target, why, details, digest)
        return LogEntry(sequence, at_us, staff_id, staff_name, roles, action, target, why, details, digest)

    @staticmethod
    def page(execute: Execute, before: int | None, size: int, target: str = "") -> LogPage:
        """At most ``size`` entries older than sequence ``before`` (None: the newest), newest
        first; only those about ``target`` when it is set."""
        where, args = [], []  # type: list[str], list[Any]
        if before is not None:
            where.append("sequence < ?")
            args.append(before)
        if target:
            where.append("target = ?")
            args.append(target)
        clause = f" WHERE {' AND '.join(where)}" if where else ""
        rows = execute(f"SELECT {_COLUMNS} FROM {TABLE}{clause} ORDER BY sequence DESC LIMIT ?", *args,
                       size + 1).fetchall()
        return LogPage(tuple(_entry(r) for r in rows[:size]), len(rows) > size)

    @staticmethod
    def oldest_first(execute: Execute) -> list[LogEntry]:
        """Every entry, for checking the chain whole."""
        return [_entry(r) for r in execute(f"SELECT {_COLUMNS} FROM {TABLE} ORDER BY sequence").fetchall()]


def _entry(row: Sequence[Any]) -> LogEntry:
    return LogEntry(int(row[0]), int(row[1]), row[2], row[3], tuple(json.loads(row[4])), row[5], row[6], row[7],
                    row[8], row[9])
