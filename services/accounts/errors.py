"""What the account service refuses, beside the model. Only grpc_adapter.py maps these to
status codes; each message says what is wrong and never echoes a secret or a token."""

from __future__ import annotations

import datetime


class AccountError(Exception):
    pass


class InvalidRequest(AccountError):
    """Missing, oversized or malformed input (INVALID_ARGUMENT)."""


class NotSignedIn(AccountError):
    """Wrong device secret, refused ID token, unknown or retired refresh token (UNAUTHENTICATED).
    ``outcome`` names it in the metrics."""

    def __init__(self, message: str, outcome: str = "refused") -> None:
        super().__init__(message)
        self.outcome = outcome


class RefreshReused(NotSignedIn):
    """A retired refresh token came back: its session is revoked (someone holds a copy)."""


class Banned(AccountError):
    """The account may not play until ``until`` (PERMISSION_DENIED, with the reason)."""

    def __init__(self, reason: str, until: float) -> None:
        self.reason, self.until = reason, until
        when = datetime.datetime.fromtimestamp(until, datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        super().__init__(f"this account is banned until {when}: {reason}")


class Taken(AccountError):
    """A display name or an identity another account holds (ALREADY_EXISTS)."""


class Refused(AccountError):
    """Not possible in the account's state: the last way in, an old sign-in, too many name
    changes (FAILED_PRECONDITION)."""


class UnknownAccount(AccountError):
    """The token names an account that no longer exists (UNAUTHENTICATED: sign in again)."""


class Busy(AccountError):
    """The store kept refusing the transaction for a race it lost; nothing changed and the
    call may be made again (ABORTED)."""


class CursorAhead(AccountError):
    """A revocation cursor past the newest this store ever gave out: the store was replaced,
    and the reader starts again from 0 (OUT_OF_RANGE)."""


class Unavailable(AccountError):
    """Something the call needs is away for now: an issuer's keys (UNAVAILABLE)."""
