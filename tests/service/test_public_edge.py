"""How phones reach the services: a real MatchService on loopback with the connection
policy of services/common/grpc_server.py (TLS, reflection, keepalive pings, connection age),
and the reference client (services/client/api.py, `domino play --tls/--ca/--server`)
against it.

The keepalive and connection-age tests shrink minutes to fractions of a second: the
settings are the ones production sets (DOMINO_GRPC_*), only faster."""

from __future__ import annotations

import threading
import time
import uuid
from contextlib import contextmanager

import grpc
import pytest
from click.testing import CliRunner
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from domino.match.v1 import match_service_pb2 as pb
from domino.match.v1 import match_service_pb2_grpc as pb_grpc
from services.cli.main import cli
from services.cli.play import play
from services.client.api import (BACKOFF_OPTIONS, ApiError, MatchApi, channel_credentials, keepalive_options,
                                 open_channel)
from services.client.inbox import Inbox, Pump
from services.common.changes import ChangeFeed
from services.common.config import Settings
from services.match.application import MatchApplication
from services.match.bootstrap import SERVICE_NAME, create_server
from tests.support.background import serving_in_background
from tests.support.keys import KEYS, auth, token
from tests.support.tls import make_pki

from .harness import UNLIMITED


@contextmanager
def serving(**settings):
    """A MatchService with these DOMINO_* settings (by field name) on 127.0.0.1; yields
    its address."""
    app = MatchApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})

    def create():
        return create_server("127.0.0.1:0", app, KEYS, ChangeFeed(), limits=UNLIMITED(),
                             settings=Settings(**settings))

    with serving_in_background(create) as (port, _loop):
        yield f"127.0.0.1:{port}"



@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    return make_pki(tmp_path_factory.mktemp("pki"), "edge")


@pytest.fixture(scope="module")
def stranger(tmp_path_factory):
    """Another CA, which never signed the server's certificate."""
    return make_pki(tmp_path_factory.mktemp("other-pki"), "stranger")


@pytest.fixture
def tls_address(pki):
    with serving(tls_cert_file=str(pki.cert), tls_key_file=str(pki.key)) as address:
        yield address


def test_a_tls_server_accepts_the_client_that_trusts_its_ca(tls_address, pki):
    api = MatchApi(tls_address, token("ann"), credentials=channel_credentials(pki.ca), retries=1)
    try:
        assert api.reachable()
        with pytest.raises(ApiError) as refused:  # the API itself answers, token checked, over TLS
            api.get(str(uuid.uuid4()), retry=False)
        assert refused.value.code == grpc.StatusCode.NOT_FOUND
    finally:
        api.close()


def test_a_tls_server_refuses_a_client_without_the_right_ca_and_a_plaintext_one(tls_address, stranger):
    wrong = MatchApi(tls_address, token("ann"), credentials=channel_credentials(stranger.ca), retries=1)
    public_roots = MatchApi(tls_address, token("ann"), credentials=channel_credentials(), retries=1)
    plain = MatchApi(tls_address, token("ann"), retries=1)
    try:
        assert not wrong.reachable() and not public_roots.reachable() and not plain.reachable()
        with pytest.raises(ApiError) as refused:
            wrong.get(str(uuid.uuid4()), retry=False)
        assert refused.value.code == grpc.StatusCode.UNAVAILABLE
        assert "--ca" in str(refused.value)  # says what to check, not "is domino up running?"
    finally:
        for api in (wrong, public_roots, plain):
            api.close()


def _play(*args: str, tmp_path) -> str:
    result = CliRunner().invoke(play, [*args, "--token", token("ann"), "--resume", "last", "--var", str(tmp_path)])
    assert result.exit_code == 1, result.output
    return result.output


def test_domino_play_reaches_a_tls_server_with_its_ca_and_not_without(tls_address, pki, stranger, tmp_path):
    """--resume last checks the match service first: past that check, it says no match is
    remembered, which only a reached server lets it say."""
    reached = "no unfinished match is remembered for ann"
    assert reached in _play("--server", tls_address, "--ca", str(pki.ca), tmp_path=tmp_path)
    assert reached in _play("--match-address", tls_address, "--ca", str(pki.ca), tmp_path=tmp_path)
    for refused in (_play("--server", tls_address, "--ca", str(stranger.ca), tmp_path=tmp_path),
                    _play("--match-address", tls_address, "--tls", tmp_path=tmp_path)):
        assert f"cannot reach the match service at {tls_address} over TLS" in refused and "--ca" in refused
        assert reached not in refused
    plain = _play("--match-address", tls_address, tmp_path=tmp_path)
    assert "cannot reach the match service" in plain and "Is the system running?" in plain


def _export(address: str, *options: str) -> str:
    result = CliRunner().invoke(cli, ["audit", "export", str(uuid.uuid4()), "--address", address,
                                        "--token", token("auditor-ann", "auditor"), *options])
    assert result.exit_code == 1, result.output
    return result.output


def test_domino_audit_export_reaches_a_tls_server_with_its_ca_and_not_without(tls_address, pki, stranger):
    """An unknown match is NOT_FOUND, which only a reached server can say."""
    assert "NOT_FOUND" in _export(tls_address, "--ca", str(pki.ca))
    for refused in (_export(tls_address, "--ca", str(stranger.ca)), _export(tls_address, "--tls"),
                    _export(tls_address)):
        assert "UNAVAILABLE" in refused


