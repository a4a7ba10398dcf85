"""What the account service's use cases share: the values they answer, the ports of the
match and social services, the retry of a transaction that lost a race, and the checks every call with
an access token makes (its session live, the account not banned).

Every use case runs in one store transaction and either does all it says or nothing (a
refused call changes nothing), except where a refusal must leave a mark (a reused refresh
token revokes its session; a name refused as taken counts against the day's tries), and
then that mark is committed before the caller hears the refusal. A transaction that loses
a race (two sign-ups taking one name, a deletion and a link at once) is rolled back and run
again, which then sees the winner's rows; time comes from the injected clock.

Whoever calls with an access token is believed only while the token's session is live: a
token outlives its session by up to 15 minutes, and a session that ended (signed out,
revoked for a reused refresh token, its device removed, the account deleted) must stop
controlling the account at once (docs/security.md, "Accounts").
"""

from __future__ import annotations

import functools
import logging
import time
from dataclasses import dataclass
from typing import Any, Callable, Protocol, TypeVar

from tenacity import Retrying, retry_if_exception_type, stop_after_attempt, wait_random

from services.common.auth import Identity, KeyRing
from services.common.sql import Conflict

from . import notices
from .errors import Banned, Busy, NotSignedIn, Refused, UnknownAccount
from services.common.oidc import IdTokenVerifier
from .store import AccountRow, AccountStore, IdentityRow, SessionRow

log = logging.getLogger("domino.accounts")
DAY = 86400.0
FRESH_SIGN_IN_SECONDS = 300.0  # changing the ways in, deleting: the session's sign-in is at most this old
MAX_NAME_LOOKUPS = 100
ATTEMPTS = 4  # a transaction that loses a race is run again this many times in all
F = TypeVar("F", bound=Callable[..., Any])


def retried_on_conflict(use_case: F) -> F:
    """Runs ``use_case`` again when its transaction lost a race; after ``ATTEMPTS``, Busy."""
    @functools.wraps(use_case)
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            for attempt in Retrying(retry=retry_if_exception_type(Conflict), stop=stop_after_attempt(ATTEMPTS),
                                    wait=wait_random(0.005, 0.05), reraise=True):
                with attempt:
                    return use_case(*args, **kwargs)
        except Conflict as lost:
            log.warning("an account transaction kept losing races", extra={"use_case": use_case.__name__,
                                                                          "conflict": lost.kind})
            raise Busy("too many changes to this account at once; try again") from None
        raise AssertionError("unreachable")  # pragma: no cover
    return run  # type: ignore[return-value]


@dataclass(frozen=True)
class VerifiedToken:
    """An ID token that passed every check, and what signing in with it needs."""
    identity: IdentityRow
    token_hash: str  # ID tokens are single-use: this marks it used
    usable_until: float


@dataclass(frozen=True)
class Tokens:
    account_id: str
    access_token: str
    refresh_token: str
    access_expires_at: float
    refresh_expires_at: float
    display_name: str


@dataclass(frozen=True)
class DeviceView:
    device_id: str
    created_at: float
    last_used_at: float
    this_device: bool  # the device the calling session signed in with


@dataclass(frozen=True)
class AccountView:
    account_id: str
    display_name: str
    created_at: float
    identities: tuple[tuple[str, float], ...]  # (provider, linked at)
    device_list: tuple[DeviceView, ...] = ()

    @property
    def devices(self) -> int:
        return len(self.device_list)

    @property
    def guest(self) -> bool:
        return not self.identities


@dataclass(frozen=True)
class Standing:
    state: str  # "active", "unknown", "banned", "deleted"
    reason: str = ""
    until: float | None = None


class History(Protocol):
    """The match service's side of an account: its matches, and erasing them."""

    def forget(self, account_id: str) -> None: ...

    def matches(self, account_id: str) -> list[dict[str, Any]]: ...


class Social(Protocol):
    """The social service's side of an account: its friend code, friends, requests and
    blocks, erasing them, and its inbox's notices (a ban, a sign-in)."""

    def forget(self, account_id: str) -> None: ...

    def data(self, account_id: str) -> dict[str, Any]: ...

    def post(self, batch: list[notices.Notice]) -> None: ...


class Observer(Protocol):
    def signed_in(self, method: str, outcome: str) -> None: ...

    def refreshed(self, outcome: str) -> None: ...

    def deleted(self) -> None: ...


class _Quiet:
    def signed_in(self, method: str, outcome: str) -> None:
        pass

    def refreshed(self, outcome: str) -> None:
        pass

    def deleted(self) -> None:
        pass


