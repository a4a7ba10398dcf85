"""The history and ratings tables: a view of the match store, kept by the history projection
(services/match/history_projection.py) and read by the match service's ListMyMatches,
GetRating and GetLeaderboard, and by the staff's MatchAdminService (the index of every match:
match_index.py).

Everything in them can be rebuilt from the match events alone (`domino projections rebuild`):
each batch of events is applied in one transaction together with the position it reached,
so a crash applies a batch wholly or not at all, and never twice. On PostgreSQL the tables
sit in the match store's own database; on SQLite in `history.sqlite` beside its file (a
separate file, so the projection's writes never wait on the match service's).

The SQL is written once for both: `?` placeholders (turned into `%s` for psycopg), and
`INSERT ... ON CONFLICT` upserts, which both understand.

The ratings tables keep the bots' strengths (`bot:strong`) as the opponents people are
rated against, but the readers' side lists and counts people only: a leaderboard is of
players, and a bot's figure for players is the ladder's (services/common/bot_ladder.py).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from services.common.bot_ids import is_bot
from services.common.sql import Database

from . import match_index
from .match_index import ListedMatch, MatchFilter
from .summary import Ended, Rating, Started, fresh, rated_id, rating_key, rerated, result_of

TABLES = ("domino_history", "domino_ratings", "domino_rated_players", "domino_rating_moves",
          "domino_projection_tracking", match_index.TABLE)
_SCHEMA = [
    "CREATE TABLE IF NOT EXISTS domino_history (player_id TEXT NOT NULL, match_id TEXT NOT NULL, "
    "seat INTEGER NOT NULL, rules TEXT NOT NULL, variant TEXT NOT NULL, teams INTEGER NOT NULL, seats TEXT NOT NULL, "
    "result TEXT NOT NULL, scores TEXT NOT NULL, started_at DOUBLE PRECISION NOT NULL, ended_at DOUBLE PRECISION, "
    "rated INTEGER NOT NULL DEFAULT 1, left_seats TEXT NOT NULL DEFAULT '[]', PRIMARY KEY (player_id, match_id))",
    "CREATE INDEX IF NOT EXISTS domino_history_newest ON domino_history (player_id, started_at DESC, match_id DESC)",
    "CREATE INDEX IF NOT EXISTS domino_history_match ON domino_history (match_id)",
    "CREATE TABLE IF NOT EXISTS domino_ratings (rating_key TEXT NOT NULL, player_id TEXT NOT NULL, "
    "mu DOUBLE PRECISION NOT NULL, sigma DOUBLE PRECISION NOT NULL, ordinal DOUBLE PRECISION NOT NULL, "
    "matches INTEGER NOT NULL, PRIMARY KEY (rating_key, player_id))",
    "CREATE INDEX IF NOT EXISTS domino_ratings_order ON domino_ratings (rating_key, ordinal DESC, player_id)",
    # how many are rated per key, kept with the ratings: counting 100,000 index entries per read is not
    "CREATE TABLE IF NOT EXISTS domino_rated_players (rating_key TEXT PRIMARY KEY, players BIGINT NOT NULL)",
    # each person's rating ordinal before and after each rated match (DescribeMatchEnd: "your rating moved")
    "CREATE TABLE IF NOT EXISTS domino_rating_moves (match_id TEXT NOT NULL, player_id TEXT NOT NULL, "
    "ordinal_before DOUBLE PRECISION NOT NULL, ordinal_after DOUBLE PRECISION NOT NULL, "
    "PRIMARY KEY (match_id, player_id))",
    "CREATE INDEX IF NOT EXISTS domino_rating_moves_player ON domino_rating_moves (player_id)",
    "CREATE TABLE IF NOT EXISTS domino_projection_tracking (name TEXT PRIMARY KEY, position BIGINT NOT NULL)",
    # Deleted accounts, by id only: their rows are erased and never written again, also by a
    # rebuild (this table is not in TABLES, so a rebuild keeps it).
    "CREATE TABLE IF NOT EXISTS domino_forgotten_players (player_id TEXT PRIMARY KEY, "
    "forgotten_at DOUBLE PRECISION NOT NULL)",
]
# Columns added since the table was first made: a view made before them gets them (its rows
# keep the defaults until `domino projections rebuild` reads their matches again).
_ADDED_COLUMNS = {"rated": "INTEGER NOT NULL DEFAULT 1", "left_seats": "TEXT NOT NULL DEFAULT '[]'"}
_SERIALIZE = "SELECT pg_advisory_xact_lock(727001)"  # PostgreSQL: the projection and an erasure take turns
PROJECTION = "history"
_PEOPLE = "substr(player_id, 1, 4) <> 'bot:'"  # a rating that is a person's, not a bot strength's


@dataclass(frozen=True)
class PlayedMatch:
    match_id: str
    rules: str
    variant: str
    teams: bool
    seats: list[str]
    seat: int
    result: str
    scores: list[int]
    started_at: float
    ended_at: float | None
    rated: bool = True
    left_seats: tuple[int, ...] = ()

    @property
    def left(self) -> bool:
        """This player left the match (their result is a loss)."""
        return self.seat in self.left_seats


@dataclass(frozen=True)
class Ranked:
    player_id: str
    rating: Rating
    rank: int


class View:
    def __init__(self, db: Database) -> None:
        self.db = db
        self._transaction = db.transaction

    @classmethod
    def for_env(cls, env: dict[str, str], sqlite_path: str | None = None) -> "View":
        """The view of the store ``env`` names (eventsourcing's variables)."""
        return cls(Database.for_env(env, sqlite_path or "history.sqlite"))

    @property
    def postgres(self) -> bool:
        return self.db.postgres

    def create(self) -> None:
        with self._transaction() as execute:
            if self.postgres:
                execute(_SERIALIZE)  # the match service and the relay may both create it at once
            for statement in _SCHEMA:
                execute(statement)
            has = {(getattr(c, "name", None) or c[0]) for c in
                   execute("SELECT * FROM domino_history WHERE 1 = 0").description}
            for column, kind in _ADDED_COLUMNS.items():
                if column not in has:
                    execute(f"ALTER TABLE domino_history ADD COLUMN {column} {kind}")
            match_index.create(execute, self.postgres)  # after the columns it copies

    def drop(self) -> None:
        with self._transaction() as execute:
            for table in TABLES:
                execute(f"DROP TABLE IF EXISTS {table}")

    # ---- the projection's side ---------------------------------------------------------

    def position(self) -> int:
        with self._transaction() as execute:
            row = execute("SELECT position FROM domino_projection_tracking WHERE name = ?", PROJECTION).fetchone()
        return int(row[0]) if row else 0

    def apply(self, facts: list[Started | Ended], position: int) -> None:
        """Apply a batch of facts and record ``position``, in one transaction; a batch whose
        position is not beyond the recorded one was applied already and changes nothing."""
        with self._transaction() as execute:
            if self.postgres:
                execute(_SERIALIZE)
            row = execute("SELECT position FROM domino_projection_tracking WHERE name = ?", PROJECTION).fetchone()
            if row is not None and int(row[0]) >= position:
                return
            for fact in facts:
                if isinstance(fact, Started):
                    self._started(execute, fact)
                else:
                    self._ended(execute, fact)
            execute("INSERT INTO domino_projection_tracking (name, position) VALUES (?, ?) "
                    "ON CONFLICT (name) DO UPDATE SET position = excluded.position", PROJECTION, position)

    def forget(self, player_id: str, now: float) -> tuple[int, int]:
        """Erase a deleted account's history rows and ratings, and keep them out from now on
        (docs/security.md, "The right to be forgotten"); (rows, ratings) erased."""
        with self._transaction() as execute:
            if self.postgres:
                execute(_SERIALIZE)
            rows = execute("DELETE FROM domino_history WHERE player_id = ?", player_id).rowcount
            keys = [r[0] for r in execute("SELECT rating_key FROM domino_ratings WHERE player_id = ?",
                                          player_id).fetchall()]
            for key in keys:
                execute("UPDATE domino_rated_players SET players = players - 1 WHERE rating_key = ?", key)
            execute("DELETE FROM domino_ratings WHERE player_id = ?", player_id)
            execute("DELETE FROM domino_rating_moves WHERE player_id = ?", player_id)
            execute("INSERT INTO domino_forgotten_players (player_id, forgotten_at) VALUES (?, ?) "
                    "ON CONFLICT (player_id) DO NOTHING", player_id, now)
        return max(0, rows), len(keys)

    @staticmethod
    def _forgotten(execute, player_id: str) -> bool:
        return execute("SELECT 1 FROM domino_forgotten_players WHERE player_id = ?", player_id).fetchone() is not None

    @classmethod
    def _started(cls, execute, s: Started) -> None:
        match_index.started(execute, s)
        for seat, player in enumerate(s.seats):
            if cls._forgotten(execute, player):
                continue
            execute("INSERT INTO domino_history (player_id, match_id, seat, rules, variant, teams, seats, result, "
                    "scores, started_at, ended_at, rated) VALUES (?, ?, ?, ?, ?, ?, ?, 'in_play', '[]', ?, NULL, ?) "
                    "ON CONFLICT (player_id, match_id) DO NOTHING",
                    player, s.match_id, seat, s.rules, s.variant, int(s.teams), json.dumps(list(s.seats)), s.started_at,
                    int(s.rated))

    @classmethod
    def _ended(cls, execute, e: Ended) -> None:
        match_index.ended(execute, e)  # also a match whose every seat was forgotten
        row = execute("SELECT rules, variant, teams, seats, started_at, rated FROM domino_history WHERE match_id = ? "
                      "LIMIT 1", e.match_id).fetchone()
        if row is None:
            return  # a match that started before the view's first event: nothing to update
        started = Started(e.match_id, row[0], row[1], bool(row[2]), tuple(json.loads(row[3])), float(row[4]),
                          bool(row[5]))
        for seat, player in enumerate(started.seats):
            execute("UPDATE domino_history SET result = ?, scores = ?, ended_at = ?, left_seats = ? "
                    "WHERE player_id = ? AND match_id = ?", result_of(seat, started, e), json.dumps(list(e.scores)),
                    e.ended_at, json.dumps(list(e.left)), player, e.match_id)
        key = rating_key(started.rules, started.teams)
        current = {}
        for who in {rated_id(p) for p in started.seats}:
            r = execute("SELECT mu, sigma, matches FROM domino_ratings WHERE rating_key = ? AND player_id = ?",
                        key, who).fetchone()
            if r is not None:
                current[who] = Rating(float(r[0]), float(r[1]), int(r[2]))
        kept = {who: rating for who, rating in rerated(started, e, current).items()
                if who in current or not cls._forgotten(execute, who)}
        newcomers = sum(1 for who in kept if who not in current and not is_bot(who))
        if newcomers:
            execute("INSERT INTO domino_rated_players (rating_key, players) VALUES (?, ?) ON CONFLICT (rating_key) "
                    "DO UPDATE SET players = domino_rated_players.players + excluded.players", key, newcomers)
        for who, rating in kept.items():
            if not is_bot(who):
                execute("INSERT INTO domino_rating_moves (match_id, player_id, ordinal_before, ordinal_after) "
                        "VALUES (?, ?, ?, ?) ON CONFLICT (match_id, player_id) DO NOTHING", e.match_id, who,
                        (current.get(who) or fresh()).ordinal, rating.ordinal)
            execute("INSERT INTO domino_ratings (rating_key, player_id, mu, sigma, ordinal, matches) "
                    "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (rating_key, player_id) DO UPDATE SET mu = excluded.mu, "
                    "sigma = excluded.sigma, ordinal = excluded.ordinal, matches = excluded.matches",
                    key, who, rating.mu, rating.sigma, rating.ordinal, rating.matches)

    # ---- the readers' side -------------------------------------------------------------

    def matches_of(self, player_id: str, limit: int, after: tuple[float, str] | None = None) -> list[PlayedMatch]:
        """The player's matches, newest first, after the (started_at, match_id) of the last one seen."""
        where = "player_id = ?"
        params: list[Any] = [player_id]
        if after is not None:
            where += " AND (started_at < ? OR (started_at = ? AND match_id < ?))"
            params += [after[0], after[0], after[1]]
        with self._transaction() as execute:
            rows = execute(f"SELECT match_id, rules, variant, teams, seats, seat, result, scores, started_at, ended_at, "
                           f"rated, left_seats FROM domino_history WHERE {where} "
                           f"ORDER BY started_at DESC, match_id DESC LIMIT ?", *params, limit).fetchall()
        return [PlayedMatch(r[0], r[1], r[2], bool(r[3]), json.loads(r[4]), int(r[5]), r[6], json.loads(r[7]),
                            float(r[8]), None if r[9] is None else float(r[9]), bool(r[10]), tuple(json.loads(r[11])))
                for r in rows]

    def rating(self, rules: str, teams: bool, player_id: str) -> tuple[Ranked | None, int]:
        """(the player's rating and rank among people, or None if unrated; how many people
        are rated)."""
        key = rating_key(rules, teams)
        with self._transaction() as execute:
            counted = execute("SELECT players FROM domino_rated_players WHERE rating_key = ?", key).fetchone()
            total = counted[0] if counted else 0
            row = execute("SELECT mu, sigma, matches, ordinal FROM domino_ratings WHERE rating_key = ? AND player_id = ?",
                          key, rated_id(player_id)).fetchone()
            if row is None:
                return None, int(total)
            above = execute(f"SELECT COUNT(*) FROM domino_ratings WHERE rating_key = ? AND ordinal > ? AND {_PEOPLE}",
                            key, row[3]).fetchone()[0]
        return Ranked(rated_id(player_id), Rating(float(row[0]), float(row[1]), int(row[2])), int(above) + 1), int(total)

    def leaderboard(self, rules: str, teams: bool, top: int) -> list[Ranked]:
        """The best rated people (never a bot strength)."""
        key = rating_key(rules, teams)
        with self._transaction() as execute:
            rows = execute(f"SELECT player_id, mu, sigma, matches FROM domino_ratings WHERE rating_key = ? AND {_PEOPLE} "
                           "ORDER BY ordinal DESC, player_id LIMIT ?", key, top).fetchall()
        out: list[Ranked] = []
        for i, r in enumerate(rows):
            rating = Rating(float(r[1]), float(r[2]), int(r[3]))
            tied = out and out[-1].rating.ordinal == rating.ordinal
            out.append(Ranked(r[0], rating, out[-1].rank if tied else i + 1))
        return out

    def in_play(self, player_ids: list[str], limit: int) -> list[tuple[str, str]]:
        """(player, match) of the players' matches the view has not seen end, newest first."""
        if not player_ids:
            return []
        marks = ", ".join("?" for _ in player_ids)
        with self._transaction() as execute:
            rows = execute(f"SELECT player_id, match_id FROM domino_history WHERE player_id IN ({marks}) "
                           f"AND result = 'in_play' ORDER BY started_at DESC, match_id DESC LIMIT ?",
                           *player_ids, limit).fetchall()
        return [(r[0], r[1]) for r in rows]

    def matches(self, which: MatchFilter, limit: int) -> list[ListedMatch]:
        """Every match ``which`` keeps (anyone's), newest first by start: match_index.py."""
        with self._transaction() as execute:
            return match_index.listed(execute, which, limit)

    def tables_in_play(self) -> list[match_index.InPlay]:
        with self._transaction() as execute:
            return match_index.in_play(execute)

    def ratings_of(self, player_id: str) -> list[tuple[str, bool, Ranked]]:
        """(family, teams, rating and rank among people) of every rating a person holds."""
        with self._transaction() as execute:
            rows = execute("SELECT rating_key, mu, sigma, matches, ordinal FROM domino_ratings WHERE player_id = ? "
                           "ORDER BY rating_key", player_id).fetchall()
            out = []
            for key, mu, sigma, matches, ordinal in rows:
                above = execute(f"SELECT COUNT(*) FROM domino_ratings WHERE rating_key = ? AND ordinal > ? AND "
                                f"{_PEOPLE}", key, ordinal).fetchone()[0]
                rules, _, setting = key.rpartition("/")
                out.append((rules, setting == "teams", Ranked(player_id, Rating(float(mu), float(sigma), int(matches)),
                                                             int(above) + 1)))
        return out

    def rating_moves(self, match_id: str) -> dict[str, tuple[float, float]]:
        """player -> (ordinal before, ordinal after) of the people a rated match moved."""
        with self._transaction() as execute:
            rows = execute("SELECT player_id, ordinal_before, ordinal_after FROM domino_rating_moves "
                           "WHERE match_id = ?", match_id).fetchall()
        return {r[0]: (float(r[1]), float(r[2])) for r in rows}

    def current_ratings(self, rules: str, teams: bool, rated_ids: set[str]) -> dict[str, Rating]:
        """The ratings the view holds now for these rated ids (those unrated are left out)."""
        key = rating_key(rules, teams)
        out: dict[str, Rating] = {}
        with self._transaction() as execute:
            for who in sorted(rated_ids):
                r = execute("SELECT mu, sigma, matches FROM domino_ratings WHERE rating_key = ? AND player_id = ?",
                            key, who).fetchone()
                if r is not None:
                    out[who] = Rating(float(r[0]), float(r[1]), int(r[2]))
        return out

    def close(self) -> None:
        self.db.close()

    def dump(self) -> dict[str, list]:
        """Every row, in a fixed order: what a rebuild must reproduce."""
        with self._transaction() as execute:
            history = execute("SELECT * FROM domino_history ORDER BY player_id, match_id").fetchall()
            ratings = execute("SELECT * FROM domino_ratings ORDER BY rating_key, player_id").fetchall()
            matches = match_index.dump(execute)
        return {"history": [tuple(r) for r in history], "ratings": [tuple(r) for r in ratings], "matches": matches}
