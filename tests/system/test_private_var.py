"""`domino up`'s start-up under the usual umask 022: nothing it creates under var/ (the
stores with their unrevealed seeds and write-ahead logs, the keys, NATS's passwords and
JetStream data, the logs, the lock) is open to other local users, and what an earlier
version left readable is tightened (services/common/private_files.py)."""

from __future__ import annotations

import os
import sqlite3
import stat
import uuid
from pathlib import Path

import grpc

from domino.match.v1 import match_service_pb2 as pb
from domino.match.v1 import match_service_pb2_grpc as pb_grpc
from services.common.supervisor import LocalSystem, Ports

from .conftest import metadata


def mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def open_to_others(root: Path) -> list[str]:
    found = [f"{root} {oct(mode(root))}"] if mode(root) & 0o077 else []
    for here, directories, files in os.walk(root):
        for name in directories + files:
            path = Path(here, name)
            if not path.is_symlink() and mode(path) & 0o077:
                found.append(f"{path.relative_to(root)} {oct(mode(path))}")
    return found


def test_a_local_run_under_umask_022_leaves_nothing_under_var_open_to_other_users(tmp_path: Path):
    var = tmp_path / "var"
    old = os.umask(0o022)
    try:
        (var / "logs").mkdir(parents=True)  # an earlier run's files, as it left them: 0755 and 0644
        (var / "logs" / "match.log").write_text("earlier run\n")
        sqlite3.connect(var / "match.sqlite").close()
        assert len(open_to_others(var)) == 4
        with LocalSystem(var, Ports.free(), services=("match", "relay", "accounts")) as system:
            with grpc.insecure_channel(system.match_address) as channel:  # the store written to, its WAL open
                stub = pb_grpc.MatchServiceStub(channel)
                stub.CreateMatch(pb.CreateMatchRequest(
                    request_id=str(uuid.uuid4()), rules="egyptian", variant="draw-2", turn_timer_seconds=0,
                    seats=[pb.SeatSpec(player_id=f"bot:greedy:{i}", client_seed=f"s{i}") for i in range(2)]),
                    metadata=metadata(system, "matchmaking", "service"), timeout=10)
            created = {p.relative_to(var).as_posix() for p in var.rglob("*")}
            assert {"match.sqlite-wal", "keys/player.key", "nats-users.json", "logs/relay.log", "domino.lock",
                    "accounts.sqlite", "history.sqlite"} <= created
            assert any(name.startswith("nats/jetstream") for name in created)
            assert open_to_others(var) == []
            assert mode(var) == 0o700 and mode(var / "match.sqlite") == 0o600 and mode(var / "nats") == 0o700
    finally:
        os.umask(old)
    assert open_to_others(var) == []  # and after it stopped
