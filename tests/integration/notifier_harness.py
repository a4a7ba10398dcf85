"""The notifier's world on loopback, all real: a SocialService (beside a real AccountService)
whose outbox publishes to a real NATS, a match service, the fake APNs and FCM servers, and
the JetStream stream with the admin's consumers. The notifier itself runs inside each test,
on the test's loop, as its process would run it."""

from __future__ import annotations

import asyncio
import time
from contextlib import ExitStack, asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, AsyncIterator, Iterator

import grpc
import nats
from prometheus_client import CollectorRegistry

from domino.social.v1 import social_service_pb2 as pb
from domino.social.v1 import social_service_pb2_grpc as pb_grpc
from services.common.bus_metrics import BusMetrics
from services.common.changes import ChangeFeed
from services.common.config import Settings
from services.notifier.apns import PRODUCTION, SANDBOX, Apns, ProviderToken
from services.notifier.consumer import NotifierConsumer
from services.notifier.delivery import Retrying
from services.notifier.fcm import Fcm, ServiceAccount
from services.notifier.match_client import MatchClient
from services.notifier.pusher import Pusher
from services.notifier.social_client import SocialClient
from services.notifier.tls import client_context
from services.social.account_client import GrpcDirectory
from services.social.bootstrap import create_server
from services.social.bus_link import run_bus_link
from services.social.inbox import Inbox
from services.social.push_tokens import Pushes
from services.social.store import SocialStore
from services.social.use_cases import Social
from tests.service.account_harness import AccountService, bearer, running_accounts
from tests.support.background import serving_in_background
from tests.support.fake_apns import FakeApns, running_apns
from tests.support.fake_fcm import FakeFcm, running_fcm
from tests.support.keys import KEYS

from .fresh_bus import fresh_bus


@dataclass
class World:
    accounts: AccountService
    social_port: int
    social: Any  # SocialService stub
    apns: FakeApns
    fcm: FakeFcm
    nats_url: str
    ca_file: str
    match_address: str = "127.0.0.1:1"

    def sign_up(self, name: str):
        return self.accounts.sign_up(name)

    def phone(self, who, token: str, platform=pb.PUSH_PLATFORM_APNS, installation: str = "phone-1") -> None:
        environment = pb.APNS_ENVIRONMENT_SANDBOX if platform == pb.PUSH_PLATFORM_APNS else 0
        self.social.RegisterPushToken(pb.RegisterPushTokenRequest(
            installation_id=installation, platform=platform, token=token, apns_environment=environment,
            locale="es-ES"), metadata=bearer(who))


@contextmanager
def running_world(tmp_path: Path, nats_url: str) -> Iterator[World]:
    with ExitStack() as stack:
        accounts = stack.enter_context(running_accounts(tmp_path))
        apns = stack.enter_context(running_apns(tmp_path / "apns"))
        fcm = stack.enter_context(running_fcm(tmp_path / "fcm"))
        ca = tmp_path / "providers-ca.pem"
        ca.write_bytes(Path(apns.ca_file).read_bytes() + Path(fcm.ca_file).read_bytes())
        asyncio.run(_fresh(nats_url))
        store = SocialStore.for_env({}, str(tmp_path / "social.sqlite"))
        store.create()
        stack.callback(store.close)
        directory = GrpcDirectory(f"127.0.0.1:{accounts.port}", KEYS)
        stack.callback(directory.close)
        inbox = Inbox(store, time.time)
        social = Social(store, directory, inbox=inbox)
        pushes = Pushes(store.db)
        pushes.create()
        settings = Settings.model_construct(command_rate=1e9, command_burst=1e9, nats_url=nats_url, nats_user="",
                                            social_outbox_poll_seconds=0.5)
        port, loop = stack.enter_context(serving_in_background(
            lambda: create_server("127.0.0.1:0", social, KEYS, settings=settings, pushes=pushes)))
        stopping = asyncio.Event()
        link = asyncio.run_coroutine_threadsafe(_link(settings, inbox, stopping), loop)

        def stop_link() -> None:
            loop.call_soon_threadsafe(stopping.set)
            link.result(10)
        stack.callback(stop_link)
        channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        stack.callback(channel.close)
        yield World(accounts, port, pb_grpc.SocialServiceStub(channel), apns, fcm, nats_url, str(ca))


async def _link(settings, inbox, stopping) -> None:
    await run_bus_link(settings, inbox, ChangeFeed(), stopping)


async def _fresh(url: str) -> None:
    nc = await nats.connect(url)
    try:
        await fresh_bus(nc.jetstream())
    finally:
        await nc.close()


@dataclass
class Running:
    consumer: NotifierConsumer
    outcomes: list[tuple[str, str]]
    nc: Any
    registry: CollectorRegistry

    async def until(self, consumer: str, outcome: str, count: int = 1, seconds: float = 10.0) -> None:
        deadline = time.monotonic() + seconds
        while sum(1 for c, o in self.outcomes if (c, o) == (consumer, outcome)) < count:
            assert time.monotonic() < deadline, f"{consumer} never said {outcome}: {self.outcomes}"
            await asyncio.sleep(0.02)

    def dropped(self, consumer: str, reason: str) -> float:
        return self.registry.get_sample_value("domino_bus_dropped_total",
                                              {"consumer": consumer, "reason": reason}) or 0.0


@asynccontextmanager
async def running_notifier(world: World, grace_seconds: float = 0.0, retrying: Retrying = Retrying(
        attempts=3, total_seconds=5.0, base_seconds=0.01, cap_seconds=0.05), apns_on: bool = True,
        fcm_on: bool = True, social_address: str = "") -> AsyncIterator[Running]:
    verify = client_context(world.ca_file)
    providers: dict = {pb.PUSH_PLATFORM_APNS: None, pb.PUSH_PLATFORM_FCM: None}
    if apns_on:
        token = ProviderToken(world.apns.key_pem, world.apns.key_id, world.apns.team_id)
        providers[pb.PUSH_PLATFORM_APNS] = Apns(token, world.apns.topic, {SANDBOX: world.apns.url,
                                                                          PRODUCTION: world.apns.url}, verify, 3.0)
    if fcm_on:
        account = ServiceAccount.parse(Path(world.fcm.account_file).read_text())
        providers[pb.PUSH_PLATFORM_FCM] = Fcm(account, world.fcm.url, verify, 3.0)
    social = SocialClient(social_address or f"127.0.0.1:{world.social_port}", KEYS,
                          timeout_seconds=1.0 if social_address else 3.0)
    matches = MatchClient(world.match_address, KEYS)
    registry = CollectorRegistry()
    bus_metrics = BusMetrics(registry)
    outcomes: list[tuple[str, str]] = []

    def on_message(name: str, outcome: str) -> None:
        outcomes.append((name, outcome))
        bus_metrics.outcomes(name, lambda o: None)(outcome)

    nc = await nats.connect(world.nats_url)
    consumer = NotifierConsumer(nc.jetstream(), Pusher(social, providers, retrying, turns=matches), matches, social,
                                concurrency=8, grace_seconds=grace_seconds, on_message=on_message,
                                on_mismatch=bus_metrics.on_mismatch)
    await consumer.start()
    try:
        yield Running(consumer, outcomes, nc, registry)
    finally:
        await consumer.stop()
        await nc.close()
        for provider in providers.values():
            if provider is not None:
                await provider.close()
        await social.close()
        await matches.close()
