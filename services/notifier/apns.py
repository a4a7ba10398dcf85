"""APNs: HTTP/2 over TLS with token-based authentication (Apple's "Sending notification
requests to APNs" and "Establishing a token-based connection to APNs").

The provider token is a JWT signed ES256 with the team's .p8 key (header kid = key id,
claims iss = team id, iat). Apple refuses one older than an hour and one renewed more than
once every 20 minutes, so the same token is kept for 50 minutes and renewed then, or at once
when APNs answers 403 ExpiredProviderToken. One HTTP/2 connection per environment (sandbox,
production), kept: Apple asks providers not to open a connection per push."""

from __future__ import annotations

import json
import logging
import threading
import time
from typing import Callable

import httpx
import jwt

from . import delivery
from .delivery import Answer
from .payloads import Push, apns_headers, apns_payload

log = logging.getLogger("domino.notifier")
REUSE_SECONDS = 50 * 60
SANDBOX, PRODUCTION = "sandbox", "production"
GONE_REASONS = {"BadDeviceToken", "Unregistered", "DeviceTokenNotForTopic"}


class ProviderToken:
    def __init__(self, key_pem: bytes, key_id: str, team_id: str, clock: Callable[[], float] = time.time) -> None:
        self.key_pem = key_pem
        self.key_id = key_id
        self.team_id = team_id
        self.clock = clock
        self._token = ("", float("-inf"))
        self._lock = threading.Lock()

    def current(self) -> str:
        with self._lock:
            token, issued = self._token
            now = self.clock()
            if now - issued >= REUSE_SECONDS:
                token = jwt.encode({"iss": self.team_id, "iat": int(now)}, self.key_pem, algorithm="ES256",
                                   headers={"kid": self.key_id})
                self._token = (token, now)
            return token

    def expire(self, token: str) -> None:
        """APNs called ``token`` expired: the next push signs a new one (once, however many saw it)."""
        with self._lock:
            if self._token[0] == token:
                self._token = ("", float("-inf"))


class Apns:
    provider = "apns"

    def __init__(self, token: ProviderToken, topic: str, urls: dict[str, str], verify, timeout_seconds: float,
                 clock: Callable[[], float] = time.time) -> None:
        self.token = token
        self.topic = topic
        self.urls = urls
        self.clock = clock
        self.clients = {env: httpx.AsyncClient(http2=True, verify=verify, timeout=timeout_seconds, base_url=url,
                                               limits=httpx.Limits(max_connections=1))
                        for env, url in urls.items()}

    async def send(self, token: str, environment: str, push: Push) -> Answer:
        client = self.clients[environment]
        body = json.dumps(apns_payload(push), separators=(",", ":")).encode()
        for _ in range(2):  # a second time only after an expired provider token
            jwt_token = self.token.current()
            try:
                response = await client.post(f"/3/device/{token}", content=body,
                                             headers=apns_headers(push, jwt_token, self.topic))
            except httpx.HTTPError as e:
                return Answer(delivery.FAILED, 0, type(e).__name__, retry=True)
            reason = _reason(response)
            if response.status_code == 403 and reason == "ExpiredProviderToken":
                self.token.expire(jwt_token)
                continue
            return _answer(response.status_code, reason, response.headers.get("retry-after"))
        return Answer(delivery.DROPPED, 403, "ExpiredProviderToken")

    async def close(self) -> None:
        for client in self.clients.values():
            await client.aclose()


def _reason(response: httpx.Response) -> str:
    if response.status_code == 200:
        return ""
    try:
        reason = response.json().get("reason", "")
        return reason if isinstance(reason, str) else ""
    except ValueError:
        return ""


def _answer(status: int, reason: str, retry_after: str | None) -> Answer:
    if status == 200:
        return Answer(delivery.OK, status)
    if status == 410 or (status == 400 and reason in GONE_REASONS):
        return Answer(delivery.UNREGISTERED, status, reason)
    if status == 429 or status >= 500:
        return Answer(delivery.FAILED, status, reason, retry=True, retry_after=delivery.retry_after(retry_after))
    return Answer(delivery.DROPPED, status, reason)
