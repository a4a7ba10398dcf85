"""What staff do to a named player (ban, unban, end sessions, export, delete) and the console's
own entries, each written to the operator log in the transaction of its change.

These are the player's and `domino admin`'s use cases, run for the player a member of staff
names: the in-transaction part of each (`_banning`, `_unbanning`, the store's session
revocation and erasure, `_export_of`) is the one the other callers run, then the entry is
appended as the transaction's last statement (operator_log.py), then what follows the commit
(notices, the erasure of history) as for any caller. A refused call raises before anything is
written, so it leaves no entry."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from services.common.auth import Identity

from . import staff_checks as check
from .erasure import Erasure, rfc3339
from .errors import NoSuchPlayer
from .operator_log import LogEntry
from .operators import Operators
from .store import AccountRow
from .use_cases import retried_on_conflict

BAN, UNBAN, END_SESSIONS, EXPORT, DELETE = ("player.ban", "player.unban", "player.end_sessions", "player.export",
                                            "player.delete")
WRITTEN_HERE = frozenset({BAN, UNBAN, END_SESSIONS, EXPORT, DELETE})  # RecordStaffAction may not write these


@dataclass(frozen=True)
class BanView:
    reason: str
    until: float


class StaffActions(Erasure, Operators):
    @retried_on_conflict
    def ban_player(self, who: Identity, account_id: str, reason: str, until: float | None, why: str) -> BanView:
        check.staff(who, check.OPERATOR)
        account_id, why = check.player_id(account_id), check.why(why)
        reason = check.ban_reason(reason)
        now = self.clock()
        until = check.ban_end(until, now)
        with self.store.transaction() as execute:
            self._named(execute, account_id, lock="update")
            told = self._banning(execute, account_id, until, reason, now)
            self._log(execute, who, now, BAN, account_id, why, {"reason": reason, "until": rfc3339(until)})
        self._banned(account_id, until, told)
        return BanView(reason, until)

    @retried_on_conflict
    def unban_player(self, who: Identity, account_id: str, why: str) -> None:
        check.staff(who, check.OPERATOR)
        account_id, why = check.player_id(account_id), check.why(why)
        now = self.clock()
        with self.store.transaction() as execute:
            self._named(execute, account_id, lock="update")
            told = self._unbanning(execute, account_id, now)
            self._log(execute, who, now, UNBAN, account_id, why, {"ban_ran": bool(told)})
        self._unbanned(account_id, told)

    @retried_on_conflict
    def end_sessions(self, who: Identity, account_id: str, why: str) -> int:
        """Every session of the player ends, as their own SignOutEverywhere ends them; how many."""
        check.staff(who, check.SUPPORT)
        account_id, why = check.player_id(account_id), check.why(why)
        now = self.clock()
        with self.store.transaction() as execute:
            self._named(execute, account_id, lock="share")
            ended = self.store.revoke_sessions(execute, now, "ended by staff", account_id=account_id)
            self._log(execute, who, now, END_SESSIONS, account_id, why, {"ended": ended})
        return ended

    def export_player_data(self, who: Identity, account_id: str, why: str) -> dict[str, Any]:
        """The player's own export; the entry is written once the document is whole (an export
        that failed, its history away, leaves none)."""
        check.staff(who, check.SUPPORT)
        account_id, why = check.player_id(account_id), check.why(why)
        with self.store.transaction() as execute:
            account = self._named(execute, account_id)
            identities = self.store.identities(execute, account_id)
            devices = self.store.devices(execute, account_id)
        data = self._export_of(account, identities, devices)
        self._logged(who, EXPORT, account_id, why)
        return data

    @retried_on_conflict
    def delete_player(self, who: Identity, account_id: str, why: str) -> float:
        """The account is erased as its player's own DeleteAccount erases it; when."""
        check.staff(who, check.OPERATOR)
        account_id, why = check.player_id(account_id), check.why(why)
        now = self.clock()
        with self.store.transaction() as execute:
            self._named(execute, account_id, lock="update")
            self.store.erase(execute, account_id, now)
            self._log(execute, who, now, DELETE, account_id, why)
        self._deleted(account_id)
        return now

    def record_staff_action(self, who: Identity, action: str, target: str, why: str) -> LogEntry:
        check.staff(who, check.ANY_STAFF)
        action = check.action(action, WRITTEN_HERE)
        return self._logged(who, action, check.target(target), check.why(why, required=False))

    @retried_on_conflict
    def _logged(self, who: Identity, action: str, target: str, why: str) -> LogEntry:
        with self.store.transaction() as execute:
            return self._log(execute, who, self.clock(), action, target, why)

    def _named(self, execute, account_id: str, lock: str = "") -> AccountRow:
        account = self.store.account(execute, account_id, lock=lock)
        if account is None:
            raise NoSuchPlayer(f"no player {account_id[:64]}" + (" (deleted)" if self.store.deleted(execute, account_id)
                                                                  else ""))
        return account

    def _log(self, execute, who: Identity, now: float, action: str, target: str, why: str,
             details: dict[str, Any] | None = None) -> LogEntry:
        return self.store.operator_log.append(
            execute, round(now * 1e6), who.subject, who.staff_name, who.staff_roles, action, target, why,
            json.dumps(details, sort_keys=True, separators=(",", ":"), ensure_ascii=False) if details else "")
