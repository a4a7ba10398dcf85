"""The event store's settings: eventsourcing's own variables, typed and checked with the
rest of the settings (services/common/config.py), then handed to the library explicitly.

The variables keep the names eventsourcing and its documentation give them
(`PERSISTENCE_MODULE`, `SQLITE_DBNAME`, `POSTGRES_*`), so a deployment sets what the
library's manual says. The library would also read them from the process's environment
by itself (``Application.construct_env``); `ExplicitStore` stops that, so what a service
stores into is only ever what these settings, or a test, said.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Literal

from eventsourcing.utils import Environment
from pydantic import Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from .bad_settings import BadSetting, one_line

SQLITE_MODULE = "services.common.sqlite_store"  # eventsourcing's SQLite, commits not waiting on the disk
EMBEDDED_SQLITE = (SQLITE_MODULE, "eventsourcing.sqlite")
POSTGRES_MODULE = "services.common.postgres_store"  # eventsourcing's PostgreSQL, appends committed in groups

# What looks like a variable of eventsourcing's stores, as the library reads it: bare or after
# an application's name (MATCHMAKING_SQLITE_DBNAME) ...
STORE_LIKE = re.compile(r"(?:[A-Z0-9]+_)?(?:PERSISTENCE|SQLITE|POSTGRES|CIPHER)_\w+")
# ... but not what Kubernetes sets in every pod for a Service named postgres (service links).
SERVICE_LINK = re.compile(r"\w+_(?:SERVICE_HOST|SERVICE_PORT(?:_\w+)?|PORT_\d+_(?:TCP|UDP|SCTP)(?:_(?:PROTO|PORT|ADDR))?)")

PersistenceModule = Literal["", "eventsourcing.popo", "eventsourcing.sqlite", "eventsourcing.postgres",
                            "services.common.sqlite_store", "services.common.postgres_store"]


class StoreSettings(BaseSettings):
    model_config = SettingsConfigDict(extra="ignore")

    persistence_module: PersistenceModule = Field(
        "", description=f"the event store: `{POSTGRES_MODULE}` in production (eventsourcing's PostgreSQL, with "
                        "the appends waiting in a process committed together in one round trip); "
                        f"`{SQLITE_MODULE}` (SQLite, commits not waiting for the disk); unset: the services and "
                        "`domino` commands use that SQLite in DOMINO_VAR_DIR/match.sqlite, an application built "
                        "in a test keeps its events in memory (`eventsourcing.popo`)")
    sqlite_dbname: str = Field("", description="the match store's SQLite file (the other stores' files sit "
                                               "beside it); unset: DOMINO_VAR_DIR/match.sqlite")
    matchmaking_sqlite_dbname: str = Field("", description="matchmaking's SQLite file; unset: matchmaking.sqlite "
                                                           "beside SQLITE_DBNAME")
    sqlite_lock_timeout: int | None = Field(None, ge=0, description="seconds a SQLite write waits for the "
                                                                    "database lock; unset: eventsourcing's "
                                                                    "default")
    postgres_dbname: str = Field("", description="the PostgreSQL database of every store (prod: "
                                                 "deploy/k8s/overlays/prod/postgres.env)")
    postgres_host: str = Field("", description="the PostgreSQL server's host; unset: localhost")
    postgres_port: int | None = Field(None, ge=1, le=65535, description="the PostgreSQL server's port; "
                                                                         "unset: 5432")
    postgres_user: str = Field("", description="the PostgreSQL user")
    postgres_password: SecretStr = Field(SecretStr(""), description="that user's password (prod: Secret "
                                                                    "domino-postgres); never logged")
    postgres_connect_timeout: int | None = Field(None, ge=1, description="seconds to wait for a PostgreSQL "
                                                                         "connection; unset: 2 for the event "
                                                                         "store, 5 for the other tables")
    postgres_pre_ping: bool | None = Field(None, description="check a pooled connection before each use; "
                                                             "unset: no")
    postgres_pool_size: int | None = Field(None, ge=1, description="connections one process keeps open to "
                                                                   "PostgreSQL; unset: eventsourcing's (5)")
    postgres_max_overflow: int | None = Field(None, ge=0, description="connections opened beyond the pool "
                                                                      "under load; unset: eventsourcing's (10)")
    postgres_max_waiting: int | None = Field(None, ge=0, description="requests that may wait for a pooled "
                                                                     "connection; unset: eventsourcing's (0, "
                                                                     "no bound)")
    postgres_conn_max_age: float | None = Field(None, gt=0, description="seconds before a pooled connection is "
                                                                        "replaced; unset: never")
    postgres_lock_timeout: int | None = Field(None, ge=0, description="seconds an append waits for the table "
                                                                      "lock; unset: 0, no limit")
    postgres_idle_in_transaction_session_timeout: int | None = Field(
        None, ge=0, description="seconds PostgreSQL lets a session sit idle inside a transaction; unset: 5")
    postgres_schema: str = Field("", description="the PostgreSQL schema of the event tables; unset: public")

    @field_validator("sqlite_lock_timeout", "postgres_port", "postgres_connect_timeout", "postgres_pre_ping",
                     "postgres_pool_size", "postgres_max_overflow", "postgres_max_waiting", "postgres_conn_max_age",
                     "postgres_lock_timeout", "postgres_idle_in_transaction_session_timeout", mode="before")
    @classmethod
    def _empty_is_unset(cls, value: object) -> object:
        return None if value == "" else value  # as eventsourcing reads an empty variable

    @model_validator(mode="after")
    def _no_stray_store_variable(self) -> "StoreSettings":
        strays = stray_store_variables(os.environ)
        if strays:
            raise ValueError(f"{', '.join(strays)}: not a setting of the event store (docs/operations.md lists "
                             "them; eventsourcing's others are not read, so a misspelt one would be lost)")
        return self

    def eventsourcing_env(self) -> dict[str, str]:
        """The variables that were set, as eventsourcing reads them (strings; the password
        revealed here and only here). Set but empty stays set: eventsourcing wants
        POSTGRES_PASSWORD present, though a server may want none."""
        env: dict[str, str] = {}
        for name in sorted(self.model_fields_set):
            value = getattr(self, name)
            if value is None:
                continue
            if isinstance(value, SecretStr):
                value = value.get_secret_value()
            env[name.upper()] = ("y" if value else "n") if isinstance(value, bool) else str(value)
        return env


def stray_store_variables(environ: Mapping[str, str]) -> list[str]:
    """The variables that look like the store's but are none of its settings: a typo
    (POSTGRES_PORTT), or one of eventsourcing's that we do not type (CIPHER_KEY,
    POSTGRES_SINGLE_ROW_TRACKING, an application's MATCHMAKING_POSTGRES_DBNAME), which the
    library used to read and now would never see."""
    known = {name.upper() for name in StoreSettings.model_fields}
    return sorted(name for name in map(str.upper, environ)
                  if STORE_LIKE.fullmatch(name) and name not in known and not SERVICE_LINK.fullmatch(name))


def store_from_environment() -> StoreSettings:
    """The store settings of this process; a bad value raises BadSetting, one line."""
    try:
        return StoreSettings()
    except ValidationError as e:
        raise BadSetting(one_line(e, (StoreSettings,))) from None


class ExplicitStore:
    """Put before eventsourcing's ``Application`` in a class's bases: the application is
    configured by its class's ``env`` and the ``env`` it is given, never by the process's
    environment behind them; given none, by the store settings read now."""

    def construct_env(self, name: str, env: Mapping[str, str] | None = None) -> Environment:
        cls = type(self)
        chosen = dict(getattr(cls, "env", {}))
        if getattr(cls, "is_snapshotting_enabled", False) or getattr(cls, "snapshotting_intervals", None):
            chosen["IS_SNAPSHOTTING_ENABLED"] = "y"  # as the library's own construct_env
        chosen.update(store_from_environment().eventsourcing_env() if env is None else env)
        return Environment(name, chosen)
