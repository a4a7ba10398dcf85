"""Typed rule errors: each says what is wrong in words a player or auditor understands.

Messages never name another seat's tiles or the boneyard order, so a service may pass
them to any player unchanged, and they echo at most a short prefix of a value they were
given (``shown``), so a huge input never comes back.

Each class names its failure for clients (``error_reason``: a name of the API's
ErrorReason catalog, proto/domino/errors/v1/error_reason.proto), so an app tells "not your
turn" from "does not fit" without reading the message; it is plain data, and the engine
still imports nothing outside itself.
"""


def shown(value: object, limit: int = 40) -> str:
    """``repr(value)``, cut to ``limit`` characters."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


class RulesError(Exception):
    """An action or deal that the rules do not allow."""

    error_reason = "NOT_ALLOWED_BY_RULES"


class MalformedTile(ValueError):
    """Text that does not name one of the 28 tiles (a malformed input, not a rule)."""

    error_reason = "INVALID_REQUEST"


class NotYourTurn(RulesError):
    error_reason = "NOT_YOUR_TURN"


class TileNotHeld(RulesError):
    error_reason = "TILE_NOT_HELD"


class TileDoesNotFit(RulesError):
    error_reason = "TILE_DOES_NOT_FIT"


class EndRequired(RulesError):
    error_reason = "END_REQUIRED"


class WrongLead(RulesError):
    error_reason = "WRONG_LEAD"


class MustPlay(RulesError):
    """Drawing or passing while holding a tile that fits."""

    error_reason = "MUST_PLAY"


class MustDraw(RulesError):
    """Passing (or playing nothing) while the boneyard still has tiles."""

    error_reason = "MUST_DRAW"


class CannotDraw(RulesError):
    error_reason = "CANNOT_DRAW"


class RoundOver(RulesError):
    error_reason = "ROUND_OVER"


class MatchOver(RulesError):
    error_reason = "MATCH_ENDED"


class BadDeal(RulesError):
    pass


class BadOptions(RulesError):
    """Match options outside what the rule set allows."""

    error_reason = "INVALID_OPTIONS"
