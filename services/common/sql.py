"""One small SQL database, on SQLite or PostgreSQL, for the tables that are not event
sourced (the history view, the account store): a transaction is ``with db.transaction() as
execute:``; the SQL is written once with `?` placeholders (turned into `%s` for psycopg)
and `INSERT ... ON CONFLICT`, which both understand.

The database is the one eventsourcing's variables name (`PERSISTENCE_MODULE`,
`POSTGRES_*`): on PostgreSQL the tables sit in the match store's own database; on SQLite
in a file of their own beside its file, so their writes never wait on the match service's.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from contextlib import contextmanager
from typing import Any, Callable, Iterator

from .private_files import private_sqlite

Execute = Callable[..., Any]


class Conflict(Exception):
    """The transaction lost a race (a unique key another committed first, a deadlock, a
    serialization failure, SQLite busy past its timeout) and was rolled back whole: the
    caller may run it again, which then sees the winner's rows. Its message is ours alone:
    a driver's own (PostgreSQL's DETAIL names the conflicting key, which may be personal
    data) is never carried on, so it can reach no reply and no log."""

    def __init__(self, kind: str) -> None:
        super().__init__(f"the store refused the transaction ({kind}); it changed nothing and may be tried again")
        self.kind = kind


def _conflict_kind(error: BaseException) -> str | None:
    """What race ``error`` reports, or None when it is no race."""
    if isinstance(error, sqlite3.IntegrityError) and "UNIQUE" in str(error):
        return "unique"
    if isinstance(error, sqlite3.OperationalError) and "locked" in str(error):
        return "busy"
    module = type(error).__module__
    if module.startswith("psycopg"):
        from psycopg import errors

        if isinstance(error, errors.UniqueViolation):
            return "unique"
        if isinstance(error, (errors.DeadlockDetected, errors.SerializationFailure, errors.LockNotAvailable)):
            return "deadlock"
    return None


class Database:
    def __init__(self, connect: Callable[[], Any], postgres: bool, pool: Any = None, keep: bool = False) -> None:
        self._connect = connect
        self.postgres = postgres
        self._pool = pool  # PostgreSQL: a small pool, opened on first use (a connection costs milliseconds)
        self._opened = False
        self._keep = keep  # SQLite: one open connection per thread, not one per transaction
        self._kept = threading.local()
        self._all: list[Any] = []
        self._all_lock = threading.Lock()
        self._busy: set[int] = set()  # kept connections inside a transaction now
        self._closing: list[Any] = []  # closed by close() while busy: closed when their transaction ends

    @classmethod
    def for_env(cls, env: dict[str, str], sqlite_file: str, pool_size: int = 4,
                pragmas: tuple[str, ...] = (), keep: bool = False) -> "Database":
        """The database of the store ``env`` names; ``sqlite_file``: the file's name beside
        the match store's SQLite file (or a full path, or a `file:` URI). ``keep``: on
        SQLite, keep a connection open per thread (opening one per transaction costs more
        than a small transaction)."""
        if "postgres" in env.get("PERSISTENCE_MODULE", ""):
            from psycopg_pool import ConnectionPool

            args: dict[str, Any] = dict(dbname=env["POSTGRES_DBNAME"], host=env.get("POSTGRES_HOST", "localhost"),
                                        port=env.get("POSTGRES_PORT", "5432"), user=env.get("POSTGRES_USER", ""),
                                        password=env.get("POSTGRES_PASSWORD") or None,
                                        connect_timeout=int(float(env.get("POSTGRES_CONNECT_TIMEOUT", "5"))))
            pool = ConnectionPool(kwargs=args, min_size=1, max_size=pool_size, timeout=5, open=False)
            return cls(lambda: None, postgres=True, pool=pool)
        path = sqlite_file
        if not (os.path.isabs(path) or path.startswith("file:")):
            path = os.path.join(os.path.dirname(env.get("SQLITE_DBNAME", "")) or ".", sqlite_file)

        def connect() -> sqlite3.Connection:
            private_sqlite(path)  # 0600 before SQLite makes it (services/common/private_files.py)
            conn = sqlite3.connect(path, timeout=10, isolation_level=None, uri=path.startswith("file:"),
                                   check_same_thread=False)  # closed by close(), from any thread
            for pragma in pragmas:
                conn.execute(f"PRAGMA {pragma}")
            return conn

        return cls(connect, postgres=False, keep=keep)

    @contextmanager
    def transaction(self) -> Iterator[Execute]:
        """``execute(sql, *params)`` inside one transaction, committed at the end."""
        try:
            if self._pool is not None:
                if not self._opened:
                    self._pool.open(wait=True, timeout=10)
                    self._opened = True
                with self._pool.connection() as conn, conn.transaction():
                    yield lambda sql, *params: conn.execute(sql.replace("?", "%s"), params)
                return
            conn = self._thread_connection() if self._keep else self._connect()
            if self._keep:
                with self._all_lock:
                    self._busy.add(id(conn))
            try:
                conn.execute("BEGIN IMMEDIATE")
                try:
                    yield lambda sql, *params: conn.execute(sql, params)
                except BaseException:
                    conn.execute("ROLLBACK")
                    raise
                conn.execute("COMMIT")
            finally:
                if not self._keep:
                    conn.close()
                else:
                    self._done_with(conn)
        except Exception as error:
            kind = _conflict_kind(error)
            if kind is None:
                raise
            raise Conflict(kind) from None

    def checkpoint(self) -> None:
        """SQLite: copy the write-ahead log into the database file and empty it (nothing on
        PostgreSQL)."""
        if self.postgres:
            return
        conn = self._thread_connection() if self._keep else self._connect()
        try:
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            if not self._keep:
                conn.close()

    def _thread_connection(self) -> Any:
        conn = getattr(self._kept, "conn", None)
        if conn is None:
            conn = self._kept.conn = self._connect()
            with self._all_lock:
                self._all.append(conn)
        return conn

    def _done_with(self, conn: Any) -> None:
        """A kept connection's transaction ended: closed now if ``close`` came meanwhile."""
        with self._all_lock:
            self._busy.discard(id(conn))
            if conn in self._closing:
                self._closing.remove(conn)
                conn.close()

    def close(self) -> None:
        """Closes every kept connection; one in a transaction on another thread is closed when
        that transaction ends (closing a SQLite connection under a running statement crashes
        the process: a stream's last read on a worker thread as its server stops)."""
        if self._pool is not None and self._opened:
            self._pool.close()
            self._opened = False
        with self._all_lock:
            for conn in self._all:
                if id(conn) in self._busy:
                    self._closing.append(conn)
                else:
                    conn.close()
            self._all.clear()
        self._kept = threading.local()
