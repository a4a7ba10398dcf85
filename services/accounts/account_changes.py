"""The account as its player changes it: its name, its identities and devices.

Changing the ways into an account (linking, unlinking, removing devices, deleting it)
needs a recent sign-in, and with one of the account's identities where it has any: a stolen
device pair is then enough to play, never to take the account from its owner."""

from __future__ import annotations

from services.common.auth import Identity

from . import credentials, names
from .errors import InvalidRequest, NotSignedIn, Refused, Taken, TooManyTries
from .use_cases import DAY, MAX_NAME_LOOKUPS, AccountView, UseCases, VerifiedToken, \
    retried_on_conflict


class AccountChanges(UseCases):
    @retried_on_conflict
    def account(self, who: Identity) -> AccountView:
        with self.store.transaction() as execute:
            account, session = self._live(execute, who)
            return self._view(execute, account, session)

    @retried_on_conflict
    def set_display_name(self, who: Identity, display_name: str) -> AccountView:
        """A name another account holds is refused, and that answer is counted
        (``names_taken_per_day``) and committed though the call fails, so "taken" cannot be
        used to probe which names exist. Past the count every rename waits out the day, one
        to a free name too: else a probe would learn which names are free from which
        refusals are not about the count."""
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
                              f"try again in {_minutes(min(recent) + DAY - now)} minutes",
                              error_reason="NAME_CHANGES_EXHAUSTED", retry_after=min(recent) + DAY - now)
            taken = [at for at in self.store.name_attempts(execute, account.account_id) if at > now - DAY]
            if len(taken) >= self.names_taken_per_day:
                raise TooManyTries(f"too many names tried today; try again in {_minutes(min(taken) + DAY - now)} "
                                   f"minutes", retry_after=min(taken) + DAY - now)
            owner = self.store.name_owner(execute, key)
            if owner is None or owner == account.account_id:
                self.store.rename(execute, account.account_id, shown, key, recent + [now])
                return self._view(execute, self._existing(execute, who.subject), session)
            self.store.set_name_attempts(execute, account.account_id, taken + [now])
        raise Taken("that display name is taken", bad_field="display_name")

    def display_names(self, account_ids: list[str], who: Identity | None = None) -> dict[str, str]:
        """``who``: a player's token is believed while its session is live, if it has one (a
        developer's locally minted token has none)."""
        if len(account_ids) > MAX_NAME_LOOKUPS:
            raise InvalidRequest(f"at most {MAX_NAME_LOOKUPS} player_ids a call", "player_ids")
        if any(not 0 < len(a) <= 200 for a in account_ids):
            raise InvalidRequest("player_ids must be 1 to 200 characters each", "player_ids")
        with self.store.transaction() as execute:
            if who is not None and who.role == "player" and who.session:
                self._live(execute, who)
            return self.store.names(execute, sorted(set(account_ids)))

    @retried_on_conflict
    def link(self, who: Identity, token: VerifiedToken) -> AccountView:
        """No silent merge: an identity another account holds is refused. The token is spent
        before anything is read about its identity, so a copy of one already used is refused
        as used wherever it is replayed, into the account that holds the identity too (a
        refusal rolls the spending back)."""
        identity = token.identity
        now = self.clock()
        with self.store.transaction() as execute:
            account, session = self._live(execute, who, lock="share")
            self._not_banned_account(account, now)
            self._not_banned(execute, [credentials.identity_key(identity.issuer, identity.subject)], now)
            self._use_once(execute, token, now)
            self._changing_ways_in(execute, account, session, now, "linking an identity")
            owner = self.store.identity_owner(execute, identity.issuer, identity.subject)
            if owner is not None and owner != account.account_id and self.store.account(execute, owner) is None:
                self.store.remove_identity_row(execute, identity.issuer, identity.subject)
                owner = None
            if owner == account.account_id:
                return self._view(execute, account, session)
            if owner is not None:
                raise Taken(f"this {identity.provider} identity is linked to another account; sign in with it "
                            f"there, or unlink it from that account first", error_reason="IDENTITY_TAKEN")
            if any(i.provider == identity.provider for i in self.store.identities(execute, account.account_id)):
                raise Refused(f"this account has a {identity.provider} identity already; unlink it first",
                              error_reason="ALREADY_LINKED")
            self.store.add_identity(execute, identity, account.account_id)
            return self._view(execute, account, session)

    @retried_on_conflict
    def unlink(self, who: Identity, provider: str) -> AccountView:
        if not provider:
            raise InvalidRequest("provider is required", "provider")
        now = self.clock()
        with self.store.transaction() as execute:
            account, session = self._live(execute, who, lock="share")
            self._not_banned_account(account, now)
            view = self._view(execute, account, session)
            if provider not in {p for p, _ in view.identities}:
                raise Refused(f"no {provider[:40]} identity is linked to this account", error_reason="NOT_LINKED")
            if len(view.identities) + view.devices <= 1:
                raise Refused("this is the last way into the account: link another identity first",
                              error_reason="LAST_WAY_IN")
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
                raise Refused("no such device signs in to this account", error_reason="NOT_LINKED")
            if len(view.identities) + view.devices <= 1:
                raise Refused("this is the last way into the account: link an identity first", error_reason="LAST_WAY_IN")
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


def _minutes(seconds: float) -> int:
    return int(seconds // 60) + 1
