"""The account service's use cases: sign in, refresh, sign out, link, name, delete.

Every use case runs in one store transaction and either does all it says or nothing
(a refused call changes nothing), except two that must leave a mark when they refuse: a
retired refresh token coming back revokes its session, and that revocation is committed
before the caller hears UNAUTHENTICATED. Time comes from the injected clock.
"""

from __future__ import annotations

import logging
import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Protocol

from services.common.auth import Identity, KeyRing, mint_token

from . import credentials, names
from .errors import (
    Banned, InvalidRequest, NotSignedIn, Refused, RefreshReused, Taken, Unavailable, UnknownAccount,
)
from .oidc import IdTokenRefused, IdTokenVerifier, KeysUnavailable, UnknownProvider
from .store import AccountRow, AccountStore, IdentityRow

log = logging.getLogger("domino.accounts")
DAY = 86400.0
FRESH_SIGN_IN_SECONDS = 300.0  # DeleteAccount: the session's sign-in is at most this old
MAX_NAME_LOOKUPS = 100


@dataclass(frozen=True)
class Tokens:
    account_id: str
    access_token: str
    refresh_token: str
    access_expires_at: float
    refresh_expires_at: float
    display_name: str


@dataclass(frozen=True)
class AccountView:
    account_id: str
    display_name: str
    created_at: float
    identities: tuple[tuple[str, float], ...]  # (provider, linked at)
    devices: int

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


