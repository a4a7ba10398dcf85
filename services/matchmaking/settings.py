"""Matchmaking's own settings (environment, `DOMINO_` prefix), beside the shared ones in
services/common/config.py, and where its events are stored."""

from __future__ import annotations

import os

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from services.common.config import Settings, persistence_env


class MatchmakingSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="DOMINO_", extra="ignore")

    table_wait_seconds: float = Field(20.0, description="how long the first player at a public table waits "
                                                        "before empty seats are filled with bots")
    table_bot_strength: str = Field("greedy", description="strength of the bots that fill public tables")
    matchmaking_poll_seconds: float = Field(1.0, description="how often the bot fill and the re-start of "
                                                             "interrupted match starts run")


def matchmaking_persistence_env(settings: Settings) -> dict[str, str]:
    """The shared store settings. eventsourcing names PostgreSQL tables after the
    application (`matchmaking_events`), but SQLite's tables are the same for every
    application, so with SQLite matchmaking keeps its own file beside the match service's
    (`MATCHMAKING_SQLITE_DBNAME` overrides it)."""
    env = persistence_env(settings)
    db = env.get("SQLITE_DBNAME", "")
    if (env.get("PERSISTENCE_MODULE") == "eventsourcing.sqlite" and "MATCHMAKING_SQLITE_DBNAME" not in os.environ
            and db and ":memory:" not in db and not db.startswith("file:")):
        env["MATCHMAKING_SQLITE_DBNAME"] = os.path.join(os.path.dirname(db), "matchmaking.sqlite")
    return env
