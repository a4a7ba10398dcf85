"""The index of every match by start, family and state: what staff find matches by
(MatchAdminService.ListMatches, served by the match service), kept beside the history rows
by the same projection, in the same transactions (view.py).

The history keeps a row per player and match; a listing of all matches read from it would
scan every seat of every match and collapse them. This table keeps one row per match
instead, with the indexes the console's questions need: newest first, of a family, still in
play. A player's matches are still found through the history's own index (player, start),
so a deleted account's matches are no longer found by their id (view.View.forget).

A view made before this table gets it filled from the history rows it already holds
(``backfill``, once, when the table is created): a match whose every seat was forgotten is
not among them until `domino projections rebuild`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from services.common.bot_ids import is_bot

from .summary import Ended, Started

TABLE = "domino_matches"
SCHEMA = [
    "CREATE TABLE IF NOT EXISTS domino_matches (match_id TEXT PRIMARY KEY, rules TEXT NOT NULL, "
    "variant TEXT NOT NULL, teams INTEGER NOT NULL, seats TEXT NOT NULL, scores TEXT NOT NULL, "
    "started_at DOUBLE PRECISION NOT NULL, ended_at DOUBLE PRECISION, rated INTEGER NOT NULL)",
    "CREATE INDEX IF NOT EXISTS domino_matches_newest ON domino_matches (started_at DESC, match_id DESC)",
    "CREATE INDEX IF NOT EXISTS domino_matches_family ON domino_matches (rules, variant, started_at DESC, "
    "match_id DESC)",
    "CREATE INDEX IF NOT EXISTS domino_matches_in_play ON domino_matches (started_at DESC, match_id DESC) "
    "WHERE ended_at IS NULL",
]
# One row per match from the history's rows of it (every column but the seat's own is the
# same in each of them).
_BACKFILL = ("INSERT INTO domino_matches (match_id, rules, variant, teams, seats, scores, started_at, ended_at, rated) "
             "SELECT match_id, MIN(rules), MIN(variant), MIN(teams), MIN(seats), MIN(scores), MIN(started_at), "
             "MIN(ended_at), MIN(rated) FROM domino_history GROUP BY match_id ON CONFLICT (match_id) DO NOTHING")
_COLUMNS = "m.match_id, m.rules, m.variant, m.teams, m.seats, m.scores, m.started_at, m.ended_at, m.rated"


@dataclass(frozen=True)
class ListedMatch:
    match_id: str
    rules: str
    variant: str
    teams: bool
    seats: list[str]
    scores: list[int]
    started_at: float
    ended_at: float | None  # None: in play
    rated: bool


@dataclass(frozen=True)
class MatchFilter:
    """Which matches a listing keeps; each field unset (None, empty) keeps all."""

    finished: bool | None = None  # True: ended ones only; False: those in play
    rules: str = ""
    variant: str = ""
    player_id: str = ""
    started_after: float | None = None  # at or after
    started_before: float | None = None
    match_id: str = ""
    after: tuple[float, str] | None = None  # (started_at, match_id) of the last one seen


def exists(execute, postgres: bool) -> bool:
    if postgres:
        return execute("SELECT to_regclass('domino_matches') IS NOT NULL").fetchone()[0]
    found = execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'domino_matches'").fetchone()
    return found is not None


def create(execute, postgres: bool) -> None:
    """Make the table and its indexes; a view that had history rows before gets them indexed."""
    new = not exists(execute, postgres)
    for statement in SCHEMA:
        execute(statement)
    if new:
        execute(_BACKFILL)


def started(execute, s: Started) -> None:
    execute("INSERT INTO domino_matches (match_id, rules, variant, teams, seats, scores, started_at, ended_at, rated) "
            "VALUES (?, ?, ?, ?, ?, '[]', ?, NULL, ?) ON CONFLICT (match_id) DO NOTHING",
            s.match_id, s.rules, s.variant, int(s.teams), json.dumps(list(s.seats)), s.started_at, int(s.rated))


def ended(execute, e: Ended) -> None:
    execute("UPDATE domino_matches SET scores = ?, ended_at = ? WHERE match_id = ?",
            json.dumps(list(e.scores)), e.ended_at, e.match_id)


def listed(execute, which: MatchFilter, limit: int) -> list[ListedMatch]:
    """The matches ``which`` keeps, newest first by start (then by id), at most ``limit``."""
    where: list[str] = []
    params: list[Any] = []
    source = "domino_matches m"
    start, ident = "m.started_at", "m.match_id"
    if which.player_id:  # the history's (player, start) index finds them, and orders them
        source = "domino_history h JOIN domino_matches m ON m.match_id = h.match_id"
        start, ident = "h.started_at", "h.match_id"
        where.append("h.player_id = ?")
        params.append(which.player_id)
    if which.finished is not None:
        where.append("m.ended_at IS NOT NULL" if which.finished else "m.ended_at IS NULL")
    for column, value in (("m.rules", which.rules), ("m.variant", which.variant), ("m.match_id", which.match_id)):
        if value:
            where.append(f"{column} = ?")
            params.append(value)
    if which.started_after is not None:
        where.append(f"{start} >= ?")
        params.append(which.started_after)
    if which.started_before is not None:
        where.append(f"{start} < ?")
        params.append(which.started_before)
    if which.after is not None:
        where.append(f"({start} < ? OR ({start} = ? AND {ident} < ?))")
        params += [which.after[0], which.after[0], which.after[1]]
    condition = f"WHERE {' AND '.join(where)} " if where else ""
    rows = execute(f"SELECT {_COLUMNS} FROM {source} {condition}ORDER BY {start} DESC, {ident} DESC LIMIT ?",
                   *params, limit).fetchall()
    return [ListedMatch(r[0], r[1], r[2], bool(r[3]), json.loads(r[4]), json.loads(r[5]), float(r[6]),
                        None if r[7] is None else float(r[7]), bool(r[8])) for r in rows]


@dataclass(frozen=True)
class InPlay:
    """Tables in play of one family and variant, and the people seated at them (bots left
    out): the Now page's first figures, exported by the relay as gauges."""

    rules: str
    variant: str
    tables: int
    people: int


def in_play(execute) -> list[InPlay]:
    rows = execute("SELECT rules, variant, seats FROM domino_matches WHERE ended_at IS NULL").fetchall()
    counted: dict[tuple[str, str], list[int]] = {}
    for rules, variant, seats in rows:
        tally = counted.setdefault((rules, variant), [0, 0])
        tally[0] += 1
        tally[1] += sum(not is_bot(seat) for seat in json.loads(seats))
    return [InPlay(rules, variant, tables, people) for (rules, variant), (tables, people) in sorted(counted.items())]


def dump(execute) -> list[tuple]:
    return [tuple(r) for r in execute("SELECT * FROM domino_matches ORDER BY match_id").fetchall()]