class UseCases:
    """The state and checks the use cases of every part share (composed in application.py)."""

    def __init__(self, store: AccountStore, keys: KeyRing, verifier: IdTokenVerifier | None = None, history: History | None = None,
                 clock: Callable[[], float] = time.time, access_seconds: int = 900, refresh_days: float = 30.0,
                 name_changes_per_day: int = 3, observer: Observer | None = None, names_taken_per_day: int = 10,
                 social: Social | None = None) -> None:
        self.store = store
        self.keys = keys
        self.verifier = verifier  # None: device sign-in only
        self.history = history
        self.social = social  # None: no social service configured, nothing of it to export or erase
        self.clock = clock
        self.access_seconds = access_seconds
        self.refresh_seconds = refresh_days * DAY
        self.name_changes_per_day = name_changes_per_day
        self.names_taken_per_day = names_taken_per_day
        self.observer = observer or _Quiet()

    def post_notices(self, only: list[str] | None = None) -> int:
        """Hands the pending inbox notices (``only`` those, just written; else the oldest
        batch: the retry pass) to the social service; how many are still pending. Without a
        social service (`domino admin`, which leaves them to the service; a service that has
        none configured, whose pass drops them: no inbox exists to tell) nothing is posted."""
        if only is not None and (not only or self.social is None):
            return self.pending_notices()
        if self.social is None:
            with self.store.transaction() as execute:
                dropped = [n.notification_id for n in self.store.notices.due(execute)]
                self.store.notices.posted(execute, dropped)
            if dropped:
                log.warning("account notices dropped: no social service is configured", extra={"notices": len(dropped)})
            return self.pending_notices()
        return notices.post_pending(self.store, self.social, only)

    def pending_notices(self) -> int:
        with self.store.transaction() as execute:
            return self.store.notices.count(execute)

    def _live(self, execute, who: Identity, lock: str = "") -> tuple[AccountRow, SessionRow]:
        """The caller's account and session, while the session is live: an access token is
        worth nothing here once its session ended, however long it has left."""
        if not who.session:
            raise NotSignedIn("this access token belongs to no session: sign in again", "ended")
        account = self.store.account(execute, who.subject, lock=lock)
        if account is None:
            raise UnknownAccount("this account no longer exists: sign in again")
        session = self.store.session(execute, who.session)
        if session is None or session.account_id != who.subject or session.revoked_at is not None:
            raise NotSignedIn("this session has ended: sign in again", "ended")
        return account, session

    def _not_banned(self, execute, credential_keys: list[str], now: float) -> None:
        found = self.store.ban_on(execute, credential_keys, now)
        if found is not None:
            raise Banned(found[0], found[1])

    @staticmethod
    def _not_banned_account(account: AccountRow, now: float) -> None:
        if account.banned_at(now):
            assert account.banned_until is not None
            raise Banned(account.ban_reason or "no reason given", account.banned_until)

    def _active(self, execute, account_id: str, now: float, lock: str = "") -> AccountRow:
        account = self._existing(execute, account_id, lock)
        self._not_banned_account(account, now)
        return account

    def _existing(self, execute, account_id: str, lock: str = "") -> AccountRow:
        account = self.store.account(execute, account_id, lock=lock)
        if account is None:
            raise UnknownAccount("this account no longer exists: sign in again")
        return account

    def _view(self, execute, account: AccountRow, session: SessionRow | None = None) -> AccountView:
        identities = self.store.identities(execute, account.account_id)
        here = session.device_id if session is not None else None
        return AccountView(account.account_id, account.display_name, account.created_at,
                           tuple((i.provider, i.linked_at) for i in identities),
                           tuple(DeviceView(d, c, u, d == here) for d, c, u in self.store.devices(execute,
                                                                                           account.account_id)))

    def _changing_ways_in(self, execute, account: AccountRow, session: SessionRow, now: float, what: str,
                          guests_too: bool = False) -> None:
        """An account with an identity is changed only from a sign-in with one of its
        identities in the last five minutes; a guest's device session may link (that is how
        a guest keeps the account), and deletes after a fresh sign-in (``guests_too``)."""
        if self.store.identities(execute, account.account_id):
            if session.method != "id_token" or now - session.signed_in_at > FRESH_SIGN_IN_SECONDS:
                raise Refused(f"{what} needs a sign-in with one of this account's identities (Apple, Google...) "
                              f"in the last five minutes: sign in with it again first")
        elif guests_too and now - session.signed_in_at > FRESH_SIGN_IN_SECONDS:
            raise Refused(f"{what} needs a sign-in from the last five minutes: sign in again first")

    def _use_once(self, execute, token: VerifiedToken, now: float) -> None:
        if not self.store.use_id_token(execute, token.token_hash, token.usable_until):
            raise NotSignedIn("this ID token was used already: get a new one from the provider and sign in again", "used")
