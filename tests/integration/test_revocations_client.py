"""The revocation list read over real gRPC from a real account service
(services/common/revocations_client.py): a poller that failed while the account service was
away reads again the second it is back. gRPC's own reconnection backoff grows to 120 s, so
with it a poller that had failed for a few seconds went on failing for seconds more after
the account service returned, and a long outage would have left the list unread for minutes."""

from __future__ import annotations

import asyncio
import socket
import time

import pytest

from services.accounts.application import AccountApplication
from services.accounts.bootstrap import create_server
from services.accounts.store import AccountStore
from services.common.config import Settings
from services.common.revocations import Revocations
from services.common.revocations_client import GrpcRevocationSource
from tests.support.background import serving_in_background
from tests.support.keys import KEYS

pytestmark = pytest.mark.integration
OUTAGE_STEPS = 6  # a second apart: the default backoff would then wait about 4 s more


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_poller_reads_the_list_again_at_its_first_or_second_step_after_the_account_service_is_back(tmp_path):
    port = free_port()
    source = GrpcRevocationSource(f"127.0.0.1:{port}")
    revocations = Revocations(source)
    loop = asyncio.new_event_loop()
    try:
        for _ in range(OUTAGE_STEPS):
            assert loop.run_until_complete(revocations.step()) is False
            time.sleep(1)  # the poller's interval: real time, for gRPC's own reconnection timer
        store = AccountStore.for_env({"PERSISTENCE_MODULE": "services.common.sqlite_store",
                                      "SQLITE_DBNAME": str(tmp_path / "m.sqlite")})
        store.create()
        app = AccountApplication(store, KEYS)
        with serving_in_background(lambda: create_server(f"127.0.0.1:{port}", app, KEYS,
                                                         settings=Settings.model_construct())):
            read = [loop.run_until_complete(revocations.step())]
            if not read[0]:
                time.sleep(1)
                read.append(loop.run_until_complete(revocations.step()))
        store.close()
        assert read[-1] is True, read
    finally:
        loop.run_until_complete(source.close())
        loop.close()
