"""Typed errors of matchmaking's domain and use cases. Only the gRPC adapter maps them to
status codes (docs/design.md, "Errors"); their messages are safe to show the caller."""

from __future__ import annotations


class MatchmakingError(Exception):
    """Base of every refusal; a refused command has changed nothing."""


# ---- INVALID_ARGUMENT: the request itself is wrong ---------------------------------------

class InvalidRequest(MatchmakingError, ValueError):
    """A malformed request (missing field, unknown bot strength, bad code format...)."""


class InvalidOptions(InvalidRequest):
    """Options outside the allowed values (docs/rules.md §1.1)."""


class BadSeat(InvalidRequest):
    """A seat number the table does not have."""


# ---- NOT_FOUND -----------------------------------------------------------------------------

class UnknownRoom(MatchmakingError):
    pass


class UnknownTicket(MatchmakingError):
    pass


# ---- PERMISSION_DENIED ---------------------------------------------------------------------

class NotHost(MatchmakingError):
    """Only the room's host may do this."""


class NotInRoom(MatchmakingError):
    """The caller is not in the room."""


class NotAPlayer(MatchmakingError):
    """Bot, service and auditor identities cannot take seats."""


# ---- FAILED_PRECONDITION: the request is fine, the state does not allow it ----------------

class Refused(MatchmakingError):
    """A matchmaking rule forbids this now."""


class RoomFull(Refused):
    pass


class SeatTaken(Refused):
    pass


class SeatsInTheWay(Refused):
    """A variant with fewer seats while the seats it would remove are occupied."""


class BotsInTheWay(Refused):
    """Options under which a seated bot's strength is not offered (its family and team setting)."""


class RoomNotFilled(Refused):
    pass


class RoomLocked(Refused):
    """The room has started (options and seats are locked) or is closed."""


class NoBotThere(Refused):
    pass


class AlreadyElsewhere(Refused):
    """The player is already in a room, waiting for a table, or at a table."""


class TicketNotWaiting(Refused):
    """A ticket that is no longer waiting (seated, cancelled, ended) cannot be cancelled."""


class RequestIdReused(InvalidRequest):
    """A request id already used for a different request."""


# ---- RESOURCE_EXHAUSTED --------------------------------------------------------------------

class TooManyFailedJoins(MatchmakingError):
    pass


# ---- UNAVAILABLE / ABORTED -----------------------------------------------------------------

class MatchServiceUnavailable(MatchmakingError):
    """The match service could not be reached; the start is retried (and may be by the caller)."""


class MatchRefused(MatchmakingError):
    """The match service refused the match for good (its options or seats are not valid)."""


class ConcurrencyConflict(MatchmakingError):
    """Lost the race for an aggregate more times than it is worth retrying."""


class RatingUnavailable(MatchmakingError):
    """The match service did not tell a player's rating in time (or answered an error). Never
    reaches a caller: the player is seated first come, first seated (table_choice.py).
    ``reason``: "deadline", "error", or "backoff" (not asked: it failed moments ago)."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


class Barred(MatchmakingError):
    """The account may not play: banned (with the reason and the end) or deleted."""


class AccountsUnavailable(MatchmakingError):
    """The account service could not say whether the player may play; try again."""