class AccountApplication:
    def __init__(self, store: AccountStore, keys: KeyRing, verifier: IdTokenVerifier | None = None, history: History | None = None,
                 clock: Callable[[], float] = time.time, access_seconds: int = 900, refresh_days: float = 30.0,
                 name_changes_per_day: int = 3, observer: Observer | None = None) -> None:
        self.store = store
        self.keys = keys
        self.verifier = verifier  # None: device sign-in only
        self.history = history
        self.clock = clock
        self.access_seconds = access_seconds
        self.refresh_seconds = refresh_days * DAY
        self.name_changes_per_day = name_changes_per_day
        self.observer = observer or _Quiet()

    # ---- signing in ---------------------------------------------------------------------

    def sign_in_with_device(self, device_id: str, device_secret: str, display_name: str) -> tuple[Tokens, bool]:
        """(a session, whether the account is new). A known device id with another secret is
        refused and changes nothing."""
        with self._counted("device"):
            device = credentials.device_id_of(device_id)
            secret_hash = credentials.hashed(credentials.device_secret_of(device_secret))
            wanted = names.checked(display_name) if display_name else None
            now = self.clock()
            with self.store.transaction() as execute:
                known = self.store.device(execute, device)
                if known is not None and not credentials.same(known[1], secret_hash):
                    raise NotSignedIn("this device id is registered with another secret")
                tokens, created = self._session(
                    execute, "device", known[0] if known else None, wanted, now,
                    lambda account_id: self.store.add_device(execute, device, account_id, secret_hash, now))
                if not created:
                    self.store.device_used(execute, device, now)
        return self._signed_in("device", tokens, created)

    def sign_in_with_id_token(self, provider: str, id_token: str, nonce: str,
                              display_name: str = "") -> tuple[Tokens, bool]:
        """The first sign-in with an identity creates an account; later ones find it."""
        with self._counted("id_token"):
            wanted = names.checked(display_name) if display_name else None
            identity = self._verified(provider, id_token, nonce)
            now = self.clock()
            with self.store.transaction() as execute:
                tokens, created = self._session(
                    execute, "id_token", self.store.identity_owner(execute, identity.issuer, identity.subject),
                    wanted, now, lambda account_id: self.store.add_identity(execute, identity, account_id))
        return self._signed_in("id_token", tokens, created, provider=provider)

    def refresh(self, refresh_token: str) -> Tokens:
        """Rotates: the presented token retires, a new one is answered. A retired token
        presented again revokes its session (committed before the refusal)."""
        token_hash = credentials.hashed(credentials.refresh_token_of(refresh_token))
        now = self.clock()
        reused: str | None = None
        try:
            with self.store.transaction() as execute:
                row = self.store.refresh(execute, token_hash)
                if row is None:
                    raise NotSignedIn("unknown refresh token: sign in again", "unknown")
                if row.revoked_at is not None:
                    raise NotSignedIn("this session has ended: sign in again", "revoked")
                if row.used_at is not None or not self.store.retire_refresh(execute, token_hash, now):
                    self.store.revoke_sessions(execute, now, "refresh token reused", session_id=row.session_id)
                    reused = row.account_id
                else:
                    if row.expires_at <= now:
                        raise NotSignedIn("the refresh token has expired: sign in again", "expired")
                    account = self._active(execute, row.account_id, now)
                    tokens = self._tokens(execute, account, row.session_id, row.signed_in_at, now)
        except (NotSignedIn, Banned) as refused:
            self.observer.refreshed("banned" if isinstance(refused, Banned) else refused.outcome)
            raise
        if reused is not None:
            self.observer.refreshed("reused")
            log.warning("a retired refresh token was presented again: its session is revoked",
                        extra={"account": reused})
            raise RefreshReused("this refresh token was already used; the session is ended for safety: sign in again",
                                "reused")
        self.observer.refreshed("rotated")
        return tokens

    def sign_out(self, who: Identity) -> None:
        if not who.session:
            raise InvalidRequest("this access token belongs to no session (sign out with a token from a sign-in)")
        with self.store.transaction() as execute:
            self.store.revoke_sessions(execute, self.clock(), "signed out", session_id=who.session)

    def sign_out_everywhere(self, who: Identity) -> int:
        with self.store.transaction() as execute:
            return self.store.revoke_sessions(execute, self.clock(), "signed out everywhere", account_id=who.subject)

    # ---- the account --------------------------------------------------------------------

    def account(self, who: Identity) -> AccountView:
        with self.store.transaction() as execute:
            return self._view(execute, self._existing(execute, who.subject))

    def set_display_name(self, who: Identity, display_name: str) -> AccountView:
        shown, key = names.checked(display_name)
        now = self.clock()
        with self.store.transaction() as execute:
            account = self._existing(execute, who.subject)
            recent = [at for at in account.name_changes if at > now - DAY]
            if account.display_name == shown:
                return self._view(execute, account)
            if len(recent) >= self.name_changes_per_day:
                raise Refused(f"a display name can change {self.name_changes_per_day} times a day; "
                              f"try again in {int((min(recent) + DAY - now) // 60) + 1} minutes")
            owner = self.store.name_owner(execute, key)
            if owner is not None and owner != account.account_id:
                raise Taken("that display name is taken")
            self.store.rename(execute, account.account_id, shown, key, recent + [now])
            return self._view(execute, self._existing(execute, who.subject))

    def display_names(self, account_ids: list[str]) -> dict[str, str]:
        if len(account_ids) > MAX_NAME_LOOKUPS:
            raise InvalidRequest(f"at most {MAX_NAME_LOOKUPS} account_ids a call")
        if any(not 0 < len(a) <= 200 for a in account_ids):
            raise InvalidRequest("account_ids must be 1 to 200 characters each")
        with self.store.transaction() as execute:
            return self.store.names(execute, sorted(set(account_ids)))

    def link(self, who: Identity, provider: str, id_token: str, nonce: str) -> AccountView:
        """No silent merge: an identity another account holds is refused."""
        identity = self._verified(provider, id_token, nonce)
        with self.store.transaction() as execute:
            account = self._existing(execute, who.subject)
            owner = self.store.identity_owner(execute, identity.issuer, identity.subject)
            if owner == account.account_id:
                return self._view(execute, account)
            if owner is not None:
                raise Taken(f"this {provider} identity is linked to another account; sign in with it there, "
                            f"or unlink it from that account first")
            if any(i.provider == identity.provider for i in self.store.identities(execute, account.account_id)):
                raise Refused(f"this account has a {provider} identity already; unlink it first")
            self.store.add_identity(execute, identity, account.account_id)
            return self._view(execute, account)

    def unlink(self, who: Identity, provider: str) -> AccountView:
        if not provider:
            raise InvalidRequest("provider is required")
        with self.store.transaction() as execute:
            account = self._existing(execute, who.subject)
            view = self._view(execute, account)
            if provider not in {p for p, _ in view.identities}:
                raise Refused(f"no {provider[:40]} identity is linked to this account")
            if len(view.identities) + view.devices <= 1:
                raise Refused("this is the last way into the account: link another identity first")
            self.store.remove_identity(execute, account.account_id, provider)
            return self._view(execute, account)

    # ---- the right to be forgotten ------------------------------------------------------

    def delete(self, who: Identity) -> float:
        """Erases the account's personal data now, then its history in the match service
        (now if it answers, else by ``erase_pending`` later: the deletion is recorded)."""
        now = self.clock()
        if now - who.signed_in_at > FRESH_SIGN_IN_SECONDS:
            raise Refused("deleting an account needs a sign-in from the last five minutes: sign in again first")
        with self.store.transaction() as execute:
            self._existing(execute, who.subject)
            self.store.erase(execute, who.subject, now)
        self.store.scrub()
        self.observer.deleted()
        log.info("account deleted", extra={"account": who.subject})
        self.erase_pending(only=who.subject)
        return now

    def erase_pending(self, only: str | None = None) -> int:
        """Asks the match service to erase the history of deleted accounts it has not yet
        confirmed; how many are still pending."""
        with self.store.transaction() as execute:
            pending = [only] if only else self.store.unerased(execute)
        left = 0
        for account_id in pending:
            try:
                if self.history is None:
                    raise RuntimeError("no match service is configured")
                self.history.forget(account_id)
            except Exception as error:  # noqa: BLE001 - kept pending and retried; counted by the caller
                log.warning("erasing a deleted account's history failed; will retry",
                            extra={"account": account_id, "error": str(error)[:200]})
                left += 1
                continue
            with self.store.transaction() as execute:
                self.store.erased(execute, account_id, self.clock())
        return left

    def pending_erasures(self) -> int:
        with self.store.transaction() as execute:
            return self.store.count_unerased(execute)

    def export(self, who: Identity) -> dict[str, Any]:
        with self.store.transaction() as execute:
            account = self._existing(execute, who.subject)
            identities = self.store.identities(execute, account.account_id)
            devices = self.store.devices(execute, account.account_id)
        matches = self.history.matches(account.account_id) if self.history is not None else []
        return {
            "format": "domino-account-export/1",
            "account": {"account_id": account.account_id, "display_name": account.display_name,
                        "created_at": account.created_at, "display_name_changes": list(account.name_changes)},
            "identities": [{"provider": i.provider, "issuer": i.issuer, "subject": i.subject,
                            "linked_at": i.linked_at} for i in identities],
            "devices": [{"device_id": d, "created_at": c, "last_used_at": u} for d, c, u in devices],
            "matches": matches,
        }

    # ---- operators and matchmaking ------------------------------------------------------

    def standing(self, account_id: str) -> Standing:
        with self.store.transaction() as execute:
            account = self.store.account(execute, account_id)
            if account is None:
                return Standing("deleted" if self.store.deleted(execute, account_id) else "unknown")
        if account.banned_at(self.clock()):
            return Standing("banned", account.ban_reason or "", account.banned_until)
        return Standing("active")

    def ban(self, account_id: str, until: float, reason: str) -> None:
        """Refresh and matchmaking refuse the account at once; its access tokens die within
        their lifetime (15 minutes at most)."""
        if not reason.strip() or len(reason) > 200:
            raise InvalidRequest("a ban needs a reason of 1 to 200 characters")
        if until <= self.clock():
            raise InvalidRequest("a ban's end must be in the future")
        with self.store.transaction() as execute:
            if not self.store.ban(execute, account_id, until, reason.strip()):
                raise UnknownAccount(f"no account {account_id[:64]}")
        log.info("account banned", extra={"account": account_id, "until": until})

    def unban(self, account_id: str) -> None:
        with self.store.transaction() as execute:
            if not self.store.ban(execute, account_id, None, None):
                raise UnknownAccount(f"no account {account_id[:64]}")
        log.info("account unbanned", extra={"account": account_id})

    # ---- inside ---------------------------------------------------------------------------

    def _verified(self, provider: str, id_token: str, nonce: str) -> IdentityRow:
        if not provider:
            raise InvalidRequest("provider is required")
        if not id_token:
            raise InvalidRequest("id_token is required")
        if self.verifier is None:
            raise InvalidRequest("this server signs in by device only: no OpenID Connect issuer is configured")
        try:
            found = self.verifier.verify(provider, id_token, nonce)
        except UnknownProvider as error:
            raise InvalidRequest(str(error)) from None
        except KeysUnavailable as error:
            raise Unavailable(str(error)) from None
        except IdTokenRefused as error:
            raise NotSignedIn(f"the ID token is refused: {error}") from None
        return IdentityRow(found.provider, found.issuer, found.subject, self.clock())

    @contextmanager
    def _counted(self, method: str) -> Iterator[None]:
        """A refused sign-in counts in the metrics with why, then propagates."""
        try:
            yield
        except (NotSignedIn, Banned, InvalidRequest, Taken) as refused:
            self.observer.signed_in(method, _outcome(refused))
            raise

    def _session(self, execute, method: str, account_id: str | None, wanted: tuple[str, str] | None, now: float,
                 attach: Callable[[str], None]) -> tuple[Tokens, bool]:
        """A new session of the account the credential leads to, or of a new account the
        credential is then ``attach``ed to; (tokens, whether the account is new)."""
        if account_id is not None:
            return self._new_session(execute, self._active(execute, account_id, now), method, now), False
        account = self._new_account(execute, wanted, now)
        attach(account.account_id)
        return self._new_session(execute, account, method, now), True

    def _signed_in(self, method: str, tokens: Tokens, created: bool, **more: str) -> tuple[Tokens, bool]:
        self.observer.signed_in(method, "created" if created else "signed_in")
        log.info("signed in", extra={"account": tokens.account_id, "method": method, "new_account": created, **more})
        return tokens, created

    def _new_account(self, execute, wanted: tuple[str, str] | None, now: float) -> AccountRow:
        if wanted is None:
            for _ in range(5):
                wanted = names.checked(names.made_up())
                if self.store.name_owner(execute, wanted[1]) is None:
                    break
        assert wanted is not None
        if self.store.name_owner(execute, wanted[1]) is not None:
            raise Taken("that display name is taken")
        account_id = credentials.new_id()
        self.store.add_account(execute, account_id, wanted[0], wanted[1], now)
        return AccountRow(account_id, wanted[0], now, (), None, None)

    def _active(self, execute, account_id: str, now: float) -> AccountRow:
        account = self._existing(execute, account_id)
        if account.banned_at(now):
            assert account.banned_until is not None
            raise Banned(account.ban_reason or "no reason given", account.banned_until)
        return account

    def _existing(self, execute, account_id: str) -> AccountRow:
        account = self.store.account(execute, account_id)
        if account is None:
            raise UnknownAccount("this account no longer exists: sign in again")
        return account

    def _new_session(self, execute, account: AccountRow, method: str, now: float) -> Tokens:
        session_id = credentials.new_id()
        self.store.add_session(execute, session_id, account.account_id, method, now)
        return self._tokens(execute, account, session_id, now, now)

    def _tokens(self, execute, account: AccountRow, session_id: str, signed_in_at: float, now: float) -> Tokens:
        refresh = credentials.new_refresh_token()
        self.store.add_refresh(execute, credentials.hashed(refresh), session_id, account.account_id, now,
                               now + self.refresh_seconds)
        access = mint_token(account.account_id, self.keys, "player", self.access_seconds, now=now,
                            session=session_id, signed_in_at=signed_in_at)
        return Tokens(account.account_id, access, refresh, float(int(now) + self.access_seconds),
                      now + self.refresh_seconds, account.display_name)

    def _view(self, execute, account: AccountRow) -> AccountView:
        identities = self.store.identities(execute, account.account_id)
        return AccountView(account.account_id, account.display_name, account.created_at,
                           tuple((i.provider, i.linked_at) for i in identities),
                           len(self.store.devices(execute, account.account_id)))


def _outcome(refused: Exception) -> str:
    if isinstance(refused, Banned):
        return "banned"
    if isinstance(refused, NotSignedIn):
        return "refused"
    return "invalid"

