"""A real SocialService on loopback with its pushes (services/social/push_tokens.py) on the
social store's own SQLite file, beside a real AccountService (tests/service/account_harness.py)
whose revocation list it reads over gRPC, as its process does. ``poll()`` runs one step of
that list on the server's own loop, where its timer would, and waits until the tokens of the
sessions it learned have been forgotten."""

from __future__ import annotations

import asyncio
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

import grpc

from domino.social.v1 import social_service_pb2_grpc as pb_grpc
from services.common.config import Settings
from services.common.revocations import Revocations
from services.common.revocations_client import GrpcRevocationSource
from services.social.account_client import GrpcDirectory
from services.social.bootstrap import create_server
from services.social.push_tokens import PushLimits, Pushes
from services.social.store import SocialStore
from services.social.use_cases import Social
from tests.support.background import serving_in_background
from tests.support.keys import KEYS

from .account_harness import AccountService, running_accounts


@dataclass
class PushService:
    pushes: Pushes
    store: SocialStore
    port: int
    loop: asyncio.AbstractEventLoop
    accounts: AccountService
    revocations: Revocations
    channel: grpc.Channel = field(init=False)
    stub: Any = field(init=False)

    def __post_init__(self) -> None:
        self.channel = grpc.insecure_channel(f"127.0.0.1:{self.port}")
        self.stub = pb_grpc.SocialServiceStub(self.channel)

    def sign_up(self, name: str):
        return self.accounts.sign_up(name)

    def poll(self) -> None:
        """One read of the revocation list, and the forgetting it started, to its end."""
        async def step() -> bool:
            read = await self.revocations.step()
            await self.pushes.settled()
            return read

        assert asyncio.run_coroutine_threadsafe(step(), self.loop).result(10)


@contextmanager
def running_pushes(tmp_path: Path, limits: PushLimits = PushLimits()) -> Iterator[PushService]:
    with running_accounts(tmp_path) as accounts:
        store = SocialStore.for_env({}, str(tmp_path / "social.sqlite"))
        store.create()
        pushes = Pushes(store.db, limits=limits)
        pushes.create()
        directory = GrpcDirectory(f"127.0.0.1:{accounts.port}", KEYS)
        social = Social(store, directory)
        revocations = Revocations(GrpcRevocationSource(f"127.0.0.1:{accounts.port}"))
        pushes.watch_revocations(revocations)
        unlimited = Settings.model_construct(command_rate=1e9, command_burst=1e9)

        def create():
            return create_server("127.0.0.1:0", social, KEYS, settings=unlimited, revocations=revocations,
                                 pushes=pushes)

        try:
            with serving_in_background(create) as (port, loop):
                service = PushService(pushes, store, port, loop, accounts, revocations)
                try:
                    yield service
                finally:
                    service.channel.close()
                    source = revocations.source
                    assert isinstance(source, GrpcRevocationSource)
                    asyncio.run_coroutine_threadsafe(source.close(), loop).result(10)
        finally:
            directory.close()
            store.close()
