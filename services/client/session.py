"""Tokens that renew themselves, so a player is never asked to sign in during a match.

``Session`` holds the account service's session: the access token sent with every call and
the single-use refresh token (kept in memory only). It renews the access token a little
before it expires, or when a server refused it as expired (the two clocks may disagree),
and signs in again with the device pair when the refresh token is refused (retired,
revoked, or too old). It is a ``TokenSource`` (api.py): the stubs ask it for the token of
each call, from the menu's thread and the streams' threads alike, so renewing is locked:
the refresh token rotates, and presenting a retired one would end the session.

``LocalTokens`` does the same for the developer's ``--player``: tokens minted with the
local keys, minted again before they expire (15 minutes at most)."""

from __future__ import annotations

import threading
import time
from typing import Callable, Protocol

import grpc
import jwt

from domino.account.v1 import account_service_pb2 as acc

from .api import ApiError
from .device import Device
from services.common.error_details import Details

#: Renew this long before the access token expires, at most: a fifth of its life for the
#: short ones a test configures, so a 3-second token is not renewed on every call.
EARLY_SECONDS = 60.0
EARLY_SHARE = 0.2
#: Display names the server refuses (taken, malformed), by ErrorInfo reason: asked again, with its message.
NAME_REFUSALS = ("NAME_TAKEN", "INVALID_REQUEST")
#: A refresh token the server no longer takes (retired, revoked, too old, its session ended):
#: the device pair signs in again.
REFRESH_REFUSALS = ("REFRESH_TOKEN_INVALID", "REFRESH_TOKEN_REUSED", "SESSION_ENDED")


class AccountCalls(Protocol):
    """The account service's sign-in calls as a Session uses them (account_api.AccountApi)."""

    def sign_in_with_device(self, device_id: str, device_secret: str,
                            display_name: str = "") -> acc.SignInWithDeviceResponse: ...

    def refresh(self, refresh_token: str) -> acc.RefreshSessionResponse: ...


def lifetime(token: str, expires_at: float, now: float) -> float:
    """Seconds the access token lives from now. Its own ``exp - iat`` when it is a readable
    JWT: both are the server's clock, so a client whose clock is off still renews in time."""
    try:
        claims = jwt.decode(token, options={"verify_signature": False})
        return float(claims["exp"]) - float(claims["iat"])
    except (jwt.PyJWTError, KeyError, TypeError, ValueError):
        return expires_at - now


def renew_at(received: float, life: float) -> float:
    return received + life - min(EARLY_SECONDS, EARLY_SHARE * life)


class Session:
    def __init__(self, accounts: AccountCalls, device: Device, clock: Callable[[], float] = time.time) -> None:
        self.accounts = accounts
        self.device = device
        self.clock = clock
        self.current: acc.Session | None = None
        self.renew_at = 0.0
        self.expires_at = 0.0  # by this client's clock
        self.closed = ""  # signed out or deleted: why no more tokens are given
        self.refreshes = 0
        self.sign_ins = 0
        self._lock = threading.RLock()

    @property
    def player_id(self) -> str:
        return self.current.player_id if self.current is not None else self.device.player_id

    @property
    def display_name(self) -> str:
        return self.current.display_name if self.current is not None else ""

    def renamed(self, display_name: str) -> None:
        with self._lock:
            if self.current is not None:
                self.current.display_name = display_name

    def sign_in(self, display_name: str = "") -> bool:
        """SignInWithDevice: the first time it creates the account (named ``display_name``,
        or by the server when empty); True when it did. A fresh sign-in also satisfies the
        calls that need a recent one (DeleteAccount)."""
        with self._lock:
            response = self.accounts.sign_in_with_device(self.device.device_id, self.device.device_secret,
                                                         display_name)
            self.sign_ins += 1
            self._take(response.session)
            self.device.remember(response.session.player_id)
            return response.created

    def __call__(self, stale: str | None = None) -> str:
        """The access token to send now: renewed when it is about to expire, or when it is
        ``stale`` (a server just refused it as expired). ApiError when none can be had."""
        with self._lock:
            if self.closed:
                raise ApiError(grpc.StatusCode.UNAUTHENTICATED, self.closed, details=Details("SESSION_ENDED"))
            if self.current is None:
                self.sign_in()
            elif (stale is not None and stale == self.current.access_token) or self.clock() >= self.renew_at:
                self._renew(forced=stale is not None)
            assert self.current is not None
            return self.current.access_token

    def close(self, why: str) -> None:
        with self._lock:
            self.closed = why
            self.current = None

    def _renew(self, forced: bool) -> None:
        assert self.current is not None
        try:
            response = self.accounts.refresh(self.current.refresh_token)
        except ApiError as e:
            if e.reason in REFRESH_REFUSALS:
                self.sign_in()  # retired, revoked or too old: the device pair is always there
                return
            if not forced and self.clock() < self.expires_at:
                return  # not expired yet: keep using it, try again on the next call
            raise
        self.refreshes += 1
        self._take(response.session)

    def _take(self, session: acc.Session) -> None:
        now = self.clock()
        life = lifetime(session.access_token, session.access_expires_at.seconds, now)
        if not session.display_name and self.current is not None:
            session.display_name = self.current.display_name  # a refresh that does not repeat it
        self.current = session
        self.expires_at = now + life
        self.renew_at = renew_at(now, life)


class LocalTokens:
    """``--player``: tokens minted with the local run's player key (services/common/auth.py),
    minted again before the 15 minutes a player token may live run out."""

    def __init__(self, mint: Callable[[], str], clock: Callable[[], float] = time.time) -> None:
        self.mint = mint
        self.clock = clock
        self._lock = threading.Lock()
        self.token = ""
        self.renew_at = 0.0

    def __call__(self, stale: str | None = None) -> str:
        with self._lock:
            if not self.token or stale == self.token or self.clock() >= self.renew_at:
                now = self.clock()
                self.token = self.mint()
                self.renew_at = renew_at(now, lifetime(self.token, now, now))
            return self.token


def first_sign_in(session: Session, name: str, ask: Callable[[str], str] | None) -> bool:
    """The first sign-in of a new device, which creates the account named ``name`` (asked
    with ``ask("")`` when none was given). A name the server refuses (taken, malformed) is
    asked again with ``ask(the server's message)``; without ``ask`` (a script) the server
    makes one up when none was given, and a refusal stands. True when the account was created."""
    if not name and ask is not None:
        name = ask("")
    while True:
        try:
            return session.sign_in(name)
        except ApiError as e:
            if e.reason not in NAME_REFUSALS or ask is None:
                raise
            name = ask(e.message or str(e))
