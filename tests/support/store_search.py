"""Search every table of a store for a piece of text: how the erasure tests prove that a
deleted account's name and identity are nowhere (SQLite files and PostgreSQL databases,
whatever tables they hold: events are searched in their stored bytes too)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any, Iterable


def _cells(rows: Iterable[tuple[Any, ...]]) -> Iterable[str]:
    for row in rows:
        for cell in row:
            if isinstance(cell, (bytes, bytearray, memoryview)):
                yield bytes(cell).decode("utf-8", "replace")
            elif cell is not None:
                yield str(cell)


def found_in_sqlite(path: Path, needles: Iterable[str]) -> list[str]:
    """'file:table' for each table of the SQLite file holding any of ``needles``."""
    needles = list(needles)
    found = []
    conn = sqlite3.connect(path)
    try:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        for table in tables:
            text = "\n".join(_cells(conn.execute(f'SELECT * FROM "{table}"')))
            found += [f"{path.name}:{table}:{n}" for n in needles if n in text]
    finally:
        conn.close()
    return found


def found_in_postgres(env: dict[str, str], needles: Iterable[str]) -> list[str]:
    """'table' for each table of the database ``env`` names holding any of ``needles``."""
    import psycopg

    needles = list(needles)
    found = []
    with psycopg.connect(dbname=env["POSTGRES_DBNAME"], host=env["POSTGRES_HOST"], port=env["POSTGRES_PORT"],
                         user=env["POSTGRES_USER"], autocommit=True) as conn:
        tables = [r[0] for r in conn.execute("SELECT table_name FROM information_schema.tables "
                                             "WHERE table_schema = 'public' AND table_type = 'BASE TABLE'")]
        for table in tables:
            text = "\n".join(_cells(conn.execute(f'SELECT * FROM "{table}"').fetchall()))
            found += [f"{table}:{n}" for n in needles if n in text]
    return found


def found_in_store(env: dict[str, str], needles: Iterable[str]) -> list[str]:
    """Every table of the store: the PostgreSQL database, or every SQLite file beside the
    match store's file."""
    if "postgres" in env.get("PERSISTENCE_MODULE", ""):
        return found_in_postgres(env, needles)
    folder = Path(env["SQLITE_DBNAME"]).parent
    return [hit for path in sorted(folder.glob("*.sqlite")) for hit in found_in_sqlite(path, needles)]
