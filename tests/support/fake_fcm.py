"""A fake FCM on loopback, speaking the HTTP v1 API and Google's OAuth 2 JWT-bearer grant as
documented, over TLS (HTTP/2 by ALPN):

- POST /token: grant_type urn:ietf:params:oauth:grant-type:jwt-bearer and an assertion
  signed RS256 by the service account's key (iss its client_email, aud this token URI,
  scope firebase.messaging, iat/exp); answers an access token valid ``token_seconds``.
- POST /v1/projects/<project>/messages:send with `Authorization: Bearer` of a token it
  issued and not yet expired (else 401 UNAUTHENTICATED), and a message with a token and a
  data map of strings (an Android ttl at most four weeks, a priority NORMAL or HIGH).

A test scripts each registration token's answers in order (``script``), else success; every
message it accepted for checking is recorded with the time it arrived. The service account
(an RSA key, made here) is written as Google hands it out: nothing secret is committed."""

from __future__ import annotations

import json
import re
import secrets
import threading
import time
import urllib.parse
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from .asgi_tls import read_body, respond, serving_tls

PROJECT = "domino-test"
CLIENT_EMAIL = "notifier@domino-test.iam.gserviceaccount.com"
SCOPE = "https://www.googleapis.com/auth/firebase.messaging"
GRANT_TYPE = "urn:ietf:params:oauth:grant-type:jwt-bearer"
MAX_TTL = 28 * 86400  # FCM's longest time to live


@dataclass(frozen=True)
class Reply:
    status: int = 200
    state: str = ""
    code: str = ""
    message: str = ""
    retry_after: str | None = None


OK = Reply()
UNREGISTERED = Reply(404, "NOT_FOUND", "UNREGISTERED", "Requested entity was not found.")
INVALID_TOKEN = Reply(400, "INVALID_ARGUMENT", "INVALID_ARGUMENT",
                      "The registration token is not a valid FCM registration token")
TOO_MANY = Reply(429, "RESOURCE_EXHAUSTED", "QUOTA_EXCEEDED", "Quota exceeded.")
UNAVAILABLE = Reply(503, "UNAVAILABLE", "UNAVAILABLE", "The service is currently unavailable.")


@dataclass
class Received:
    token: str
    message: dict
    at: float
    http_version: str
    status: int


