"""Presence rows: which replica holds a player's open WatchNotifications streams, each
replica's lease, and when a player was last seen.

A replica writes a row when a player's first stream on it opens and deletes it when the
last closes (then last_seen); its lease row is refreshed every ~30 s, one write per replica
whatever its number of streams. A row counts only while its replica's lease runs: a replica
killed with streams open stops refreshing, its rows stop counting, and any live replica's
sweep moves them to last_seen (at the dead replica's last refresh) and deletes them.

An erased player (their tombstone, inbox_store.py) gets no row, whatever a stream still
open at the erasure writes when it closes."""

from __future__ import annotations

from services.common.sql import Execute

from .inbox_store import InboxStore

TABLES = ("domino_social_replicas", "domino_social_presence", "domino_social_last_seen")
SCHEMA = [
    "CREATE TABLE IF NOT EXISTS domino_social_replicas (replica_id TEXT PRIMARY KEY, "
    "refreshed_at DOUBLE PRECISION NOT NULL, lease_until DOUBLE PRECISION NOT NULL)",
    "CREATE TABLE IF NOT EXISTS domino_social_presence (player_id TEXT NOT NULL, replica_id TEXT NOT NULL, "
    "PRIMARY KEY (player_id, replica_id))",
    "CREATE INDEX IF NOT EXISTS domino_social_presence_replica ON domino_social_presence (replica_id)",
    "CREATE TABLE IF NOT EXISTS domino_social_last_seen (player_id TEXT PRIMARY KEY, "
    "last_seen DOUBLE PRECISION NOT NULL)",
]


class PresenceStore:
    @staticmethod
    def lease(execute: Execute, replica_id: str, now: float, until: float) -> bool:
        """Refreshes the replica's lease; False when its row was gone (swept as dead)."""
        updated = execute("UPDATE domino_social_replicas SET refreshed_at = ?, lease_until = ? WHERE replica_id = ?",
                          now, until, replica_id).rowcount
        if updated:
            return True
        execute("INSERT INTO domino_social_replicas (replica_id, refreshed_at, lease_until) VALUES (?, ?, ?) "
                "ON CONFLICT (replica_id) DO UPDATE SET refreshed_at = ?, lease_until = ?",
                replica_id, now, until, now, until)
        return False

    @staticmethod
    def online(execute: Execute, player_id: str, replica_id: str) -> None:
        if InboxStore.buried(execute, [player_id]):
            return
        execute("INSERT INTO domino_social_presence (player_id, replica_id) VALUES (?, ?) "
                "ON CONFLICT (player_id, replica_id) DO NOTHING", player_id, replica_id)

    @staticmethod
    def offline(execute: Execute, player_id: str, replica_id: str, now: float) -> None:
        execute("DELETE FROM domino_social_presence WHERE player_id = ? AND replica_id = ?", player_id, replica_id)
        PresenceStore.seen(execute, player_id, now)

    @staticmethod
    def rewrite(execute: Execute, replica_id: str, players: set[str], now: float) -> None:
        """The replica's rows become ``players``: those it holds beyond them go offline (seen
        ``now``), the missing ones are written."""
        held = {r[0] for r in execute("SELECT player_id FROM domino_social_presence WHERE replica_id = ?",
                                      replica_id).fetchall()}
        for player in sorted(held - players):
            PresenceStore.offline(execute, player, replica_id, now)
        for player in sorted(players - held):
            PresenceStore.online(execute, player, replica_id)

    @staticmethod
    def seen(execute: Execute, player_id: str, at: float) -> None:
        if InboxStore.buried(execute, [player_id]):
            return
        execute("INSERT INTO domino_social_last_seen (player_id, last_seen) VALUES (?, ?) ON CONFLICT (player_id) "
                "DO UPDATE SET last_seen = CASE WHEN domino_social_last_seen.last_seen > ? "
                "THEN domino_social_last_seen.last_seen ELSE ? END", player_id, at, at, at)

    @staticmethod
    def of(execute: Execute, player_ids: list[str], now: float) -> dict[str, tuple[bool, float | None]]:
        """player -> (online on a replica whose lease runs, last seen)."""
        if not player_ids:
            return {}
        marks = ", ".join("?" for _ in player_ids)
        live = {r[0] for r in execute(
            f"SELECT p.player_id FROM domino_social_presence p JOIN domino_social_replicas r "
            f"ON r.replica_id = p.replica_id WHERE r.lease_until > ? AND p.player_id IN ({marks})",
            now, *player_ids).fetchall()}
        seen = {r[0]: float(r[1]) for r in execute(
            f"SELECT player_id, last_seen FROM domino_social_last_seen WHERE player_id IN ({marks})",
            *player_ids).fetchall()}
        dead = {r[0]: float(r[1]) for r in execute(
            f"SELECT p.player_id, r.refreshed_at FROM domino_social_presence p JOIN domino_social_replicas r "
            f"ON r.replica_id = p.replica_id WHERE r.lease_until <= ? AND p.player_id IN ({marks})",
            now, *player_ids).fetchall()}
        for player, at in dead.items():
            seen[player] = max(at, seen.get(player, at))
        return {p: (p in live, seen.get(p)) for p in player_ids}

    @staticmethod
    def sweep_dead(execute: Execute, now: float, limit: int) -> int:
        """Moves up to ``limit`` rows of replicas whose lease ran out to last_seen; a dead
        replica with no rows left goes too. How many rows moved."""
        rows = execute("SELECT p.player_id, p.replica_id, r.refreshed_at FROM domino_social_presence p "
                       "JOIN domino_social_replicas r ON r.replica_id = p.replica_id WHERE r.lease_until <= ? "
                       "LIMIT ?", now, limit).fetchall()
        for player, replica, at in rows:
            PresenceStore.seen(execute, player, float(at))
            execute("DELETE FROM domino_social_presence WHERE player_id = ? AND replica_id = ?", player, replica)
        execute("DELETE FROM domino_social_replicas WHERE lease_until <= ? AND NOT EXISTS (SELECT 1 FROM "
                "domino_social_presence p WHERE p.replica_id = domino_social_replicas.replica_id)", now)
        return len(rows)

    @staticmethod
    def erase(execute: Execute, player_id: str) -> int:
        return sum(max(0, execute(sql, player_id).rowcount) for sql in (
            "DELETE FROM domino_social_presence WHERE player_id = ?",
            "DELETE FROM domino_social_last_seen WHERE player_id = ?"))
