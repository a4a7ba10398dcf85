"""Signing in and out: by device or ID token, refreshing, signing out.

A sign-in finds the account its credential leads to, or makes one; either way it starts a
session whose refresh tokens rotate, and a retired one coming back revokes it (committed
before the caller hears UNAUTHENTICATED: someone holds a copy). An ID token signs in once.
"""

from __future__ import annotations

import logging
from contextlib import contextmanager
from typing import Callable, Iterator

from services.common.auth import Identity, mint_token
from services.common.oidc import IdTokenRefused, KeysUnavailable, UnknownProvider

from . import credentials, names, notices
from .errors import Banned, InvalidRequest, NotSignedIn, RefreshReused, Taken, Unavailable
from .store import AccountRow, IdentityRow
from .use_cases import Tokens, UseCases, VerifiedToken, retried_on_conflict

log = logging.getLogger("domino.accounts")


class SignIns(UseCases):
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
            raise InvalidRequest("provider is required", "provider")
        if not id_token:
            raise InvalidRequest("id_token is required", "id_token")
        if self.verifier is None:
            raise InvalidRequest("this server signs in by device only: no OpenID Connect issuer is configured", "provider")
        try:
            found = self.verifier.verify(provider, id_token, nonce)
        except UnknownProvider as error:
            raise InvalidRequest(str(error), "provider") from None
        except KeysUnavailable as error:
            raise Unavailable(str(error), retry_after=2.0) from None
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
        """A sign-in into an existing account tells its inbox (notice.account.device_added):
        someone proved the identity on a device, which its owner should know of."""
        identity = token.identity
        told: list[str] = []
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
                    lambda account_id: self.store.add_identity(execute, identity, account_id),
                    provider=identity.provider)
                if not created:
                    notice = notices.device_added(tokens.account_id, token.token_hash, identity.provider)
                    self.store.notices.add(execute, notice, now)
                    told.append(notice.notification_id)
        self.post_notices(told)
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
            raise NotSignedIn("this access token belongs to no session (sign out with a token from a sign-in)", "ended")
        with self.store.transaction() as execute:
            self.store.revoke_sessions(execute, self.clock(), "signed out", session_id=who.session)

    @retried_on_conflict
    def sign_out_everywhere(self, who: Identity, remove_other_devices: bool = False) -> tuple[int, int]:
        """(sessions ended, devices removed). Removing the other devices cuts off a copied
        device pair: it changes the ways in, so it needs what unlinking needs, and a banned
        player may not shed the devices the ban binds. Only ending sessions stays open to a
        banned player, who may need to cut off a thief."""
        now = self.clock()
        with self.store.transaction() as execute:
            account, session = self._live(execute, who, lock="share")
            removed = 0
            if remove_other_devices:
                self._not_banned_account(account, now)
                self._changing_ways_in(execute, account, session, now, "removing devices")
                removed = self.store.remove_devices_except(execute, account.account_id, session.device_id)
            ended = self.store.revoke_sessions(execute, now, "signed out everywhere", account_id=who.subject)
            return ended, removed


    @contextmanager
    def _counted(self, method: str) -> Iterator[None]:
        """A refused sign-in counts in the metrics with why, then propagates."""
        try:
            yield
        except (NotSignedIn, Banned, InvalidRequest, Taken) as refused:
            self.observer.signed_in(method, _outcome(refused))
            raise

    def _session(self, execute, method: str, account_id: str | None, wanted: tuple[str, str] | None, now: float,
                 attach: Callable[[str], None], device_id: str | None = None,
                 provider: str | None = None) -> tuple[Tokens, bool]:
        """A new session of the account the credential leads to, or of a new account the
        credential is then ``attach``ed to; (tokens, whether the account is new)."""
        if account_id is not None:
            account = self._active(execute, account_id, now, lock="share")
            return self._new_session(execute, account, method, now, device_id, provider), False
        account = self._new_account(execute, wanted, now)
        attach(account.account_id)
        return self._new_session(execute, account, method, now, device_id, provider), True

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
            raise Taken("that display name is taken", bad_field="display_name")
        account_id = credentials.new_id()
        self.store.add_account(execute, account_id, wanted[0], wanted[1], now)
        return AccountRow(account_id, wanted[0], now, (), None, None)

    def _new_session(self, execute, account: AccountRow, method: str, now: float,
                     device_id: str | None = None, provider: str | None = None) -> Tokens:
        session_id = credentials.new_id()
        self.store.add_session(execute, session_id, account.account_id, method, now, device_id, provider)
        return self._tokens(execute, account, session_id, now, now)

    def _tokens(self, execute, account: AccountRow, session_id: str, signed_in_at: float, now: float) -> Tokens:
        refresh = credentials.new_refresh_token()
        self.store.add_refresh(execute, credentials.hashed(refresh), session_id, account.account_id, now,
                               now + self.refresh_seconds)
        access = mint_token(account.account_id, self.keys, "player", self.access_seconds, now=now,
                            session=session_id, signed_in_at=signed_in_at)
        return Tokens(account.account_id, access, refresh, float(int(now) + self.access_seconds),
                      now + self.refresh_seconds, account.display_name)


def _outcome(refused: Exception) -> str:
    if isinstance(refused, Banned):
        return "banned"
    if isinstance(refused, NotSignedIn):
        return "refused"
    return "invalid"
