"""A real MatchService on loopback, run in a background event loop, for sync tests.

The doubles it uses (clock, key ring, tokens) are shared by every tier: tests/support."""

from __future__ import annotations

import asyncio
from contextlib import contextmanager

import grpc

from domino.match.v1 import match_service_pb2 as pb
from domino.match.v1 import match_service_pb2_grpc as pb_grpc
from services.common.limits import RateLimit, StreamLimits
from services.common.rule_options import value_pb
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from services.match.application import MatchApplication
from services.match.heads import Signer
from services.match.bootstrap import create_server
from services.common.changes import ChangeFeed
from tests.support.background import serving_in_background
from tests.support.keys import KEYS, auth


def UNLIMITED():  # noqa: N802 - reads as a constant
    """Limits no test reaches unless it means to (tests play far faster than people)."""
    return StreamLimits(10_000, 100_000), RateLimit(1e9, 1e9)  # every kind of token, for the services the tests start and the tokens they mint


class Service:
    signer: Signer  # the service's head signing key

    def __init__(self, app: MatchApplication, port: int, loop) -> None:
        self.app = app
        self.port = port
        self.loop = loop
        self.channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        self.stub = pb_grpc.MatchServiceStub(self.channel)

    def run(self, command):
        """A use case (a coroutine) run on the service's own event loop, as its handlers run."""
        return asyncio.run_coroutine_threadsafe(command, self.loop).result(10)

    def create(self, variant="block-4", players=("ann", "bob", "cat", "dan"), request_id="create-1", rules="egyptian",
               **options):
        seats = [pb.SeatSpec(player_id=p, client_seed=f"seed-{p}") for p in players]
        if isinstance(options.get("rule_options"), dict):  # {"fish": "one"}: the host options by name
            options["rule_options"] = [pb.OptionSetting(name=name, value=value_pb(value))
                                       for name, value in options["rule_options"].items()]
        request = pb.CreateMatchRequest(request_id=request_id, rules=rules, variant=variant, seats=seats, **options)
        return self.stub.CreateMatch(request, metadata=auth("matchmaking", "service"))


@contextmanager
def running_service(app: MatchApplication, watch_safety_seconds: float = 30.0, history=None, tail=None,
                    on_wake=None, signer: Signer | None = None, keys_dir=None, blocks=None):
    """``tail``: the change tail its streams learn of other processes' changes from (by
    default the one create_server makes for the app's store: LISTEN on PostgreSQL);
    ``on_wake(cause)``: told of each stream wake; ``signer``: the head signing key (one of
    the moment by default); ``keys_dir``: where GetHeadKeys reads the published keys;
    ``blocks()``: makes, on the server's loop, who blocks whom at a table (blocks.py)."""
    signer = signer or Signer(Ed25519PrivateKey.generate())

    def create():
        return create_server("127.0.0.1:0", app, KEYS, tail.changes if tail else ChangeFeed(),
                             watch_safety_seconds=watch_safety_seconds, tail=tail, on_wake=on_wake,
                             limits=UNLIMITED(), signer=signer, history=history, keys_dir=keys_dir,
                             blocks=blocks() if blocks else None)

    with serving_in_background(create) as (port, loop):
        service = Service(app, port, loop)
        service.signer = signer
        try:
            yield service
        finally:
            service.channel.close()


@contextmanager
def service_with_history(tmp_path):
    """A match service on a real SQLite file with its history view, and the projection that
    keeps the view (call ``projection.catch_up()`` to apply what was played)."""
    from services.match.history_projection import HistoryProjection
    from services.history.view import View

    env = {"PERSISTENCE_MODULE": "services.common.sqlite_store", "SQLITE_DBNAME": str(tmp_path / "events.sqlite")}
    app = MatchApplication(env=env)
    view = View.for_env(env)
    view.create()
    projection = HistoryProjection(app, view)
    projection.start()
    try:
        with running_service(app, history=view) as service:
            yield service, projection
    finally:
        app.close()
