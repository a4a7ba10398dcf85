"""Two social replicas on one store and a real NATS: a notification posted on one reaches a
WatchNotifications stream open on the other at once (its outbox publishes it, the other
hears it on its core subscription), and what the outbox publishes is the contract's
subject, Msg-Id and payload, marked published after the stream's ack; what was stored
while NATS was away is published once it is back."""

from __future__ import annotations

import asyncio
import json
import queue
import threading
import time
import uuid
from contextlib import ExitStack, contextmanager

import grpc
import nats
import pytest

from domino.social.v1 import social_service_pb2 as pb
from domino.social.v1 import social_service_pb2_grpc as pb_grpc
from services.common import bus
from services.common.changes import ChangeFeed
from services.common.config import Settings
from services.common.servers import free_port, start_nats
from services.social.bootstrap import create_server
from services.social.bus_link import run_bus_link
from services.social.inbox_store import InboxStore
from services.social.presence import Presence
from services.social.store import SocialStore
from services.social.use_cases import Social
from tests.support.background import serving_in_background
from tests.support.keys import KEYS, auth

from .fresh_bus import fresh_bus

pytestmark = pytest.mark.integration
ACCOUNTS = auth("accounts", "account")


class NoDirectory:
    def find_by_display_name(self, display_name: str) -> str | None:
        return None

    def exists(self, player_id: str) -> bool:
        return True


@contextmanager
def replica(path: str, nats_url: str):
    """A social server with its bus link running on its own loop: (stub, social)."""
    store = SocialStore.for_env({}, path)
    store.create()
    social = Social(store, NoDirectory())
    presence = Presence(store.db)
    wakes = ChangeFeed()
    settings = Settings.model_construct(command_rate=1e9, command_burst=1e9, watch_poll_seconds=300.0,
                                        nats_url=nats_url, nats_user="", social_outbox_poll_seconds=300.0)
    with serving_in_background(lambda: create_server("127.0.0.1:0", social, KEYS, settings=settings, wakes=wakes,
                                                     presence=presence)) \
            as (port, loop):
        async def start():
            stopping = asyncio.Event()
            return stopping, asyncio.create_task(run_bus_link(settings, social.inbox, wakes, stopping))

        stopping, task = asyncio.run_coroutine_threadsafe(start(), loop).result(10)
        channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        try:
            yield pb_grpc.SocialServiceStub(channel), social
        finally:
            channel.close()
            loop.call_soon_threadsafe(stopping.set)
            asyncio.run_coroutine_threadsafe(asyncio.wait_for(task, 10), loop).result(15)
    presence.close()  # a stream's last presence write may still run on a thread
    store.close()


@pytest.fixture
def two(tmp_path, nats_server):
    async def clean():
        nc = await nats.connect(nats_server.url)
        await fresh_bus(nc.jetstream())
        await nc.close()

    asyncio.run(clean())
    with ExitStack() as stack:
        path = str(tmp_path / "social.sqlite")
        yield [stack.enter_context(replica(path, nats_server.url)) for _ in range(2)]


def post(stub, recipient: str) -> str:
    notification_id = str(uuid.uuid4())
    stub.PostNotifications(pb.PostNotificationsRequest(notifications=[pb.NewNotification(
        notification_id=notification_id, recipient_player_id=recipient, kind=pb.NOTIFICATION_KIND_ACCOUNT,
        text_key="notice.account.device_added")]), metadata=ACCOUNTS)
    return notification_id


def test_a_post_on_one_replica_reaches_a_stream_on_the_other_at_once(two):
    (a, _), (b, _) = two
    player = f"p-{uuid.uuid4()}"
    call = b.WatchNotifications(pb.WatchNotificationsRequest(), metadata=auth(player))
    got: queue.Queue = queue.Queue()

    def read():
        try:
            for message in call:
                got.put(message)
        except grpc.RpcError as error:  # cancelled at the end
            got.put(error)

    threading.Thread(target=read, daemon=True).start()
    try:
        assert got.get(timeout=10).unread_count == 0
        posted = post(a, player)
        message = got.get(timeout=5)  # its poll is 300 s away: only the bus can have woken it
        assert message.notification.notification_id == posted and message.unread_count == 1
    finally:
        call.cancel()


def test_the_outbox_publishes_each_notification_with_its_msg_id_and_marks_it(two, nats_server):
    (a, social), _ = two
    player = f"p-{uuid.uuid4()}"
    posted = post(a, player)

    async def last():
        nc = await nats.connect(nats_server.url)
        try:
            for _ in range(100):
                try:
                    return await nc.jetstream().get_last_msg(bus.STREAM, bus.notice_subject("account"))
                except nats.js.errors.NotFoundError:
                    await asyncio.sleep(0.05)
        finally:
            await nc.close()

    message = asyncio.run(last())
    assert json.loads(message.data) == {"notification_id": posted, "player_id": player, "kind": "account"}
    assert message.headers["Nats-Msg-Id"] == bus.notice_msg_id(posted)
    assert not unpublished_after_acks(social)


def unpublished_after_acks(social, seconds: float = 5.0) -> list:
    """What the outbox still holds once the acks it had are marked (within ``seconds``)."""
    deadline = time.monotonic() + seconds
    while True:
        with social.store.transaction() as execute:
            left = InboxStore.unpublished(execute, 10)
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.02)


def test_notifications_stored_while_nats_is_away_are_published_once_it_is_back(tmp_path):
    port = free_port()
    with replica(str(tmp_path / "social.sqlite"), f"nats://127.0.0.1:{port}") as (stub, social):
        posted = post(stub, f"p-{uuid.uuid4()}")
        assert [row[0] for row in unpublished_after_acks(social, seconds=0.5)] == [posted]
        with start_nats(tmp_path / "nats", port=port) as server:
            async def setup():
                nc = await nats.connect(server.url)
                await fresh_bus(nc.jetstream())
                await nc.close()

            asyncio.run(setup())
            assert unpublished_after_acks(social, seconds=30) == []
