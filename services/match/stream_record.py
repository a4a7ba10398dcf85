"""The table of seated players' open WatchMatch streams, shared by every match replica of a
store, so any replica can tell the notifier whether a player has the match open anywhere
(GetTurnAttention: no "your turn" push to a phone that is showing the turn already).

Each replica writes only its own rows, (replica, match, player) -> how many streams, and
one lease row it renews every ``REFRESH_SECONDS``. A replica killed without closing its
streams leaves its rows behind; they stop counting once its lease lapses (``LEASE_SECONDS``),
and a replica starting again under the same id clears them. Rows of a replica whose lease
lapsed long ago (``FORGET_SECONDS``) are deleted by any replica renewing its own.

On PostgreSQL the tables sit in the match store's own database; on SQLite in
`open_streams.sqlite` beside its file, the one every replica of that store opens.
Times are each writer's clock (time.time): replicas whose clocks disagree by more than the
lease's margin over the refresh would misjudge each other's leases.
"""

from __future__ import annotations

from typing import Iterable

from services.common.sql import Database

LEASE_SECONDS = 60.0  # three refreshes: a replica that misses two still counts
REFRESH_SECONDS = 20.0
FORGET_SECONDS = 3600.0  # a lapsed replica's rows are kept this long for an operator to see, then deleted

_SCHEMA = [
    "CREATE TABLE IF NOT EXISTS domino_open_streams (replica TEXT NOT NULL, match_id TEXT NOT NULL, "
    "player_id TEXT NOT NULL, streams INTEGER NOT NULL, PRIMARY KEY (replica, match_id, player_id))",
    "CREATE INDEX IF NOT EXISTS domino_open_streams_seat ON domino_open_streams (match_id, player_id)",
    "CREATE TABLE IF NOT EXISTS domino_stream_leases (replica TEXT PRIMARY KEY, "
    "expires_at DOUBLE PRECISION NOT NULL)",
]


class StreamRecord:
    def __init__(self, db: Database) -> None:
        self.db = db

    @classmethod
    def for_env(cls, env: dict[str, str]) -> "StreamRecord":
        # SQLite: a connection per transaction (they are few: streams opening and closing,
        # coalesced), so closing the record never closes one a late call still uses
        return cls(Database.for_env(env, "open_streams.sqlite", pool_size=2, pragmas=("journal_mode=WAL",)))

    def create(self) -> None:
        with self.db.transaction() as execute:
            for statement in _SCHEMA:
                execute(statement)

    def start(self, replica: str, now: float) -> None:
        """A replica (re)starting: whatever it recorded before is gone, and its lease begins."""
        with self.db.transaction() as execute:
            execute("DELETE FROM domino_open_streams WHERE replica = ?", replica)
            self._lease(execute, replica, now)

    def write(self, replica: str, counts: Iterable[tuple[str, str, int]]) -> None:
        """Set the replica's count of streams for each (match, player); 0 deletes the row."""
        with self.db.transaction() as execute:
            for match_id, player_id, streams in counts:
                if streams > 0:
                    execute("INSERT INTO domino_open_streams (replica, match_id, player_id, streams) "
                            "VALUES (?, ?, ?, ?) ON CONFLICT (replica, match_id, player_id) "
                            "DO UPDATE SET streams = excluded.streams", replica, match_id, player_id, streams)
                else:
                    execute("DELETE FROM domino_open_streams WHERE replica = ? AND match_id = ? AND player_id = ?",
                            replica, match_id, player_id)

    def replace(self, replica: str, counts: Iterable[tuple[str, str, int]], now: float) -> None:
        """The replica's rows made exactly ``counts`` (after writes that failed), its lease renewed."""
        with self.db.transaction() as execute:
            execute("DELETE FROM domino_open_streams WHERE replica = ?", replica)
            for match_id, player_id, streams in counts:
                execute("INSERT INTO domino_open_streams (replica, match_id, player_id, streams) VALUES (?, ?, ?, ?)",
                        replica, match_id, player_id, streams)
            self._lease(execute, replica, now)

    def renew(self, replica: str, now: float) -> int:
        """Renew the replica's lease and forget replicas long gone; how many were forgotten."""
        with self.db.transaction() as execute:
            self._lease(execute, replica, now)
            gone = [r[0] for r in execute("SELECT replica FROM domino_stream_leases WHERE expires_at < ?",
                                          now - FORGET_SECONDS).fetchall()]
            for other in gone:
                execute("DELETE FROM domino_open_streams WHERE replica = ?", other)
                execute("DELETE FROM domino_stream_leases WHERE replica = ?", other)
        return len(gone)

    def stop(self, replica: str) -> None:
        """A clean stop: the replica's streams end with it."""
        with self.db.transaction() as execute:
            execute("DELETE FROM domino_open_streams WHERE replica = ?", replica)
            execute("DELETE FROM domino_stream_leases WHERE replica = ?", replica)

    def streaming(self, match_id: str, player_id: str, now: float) -> bool:
        """Whether a replica whose lease holds at ``now`` has a stream of the player's open."""
        with self.db.transaction() as execute:
            row = execute("SELECT 1 FROM domino_open_streams s JOIN domino_stream_leases l ON l.replica = s.replica "
                          "WHERE s.match_id = ? AND s.player_id = ? AND l.expires_at > ? LIMIT 1",
                          match_id, player_id, now).fetchone()
        return row is not None

    def close(self) -> None:
        self.db.close()

    @staticmethod
    def _lease(execute, replica: str, now: float) -> None:
        execute("INSERT INTO domino_stream_leases (replica, expires_at) VALUES (?, ?) ON CONFLICT (replica) "
                "DO UPDATE SET expires_at = excluded.expires_at", replica, now + LEASE_SECONDS)
