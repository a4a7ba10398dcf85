"""A real AccountService on loopback, on a real SQLite file (or any store env), with two
real OIDC issuers of the tests' own ("apple": SHA-256 nonces, "google": plain ones), run
in a background event loop for sync tests."""

from __future__ import annotations

import secrets
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc

from domino.account.v1 import account_service_pb2 as pb
from domino.account.v1 import account_service_pb2_grpc as pb_grpc
from services.accounts.application import AccountApplication
from services.accounts.bootstrap import create_server
from services.common.oidc import IdTokenVerifier
from services.accounts.store import AccountStore
from services.common.config import Settings
from services.common.limits import RateLimit
from tests.support.background import serving_in_background
from tests.support.clock import Clock
from tests.support.keys import KEYS
from tests.support.oidc_issuer import OidcIssuer, sha256_nonce

CLIENT_ID = "domino-app"


def device() -> tuple[str, str]:
    """What an app makes at first launch: a random id and a 256-bit secret."""
    return secrets.token_urlsafe(24), secrets.token_hex(32)


@dataclass
class AccountService:
    app: AccountApplication
    port: int
    loop: Any
    clock: Clock
    apple: OidcIssuer
    google: OidcIssuer
    channel: grpc.Channel = field(init=False)
    stub: Any = field(init=False)

    def __post_init__(self) -> None:
        self.channel = grpc.insecure_channel(f"127.0.0.1:{self.port}")
        self.stub = pb_grpc.AccountServiceStub(self.channel)

    def sign_up(self, name: str = "", pair: tuple[str, str] | None = None) -> pb.Session:
        device_id, secret = pair or device()
        return self.stub.SignInWithDevice(pb.SignInWithDeviceRequest(device_id=device_id, device_secret=secret,
                                                                     display_name=name)).session

    def id_token(self, provider: str, subject: str, nonce: str = "n-0123456789", **kw: Any) -> str:
        """A token the named issuer signs for ``subject``, bound to the raw ``nonce`` the way
        that provider binds it."""
        if provider == "apple":
            return self.apple.sign(subject, CLIENT_ID, sha256_nonce(nonce), **kw)
        return self.google.sign(subject, CLIENT_ID, nonce, **kw)


def code_of(call) -> grpc.StatusCode:
    """The status a call ends with (OK when it returns)."""
    try:
        call()
    except grpc.RpcError as error:
        return error.code()
    return grpc.StatusCode.OK


def bearer(session_or_token: Any) -> tuple:
    token = getattr(session_or_token, "access_token", session_or_token)
    return (("authorization", f"Bearer {token}"),)


@contextmanager
def running_accounts(tmp_path: Path, env: dict[str, str] | None = None, history: Any = None,
                     settings: Settings | None = None, access_seconds: int = 900,
                     limited_revocation_reads: bool = False):
    env = env or {"PERSISTENCE_MODULE": "services.common.sqlite_store", "SQLITE_DBNAME": str(tmp_path / "m.sqlite")}
    store = AccountStore.for_env(env)
    store.create()
    clock = Clock(time.time())
    with OidcIssuer(tmp_path / "apple") as apple, OidcIssuer(tmp_path / "google") as google:
        bundle = tmp_path / "issuers-ca.pem"  # each issuer has a CA of its own: trust both
        bundle.write_bytes(apple.ca_file.read_bytes() + google.ca_file.read_bytes())
        verifier = IdTokenVerifier([apple.provider("apple", (CLIENT_ID,), nonce="sha256"),
                                    google.provider("google", (CLIENT_ID,))], ca_file=str(bundle))
        app = AccountApplication(store, KEYS, verifier, history, clock=clock, access_seconds=access_seconds)
        unlimited = settings or Settings.model_construct(command_rate=1e9, command_burst=1e9,
                                                         sign_ins_per_minute=1e9)
        try:
            # the tests' many lists share one address: unlimited unless the limit is the test
            reads = None if settings or limited_revocation_reads else RateLimit(1e9, 1e9)
            with serving_in_background(lambda: create_server("127.0.0.1:0", app, KEYS, settings=unlimited,
                                                             revocation_reads=reads)) as (port, loop):
                service = AccountService(app, port, loop, clock, apple, google)
                try:
                    yield service
                finally:
                    service.channel.close()
        finally:
            store.close()

