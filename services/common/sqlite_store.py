"""The local run's store: eventsourcing's SQLite, with commits that do not wait for the disk.

eventsourcing puts SQLite in WAL mode, whose default (synchronous=FULL) syncs the disk on
every commit: a few milliseconds each on these machines, which would bound the match
service far below what its CPU can do. With synchronous=NORMAL a commit is durable
against any crash of the process; only a power cut can lose the last commits. That is the
right trade for the embedded local store; production runs on PostgreSQL.

Use it with `PERSISTENCE_MODULE=services.common.sqlite_store` and `SQLITE_DBNAME`.
"""

from __future__ import annotations

from eventsourcing import sqlite  # a module, not its names: eventsourcing wants one factory class here

from .private_files import private_sqlite


class NormalSyncConnectionPool(sqlite.SQLiteConnectionPool):
    def _create_connection(self) -> sqlite.SQLiteConnection:
        if not self.is_sqlite_memory_mode:
            private_sqlite(self.db_name)  # the file holds unrevealed seeds: 0600 before SQLite makes it
        connection = super()._create_connection()
        if not self.is_sqlite_memory_mode:
            connection._sqlite_conn.execute("PRAGMA synchronous=NORMAL")
        return connection


class Factory(sqlite.SQLiteFactory):
    def __init__(self, env) -> None:
        super().__init__(env)
        self.datastore.pool.__class__ = NormalSyncConnectionPool  # before its first connection
