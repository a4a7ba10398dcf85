"""Typed errors of matchmaking's domain and use cases. Only the gRPC adapter maps them to
status codes (docs/design.md, "Errors"); their messages are safe to show the caller.

Each class is one failure a client tells apart by its `error_reason` (a name of
domino.errors.v1.ErrorReason, less the prefix), so a refusal says the same wherever it is
raised; `bad_field` names the request field at fault (a BadRequest) and `retry_after` the
seconds to wait (a RetryInfo), where they apply (services/common/grpc_status.py).
"""

from __future__ import annotations


class MatchmakingError(Exception):
    """Base of every refusal; a refused command has changed nothing."""

    error_reason = "INTERNAL"
    bad_field: str | None = None
    retry_after: float | None = None
    error_metadata: dict[str, str] | None = None

    def __init__(self, message: str, *, field: str | None = None, retry_after: float | None = None) -> None:
        super().__init__(message)
        if field is not None:
            self.bad_field = field
        if retry_after is not None:
            self.retry_after = retry_after


# ---- INVALID_ARGUMENT: the request itself is wrong ---------------------------------------

class InvalidRequest(MatchmakingError, ValueError):
    """A malformed request (missing field, bad id or code format...)."""

    error_reason = "INVALID_REQUEST"


class InvalidOptions(InvalidRequest):
    """Options outside the allowed values (docs/rules.md §1.1); ``field`` names the option."""

    error_reason = "INVALID_OPTIONS"


class StrengthNotOffered(InvalidRequest):
    """A bot strength that is unknown, or not offered at the family and team setting."""

    error_reason = "STRENGTH_NOT_OFFERED"
    bad_field = "bot_strength"


class BadSeat(InvalidRequest):
    """A seat number the table does not have."""

    error_reason = "BAD_SEAT"
    bad_field = "seat"


class RequestIdReused(InvalidRequest):
    """A request id already used for a different request."""

    error_reason = "REQUEST_ID_REUSED"
    bad_field = "request_id"


# ---- NOT_FOUND -----------------------------------------------------------------------------

class UnknownRoom(MatchmakingError):
    error_reason = "ROOM_NOT_FOUND"


class UnknownTicket(MatchmakingError):
    error_reason = "TICKET_NOT_FOUND"


class UnknownInvite(MatchmakingError):
    """No such invite for the caller: unknown, or neither theirs nor of a room they are in."""

    error_reason = "INVITE_NOT_FOUND"


# ---- PERMISSION_DENIED ---------------------------------------------------------------------

class NotHost(MatchmakingError):
    """Only the room's host may do this."""

    error_reason = "NOT_HOST"


class NotInRoom(MatchmakingError):
    """The caller is not in the room."""

    error_reason = "NOT_IN_ROOM"


class NotAPlayer(MatchmakingError):
    """Bot, service and auditor identities cannot take seats."""

    error_reason = "NOT_A_PLAYER"


class Barred(MatchmakingError):
    """The account may not play (the account service's GetStanding says why)."""


class Banned(Barred):
    """Banned, until ``until`` (RFC 3339, in the ErrorInfo's metadata)."""

    error_reason = "BANNED"

    def __init__(self, message: str, until: str) -> None:
        super().__init__(message)
        self.error_metadata = {"until": until}


class AccountDeleted(Barred):
    error_reason = "ACCOUNT_DELETED"


# ---- FAILED_PRECONDITION: the request is fine, the state does not allow it ----------------

class Refused(MatchmakingError):
    """A matchmaking rule forbids this now."""


class RoomFull(Refused):
    error_reason = "ROOM_FULL"


class SeatTaken(Refused):
    error_reason = "SEAT_TAKEN"


class SeatsInTheWay(Refused):
    """A variant with fewer seats while the seats it would remove are occupied."""

    error_reason = "SEATS_IN_THE_WAY"


class BotsInTheWay(Refused):
    """Options under which a seated bot's strength is not offered (its family and team setting)."""

    error_reason = "BOTS_IN_THE_WAY"


class RoomNotFilled(Refused):
    error_reason = "ROOM_NOT_FILLED"


class RoomLocked(Refused):
    """The room has started (options and seats are locked) or is closed."""

    error_reason = "ROOM_LOCKED"


class NoBotThere(Refused):
    error_reason = "NO_BOT_THERE"


class AlreadyElsewhere(Refused):
    """The player is already in a room, waiting for a table, or at a table whose match has
    not ended."""

    error_reason = "ALREADY_SEATED"


class NotFriends(Refused):
    """An invitee who is not the caller's friend, or a block either way: one answer for both,
    so a block is never revealed."""

    error_reason = "NOT_FRIENDS"


class TooManyInvites(Refused):
    """More invites pending for the room than it has free seats."""

    error_reason = "TOO_MANY_INVITES"


class InviteExpired(Refused):
    """The invite's room started or closed, its time ran out, or it was answered the other way."""

    error_reason = "INVITE_EXPIRED"


class RematchNotAvailable(Refused):
    """The match is still played, matchmaking did not start it, or the caller had no seat at it."""

    error_reason = "REMATCH_NOT_AVAILABLE"


class TicketNotWaiting(Refused):
    """A ticket that is no longer waiting (seated, cancelled, ended) cannot be cancelled."""

    error_reason = "TICKET_NOT_WAITING"


# ---- RESOURCE_EXHAUSTED --------------------------------------------------------------------

class TooManyFailedJoins(MatchmakingError):
    error_reason = "TOO_MANY_FAILED_JOINS"


# ---- UNAVAILABLE / ABORTED / INTERNAL ------------------------------------------------------

class MatchServiceUnavailable(MatchmakingError):
    """The match service could not be reached; the start is retried (and may be by the caller)."""

    error_reason = "UNAVAILABLE"


class MatchRefused(MatchmakingError):
    """The match service refused the match for good (its options or seats are not valid)."""

    error_reason = "MATCH_REFUSED"


class ConcurrencyConflict(MatchmakingError):
    """Lost the race for an aggregate more times than it is worth retrying."""

    error_reason = "CONFLICT"


class AccountsUnavailable(MatchmakingError):
    """The account service could not say whether the player may play; try again."""

    error_reason = "UNAVAILABLE"


class SocialUnavailable(MatchmakingError):
    """The social service could not say who the caller's friends are; try again (RetryInfo)."""

    error_reason = "UNAVAILABLE"


class NoticesRefused(Exception):
    """The social service called these notices invalid (or matchmaking not allowed to post
    them): posted again they would be refused again. Never reaches a caller."""


class RatingUnavailable(MatchmakingError):
    """The match service did not tell a player's rating in time (or answered an error). Never
    reaches a caller: the player is seated first come, first seated (table_choice.py).
    ``reason``: "deadline", "error", or "backoff" (not asked: it failed moments ago)."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
