"""What operators and the other services ask: standing, bans, the revocation list, and the
store's own upkeep."""

from __future__ import annotations

import logging

from . import credentials, names, notices
from .errors import CursorAhead, InvalidRequest, UnknownAccount
from .revocation_list import RevokedPage
from .use_cases import Standing, UseCases, retried_on_conflict

log = logging.getLogger("domino.accounts")
MAX_REVOKED_PAGE = 1000
DEFAULT_REVOKED_PAGE = 500


class Operators(UseCases):
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

    def standing(self, account_id: str) -> Standing:
        with self.store.transaction() as execute:
            account = self.store.account(execute, account_id)
            if account is None:
                return Standing("deleted" if self.store.deleted(execute, account_id) else "unknown")
        if account.banned_at(self.clock()):
            return Standing("banned", account.ban_reason or "", account.banned_until)
        return Standing("active")

    def find_by_display_name(self, display_name: str) -> str | None:
        """The account whose display name is ``display_name`` as names are kept unique (its
        key: case and look-alike forms folded), or None; for the social service's friend
        requests."""
        key = names.key_of(display_name.strip(" "))
        with self.store.transaction() as execute:
            return self.store.name_owner(execute, key)

    def revoked_since(self, after_cursor: int, page_size: int = 0) -> RevokedPage:
        """The sessions revoked after ``after_cursor`` whose tokens have not all expired
        (revocation_list.py): what the match service and matchmaking refuse."""
        if after_cursor < 0:
            raise InvalidRequest("after_cursor cannot be negative (0: from the oldest revocation listed)", "after_cursor")
        if not 0 <= page_size <= MAX_REVOKED_PAGE:
            raise InvalidRequest(f"page_size must be 1 to {MAX_REVOKED_PAGE} (0: {DEFAULT_REVOKED_PAGE})", "page_size")
        with self.store.transaction() as execute:
            newest = self.store.revocations.newest(execute)
            if after_cursor > newest:
                raise CursorAhead(f"after_cursor {after_cursor} is past the newest revocation this store listed "
                                  f"({newest}): the store was replaced; read again from 0")
            return self.store.revocations.since(execute, after_cursor, page_size or DEFAULT_REVOKED_PAGE,
                                                self.clock())

    def newest_revocation(self) -> int:
        """The newest cursor of the revocation list (0: nothing listed yet)."""
        with self.store.transaction() as execute:
            return self.store.revocations.newest(execute)

    @retried_on_conflict
    def ban(self, account_id: str, until: float, reason: str) -> None:
        """Refresh, sign-ins with any of its identities or devices (into this account or a new
        one), account changes and matchmaking refuse the account at once; its access tokens
        die within their lifetime (15 minutes at most) elsewhere. The player's inbox is told
        (notice.banned, its end), with the ban or after it (notices.py)."""
        if not reason.strip() or len(reason) > 200:
            raise InvalidRequest("a ban needs a reason of 1 to 200 characters")
        now = self.clock()
        if until <= now:
            raise InvalidRequest("a ban's end must be in the future")
        with self.store.transaction() as execute:
            told = self._banning(execute, account_id, until, reason, now)
        self._banned(account_id, until, told)

    def _banning(self, execute, account_id: str, until: float, reason: str, now: float) -> list[str]:
        """The ban's rows and its notice, in the caller's transaction; the notice's id."""
        notice = notices.banned(account_id, until)
        bound = [credentials.identity_key(i.issuer, i.subject) for i in self.store.identities(execute, account_id)]
        bound += [credentials.device_key(d) for d, _, _ in self.store.devices(execute, account_id)]
        if not self.store.ban(execute, account_id, until, reason.strip(), bound):
            raise UnknownAccount(f"no account {account_id[:64]}")
        self.store.notices.add(execute, notice, now)
        return [notice.notification_id]

    def _banned(self, account_id: str, until: float, told: list[str]) -> None:
        """After the ban's commit."""
        log.info("account banned", extra={"account": account_id, "until": until})
        self.post_notices(told)

    @retried_on_conflict
    def unban(self, account_id: str) -> None:
        """Ends a running ban, and tells the player's inbox (notice.unbanned); an account
        without one is left as it is, untold."""
        with self.store.transaction() as execute:
            told = self._unbanning(execute, account_id, self.clock())
        self._unbanned(account_id, told)

    def _unbanning(self, execute, account_id: str, now: float) -> list[str]:
        """The ban's end and its notice (if a ban ran), in the caller's transaction; the
        notices' ids."""
        account = self.store.account(execute, account_id, lock="update")
        if account is None or not self.store.ban(execute, account_id, None, None):
            raise UnknownAccount(f"no account {account_id[:64]}")
        if not account.banned_at(now):
            return []
        assert account.banned_until is not None
        notice = notices.unbanned(account_id, account.banned_until)
        self.store.notices.add(execute, notice, now)
        return [notice.notification_id]

    def _unbanned(self, account_id: str, told: list[str]) -> None:
        """After the unban's commit."""
        log.info("account unbanned", extra={"account": account_id})
        self.post_notices(told)
