"""A real SocialService on loopback beside a real AccountService (tests/service/
account_harness.py), on real SQLite files: players sign in with real devices and are found
by their real display names, through the account service's FindPlayerByDisplayName."""

from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import grpc

from domino.social.v1 import social_service_pb2_grpc as pb_grpc
from services.common.config import Settings
from services.social.account_client import GrpcDirectory
from services.common.revocations import Revocations
from services.social.bootstrap import create_server
from services.social.presence import Presence
from services.social.push_tokens import Pushes
from services.social.store import SocialStore
from services.social.use_cases import Limits, Social
from tests.support.background import serving_in_background
from tests.support.keys import KEYS

from .account_harness import AccountService, running_accounts


@dataclass
class SocialService:
    social: Social
    port: int
    accounts: AccountService
    pushes: Pushes | None = None
    presence: Presence | None = None
    loop: Any = None
    channel: grpc.Channel = field(init=False)
    stub: Any = field(init=False)

    def __post_init__(self) -> None:
        self.channel = grpc.insecure_channel(f"127.0.0.1:{self.port}")
        self.stub = pb_grpc.SocialServiceStub(self.channel)

    def sign_up(self, name: str):
        return self.accounts.sign_up(name)


@contextmanager
def running_social(tmp_path: Path, limits: Limits | None = None, clock: Callable[[], float] = time.time,
                   revocations: Revocations | None = None, playing: Any = None, **settings: Any):
    """``clock``: the inbox's and the use cases' (not the tokens'); ``settings``: Settings
    fields (the inbox streams' limits, watch_poll_seconds)."""
    with running_accounts(tmp_path) as accounts:
        store = SocialStore.for_env({}, str(tmp_path / "social.sqlite"))
        store.create()
        directory = GrpcDirectory(f"127.0.0.1:{accounts.port}", KEYS)
        social = Social(store, directory, limits, clock=clock)
        pushes = Pushes(store.db, clock)
        pushes.create()
        presence = Presence(store.db, clock)
        unlimited = Settings.model_construct(command_rate=1e9, command_burst=1e9, **settings)
        try:
            with serving_in_background(lambda: create_server("127.0.0.1:0", social, KEYS, settings=unlimited,
                                                             revocations=revocations, pushes=pushes,
                                                             presence=presence, playing=playing)) as (port, loop):
                service = SocialService(social, port, accounts, pushes, presence, loop)
                try:
                    yield service
                finally:
                    service.channel.close()
        finally:
            presence.close()  # a stream's last presence write may still run on a thread
            directory.close()
            store.close()
