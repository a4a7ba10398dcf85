"""What the social service refuses. Only grpc_adapter.py maps these to status codes; each
error names its ErrorInfo reason (`error_reason`, a name of domino.errors.v1.ErrorReason), the
request field it is about (`bad_field`) and when to try again (`retry_after`), as
services/common/grpc_status.py reads them. A message never says that a block exists."""

from __future__ import annotations


class SocialError(Exception):
    error_reason = "INVALID_REQUEST"
    final = False  # True: no wait would help, so no RetryInfo

    def __init__(self, message: str, *, error_reason: str | None = None, bad_field: str | None = None,
                 retry_after: float | None = None) -> None:
        super().__init__(message)
        if error_reason is not None:
            self.error_reason = error_reason
        self.bad_field = bad_field
        self.retry_after = retry_after


class InvalidRequest(SocialError):
    """A missing, oversized or malformed field (INVALID_ARGUMENT); ``bad_field`` names it."""

    def __init__(self, message: str, field: str, **more) -> None:
        super().__init__(message, bad_field=field, **more)


class RequestIdReused(SocialError):
    """A request_id already used for another request (INVALID_ARGUMENT)."""

    error_reason = "REQUEST_ID_REUSED"

    def __init__(self, message: str) -> None:
        super().__init__(message, bad_field="request_id")


class NotFound(SocialError):
    """No such player (PLAYER_NOT_FOUND) or no such pending request (FRIEND_REQUEST_NOT_FOUND):
    NOT_FOUND."""

    error_reason = "PLAYER_NOT_FOUND"


class Refused(SocialError):
    """Not possible in the state the two players are in (FAILED_PRECONDITION): YOURSELF,
    ALREADY_FRIENDS, PLAYER_BLOCKED, TOO_MANY_FRIENDS, TOO_MANY_PENDING_REQUESTS, TOO_MANY_BLOCKS."""

    error_reason = "ALREADY_FRIENDS"


class Exhausted(SocialError):
    """The hour's friend requests are spent (RESOURCE_EXHAUSTED, with the wait)."""

    error_reason = "FRIEND_REQUESTS_EXHAUSTED"


class Busy(SocialError):
    """The store kept refusing the transaction for a race it lost; nothing changed (ABORTED)."""

    error_reason = "CONFLICT"


class AccountsUnavailable(SocialError):
    """The account service, which names players, is away for now (UNAVAILABLE)."""

    error_reason = "UNAVAILABLE"
