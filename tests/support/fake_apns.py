"""A fake APNs on loopback that speaks Apple's provider API as documented: HTTP/2 over TLS,
POST /3/device/<token>, a provider JWT (ES256, kid, iss, iat no older than an hour) checked
against the test key's public half, apns-topic, apns-push-type, apns-collapse-id (at most
64 bytes), apns-priority, and a JSON payload of at most 4 KB with an `aps` dictionary.

A test scripts each device token's answers in order (``script``), else 200; every request
it accepted for checking is recorded with the time it arrived. The keys are made here, at
test time: nothing secret is committed."""

from __future__ import annotations

import json
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from .asgi_tls import read_body, respond, serving_tls

MAX_PAYLOAD = 4096
TOPIC = "com.example.domino"
KEY_ID = "ABC123DEFG"
TEAM_ID = "DEF123GHIJ"


@dataclass(frozen=True)
class Reply:
    status: int = 200
    reason: str = ""
    retry_after: str | None = None


OK = Reply()
UNREGISTERED = Reply(410, "Unregistered")
BAD_DEVICE_TOKEN = Reply(400, "BadDeviceToken")
TOO_MANY = Reply(429, "TooManyRequests")
SERVER_ERROR = Reply(500, "InternalServerError")
UNAVAILABLE = Reply(503, "ServiceUnavailable")


@dataclass
class Received:
    token: str
    headers: dict[str, str]
    payload: dict
    at: float
    http_version: str
    status: int
    peer: tuple = ()  # the client's (address, port): one per connection


@dataclass
class FakeApns:
    public_key: ec.EllipticCurvePublicKey
    key_pem: bytes  # the .p8 the notifier signs with
    topic: str = TOPIC
    key_id: str = KEY_ID
    team_id: str = TEAM_ID
    received: list[Received] = field(default_factory=list)
    scripts: dict[str, list[Reply]] = field(default_factory=dict)
    refused: list[tuple[int, str]] = field(default_factory=list)  # answers to requests that failed the checks
    url: str = ""
    ca_file: str = ""
    key_file: str = ""
    lock: threading.Lock = field(default_factory=threading.Lock)
    seen: threading.Condition = field(init=False)

    def __post_init__(self) -> None:
        self.seen = threading.Condition(self.lock)

    def notifier_env(self, **more: str) -> dict[str, str]:
        """The notifier's settings that point it at this fake (with ``more`` of its own)."""
        return {"DOMINO_APNS_KEY_FILE": self.key_file, "DOMINO_APNS_KEY_ID": self.key_id,
                "DOMINO_APNS_TEAM_ID": self.team_id, "DOMINO_APNS_TOPIC": self.topic,
                "DOMINO_APNS_SANDBOX_URL": self.url, "DOMINO_APNS_PRODUCTION_URL": self.url,
                "DOMINO_PUSH_CA_FILE": self.ca_file, **more}

    def script(self, token: str, *replies: Reply) -> None:
        with self.lock:
            self.scripts[token] = list(replies)

    def wait_for(self, count: int, timeout: float = 10.0) -> list[Received]:
        with self.seen:
            self.seen.wait_for(lambda: len(self.received) >= count, timeout)
            return list(self.received)

    def _problem(self, scope, headers: dict[str, str], body: bytes) -> tuple[int, str] | None:
        if scope.get("http_version") != "2":
            return 400, "BadHttpVersion"  # APNs speaks HTTP/2 alone
        if scope["method"] != "POST":
            return 405, "MethodNotAllowed"
        auth = headers.get("authorization", "")
        if not auth.startswith("bearer "):
            return 403, "MissingProviderToken"
        token = auth.removeprefix("bearer ")
        try:
            header = jwt.get_unverified_header(token)
            claims = jwt.decode(token, self.public_key, algorithms=["ES256"], options={"require": ["iss", "iat"]})
        except jwt.PyJWTError:
            return 403, "InvalidProviderToken"
        if header.get("kid") != self.key_id or claims.get("iss") != self.team_id:
            return 403, "InvalidProviderToken"
        if time.time() - claims["iat"] > 3600:
            return 403, "ExpiredProviderToken"
        if headers.get("apns-topic") != self.topic:
            return 400, "TopicDisallowed"
        if headers.get("apns-push-type") not in ("alert", "background"):
            return 400, "InvalidPushType"
        if headers.get("apns-priority", "10") not in ("5", "10"):
            return 400, "BadPriority"
        if len(headers.get("apns-collapse-id", "").encode()) > 64:
            return 400, "BadCollapseId"
        if not headers.get("apns-expiration", "0").isdigit():
            return 400, "BadExpirationDate"
        if not body:
            return 400, "PayloadEmpty"
        if len(body) > MAX_PAYLOAD:
            return 413, "PayloadTooLarge"
        try:
            payload = json.loads(body)
        except ValueError:
            return 400, "BadPayload"
        if not isinstance(payload, dict) or not isinstance(payload.get("aps"), dict):
            return 400, "BadPayload"
        return None

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            return
        body = await read_body(receive)
        headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
        parts = scope["path"].split("/")
        if len(parts) != 4 or parts[:3] != ["", "3", "device"]:
            await respond(send, 404, json.dumps({"reason": "BadPath"}).encode())
            return
        device = parts[3]
        problem = self._problem(scope, headers, body)
        if problem is None and not all(c in "0123456789abcdefABCDEF" for c in device):
            problem = (400, "BadDeviceToken")
        if problem is not None:
            with self.lock:
                self.refused.append(problem)
            await respond(send, problem[0], json.dumps({"reason": problem[1]}).encode())
            return
        with self.lock:
            replies = self.scripts.get(device, [])
            reply = replies.pop(0) if replies else OK
            self.received.append(Received(device, headers, json.loads(body), time.time(), scope["http_version"],
                                          reply.status, tuple(scope.get("client") or ())))
            self.seen.notify_all()
        extra = {"apns-id": headers.get("apns-id", "")}
        if reply.retry_after is not None:
            extra["retry-after"] = reply.retry_after
        if reply.status == 200:
            await respond(send, 200, b"", extra)
            return
        answer: dict = {"reason": reply.reason}
        if reply.status == 410:
            answer["timestamp"] = int(time.time() * 1000)
        await respond(send, reply.status, json.dumps(answer).encode(), extra)


def make_key() -> tuple[bytes, ec.EllipticCurvePublicKey]:
    """A .p8 as Apple hands it out (PKCS#8 PEM, P-256) and its public half."""
    key = ec.generate_private_key(ec.SECP256R1())
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption())
    return pem, key.public_key()


@contextmanager
def running_apns(directory: Path) -> Iterator[FakeApns]:
    pem, public = make_key()
    fake = FakeApns(public, pem)
    with serving_tls(fake, directory, "apns") as (port, pki):
        fake.url = f"https://127.0.0.1:{port}"
        fake.ca_file = str(pki.ca)
        key_file = directory / "apns.p8"
        key_file.write_bytes(pem)
        fake.key_file = str(key_file)
        yield fake
