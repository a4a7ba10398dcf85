"""The console app in process, over httpx's ASGI transport, with an injected clock, a test
OIDC issuer and no services behind it unless a test gives their addresses."""

from __future__ import annotations

import re
import ssl
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx
from starlette.applications import Starlette

from services.common.auth import KeyRing
from services.console.app import create_app
from services.console.clients import Clients
from services.console.local_link import LocalSignIn
from services.console.settings import ConsoleSettings
from tests.support.oidc_issuer import OidcIssuer

CLIENT_ID, CLIENT_SECRET = "domino-console", "console-secret"
ROLE_MAP = {"dominoes-view": "viewer", "dominoes-support": "support", "dominoes-ops": "operator",
            "dominoes-audit": "auditor"}
BASE = "http://127.0.0.1:8090"
LOCAL_TOKEN = "local-token-for-tests"


@dataclass
class Clock:
    now: float = 1000.0

    def __call__(self) -> float:
        return self.now


@dataclass
class Console:
    app: Starlette
    http: httpx.AsyncClient
    clock: Clock
    issuer: OidcIssuer | None
    keys: KeyRing = field(repr=False)

    async def sign_in(self, subject: str = "alice", name: str = "Alice", groups: tuple[str, ...] = ("dominoes-ops",),
                      *, tamper: dict[str, str] | None = None, next_path: str = "") -> httpx.Response:
        """Walks the browser's part of the code flow; ``tamper`` rewrites parameters of the
        authorization request on its way to the issuer (an attacker's), the answer is the
        console's to the callback."""
        return await self.http.get(await self.callback(subject, name, groups, tamper=tamper, next_path=next_path))

    async def callback(self, subject: str = "alice", name: str = "Alice", groups: tuple[str, ...] = ("dominoes-ops",),
                       *, tamper: dict[str, str] | None = None, next_path: str = "") -> str:
        """The console's callback path the issuer sends the browser back to."""
        assert self.issuer is not None
        self.issuer.sign_in_as(subject, name, groups)
        started = await self.http.get("/sign-in/start" + (f"?next={next_path}" if next_path else ""))
        assert started.status_code == 303, started.text
        authorize = started.headers["location"]
        if tamper:
            parts = urlsplit(authorize)
            query = {k: v[0] for k, v in parse_qs(parts.query).items()} | tamper
            authorize = parts._replace(query=str(httpx.QueryParams(query))).geturl()
        with httpx.Client(verify=ssl.create_default_context(cafile=str(self.issuer.ca_file))) as browser:
            answer = browser.get(authorize)
        assert answer.status_code == 302, answer.text
        return answer.headers["location"].removeprefix(BASE)

    async def sign_in_locally(self) -> httpx.Response:
        return await self.http.get(f"/sign-in/local/{LOCAL_TOKEN}")

    async def csrf_token(self) -> str:
        page = await self.http.get("/now")
        match = re.search(r'name="csrf_token" value="([^"]+)"', page.text)
        assert match, page.text
        return match.group(1)


@asynccontextmanager
async def console(issuer: OidcIssuer | None = None, *, account: str = "127.0.0.1:9", match: str = "127.0.0.1:9",
                  keys: KeyRing | None = None, **settings: object) -> AsyncIterator[Console]:
    """``account``, ``match``: the services' addresses (nothing listens on the default);
    ``keys``: the ring they trust (the console mints operator tokens with it)."""
    keys = keys or KeyRing.generate()
    values: dict[str, object] = {"public_url": BASE, "role_map": ROLE_MAP, "account_address": account,
                                 "match_address": match, "actions_per_minute": 6000.0, **settings}
    if issuer is not None:
        issuer.register_client(CLIENT_ID, CLIENT_SECRET)
        secret_file = Path(tempfile.mkdtemp(prefix="console-")) / "client-secret"
        secret_file.write_text(CLIENT_SECRET + "\n")
        values |= {"oidc_issuer": issuer.issuer, "oidc_client_id": CLIENT_ID, "oidc_ca_file": str(issuer.ca_file),
                   "oidc_client_secret_file": str(secret_file)}
    config = ConsoleSettings(**values)  # type: ignore[arg-type]
    clock = Clock()
    clients = Clients(config.account_address, config.match_address, keys.only(issues=("operator",)), deadline=2.0)
    app = create_app(config, clients, clock=clock, local_sign_in=LocalSignIn(LOCAL_TOKEN))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=BASE) as http:
        try:
            yield Console(app, http, clock, issuer, keys)
        finally:
            await clients.close()