def test_a_plaintext_server_stays_the_local_default(tmp_path):
    with serving() as address:
        assert "no unfinished match is remembered" in _play("--match-address", address, tmp_path=tmp_path)
        tls = _play("--match-address", address, "--tls", tmp_path=tmp_path)
        assert "over TLS" in tls


def _listed_services(address: str) -> set[str] | grpc.StatusCode:
    with grpc.insecure_channel(address) as channel:
        stub = reflection_pb2_grpc.ServerReflectionStub(channel)
        try:
            replies = list(stub.ServerReflectionInfo(iter([reflection_pb2.ServerReflectionRequest(list_services="")]),
                                                     timeout=5))
        except grpc.RpcError as e:
            return e.code()
    return {s.name for s in replies[0].list_services_response.service}


def test_reflection_is_served_unless_turned_off():
    with serving() as address:
        assert SERVICE_NAME in _listed_services(address)
    with serving(grpc_reflection=False) as address:
        assert _listed_services(address) == grpc.StatusCode.UNIMPLEMENTED
        with grpc.insecure_channel(address) as channel:  # the rest is served as before
            health = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=5)
            assert health.status is not None


def _watch_health(channel: grpc.Channel) -> tuple[threading.Thread, dict]:
    """A server stream that stays open with no data after its first message (a watch with
    no news): the outcome lands in the dict when it ends."""
    outcome: dict = {}
    call = health_pb2_grpc.HealthStub(channel).Watch(health_pb2.HealthCheckRequest())

    def consume():
        try:
            for _ in call:
                outcome.setdefault("first", time.monotonic())
            outcome["end"] = "ok"
        except grpc.RpcError as e:
            outcome["end"] = e.code()
            outcome["details"] = e.details()

    thread = threading.Thread(target=consume, daemon=True)
    thread.start()
    outcome["call"] = call
    return thread, outcome


def test_a_client_pinging_faster_than_the_policy_is_sent_away_and_one_within_it_is_kept():
    """The server allows a ping every 2 s here (production: every 30 s, and the client pings
    every 60 s). A client pinging every second is sent away (GOAWAY ENHANCE_YOUR_CALM after
    two strikes: its stream ends UNAVAILABLE); one pinging every 2.5 s keeps its idle stream.
    (gRPC never sends client pings more often than once a second.)"""
    with serving(grpc_min_ping_interval_seconds=2.0) as address:
        eager = open_channel(address, options=BACKOFF_OPTIONS + keepalive_options(every=1.0, timeout=5))
        polite = open_channel(address, options=BACKOFF_OPTIONS + keepalive_options(every=2.5, timeout=5))
        outcomes: list[dict] = []
        try:
            eager_thread, eager_outcome = _watch_health(eager)
            polite_thread, polite_outcome = _watch_health(polite)
            outcomes += [eager_outcome, polite_outcome]
            eager_thread.join(10)
            assert eager_outcome.get("end") == grpc.StatusCode.UNAVAILABLE, eager_outcome
            assert "too many pings" in eager_outcome["details"].lower()
            opened = polite_outcome.get("first", time.monotonic())
            polite_thread.join(max(0.0, opened + 5.5 - time.monotonic()))  # two of its pings
            assert "end" not in polite_outcome, polite_outcome
        finally:
            for outcome in outcomes:
                outcome["call"].cancel()
            eager.close()
            polite.close()


def test_a_connection_past_its_maximum_age_is_closed_and_the_clients_watch_resumes_from_its_version():
    """Connection age 0.5 s and grace 0.5 s here (production: 30 min and 2 h): the open
    WatchMatch stream is cut with UNAVAILABLE, and the client's Pump opens it again on a new
    connection from the last version it saw."""
    with serving(grpc_max_connection_age_seconds=0.5, grpc_max_connection_age_grace_seconds=0.5) as address:
        seats = [pb.SeatSpec(player_id=p, client_seed=f"seed-{p}") for p in ("ann", "bob")]
        with grpc.insecure_channel(address) as channel:
            created = pb_grpc.MatchServiceStub(channel).CreateMatch(
                pb.CreateMatchRequest(request_id="edge-1", rules="egyptian", variant="draw-2", seats=seats),
                metadata=auth("matchmaking", "service"), timeout=5)
        api = MatchApi(address, token("ann"))
        inbox = Inbox()
        opened: list[int] = []

        def open_watch(last):
            version = last.view.version if last is not None else 0
            opened.append(version)
            return api.watch(created.match_id, version)

        pump = Pump(inbox, "view", open_watch, max_pause=0.25).start()
        try:
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and len(opened) < 2:
                time.sleep(0.05)
            events = inbox.pending()
        finally:
            pump.stop()
            api.close()
    assert len(opened) >= 2, "the stream was never cut"
    first_views = [e.value.view.version for e in events if e.kind == "view"]
    assert first_views and opened[1] == first_views[-1] > 0  # resumed where it was, not from the start
    assert ("link", "lost") in [(e.kind, e.value) for e in events]
