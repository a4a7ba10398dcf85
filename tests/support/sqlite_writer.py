"""A process that writes one of the local run's SQLite stores the way its service does,
keeping its connections open between commands, for tests that SIGKILL it.

`python -m tests.support.sqlite_writer STORE` (STORE: accounts, match or history), with the
store named by eventsourcing's variables in the environment (`PERSISTENCE_MODULE`,
`SQLITE_DBNAME`), as the services are given it. Each command is a line on stdin and each
answer one JSON line on stdout:

- at start: ``{"stored": [...]}``, the keys of what the store holds (a restart reads it);
- ``write NAME``: one write on the first worker thread, committed before the answer
  ``{"committed": KEY}``; ``write NAME second``: one while the store opens a second
  connection beside the first, as a service's worker threads make it do (each of the account
  service's `asyncio.to_thread` threads keeps its own; the match store's pool opens another
  when the change tail reads while the event loop appends);
- ``standing NAME``: what the store says now of the account NAME (accounts only);
- ``hold NAME``, ``commit``, ``try NAME``: history only (see `History`).

The keys: an account's display name, a match's id, a forgotten player's id.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import threading
import time
from concurrent.futures import Executor, ThreadPoolExecutor
from typing import Any, Callable

from services.common.sql import Database


class Accounts:
    """The account store as the account service uses it: a connection kept per worker thread."""

    def __init__(self, env: dict[str, str]) -> None:
        from services.accounts.application import AccountApplication
        from services.accounts.store import AccountStore
        from services.common.auth import KeyRing

        self.store = AccountStore.for_env(env)
        self.store.create()
        self.app = AccountApplication(self.store, KeyRing.generate().only(issues=("player", "account")))

    def write(self, name: str) -> str:
        device = hashlib.sha256(name.encode()).hexdigest()
        self.app.sign_in_with_device(f"device-{name}-0000000000", device, name)
        return name

    def stored(self) -> list[str]:
        with self.store.transaction() as execute:
            return sorted(r[0] for r in execute("SELECT display_name FROM domino_accounts").fetchall())

    def standing(self, name: str) -> dict[str, Any]:
        with self.store.transaction() as execute:
            [account_id] = execute("SELECT account_id FROM domino_accounts WHERE display_name = ?", name).fetchone()
        return {"account": account_id, "standing": self.app.standing(account_id).state}

    def write_beside_a_second_connection(self, name: str, worker: Executor, other: Executor) -> str:
        return other.submit(self.write, name).result()  # the other thread keeps a connection of its own


class Matches:
    """The match store through eventsourcing's SQLite recorder (services/common/sqlite_store.py),
    its pool keeping the connections it opened."""

    def __init__(self, env: dict[str, str]) -> None:
        from services.match.application import MatchApplication
        from tests.support.matches import Matches as Sync

        self.app = Sync(MatchApplication(env=env))

    def write(self, name: str) -> str:
        from services.match.application import SeatSpec

        match = self.app.create_match(name, "egyptian", "draw-2", None, None, 0,
                                      [SeatSpec(f"bot:greedy:{s}", f"{name}-{s}") for s in range(2)])
        return str(match.id)

    def stored(self) -> list[str]:
        from eventsourcing.utils import get_topic

        from services.match.domainmodel import Match

        notes = self.app.recorder.select_notifications(0, 10_000, topics=[get_topic(Match.MatchStarted)])
        return sorted(str(n.originator_id) for n in notes)

    def write_beside_a_second_connection(self, name: str, worker: Executor, other: Executor) -> str:
        """The write while the other thread reads (as the change tail does beside the event
        loop's appends), so the pool's one connection is in use and the write opens another."""
        reading, written = threading.Event(), threading.Event()

        def read() -> None:
            with self.app.recorder.datastore.transaction(commit=False) as cursor:
                cursor.execute("SELECT max(rowid) FROM stored_events")
                reading.set()
                written.wait()

        held = other.submit(read)
        reading.wait()
        try:
            return worker.submit(self.write, name).result()
        finally:
            written.set()
            held.result()


class History:
    """The history store as the match service holds it (services/history/view.py: a connection
    per transaction, in rollback-journal mode); a write is an erasure (ForgetPlayer), which a
    rebuild keeps. With ``DOMINO_TEST_BUSY_TIMEOUT=0`` a write finding the file locked is
    answered ``{"locked": true}`` at once instead of waiting."""

    def __init__(self, env: dict[str, str]) -> None:
        from services.history.view import View

        busy = os.environ.get("DOMINO_TEST_BUSY_TIMEOUT")
        self.view = View(Database.for_env(env, "history.sqlite", pragmas=(f"busy_timeout = {busy}",) if busy else ()))
        self.view.create()
        self.held: threading.Event | None = None

    def write(self, name: str) -> str:
        self.view.forget(name, time.time())
        return name

    def stored(self) -> list[str]:
        with self.view.db.transaction() as execute:
            return sorted(r[0] for r in execute("SELECT player_id FROM domino_forgotten_players").fetchall())

    def write_beside_a_second_connection(self, name: str, worker: Executor, other: Executor) -> str:
        return other.submit(self.write, name).result()

    def hold(self, name: str, worker: Executor, other: Executor) -> dict[str, Any]:
        """An erasure begun on one thread and not yet committed while another thread connects,
        as a GetRating does beside a ForgetPlayer: the erasure's locks must hold meanwhile."""
        begun, self.held = threading.Event(), threading.Event()

        def erase(release: threading.Event) -> None:
            with self.view.db.transaction() as execute:
                execute("INSERT INTO domino_forgotten_players (player_id, forgotten_at) VALUES (?, ?)", name, time.time())
                begun.set()
                release.wait()

        self.erasing = other.submit(erase, self.held)
        begun.wait()
        self.beside = worker.submit(self.view.db._connect).result()  # how the next transaction connects
        return {"holding": name}

    def commit(self) -> dict[str, Any]:
        assert self.held is not None
        self.held.set()
        self.erasing.result()
        self.beside.close()
        return {"committed": True}

    def attempt(self, name: str) -> dict[str, Any]:
        try:
            return {"committed": self.write(name)}
        except Exception as e:  # SQLite's "database is locked", or the Database's own word for it
            if "locked" not in str(e) and getattr(e, "kind", None) != "busy":
                raise
            return {"locked": True}


STORES: dict[str, Callable[[dict[str, str]], Any]] = {"accounts": Accounts, "match": Matches, "history": History}


def main(kind: str) -> None:
    env = {k: v for k, v in os.environ.items() if k.startswith(("PERSISTENCE_", "SQLITE_", "POSTGRES_"))}
    store = STORES[kind](env)
    worker, other = ThreadPoolExecutor(1), ThreadPoolExecutor(1)  # two of a service's worker threads

    def answer(**reply: Any) -> None:
        print(json.dumps(reply), flush=True)

    answer(stored=worker.submit(store.stored).result())
    for line in sys.stdin:
        command, *args = line.split()
        if command == "write" and args[1:] == ["second"]:
            answer(committed=store.write_beside_a_second_connection(args[0], worker, other))
        elif command == "write":
            answer(committed=worker.submit(store.write, args[0]).result())
        elif command == "standing":
            answer(**worker.submit(store.standing, args[0]).result())
        elif command == "hold":
            answer(**store.hold(args[0], worker, other))
        elif command == "commit":
            answer(**store.commit())
        elif command == "try":
            answer(**worker.submit(store.attempt, args[0]).result())


if __name__ == "__main__":
    main(sys.argv[1])
