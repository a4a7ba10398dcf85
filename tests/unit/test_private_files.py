"""What the local run writes is its user's alone, whatever the umask
(services/common/private_files.py): each writer of var/ under the usual umask 022, which
made directories 0755 and files 0644 before, so another local user could read the match
store's unrevealed seeds, the keys and the exports."""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path

import pytest

from services.client.store import Exports, KeptHeads, LastMatch
from services.common import private_files
from services.common.auth import KeyRing
from services.common.config import Settings, persistence_env
from services.common.sql import Database
from services.match import heads


@pytest.fixture
def usual_umask():
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def readable_by_others(root: Path) -> list[str]:
    """Everything under ``root`` (itself included; links not) that its group or others may use."""
    found = [] if not mode(root) & 0o077 else [f"{root} {oct(mode(root))}"]
    for here, directories, files in os.walk(root):
        for name in directories + files:
            path = Path(here, name)
            if not path.is_symlink() and mode(path) & 0o077:
                found.append(f"{path} {oct(mode(path))}")
    return found


def test_keys_and_head_keys_are_written_for_their_owner_alone(tmp_path, usual_umask):
    keys = tmp_path / "var" / "keys"
    KeyRing.generate().write(keys)
    heads.rotate(keys)
    heads.rotate(keys)  # a rotation rewrites the published keys
    assert readable_by_others(tmp_path / "var") == []
    assert mode(keys) == 0o700 and mode(keys / "player.key") == 0o600 and mode(keys / heads.PRIVATE_FILE) == 0o600


def test_the_sqlite_stores_and_their_side_files_are_for_their_owner_alone(tmp_path, usual_umask):
    var = tmp_path / "var"
    env = persistence_env(Settings(var_dir=str(var)))
    from services.match.application import MatchApplication

    app = MatchApplication(env=env)  # the match store, on services.common.sqlite_store
    app.recorder.max_notification_id()
    history = Database.for_env(env, "history.sqlite")
    with history.transaction() as execute:
        execute("CREATE TABLE IF NOT EXISTS t (x)")
    assert (var / "match.sqlite-wal").exists()  # the write-ahead log beside it
    assert readable_by_others(var) == []
    assert mode(var / "match.sqlite") == 0o600 and mode(var / "history.sqlite") == 0o600
    history.close()


def test_a_players_exports_heads_and_last_match_are_for_their_owner_alone(tmp_path, usual_umask):
    var = tmp_path / "var"
    path = Exports(var, "ann").save("m-1", '{"format": "domino-record/1"}')
    LastMatch(var, "ann").save("m-1")
    KeptHeads(var, "ann")._write("m-1", {1: {"version": 1}})
    assert path.read_text().startswith("{") and readable_by_others(var) == []
    assert mode(var / "exports") == 0o700 and mode(path) == 0o600


def test_what_an_earlier_run_left_readable_is_tightened_and_links_are_left_alone(tmp_path, usual_umask):
    var = tmp_path / "var"
    (var / "logs").mkdir(parents=True)
    (var / "logs" / "match.log").write_text("old")
    sqlite3.connect(var / "match.sqlite").execute("CREATE TABLE t (x)").connection.commit()
    outside = tmp_path / "outside.txt"
    outside.write_text("not ours")
    (var / "link").symlink_to(outside)
    assert len(readable_by_others(var)) == 4
    changed = private_files.tighten(var)
    assert set(changed) == {var, var / "logs", var / "logs" / "match.log", var / "match.sqlite"}
    assert readable_by_others(var) == [] and mode(outside) == 0o644
    assert mode(var / "logs" / "match.log") == 0o600 and mode(var) == 0o700


def test_private_writes_never_show_the_file_with_looser_modes(tmp_path, usual_umask):
    target = tmp_path / "a" / "b" / "secret.json"
    private_files.write_private(target, "1")
    with private_files.open_private(tmp_path / "a" / "log", "ab") as log:
        log.write(b"x")
    assert readable_by_others(tmp_path / "a") == [] and target.read_text() == "1"
    target.chmod(0o644)
    private_files.write_private(target, "2")  # replaces a loose file with a private one
    assert mode(target) == 0o600 and target.read_text() == "2"


def test_restrict_umask_makes_what_follows_private(tmp_path, usual_umask):
    assert private_files.restrict_umask() == 0o022
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "f").write_text("x")
    assert mode(tmp_path / "d") == 0o700 and mode(tmp_path / "d" / "f") == 0o600
