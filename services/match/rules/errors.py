"""Typed rule errors: each says what is wrong in words a player or auditor understands.

Messages never name another seat's tiles or the boneyard order, so a service may pass
them to any player unchanged, and they echo at most a short prefix of a value they were
given (``shown``), so a huge input never comes back.
"""


def shown(value: object, limit: int = 40) -> str:
    """``repr(value)``, cut to ``limit`` characters."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


class RulesError(Exception):
    """An action or deal that the rules do not allow."""


class MalformedTile(ValueError):
    """Text that does not name one of the 28 tiles (a malformed input, not a rule)."""


class NotYourTurn(RulesError):
    pass


class TileNotHeld(RulesError):
    pass


class TileDoesNotFit(RulesError):
    pass


class EndRequired(RulesError):
    pass


class WrongLead(RulesError):
    pass


class MustPlay(RulesError):
    """Drawing or passing while holding a tile that fits."""


class MustDraw(RulesError):
    """Passing (or playing nothing) while the boneyard still has tiles."""


class CannotDraw(RulesError):
    pass


class RoundOver(RulesError):
    pass


class MatchOver(RulesError):
    pass


class BadDeal(RulesError):
    pass


class BadOptions(RulesError):
    """Match options outside what the rule set allows."""
