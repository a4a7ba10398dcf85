"""What the account service refuses, beside the model. Only grpc_adapter.py maps these to
status codes; each message says what is wrong and never echoes a secret or a token, and
each error says what a client does about it: its ErrorInfo reason (`error_reason`, a name of
domino.errors.v1.ErrorReason), the request field it is about (`bad_field`) and when to try
again (`retry_after`): services/common/grpc_status.py."""

from __future__ import annotations

import datetime


class AccountError(Exception):
    error_reason = "INVALID_REQUEST"

    def __init__(self, message: str, *, error_reason: str | None = None, bad_field: str | None = None,
                 retry_after: float | None = None) -> None:
        super().__init__(message)
        if error_reason is not None:
            self.error_reason = error_reason
        self.bad_field = bad_field
        self.retry_after = retry_after


class InvalidRequest(AccountError):
    """Missing, oversized or malformed input (INVALID_ARGUMENT); ``bad_field`` names it."""

    def __init__(self, message: str, field: str | None = None, **more) -> None:
        super().__init__(message, bad_field=field, **more)


class NotSignedIn(AccountError):
    """Wrong device secret, refused ID token, unknown or retired refresh token, an ended
    session (UNAUTHENTICATED). ``outcome`` names it in the metrics."""

    error_reason = "CREDENTIALS_REFUSED"
    _REASONS = {"unknown": "REFRESH_TOKEN_INVALID", "revoked": "REFRESH_TOKEN_INVALID",
                "expired": "REFRESH_TOKEN_INVALID", "reused": "REFRESH_TOKEN_REUSED", "ended": "SESSION_ENDED",
                "used": "ID_TOKEN_USED"}

    def __init__(self, message: str, outcome: str = "refused") -> None:
        super().__init__(message, error_reason=self._REASONS.get(outcome))
        self.outcome = outcome


class RefreshReused(NotSignedIn):
    """A retired refresh token came back: its session is revoked (someone holds a copy)."""

    error_reason = "REFRESH_TOKEN_REUSED"


class Banned(AccountError):
    """The account may not play until ``until`` (PERMISSION_DENIED, with the reason)."""

    error_reason = "BANNED"

    def __init__(self, reason: str, until: float) -> None:
        self.reason, self.until = reason, until
        moment = datetime.datetime.fromtimestamp(until, datetime.timezone.utc)
        super().__init__(f"this account is banned until {moment.strftime('%Y-%m-%d %H:%M UTC')}: {reason}")
        self.error_metadata = {"until": moment.isoformat().replace("+00:00", "Z")}


class Taken(AccountError):
    """A display name or an identity another account holds (ALREADY_EXISTS)."""

    error_reason = "NAME_TAKEN"


class Refused(AccountError):
    """Not possible in the account's state: the last way in, an old sign-in, too many name
    changes (FAILED_PRECONDITION); ``error_reason`` says which."""

    error_reason = "SIGN_IN_AGAIN"


class TooManyTries(AccountError):
    """A limit the account reached that waiting lifts, kept so a refusal cannot be used as an
    oracle: names tried and found taken (RESOURCE_EXHAUSTED, with RetryInfo)."""

    error_reason = "NAME_CHANGES_EXHAUSTED"


class UnknownAccount(AccountError):
    """The token names an account that no longer exists (UNAUTHENTICATED: sign in again). Its
    reason is SESSION_ENDED, as the match service and matchmaking refuse the same token once
    its sessions are on the revocation list: a client tells "sign in again" by one reason
    (docs/api.md, "Errors")."""

    error_reason = "SESSION_ENDED"


class Busy(AccountError):
    """The store kept refusing the transaction for a race it lost; nothing changed and the
    call may be made again (ABORTED)."""

    error_reason = "CONFLICT"


class CursorAhead(AccountError):
    """A revocation cursor past the newest this store ever gave out: the store was replaced,
    and the reader starts again from 0 (OUT_OF_RANGE)."""

    error_reason = "REVOCATION_CURSOR_AHEAD"


class Unavailable(AccountError):
    """Something the call needs is away for now: an issuer's keys (UNAVAILABLE)."""

    error_reason = "IDENTITY_PROVIDER_UNAVAILABLE"


class PartAway(Unavailable):
    """Another service that holds part of the account's data (the match service's history,
    the social service's friends) did not answer: ExportMyData answers no incomplete
    document (UNAVAILABLE, with RetryInfo)."""

    error_reason = "UNAVAILABLE"

    def __init__(self, message: str, retry_after: float = 5.0) -> None:
        super().__init__(message, retry_after=retry_after)


class NoSuchPlayer(AccountError):
    """No account has that display name (NOT_FOUND): the social service's lookup."""

    error_reason = "PLAYER_NOT_FOUND"


class NotStaff(AccountError):
    """A staff call made with another kind of token than the console's `operator`
    (PERMISSION_DENIED)."""

    error_reason = "WRONG_CALLER"


class StaffRoleTooLow(AccountError):
    """A member of staff without a role the call needs (PERMISSION_DENIED)."""

    error_reason = "STAFF_ROLE_TOO_LOW"
