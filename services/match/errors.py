"""Typed errors of the match service's aggregate and use cases. Only the gRPC adapter maps
them to status codes (docs/design.md, "Errors"); their messages are safe to show the caller.

The rules engine keeps its own errors (services/match/rules/errors.py: a ``RulesError`` is an
action the rules refuse, FAILED_PRECONDITION; a ``MalformedTile`` is bad input), because the
engine imports nothing outside itself.
"""

from __future__ import annotations


class MatchError(Exception):
    """Base of every refusal here; a refused command has changed nothing."""


# ---- INVALID_ARGUMENT: the request itself is wrong ---------------------------------------

class InvalidRequest(MatchError, ValueError):
    """A malformed request (a missing field, a value out of range)."""


class RequestIdReused(InvalidRequest):
    """A request id already used for a different command."""


# ---- NOT_FOUND -----------------------------------------------------------------------------

class UnknownMatch(MatchError):
    pass


# ---- PERMISSION_DENIED ---------------------------------------------------------------------

class NotSeated(MatchError):
    """The caller has no seat at this match."""


class Forbidden(MatchError):
    """The caller's role may not do this."""


# ---- FAILED_PRECONDITION -------------------------------------------------------------------

class StaleTimeout(MatchError):
    """A timeout for a turn that is no longer the current one, or not yet due."""


class TableTalkClosed(MatchError):
    """A phrase sent to a match that ended more than the grace ago (table_talk.py)."""


# ---- RESOURCE_EXHAUSTED --------------------------------------------------------------------

class TableTalkFull(MatchError):
    """A player has sent a match as many phrases as one player may (table_talk.py)."""


# ---- UNAVAILABLE -----------------------------------------------------------------------

class StoreUnavailable(MatchError):
    """The store did not answer or failed to write; nothing was changed, try again."""


# ---- DATA_LOSS -----------------------------------------------------------------------------

class CorruptLog(MatchError):
    """The engine refuses a stored event of this match: the match is frozen and nothing is
    rewritten; an operator decides (`domino audit repair-report`, docs/operations.md)."""

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


# ---- ABORTED -------------------------------------------------------------------------------

class ConcurrencyConflict(MatchError):
    """Lost the race for a match more times than it is worth retrying."""
