"""System tests: the services as real processes (python -m services.cli serve ...)."""

from __future__ import annotations

import secrets
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import grpc
import pytest

from domino.account.v1 import account_service_pb2 as acc
from domino.account.v1 import account_service_pb2_grpc as acc_grpc
from domino.match.v1 import match_service_pb2 as pb
from domino.match.v1 import match_service_pb2_grpc as pb_grpc
from services.common.auth import mint_token
from services.common.supervisor import LocalSystem, Ports

PLAYERS = {"draw-2": 2, "block-3": 3, "block-4": 4}


def metadata(system: LocalSystem, subject: str, role: str = "player") -> tuple:
    """Call metadata with a token minted with the system's own development keys."""
    return (("authorization", f"Bearer {mint_token(subject, system.keys(), role)}"),)


_SIGNED_IN: dict[tuple[str, str], str] = {}


def signed_in(system: LocalSystem, name: str) -> tuple:
    """Call metadata of the player ``name``, who signed in by device at the system's account
    service as a phone does (one account per name and system; its token outlives a test)."""
    key = (str(system.var_dir), name)
    if key not in _SIGNED_IN:
        with grpc.insecure_channel(system.account_address) as channel:
            session = acc_grpc.AccountServiceStub(channel).SignInWithDevice(acc.SignInWithDeviceRequest(
                device_id=secrets.token_urlsafe(24), device_secret=secrets.token_hex(32),
                display_name=f"{name} {secrets.token_hex(3)}"), timeout=10).session
        _SIGNED_IN[key] = session.access_token
    return (("authorization", f"Bearer {_SIGNED_IN[key]}"),)


class Client:
    def __init__(self, system: LocalSystem) -> None:
        self.system = system
        self.channel = grpc.insecure_channel(system.match_address)
        self.stub = pb_grpc.MatchServiceStub(self.channel)

    def create_bot_match(self, variant: str, request_id: str, strength: str = "greedy", rules: str = "egyptian",
                         seats: int | None = None, **options) -> str:
        count = seats or PLAYERS[variant]
        players = [pb.SeatSpec(player_id=f"bot:{strength}:{i}", client_seed=f"s{i}") for i in range(count)]
        reply = self.stub.CreateMatch(pb.CreateMatchRequest(request_id=request_id, rules=rules, variant=variant,
                                                            seats=players, turn_timer_seconds=0, **options),
                                      metadata=metadata(self.system, "matchmaking", "service"))
        return reply.match_id

    def view(self, match_id: str) -> pb.MatchView:
        return self.stub.GetMatch(pb.GetMatchRequest(match_id=match_id), metadata=metadata(self.system, "ops", "service")).view

    def wait_until_ended(self, match_id: str, timeout: float = 120) -> pb.MatchView:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            view = self.view(match_id)
            if view.status == pb.MATCH_STATUS_ENDED:
                return view
            time.sleep(0.2)
        raise TimeoutError(f"match {match_id} did not end in {timeout} s (version {view.version})")

    def export(self, match_id: str) -> str:
        return self.stub.ExportMatch(pb.ExportMatchRequest(match_id=match_id),
                                     metadata=metadata(self.system, "auditor", "auditor")).record_json

    def close(self) -> None:
        self.channel.close()


@contextmanager
def scratch_dir(prefix: str) -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def var_dir():
    with scratch_dir("domino-system-") as path:
        yield path


SYSTEM_ENV = {"DOMINO_LOG_FORMAT": "json", "DOMINO_TABLE_WAIT_SECONDS": "1"}


@pytest.fixture
def system(var_dir):
    """A system of its own, for a test that kills, restarts or reads the whole of something."""
    with LocalSystem(var_dir, Ports.free(), extra_env=SYSTEM_ENV) as running:
        yield running


@pytest.fixture
def client(system):
    c = Client(system)
    yield c
    c.close()


@pytest.fixture(scope="module")
def shared_system():
    """One system for a module's tests that only play matches of their own on it: starting
    the seven processes costs each test about ten seconds of a busy machine."""
    with scratch_dir("domino-shared-") as path, LocalSystem(path, Ports.free(), extra_env=SYSTEM_ENV) as running:
        yield running


@pytest.fixture(scope="module")
def shared_client(shared_system):
    c = Client(shared_system)
    yield c
    c.close()


def domino_command() -> str:
    return shutil.which("domino") or str(Path(sys.executable).parent / "domino")
