"""FCM HTTP v1: POST {base}/v1/projects/<project>/messages:send with an OAuth 2 access token
from the Firebase service account.

The token comes from Google's JWT-bearer grant (RFC 7523): an assertion signed RS256 with
the service account's private key (iss = its client_email, aud = its token_uri, scope
firebase.messaging) posted to the JSON's token_uri. That is what google-auth's
service_account.Credentials does; it is done here with PyJWT, which the project already
keeps, over the same async HTTP/2 client as the sends, because google-auth refreshes
through a blocking transport (requests, one more dependency) that would hold the event
loop or a thread per refresh. The token is kept until five minutes before it expires, or
dropped at once when FCM answers 401."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from dataclasses import dataclass
from typing import Callable

import httpx
import jwt

from . import delivery
from .delivery import Answer
from .payloads import Push, fcm_message

log = logging.getLogger("domino.notifier")
SCOPE = "https://www.googleapis.com/auth/firebase.messaging"
GRANT_TYPE = "urn:ietf:params:oauth:grant-type:jwt-bearer"
RENEW_BEFORE_SECONDS = 300
ASSERTION_SECONDS = 3600


@dataclass(frozen=True)
class ServiceAccount:
    project_id: str
    client_email: str
    private_key: str
    private_key_id: str
    token_uri: str

    @classmethod
    def parse(cls, text: str) -> "ServiceAccount":
        obj = json.loads(text)
        return cls(obj["project_id"], obj["client_email"], obj["private_key"], obj.get("private_key_id", ""),
                   obj.get("token_uri") or "https://oauth2.googleapis.com/token")


class AccessToken:
    def __init__(self, account: ServiceAccount, client: httpx.AsyncClient,
                 clock: Callable[[], float] = time.time) -> None:
        self.account = account
        self.client = client
        self.clock = clock
        self._token = ("", float("-inf"))
        self._lock = asyncio.Lock()

    def assertion(self) -> str:
        now = int(self.clock())
        headers = {"kid": self.account.private_key_id} if self.account.private_key_id else None
        return jwt.encode({"iss": self.account.client_email, "scope": SCOPE, "aud": self.account.token_uri,
                           "iat": now, "exp": now + ASSERTION_SECONDS}, self.account.private_key, algorithm="RS256",
                          headers=headers)

    async def current(self) -> str:
        async with self._lock:
            token, expires = self._token
            if expires - self.clock() > RENEW_BEFORE_SECONDS:
                return token
            response = await self.client.post(self.account.token_uri,
                                              data={"grant_type": GRANT_TYPE, "assertion": self.assertion()})
            response.raise_for_status()
            body = response.json()
            token = body["access_token"]
            self._token = (token, self.clock() + float(body.get("expires_in", 3600)))
            return token

    def expire(self, token: str) -> None:
        if self._token[0] == token:
            self._token = ("", float("-inf"))


class Fcm:
    provider = "fcm"

    def __init__(self, account: ServiceAccount, base_url: str, verify, timeout_seconds: float,
                 clock: Callable[[], float] = time.time) -> None:
        self.account = account
        self.clock = clock
        self.client = httpx.AsyncClient(http2=True, verify=verify, timeout=timeout_seconds)
        self.url = f"{base_url.rstrip('/')}/v1/projects/{account.project_id}/messages:send"
        self.token = AccessToken(account, self.client, clock)

    async def send(self, token: str, environment: str, push: Push) -> Answer:
        for _ in range(2):  # a second time only after FCM refused the access token
            try:
                access = await self.token.current()
                response = await self.client.post(self.url, json=fcm_message(push, token, self.clock()),
                                                  headers={"authorization": f"Bearer {access}"})
            except (httpx.HTTPError, KeyError, ValueError) as e:
                return Answer(delivery.FAILED, 0, type(e).__name__, retry=True)
            if response.status_code == 401:
                self.token.expire(access)
                continue
            return _answer(response)
        return Answer(delivery.DROPPED, 401, "UNAUTHENTICATED")

    async def close(self) -> None:
        await self.client.aclose()


def _error(response: httpx.Response) -> tuple[str, str, str]:
    """(status, FCM errorCode, message) of an error body."""
    try:
        error = response.json().get("error", {})
        codes = [d.get("errorCode", "") for d in error.get("details", []) if isinstance(d, dict)]
        return str(error.get("status", "")), (codes[0] if codes else ""), str(error.get("message", ""))
    except (ValueError, AttributeError):
        return "", "", ""


def _answer(response: httpx.Response) -> Answer:
    status = response.status_code
    if status == 200:
        return Answer(delivery.OK, status)
    state, code, message = _error(response)
    reason = code or state
    if code == "UNREGISTERED" or (status == 404 and state == "NOT_FOUND"):
        return Answer(delivery.UNREGISTERED, status, reason)
    if status == 400 and state == "INVALID_ARGUMENT" and "registration token" in message.lower():
        return Answer(delivery.UNREGISTERED, status, reason)
    if status == 429 or status >= 500:
        return Answer(delivery.FAILED, status, reason, retry=True,
                      retry_after=delivery.retry_after(response.headers.get("retry-after")))
    return Answer(delivery.DROPPED, status, reason)
