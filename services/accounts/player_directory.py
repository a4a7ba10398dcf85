"""What staff look up about accounts that a player never asks of their own: accounts by the
start of their name key, the sessions still live and how each signed in. Reads only, inside the caller's transaction."""

from __future__ import annotations

from dataclasses import dataclass

from services.common.sql import Execute

from .store import AccountRow, account_row

_ACCOUNT_COLUMNS = "account_id, display_name, created_at, name_changes, banned_until, ban_reason"


@dataclass(frozen=True)
class LiveSession:
    session_id: str
    method: str  # "device" or "id_token"
    provider: str | None  # the identity's provider, for an id_token session (None: signed in before it was kept)
    started_at: float
    last_refreshed_at: float


class PlayerDirectory:
    @staticmethod
    def by_name_key_prefix(execute: Execute, prefix: str, limit: int) -> list[AccountRow]:
        """Accounts whose name key starts with ``prefix``, in key order."""
        rows = execute(f"SELECT {_ACCOUNT_COLUMNS} FROM domino_accounts WHERE substr(name_key, 1, ?) = ? "
                       "ORDER BY name_key LIMIT ?", len(prefix), prefix, limit).fetchall()
        return [account_row(r) for r in rows]

    @staticmethod
    def live_sessions(execute: Execute, account_id: str, now: float) -> list[LiveSession]:
        """Sessions not ended whose newest refresh token is unused and unexpired, the newest
        sign-in first; a session's last refresh is when its newest refresh token was issued."""
        rows = execute("SELECT s.session_id, s.method, s.provider, s.signed_in_at, MAX(t.issued_at) "
                       "FROM domino_account_sessions s JOIN domino_account_refresh_tokens t "
                       "ON t.session_id = s.session_id WHERE s.account_id = ? AND s.revoked_at IS NULL "
                       "GROUP BY s.session_id, s.method, s.provider, s.signed_in_at "
                       "HAVING MAX(CASE WHEN t.used_at IS NULL AND t.expires_at > ? THEN 1 ELSE 0 END) = 1 "
                       "ORDER BY s.signed_in_at DESC, s.session_id", account_id, now).fetchall()
        return [LiveSession(r[0], r[1], r[2], float(r[3]), float(r[4])) for r in rows]
