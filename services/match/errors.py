"""Typed errors of the match service's aggregate and use cases. Only the gRPC adapter maps
them to status codes (docs/design.md, "Errors"); their messages are safe to show the caller.

The rules engine keeps its own errors (services/rules/errors.py: a ``RulesError`` is an
action the rules refuse, FAILED_PRECONDITION; a ``MalformedTile`` is bad input), because the
engine imports nothing outside itself. The aggregate's own refusals of an action (a seat that
left, a seed too late, a move before the first deal) are ``RulesError``s too, so a command
asks the stored match again before it believes them, as it does the engine's.

Every class names its failure for clients with ``error_reason`` (a name of
proto/domino/errors/v1/error_reason.proto's ErrorReason, services/common/grpc_status.py): one
distinct failure, one reason. A malformed request names its field (``bad_field``, the
request's field name: a BadRequest).
"""

from __future__ import annotations

from services.rules.errors import RulesError


class MatchError(Exception):
    """Base of every refusal here; a refused command has changed nothing."""

    error_reason = "INTERNAL"


# ---- INVALID_ARGUMENT: the request itself is wrong ---------------------------------------

class InvalidRequest(MatchError, ValueError):
    """A malformed request (a missing field, a value out of range); ``field`` names the
    request's field at fault."""

    error_reason = "INVALID_REQUEST"

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.bad_field = field


class InvalidOptions(InvalidRequest):
    """Options the family does not allow: a variant, seat count, team setting, target, timer
    or host option it does not offer (the field says which)."""

    error_reason = "INVALID_OPTIONS"


class RequestIdReused(InvalidRequest):
    """A request id already used for a different command."""

    error_reason = "REQUEST_ID_REUSED"

    def __init__(self, message: str) -> None:
        super().__init__(message, "request_id")


# ---- NOT_FOUND -----------------------------------------------------------------------------

class UnknownMatch(MatchError):
    error_reason = "MATCH_NOT_FOUND"


# ---- PERMISSION_DENIED ---------------------------------------------------------------------

class NotSeated(MatchError):
    """The caller has no seat at this match."""

    error_reason = "NOT_SEATED"


class NotWatchable(NotSeated):
    """A player without a seat asked to watch a match that allows no spectators."""

    error_reason = "NOT_WATCHABLE"


class Forbidden(MatchError):
    """The caller's role (its kind of token) may not do this."""

    error_reason = "WRONG_CALLER"


class StaffRoleTooLow(MatchError):
    """A member of staff (an operator token) whose staff roles do not include one the call
    needs (services/match/staff.py)."""

    error_reason = "STAFF_ROLE_TOO_LOW"


# ---- FAILED_PRECONDITION -------------------------------------------------------------------

class StaleTimeout(MatchError):
    """A timeout for a turn that is no longer the current one, or not yet due. Only the
    service's own timers ask for one; no RPC does."""

    error_reason = "NOT_ALLOWED_BY_RULES"


class SeatHasLeft(RulesError):
    """An action of a seat whose player left the match for good: the server plays it."""

    error_reason = "SEAT_LEFT"


class SeedNotTaken(RulesError):
    """A seed after the first deal, or a second one that differs from the first."""

    error_reason = "SEED_NOT_TAKEN"


class RoundNotDealt(RulesError):
    """A move before the first deal: the match still waits for its players' seeds."""

    error_reason = "ROUND_NOT_DEALT"


class MatchNotEnded(RulesError):
    """An export that needs the match ended (an auditor's, without ``unfinished``)."""

    error_reason = "MATCH_NOT_ENDED"


class TableTalkClosed(MatchError):
    """A phrase sent to a match that ended more than the grace ago (table_talk.py)."""

    error_reason = "CHAT_CLOSED"


# ---- RESOURCE_EXHAUSTED --------------------------------------------------------------------

class TableTalkFull(MatchError):
    """A player has sent a match as many phrases as one player may (table_talk.py)."""

    error_reason = "CHAT_LIMIT"
    final = True  # the most one player may send a match: waiting changes nothing


# ---- UNAVAILABLE -----------------------------------------------------------------------

class StoreUnavailable(MatchError):
    """The store did not answer or failed to write; nothing was changed, try again."""

    error_reason = "UNAVAILABLE"


# ---- DATA_LOSS -----------------------------------------------------------------------------

class CorruptLog(MatchError):
    """The engine refuses a stored event of this match: the match is frozen and nothing is
    rewritten; an operator decides (`domino audit repair-report`, docs/operations.md)."""

    error_reason = "MATCH_FROZEN"

    def __init__(self, match_id: object, version: int, topic: str, reason: str) -> None:
        super().__init__(f"match {match_id} cannot be read: its stored event {version} ({topic.rsplit(':', 1)[-1]}) "
                         f"is refused on replay, so the match is frozen and nothing was changed. For operators: "
                         f"`domino audit repair-report {match_id}`")
        self.match_id = match_id
        self.version = version
        self.topic = topic
        self.reason = reason


class StoredResultMismatch(MatchError):
    """A stored RoundEnded or MatchEnded whose result is not what replaying the match gives
    (results.py): raised while applying it, so replay refuses the match and it freezes."""

    error_reason = "MATCH_FROZEN"


# ---- ABORTED -------------------------------------------------------------------------------

class ConcurrencyConflict(MatchError):
    """Lost the race for a match more times than it is worth retrying."""

    error_reason = "CONFLICT"
