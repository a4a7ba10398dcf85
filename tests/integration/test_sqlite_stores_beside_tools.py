"""An operator's tool that opens a SQLite store while its service runs loses nothing the
service commits (services/common/private_files.py; docs/security.md "Files of the local run").

The red team's finding: before every new SQLite connection `private_sqlite()` opened and
closed the database file to set its mode, and closing any descriptor of a file drops every
POSIX lock the process holds on it, SQLite's own included. The next process to close its
last connection (`domino admin ban`, `domino audit replay-all`, `domino projections
rebuild`) then found itself alone, checkpointed and unlinked the `-wal` and `-shm` under the
live service, which went on committing into a deleted file: a ban the service did not see,
and after a SIGKILL and a restart, what it had committed since was gone.

Here a real process writes each store as its service does, with the second connection a
service's worker threads open (tests/support/sqlite_writer.py); the real command line opens
and closes the store in a process of its own; the writer commits again, is SIGKILLed and
started again, and everything it committed is there. The history store, in rollback-journal
mode, lost its lock in the middle of a transaction instead, so another writer could write
the file at the same time.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterator

import pytest

from services.common.servers import sqlite_env
from tests.support.grpc_matches import domino_command

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]


class Writer:
    """tests/support/sqlite_writer.py as a process of its own."""

    def __init__(self, kind: str, env: dict[str, str]) -> None:
        self.process = subprocess.Popen([sys.executable, "-m", "tests.support.sqlite_writer", kind], cwd=ROOT,
                                        env={**os.environ, **env}, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        text=True)
        self.stored = self._answer()["stored"]

    def ask(self, command: str) -> dict[str, Any]:
        assert self.process.stdin is not None
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()
        return self._answer()

    def write(self, name: str, second: bool = False) -> str:
        return self.ask(f"write {name}" + (" second" if second else ""))["committed"]

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)

    def _answer(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        assert line, f"the writer exited with status {self.process.wait(10)}"
        return json.loads(line)


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    var = tmp_path / "var"
    var.mkdir()
    return sqlite_env(var / "match.sqlite")


@pytest.fixture
def writers() -> Iterator[list[Writer]]:
    started: list[Writer] = []
    yield started
    for writer in started:
        if writer.process.poll() is None:
            writer.kill()


def domino(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([domino_command(), *args], cwd=ROOT, env={**os.environ, **env}, capture_output=True,
                          text=True, timeout=120)


def test_an_account_created_after_an_admin_ban_survives_a_sigkill_and_the_service_sees_the_ban(env, writers):
    writers.append(service := Writer("accounts", env))
    committed = [service.write("ann"), service.write("bob", second=True)]
    account = service.ask("standing ann")["account"]
    banned = domino(env, "admin", "ban", account, "--until", "3d", "--reason", "cheating")
    assert banned.returncode == 0, banned.stderr
    assert service.ask("standing ann")["standing"] == "banned"  # the service reads what the tool wrote
    committed.append(service.write("cat"))
    service.kill()
    writers.append(restarted := Writer("accounts", env))
    assert restarted.stored == sorted(committed)
    assert restarted.ask("standing ann")["standing"] == "banned"


def test_a_match_stored_after_a_replay_all_survives_a_sigkill(env, writers):
    writers.append(service := Writer("match", env))
    committed = [service.write("first"), service.write("second", second=True)]
    replayed = domino(env, "audit", "replay-all", "--json")
    assert replayed.returncode == 0, replayed.stderr
    assert json.loads(replayed.stdout)["matches"] == 2
    committed.append(service.write("third"))
    service.kill()
    writers.append(restarted := Writer("match", env))
    assert restarted.stored == sorted(committed)


def test_an_erasure_keeps_its_lock_while_another_thread_connects_and_survives_a_rebuild_and_a_sigkill(env, writers):
    """The history store is in rollback-journal mode, so what the lost locks let through is a
    second writer during a transaction, which the last commit then overwrites."""
    writers.append(service := Writer("history", env))
    writers.append(other := Writer("history", {**env, "DOMINO_TEST_BUSY_TIMEOUT": "0"}))  # a projection, say
    committed = [service.write("gone-1")]
    service.ask("hold gone-2")
    assert other.ask("try other-1") == {"locked": True}  # the erasure's lock held
    service.ask("commit")
    committed += ["gone-2", other.ask("try other-1")["committed"]]
    rebuilt = domino(env, "projections", "rebuild")
    assert rebuilt.returncode == 0, rebuilt.stderr
    committed.append(service.write("gone-3", second=True))
    service.kill()
    writers.append(restarted := Writer("history", env))
    assert restarted.stored == sorted(committed)