@dataclass
class FakeFcm:
    public_key: rsa.RSAPublicKey
    account: dict  # the service account JSON, as written to account_file
    token_seconds: float = 3600.0
    received: list[Received] = field(default_factory=list)
    scripts: dict[str, list[Reply]] = field(default_factory=dict)
    refused: list[tuple[int, str]] = field(default_factory=list)
    issued: dict[str, float] = field(default_factory=dict)  # access token -> expiry
    url: str = ""
    ca_file: str = ""
    account_file: str = ""
    clock: Callable[[], float] = time.time  # the fake's time: a test may move it with the notifier's
    lock: threading.Lock = field(default_factory=threading.Lock)
    seen: threading.Condition = field(init=False)

    def __post_init__(self) -> None:
        self.seen = threading.Condition(self.lock)

    def script(self, token: str, *replies: Reply) -> None:
        with self.lock:
            self.scripts[token] = list(replies)

    def revoke_tokens(self) -> None:
        with self.lock:
            self.issued.clear()

    def wait_for(self, count: int, timeout: float = 10.0) -> list[Received]:
        with self.seen:
            self.seen.wait_for(lambda: len(self.received) >= count, timeout)
            return list(self.received)

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            return
        body = await read_body(receive)
        headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
        if scope["method"] == "POST" and scope["path"] == "/token":
            await self._token(send, body)
        elif scope["method"] == "POST" and scope["path"] == f"/v1/projects/{PROJECT}/messages:send":
            await self._send(scope, send, headers, body)
        else:
            await _error(send, Reply(404, "NOT_FOUND", "", "not found"))

    async def _token(self, send, body: bytes) -> None:
        form = dict(urllib.parse.parse_qsl(body.decode()))
        problem = None
        if form.get("grant_type") != GRANT_TYPE:
            problem = "unsupported_grant_type"
        else:
            try:
                claims = jwt.decode(form.get("assertion", ""), self.public_key, algorithms=["RS256"],
                                    audience=self.account["token_uri"],
                                    options={"require": ["iat", "exp", "iss"], "verify_exp": False,
                                             "verify_iat": False})
                now = self.clock()
                if not claims["iat"] - 60 <= now < claims["exp"] or claims["exp"] - claims["iat"] > 3600:
                    problem = "invalid_grant"
                elif claims["iss"] != CLIENT_EMAIL or SCOPE not in str(claims.get("scope", "")).split():
                    problem = "invalid_grant"
                if jwt.get_unverified_header(form["assertion"]).get("kid") != self.account["private_key_id"]:
                    problem = "invalid_grant"
            except jwt.PyJWTError:
                problem = "invalid_grant"
        if problem:
            with self.lock:
                self.refused.append((400, problem))
            await respond(send, 400, json.dumps({"error": problem}).encode())
            return
        token = "ya29." + secrets.token_urlsafe(24)
        with self.lock:
            self.issued[token] = self.clock() + self.token_seconds
        await respond(send, 200, json.dumps({"access_token": token, "expires_in": int(self.token_seconds),
                                             "token_type": "Bearer"}).encode())

    async def _send(self, scope, send, headers: dict[str, str], body: bytes) -> None:
        bearer = headers.get("authorization", "").removeprefix("Bearer ")
        with self.lock:
            valid = self.issued.get(bearer, 0) > self.clock()
        if not valid:
            with self.lock:
                self.refused.append((401, "UNAUTHENTICATED"))
            await _error(send, Reply(401, "UNAUTHENTICATED", "", "Request had invalid authentication credentials."))
            return
        try:
            message = json.loads(body)["message"]
            token = message["token"]
            data = message.get("data", {})
            if not isinstance(token, str) or not token or not all(
                    isinstance(k, str) and isinstance(v, str) for k, v in data.items()):
                raise ValueError
            ttl = message.get("android", {}).get("ttl")
            if ttl is not None and not (re.fullmatch(r"\d+(\.\d{1,9})?s", ttl) and float(ttl[:-1]) <= MAX_TTL):
                raise ValueError
            if message.get("android", {}).get("priority", "NORMAL") not in ("NORMAL", "HIGH"):
                raise ValueError
        except (ValueError, KeyError, TypeError, AttributeError):
            with self.lock:
                self.refused.append((400, "INVALID_ARGUMENT"))
            await _error(send, Reply(400, "INVALID_ARGUMENT", "INVALID_ARGUMENT", "Invalid JSON payload received."))
            return
        with self.lock:
            replies = self.scripts.get(token, [])
            reply = replies.pop(0) if replies else OK
            self.received.append(Received(token, message, time.time(), scope.get("http_version", ""), reply.status))
            self.seen.notify_all()
        if reply.status == 200:
            name = f"projects/{PROJECT}/messages/{secrets.token_hex(8)}"
            await respond(send, 200, json.dumps({"name": name}).encode())
            return
        await _error(send, reply)


async def _error(send, reply: Reply) -> None:
    error: dict = {"code": reply.status, "message": reply.message, "status": reply.state}
    if reply.code:
        error["details"] = [{"@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError",
                             "errorCode": reply.code}]
    headers = {"retry-after": reply.retry_after} if reply.retry_after is not None else None
    await respond(send, reply.status, json.dumps({"error": error}).encode(), headers)


def make_account(token_uri: str) -> tuple[dict, rsa.RSAPublicKey]:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption()).decode()
    return ({"type": "service_account", "project_id": PROJECT, "private_key_id": secrets.token_hex(20),
             "private_key": pem, "client_email": CLIENT_EMAIL, "client_id": "1234567890",
             "token_uri": token_uri}, key.public_key())


@contextmanager
def running_fcm(directory: Path) -> Iterator[FakeFcm]:
    account, public = make_account("")
    fake = FakeFcm(public, account)
    with serving_tls(fake, directory, "fcm") as (port, pki):
        fake.url = f"https://127.0.0.1:{port}"
        fake.ca_file = str(pki.ca)
        account["token_uri"] = f"{fake.url}/token"
        path = directory / "fcm-service-account.json"
        path.write_text(json.dumps(account))
        fake.account_file = str(path)
        yield fake
