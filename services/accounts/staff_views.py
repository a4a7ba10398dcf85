"""What staff see of accounts: players found by name or id, one account described (how it
signs in, never with what subject), and the operator log a page at a time. Reads only."""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass

from services.common.auth import Identity

from . import names
from . import staff_checks as check
from .errors import InvalidRequest, NoSuchPlayer
from .operator_log import LogPage
from .player_directory import LiveSession, PlayerDirectory
from .store import AccountRow
from .use_cases import DeviceView, UseCases

MAX_QUERY = 64
MAX_FOUND, DEFAULT_FOUND = 50, 20
MAX_LOG_PAGE, DEFAULT_LOG_PAGE = 200, 50


@dataclass(frozen=True)
class PlayerCard:
    account_id: str
    display_name: str  # "" for a deleted account
    created_at: float | None  # None for a deleted account
    standing: str  # "active", "banned", "deleted"


@dataclass(frozen=True)
class PlayerDescription:
    card: PlayerCard
    providers: tuple[tuple[str, float], ...] = ()  # (provider, linked at)
    devices: tuple[DeviceView, ...] = ()
    sessions: tuple[LiveSession, ...] = ()
    ban: tuple[str, float] | None = None  # (reason, until) while banned


class StaffViews(UseCases):
    directory = PlayerDirectory()

    def find_players(self, who: Identity, query: str, page_size: int = 0) -> list[PlayerCard]:
        """The account whose id is ``query`` (a deleted one too), then those whose display
        name starts with it as names are compared (names.key_of: case and look-alikes folded)."""
        check.staff(who, check.SUPPORT)
        if not query.strip(" "):
            raise InvalidRequest("query is required", "query")
        if len(query) > MAX_QUERY:
            raise InvalidRequest(f"query is longer than {MAX_QUERY} characters", "query")
        limit = check.page_size(page_size, MAX_FOUND, DEFAULT_FOUND)
        now = self.clock()
        found: list[PlayerCard] = []
        with self.store.transaction() as execute:
            by_id = self.store.account(execute, query)
            if by_id is not None:
                found.append(_card(by_id, now))
            elif self.store.deleted(execute, query):
                found.append(PlayerCard(query, "", None, "deleted"))
            prefix = names.key_of(query.strip(" "))
            for account in self.directory.by_name_key_prefix(execute, prefix, limit):
                if account.account_id != query:
                    found.append(_card(account, now))
        return found[:limit]

    def describe_player(self, who: Identity, account_id: str) -> PlayerDescription:
        check.staff(who, check.SUPPORT)
        account_id = check.player_id(account_id)
        now = self.clock()
        with self.store.transaction() as execute:
            account = self.store.account(execute, account_id)
            if account is None:
                if not self.store.deleted(execute, account_id):
                    raise NoSuchPlayer(f"no player {account_id[:64]}")
                return PlayerDescription(PlayerCard(account_id, "", None, "deleted"))
            view = self._view(execute, account)
            sessions = self.directory.live_sessions(execute, account_id, now)
        ban = (account.ban_reason or "", account.banned_until) \
            if account.banned_at(now) and account.banned_until is not None else None
        return PlayerDescription(_card(account, now), view.identities, view.device_list, tuple(sessions), ban)

    def operator_log(self, who: Identity, page_size: int = 0, page_token: str = "", target: str = "") -> \
            tuple[LogPage, str]:
        """A page of the log, newest first, and the token of the next ("" at the end)."""
        check.staff(who, check.LOG_READERS)
        size = check.page_size(page_size, MAX_LOG_PAGE, DEFAULT_LOG_PAGE)
        target = check.target(target)
        before = _before(page_token, target)
        with self.store.transaction() as execute:
            page = self.store.operator_log.page(execute, before, size, target)
        return page, (_token(page.entries[-1].sequence, target) if page.more else "")


def _card(account: AccountRow, now: float) -> PlayerCard:
    return PlayerCard(account.account_id, account.display_name, account.created_at,
                      "banned" if account.banned_at(now) else "active")


def _token(before: int, target: str) -> str:
    """Opaque to the caller: where the next page starts, and the filter it was asked with."""
    return base64.urlsafe_b64encode(json.dumps({"before": before, "target": target}).encode()).decode()


def _before(token: str, target: str) -> int | None:
    if not token:
        return None
    refused = InvalidRequest("page_token is not one this service gave for this target", "page_token")
    if len(token) > 1000:
        raise refused
    try:
        found = json.loads(base64.urlsafe_b64decode(token.encode()))
    except (ValueError, binascii.Error):
        raise refused from None
    if not isinstance(found, dict) or found.get("target") != target or type(found.get("before")) is not int \
            or not 1 <= found["before"] < 2**63:
        raise refused
    return int(found["before"])
