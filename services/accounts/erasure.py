"""The right to be forgotten and of access: deletion, the erasure of history and of the
social rows, the export."""

from __future__ import annotations

import datetime
import json
import logging
from typing import Any

from services.common.auth import Identity

from .store import AccountRow, IdentityRow
from .use_cases import UseCases, retried_on_conflict

log = logging.getLogger("domino.accounts")


def rfc3339(seconds: float) -> str:
    """An instant as the export writes every one (the matches' too, from their Timestamps):
    RFC 3339 in UTC, to the microsecond."""
    return datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc).isoformat().replace("+00:00", "Z")


def export_text(data: dict[str, Any]) -> str:
    """The export as ExportMyData and the staff's ExportPlayerData answer it."""
    return json.dumps(data, ensure_ascii=False, indent=2)


class Erasure(UseCases):
    @retried_on_conflict
    def delete(self, who: Identity) -> float:
        """Erases the account's personal data now, then its history in the match service and
        its friends, requests, blocks and friend code in the social service (now if both
        answer, else by ``erase_pending`` later: the deletion is recorded). A running ban
        outlives it on the credentials it binds (store.erase)."""
        now = self.clock()
        with self.store.transaction() as execute:
            account, session = self._live(execute, who, lock="update")
            self._changing_ways_in(execute, account, session, now, "deleting an account", guests_too=True)
            self.store.erase(execute, who.subject, now)
        self._deleted(who.subject)
        return now

    def _deleted(self, account_id: str) -> None:
        """After a deletion's commit: the file scrubbed, then the history and social rows."""
        self.store.scrub()
        self.observer.deleted()
        log.info("account deleted", extra={"account": account_id})
        self.erase_pending(only=account_id)

    def erase_pending(self, only: str | None = None) -> int:
        """Asks the match service to erase the history, and the social service (when one is
        configured) the social rows, of deleted accounts not yet confirmed erased by both
        (both erasures are idempotent, so a retry asks both again); how many are still
        pending."""
        with self.store.transaction() as execute:
            pending = [only] if only else self.store.unerased(execute)
        left = 0
        for account_id in pending:
            try:
                if self.history is None:
                    raise RuntimeError("no match service is configured")
                self.history.forget(account_id)
                if self.social is not None:
                    self.social.forget(account_id)
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
        ID tokens too old to sign in again, and revoked sessions whose tokens have all
        expired; how many rows went."""
        now = self.clock()
        with self.store.transaction() as execute:
            return (self.store.forget_ended_bans(execute, now) + self.store.forget_used_id_tokens(execute, now)
                    + self.store.revocations.forget_expired(execute, now))

    def pending_erasures(self) -> int:
        with self.store.transaction() as execute:
            return self.store.count_unerased(execute)

    def export(self, who: Identity) -> dict[str, Any]:
        with self.store.transaction() as execute:
            account, _ = self._live(execute, who)
            identities = self.store.identities(execute, account.account_id)
            devices = self.store.devices(execute, account.account_id)
        return self._export_of(account, identities, devices)

    def _export_of(self, account: AccountRow, identities: list[IdentityRow],
                   devices: list[tuple[str, float, float]]) -> dict[str, Any]:
        """The export of the account read, with its history and social rows asked for now."""
        matches = self.history.matches(account.account_id) if self.history is not None else []
        social = self.social.data(account.account_id) if self.social is not None else None
        data = {
            "format": "domino-account-export/2",
            "account": {"player_id": account.account_id, "display_name": account.display_name,
                        "created_at": rfc3339(account.created_at),
                        "display_name_changes": [rfc3339(at) for at in account.name_changes]},
            "identities": [{"provider": i.provider, "issuer": i.issuer, "subject": i.subject,
                            "linked_at": rfc3339(i.linked_at)} for i in identities],
            "devices": [{"device_id": d, "created_at": rfc3339(c), "last_used_at": rfc3339(u)} for d, c, u in devices],
            "matches": matches,
        }
        if social is not None:
            data["social"] = social
        return data
