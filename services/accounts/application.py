"""The account service's use cases: sign in, refresh, sign out, link, name, delete.

Every use case runs in one store transaction and either does all it says or nothing
(a refused call changes nothing), except one that must leave a mark when it refuses: a
retired refresh token coming back revokes its session, and that revocation is committed
before the caller hears UNAUTHENTICATED. A transaction that loses a race (two sign-ups
taking one name, a deletion and a link at once) is rolled back and run again, which then
sees the winner's rows; time comes from the injected clock.

Whoever calls with an access token is believed only while the token's session is live: a
token outlives its session by up to 15 minutes, and a session that ended (signed out,
revoked for a reused refresh token, its device removed, the account deleted) must stop
controlling the account at once. Changing the ways into an account (linking, unlinking,
removing devices, deleting it) needs a recent sign-in, and with one of the account's
identities where it has any: a stolen device pair is then enough to play, never to lock
the owner out (docs/security.md, "Accounts").
"""

from __future__ import annotations

import functools
import logging
import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Protocol, TypeVar

from tenacity import Retrying, retry_if_exception_type, stop_after_attempt, wait_random

from services.common.auth import Identity, KeyRing, mint_token
from services.common.sql import Conflict

from . import credentials, names
from .errors import (
    Banned, Busy, InvalidRequest, NotSignedIn, Refused, RefreshReused, Taken, Unavailable, UnknownAccount,
)
from .oidc import IdTokenRefused, IdTokenVerifier, KeysUnavailable, UnknownProvider
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
                 name_changes_per_day: int = 3, observer: Observer | None = None, names_taken_per_day: int = 10) -> None:
        self.store = store
        self.keys = keys
        self.verifier = verifier  # None: device sign-in only
        self.history = history
        self.clock = clock
        self.access_seconds = access_seconds
        self.refresh_seconds = refresh_days * DAY
        self.name_changes_per_day = name_changes_per_day
        self.names_taken_per_day = names_taken_per_day
        self.observer = observer or _Quiet()

    # ---- signing in ---------------------------------------------------------------------

    @retried_on_conflict
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
                self._not_banned(execute, [credentials.device_key(device)], now)
                tokens, created = self._session(
                    execute, "device", known[0] if known else None, wanted, now,
                    lambda account_id: self.store.add_device(execute, device, account_id, secret_hash, now),
                    device_id=device)
                if not created:
                    self.store.device_used(execute, device, now)
        return self._signed_in("device", tokens, created)

    def verified(self, provider: str, id_token: str, nonce: str) -> VerifiedToken:
        """Checks an ID token (it may fetch the issuer's keys: the adapter runs this on the
        verifier's own threads, so a slow issuer holds up nothing else)."""
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
        return VerifiedToken(IdentityRow(found.provider, found.issuer, found.subject, self.clock()),
                             credentials.hashed(id_token), found.usable_until)

    def sign_in_with_id_token(self, provider: str, id_token: str, nonce: str,
                              display_name: str = "") -> tuple[Tokens, bool]:
        """The first sign-in with an identity creates an account; later ones find it."""
        with self._counted("id_token"):
            wanted = names.checked(display_name) if display_name else None
            token = self.verified(provider, id_token, nonce)
        return self.sign_in_with_identity(token, wanted)

    @retried_on_conflict
    def sign_in_with_identity(self, token: VerifiedToken, wanted: tuple[str, str] | None = None) -> tuple[Tokens, bool]:
        identity = token.identity
        with self._counted("id_token"):
            now = self.clock()
            with self.store.transaction() as execute:
                self._use_once(execute, token, now)
                self._not_banned(execute, [credentials.identity_key(identity.issuer, identity.subject)], now)
                owner = self.store.identity_owner(execute, identity.issuer, identity.subject)
                if owner is not None and self.store.account(execute, owner) is None:
                    # left by a deletion that raced a link before accounts were locked: let it go
                    self.store.remove_identity_row(execute, identity.issuer, identity.subject)
                    owner = None
                tokens, created = self._session(
                    execute, "id_token", owner, wanted, now,
                    lambda account_id: self.store.add_identity(execute, identity, account_id))
        return self._signed_in("id_token", tokens, created, provider=identity.provider)

    @retried_on_conflict
    def refresh(self, refresh_token: str) -> Tokens:
        """Rotates: the presented token retires, a new one is answered. A retired token
        presented again revokes its session (committed before the refusal)."""
        token_hash = credentials.hashed(credentials.refresh_token_of(refresh_token))
        now = self.clock()
        reused: str | None = None
        try:
            with self.store.transaction() as execute:
                row = self.store.refresh(execute, token_hash)
                if row is not None and self.store.postgres:
                    # The account, then the session, as every transaction here locks them: one
                    # refresh of a session at a time, and never a deadlock with a deletion.
                    self.store.account(execute, row.account_id, lock="share")
                    self.store.session(execute, row.session_id, lock="update")
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

    @retried_on_conflict
    def sign_out(self, who: Identity) -> None:
        """Ends the caller's session; a session that already ended is signed out already."""
        if not who.session:
            raise InvalidRequest("this access token belongs to no session (sign out with a token from a sign-in)")
        with self.store.transaction() as execute:
            self.store.revoke_sessions(execute, self.clock(), "signed out", session_id=who.session)

    @retried_on_conflict
    def sign_out_everywhere(self, who: Identity, remove_other_devices: bool = False) -> tuple[int, int]:
        """(sessions ended, devices removed). Removing the other devices cuts off a copied
        device pair: it changes the ways in, so it needs what unlinking needs."""
        now = self.clock()
        with self.store.transaction() as execute:
            account, session = self._live(execute, who, lock="share")
            removed = 0
            if remove_other_devices:
                self._changing_ways_in(execute, account, session, now, "removing devices")
                removed = self.store.remove_devices_except(execute, account.account_id, session.device_id)
            ended = self.store.revoke_sessions(execute, now, "signed out everywhere", account_id=who.subject)
            return ended, removed

    # ---- the account --------------------------------------------------------------------

    @retried_on_conflict
    def account(self, who: Identity) -> AccountView:
        with self.store.transaction() as execute:
            account, session = self._live(execute, who)
            return self._view(execute, account, session)

    @retried_on_conflict
    def set_display_name(self, who: Identity, display_name: str) -> AccountView:
        """A name another account holds is refused, and that answer is counted
        (``names_taken_per_day``) and committed though the call fails, so "taken" cannot be
        used to probe which names exist."""
        shown, key = names.checked(display_name)
        now = self.clock()
        with self.store.transaction() as execute:
            account, session = self._live(execute, who, lock="update")
            self._not_banned_account(account, now)
            if account.display_name == shown:
                return self._view(execute, account, session)
            recent = [at for at in account.name_changes if at > now - DAY]
            if len(recent) >= self.name_changes_per_day:
                raise Refused(f"a display name can change {self.name_changes_per_day} times a day; "
                              f"try again in {_minutes(min(recent) + DAY - now)} minutes")
            taken = [at for at in self.store.name_attempts(execute, account.account_id) if at > now - DAY]
            if len(taken) >= self.names_taken_per_day:
                raise Refused(f"too many names tried today; try again in {_minutes(min(taken) + DAY - now)} minutes")
            owner = self.store.name_owner(execute, key)
            if owner is None or owner == account.account_id:
                self.store.rename(execute, account.account_id, shown, key, recent + [now])
                return self._view(execute, self._existing(execute, who.subject), session)
            self.store.set_name_attempts(execute, account.account_id, taken + [now])
        raise Taken("that display name is taken")

    def display_names(self, account_ids: list[str], who: Identity | None = None) -> dict[str, str]:
        """``who``: a player's token is believed while its session is live, if it has one (a
        developer's locally minted token has none)."""
        if len(account_ids) > MAX_NAME_LOOKUPS:
            raise InvalidRequest(f"at most {MAX_NAME_LOOKUPS} account_ids a call")
        if any(not 0 < len(a) <= 200 for a in account_ids):
            raise InvalidRequest("account_ids must be 1 to 200 characters each")
        with self.store.transaction() as execute:
            if who is not None and who.role == "player" and who.session:
                self._live(execute, who)
            return self.store.names(execute, sorted(set(account_ids)))

    @retried_on_conflict
    def link(self, who: Identity, token: VerifiedToken) -> AccountView:
        """No silent merge: an identity another account holds is refused."""
        identity = token.identity
        now = self.clock()
        with self.store.transaction() as execute:
            account, session = self._live(execute, who, lock="share")
            self._not_banned_account(account, now)
            self._not_banned(execute, [credentials.identity_key(identity.issuer, identity.subject)], now)
            self._changing_ways_in(execute, account, session, now, "linking an identity")
            owner = self.store.identity_owner(execute, identity.issuer, identity.subject)
            if owner is not None and owner != account.account_id and self.store.account(execute, owner) is None:
                self.store.remove_identity_row(execute, identity.issuer, identity.subject)
                owner = None
            if owner == account.account_id:
                return self._view(execute, account, session)
            if owner is not None:
                raise Taken(f"this {identity.provider} identity is linked to another account; sign in with it "
                            f"there, or unlink it from that account first")
            if any(i.provider == identity.provider for i in self.store.identities(execute, account.account_id)):
                raise Refused(f"this account has a {identity.provider} identity already; unlink it first")
            self._use_once(execute, token, now)
            self.store.add_identity(execute, identity, account.account_id)
            return self._view(execute, account, session)

    @retried_on_conflict
    def unlink(self, who: Identity, provider: str) -> AccountView:
        if not provider:
            raise InvalidRequest("provider is required")
        now = self.clock()
        with self.store.transaction() as execute:
            account, session = self._live(execute, who, lock="share")
            self._not_banned_account(account, now)
            view = self._view(execute, account, session)
            if provider not in {p for p, _ in view.identities}:
                raise Refused(f"no {provider[:40]} identity is linked to this account")
            if len(view.identities) + view.devices <= 1:
                raise Refused("this is the last way into the account: link another identity first")
            self._changing_ways_in(execute, account, session, now, "unlinking an identity")
            self.store.remove_identity(execute, account.account_id, provider)
            return self._view(execute, account, session)

    @retried_on_conflict
    def remove_device(self, who: Identity, device_id: str) -> AccountView:
        """The device's sessions end and its pair no longer leads here."""
        device = credentials.device_id_of(device_id)
        now = self.clock()
        with self.store.transaction() as execute:
            account, session = self._live(execute, who, lock="share")
            self._not_banned_account(account, now)
            view = self._view(execute, account, session)
            if device not in {d.device_id for d in view.device_list}:
                raise Refused("no such device signs in to this account")
            if len(view.identities) + view.devices <= 1:
                raise Refused("this is the last way into the account: link an identity first")
            self._changing_ways_in(execute, account, session, now, "removing a device")
            self.store.remove_device(execute, account.account_id, device, now)
            return self._view(execute, account, session)

    @retried_on_conflict
    def rotate_device_secret(self, who: Identity, device_id: str, device_secret: str, new_secret: str) -> int:
        """The device proves its secret and takes a new one; every other session it signed in
        ends (a copy of the old pair signs in no more). How many ended."""
        device = credentials.device_id_of(device_id)
        old_hash = credentials.hashed(credentials.device_secret_of(device_secret))
        new_hash = credentials.hashed(credentials.device_secret_of(new_secret, field="new_device_secret"))
        now = self.clock()
        with self.store.transaction() as execute:
            account, session = self._live(execute, who, lock="share")
            self._not_banned_account(account, now)
            known = self.store.device(execute, device)
            if known is None or known[0] != account.account_id or not credentials.same(known[1], old_hash):
                raise NotSignedIn("this device id and secret do not sign in to this account")
            self.store.set_device_secret(execute, device, new_hash)
            return self.store.revoke_device_sessions(execute, account.account_id, device, now,
                                                     keep=session.session_id)

    # ---- the right to be forgotten ------------------------------------------------------

    @retried_on_conflict
    def delete(self, who: Identity) -> float:
        """Erases the account's personal data now, then its history in the match service
        (now if it answers, else by ``erase_pending`` later: the deletion is recorded). A
        running ban outlives it on the credentials it binds (store.erase)."""
        now = self.clock()
        with self.store.transaction() as execute:
            account, session = self._live(execute, who, lock="update")
            self._changing_ways_in(execute, account, session, now, "deleting an account", guests_too=True)
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

    def forget_what_expired(self) -> int:
        """Bans' hashes once the ban ended (they are kept for as long as it runs, no longer),
        and ID tokens too old to sign in again; how many rows went."""
        now = self.clock()
        with self.store.transaction() as execute:
            return self.store.forget_ended_bans(execute, now) + self.store.forget_used_id_tokens(execute, now)

    def pending_erasures(self) -> int:
        with self.store.transaction() as execute:
            return self.store.count_unerased(execute)

    def export(self, who: Identity) -> dict[str, Any]:
        with self.store.transaction() as execute:
            account, _ = self._live(execute, who)
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

    # ---- the store's own upkeep ---------------------------------------------------------

    @retried_on_conflict
    def rekey_names(self) -> int:
        """Brings every stored name key to the one `names.key_of` computes now (run at start,
        once per key version): where two names now have one key, the older account keeps its
        name and the newer gets a made-up one, which its player can change. How many keys
        changed."""
        with self.store.transaction() as execute:
            if self.store.fact(execute, "name_key_version") == names.KEY_VERSION:
                return 0
            rows = self.store.all_names(execute)
            for account_id, shown, _ in rows:  # out of every key's way first (a control character no
                self.store.set_name_key(execute, account_id, shown, "\x01" + account_id)  # name has)
            held: set[str] = set()
            changed = renamed = 0
            for account_id, shown, old_key in rows:
                key = names.key_of(shown)
                if key in held:
                    shown, key = self._unused_made_up_name(held)
                    renamed += 1
                held.add(key)
                changed += key != old_key
                self.store.set_name_key(execute, account_id, shown, key)
            self.store.set_fact(execute, "name_key_version", names.KEY_VERSION)
        if changed:
            log.info("display-name keys brought to the current version",
                     extra={"keys_changed": changed, "renamed": renamed, "version": names.KEY_VERSION})
        return changed

    @staticmethod
    def _unused_made_up_name(held: set[str]) -> tuple[str, str]:
        while True:
            shown = names.made_up()
            key = names.key_of(shown)
            if key not in held:
                return shown, key

    # ---- operators and matchmaking ------------------------------------------------------

    def standing(self, account_id: str) -> Standing:
        with self.store.transaction() as execute:
            account = self.store.account(execute, account_id)
            if account is None:
                return Standing("deleted" if self.store.deleted(execute, account_id) else "unknown")
        if account.banned_at(self.clock()):
            return Standing("banned", account.ban_reason or "", account.banned_until)
        return Standing("active")

    @retried_on_conflict
    def ban(self, account_id: str, until: float, reason: str) -> None:
        """Refresh, sign-ins with any of its identities or devices (into this account or a new
        one), account changes and matchmaking refuse the account at once; its access tokens
        die within their lifetime (15 minutes at most) elsewhere."""
        if not reason.strip() or len(reason) > 200:
            raise InvalidRequest("a ban needs a reason of 1 to 200 characters")
        if until <= self.clock():
            raise InvalidRequest("a ban's end must be in the future")
        with self.store.transaction() as execute:
            bound = [credentials.identity_key(i.issuer, i.subject) for i in self.store.identities(execute, account_id)]
            bound += [credentials.device_key(d) for d, _, _ in self.store.devices(execute, account_id)]
            if not self.store.ban(execute, account_id, until, reason.strip(), bound):
                raise UnknownAccount(f"no account {account_id[:64]}")
        log.info("account banned", extra={"account": account_id, "until": until})

    @retried_on_conflict
    def unban(self, account_id: str) -> None:
        with self.store.transaction() as execute:
            if not self.store.ban(execute, account_id, None, None):
                raise UnknownAccount(f"no account {account_id[:64]}")
        log.info("account unbanned", extra={"account": account_id})

    # ---- inside ---------------------------------------------------------------------------

    def _live(self, execute, who: Identity, lock: str = "") -> tuple[AccountRow, SessionRow]:
        """The caller's account and session, while the session is live: an access token is
        worth nothing here once its session ended, however long it has left."""
        if not who.session:
            raise NotSignedIn("this access token belongs to no session: sign in again", "no_session")
        account = self.store.account(execute, who.subject, lock=lock)
        if account is None:
            raise UnknownAccount("this account no longer exists: sign in again")
        session = self.store.session(execute, who.session)
        if session is None or session.account_id != who.subject or session.revoked_at is not None:
            raise NotSignedIn("this session has ended: sign in again", "revoked")
        return account, session

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

    def _not_banned(self, execute, credential_keys: list[str], now: float) -> None:
        found = self.store.ban_on(execute, credential_keys, now)
        if found is not None:
            raise Banned(found[0], found[1])

    @staticmethod
    def _not_banned_account(account: AccountRow, now: float) -> None:
        if account.banned_at(now):
            assert account.banned_until is not None
            raise Banned(account.ban_reason or "no reason given", account.banned_until)

    def _use_once(self, execute, token: VerifiedToken, now: float) -> None:
        if not self.store.use_id_token(execute, token.token_hash, token.usable_until):
            raise NotSignedIn("this ID token was used already: get a new one from the provider and sign in again")

    @contextmanager
    def _counted(self, method: str) -> Iterator[None]:
        """A refused sign-in counts in the metrics with why, then propagates."""
        try:
            yield
        except (NotSignedIn, Banned, InvalidRequest, Taken) as refused:
            self.observer.signed_in(method, _outcome(refused))
            raise

    def _session(self, execute, method: str, account_id: str | None, wanted: tuple[str, str] | None, now: float,
                 attach: Callable[[str], None], device_id: str | None = None) -> tuple[Tokens, bool]:
        """A new session of the account the credential leads to, or of a new account the
        credential is then ``attach``ed to; (tokens, whether the account is new)."""
        if account_id is not None:
            account = self._active(execute, account_id, now, lock="share")
            return self._new_session(execute, account, method, now, device_id), False
        account = self._new_account(execute, wanted, now)
        attach(account.account_id)
        return self._new_session(execute, account, method, now, device_id), True

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

    def _active(self, execute, account_id: str, now: float, lock: str = "") -> AccountRow:
        account = self._existing(execute, account_id, lock)
        self._not_banned_account(account, now)
        return account

    def _existing(self, execute, account_id: str, lock: str = "") -> AccountRow:
        account = self.store.account(execute, account_id, lock=lock)
        if account is None:
            raise UnknownAccount("this account no longer exists: sign in again")
        return account

    def _new_session(self, execute, account: AccountRow, method: str, now: float,
                     device_id: str | None = None) -> Tokens:
        session_id = credentials.new_id()
        self.store.add_session(execute, session_id, account.account_id, method, now, device_id)
        return self._tokens(execute, account, session_id, now, now)

    def _tokens(self, execute, account: AccountRow, session_id: str, signed_in_at: float, now: float) -> Tokens:
        refresh = credentials.new_refresh_token()
        self.store.add_refresh(execute, credentials.hashed(refresh), session_id, account.account_id, now,
                               now + self.refresh_seconds)
        access = mint_token(account.account_id, self.keys, "player", self.access_seconds, now=now,
                            session=session_id, signed_in_at=signed_in_at)
        return Tokens(account.account_id, access, refresh, float(int(now) + self.access_seconds),
                      now + self.refresh_seconds, account.display_name)

    def _view(self, execute, account: AccountRow, session: SessionRow | None = None) -> AccountView:
        identities = self.store.identities(execute, account.account_id)
        here = session.device_id if session is not None else None
        return AccountView(account.account_id, account.display_name, account.created_at,
                           tuple((i.provider, i.linked_at) for i in identities),
                           tuple(DeviceView(d, c, u, d == here) for d, c, u in self.store.devices(execute,
                                                                                           account.account_id)))


def _minutes(seconds: float) -> int:
    return int(seconds // 60) + 1


def _outcome(refused: Exception) -> str:
    if isinstance(refused, Banned):
        return "banned"
    if isinstance(refused, NotSignedIn):
        return "refused"
    return "invalid"

