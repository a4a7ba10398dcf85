"""Where matchmaking's events are stored (its settings are in services/common/config.py)."""

from __future__ import annotations

import os

from services.common.config import EMBEDDED_SQLITE, Settings, persistence_env


def matchmaking_persistence_env(settings: Settings) -> dict[str, str]:
    """The shared store settings. eventsourcing names PostgreSQL tables after the
    application (`matchmaking_events`), but SQLite's tables are the same for every
    application, so with SQLite matchmaking keeps its own file beside the match service's
    (`MATCHMAKING_SQLITE_DBNAME` overrides it)."""
    env = persistence_env(settings)
    db = env.get("SQLITE_DBNAME", "")
    if (env.get("PERSISTENCE_MODULE") in EMBEDDED_SQLITE and "MATCHMAKING_SQLITE_DBNAME" not in env
            and db and ":memory:" not in db and not db.startswith("file:")):
        env["MATCHMAKING_SQLITE_DBNAME"] = os.path.join(os.path.dirname(db), "matchmaking.sqlite")
    return env
