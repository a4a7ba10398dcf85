"""A stored result is believed only when replaying the match gives the same one.

RoundEnded and MatchEnded store what the engine computed when the round or the match
ended: who won, the points, the running totals (and All Fives' play points, Goat's
accounts). Those fields are outside the hash chain (docs/record.md covers the deals, the
actions and the end's seed and `abandoned`), so an editor of the store could rewrite them
and leave every link intact. But they are not facts of their own: the engine computes
them again from the deals and actions when the match is replayed. Applying either event
therefore checks its payload against the replayed state, and a disagreement raises
``StoredResultMismatch``: replay refuses the match, which freezes (DATA_LOSS, the store's
error log, `domino audit repair-report`), and the history projection, which takes the
result from the replay, records nothing for it.
"""

from __future__ import annotations

from typing import Any, Sequence

from .errors import StoredResultMismatch
from .rules.state import MatchState


def _listed(values: Sequence[Any] | None) -> list[Any] | None:
    """Tuples of the engine and lists of a decoded event, compared as lists (nested too)."""
    if values is None:
        return None
    return [_listed(v) if isinstance(v, (list, tuple)) else v for v in values]


def check_round_ended(state: MatchState, reason: str, winner: int | None, points: int, scores: Sequence[int],
                      play_points: Sequence[Sequence[int]] | None, written: Sequence[int] | None,
                      remembered: Sequence[int] | None, pot: int) -> None:
    """The stored end of a round against the round the replay just ended. The optional
    lists are compared when stored (a round of a family without them stores none)."""
    if not state.results:
        raise StoredResultMismatch("a stored RoundEnded, but replay has ended no round")
    result = state.results[-1]
    stored = {"reason": reason, "winner": winner, "points": points, "scores": _listed(scores), "pot": pot}
    replayed = {"reason": result.reason, "winner": result.winner, "points": result.points,
                "scores": _listed(result.scores), "pot": result.pot}
    for name, value, engine in (("play_points", play_points, result.play_points), ("written", written, result.written),
                                ("remembered", remembered, result.remembered)):
        if value is not None:
            stored[name], replayed[name] = _listed(value), _listed(engine)
    _agree("RoundEnded", stored, replayed)


def check_match_ended(state: MatchState, winner: int | None, scores: Sequence[int], goats: Sequence[int] | None,
                      abandoned: bool) -> None:
    """The stored end of the match against the replayed state: a match the rules ended
    (``state.over``) is never abandoned, an abandoned one has no winner, and the totals are
    the replay's either way."""
    stored = {"abandoned": bool(abandoned), "winner": winner, "scores": _listed(scores)}
    replayed = {"abandoned": not state.over, "winner": None if abandoned else state.winner,
                "scores": _listed(state.scores)}
    if goats is not None:
        stored["goats"], replayed["goats"] = _listed(goats), _listed(state.goats)
    _agree("MatchEnded", stored, replayed)


def _agree(kind: str, stored: dict[str, Any], replayed: dict[str, Any]) -> None:
    differ = [name for name in stored if stored[name] != replayed[name]]
    if differ:
        said = ", ".join(f"{name} {stored[name]!r}" for name in differ)
        computed = ", ".join(f"{name} {replayed[name]!r}" for name in differ)
        raise StoredResultMismatch(f"the stored {kind} says {said}; replaying the match gives {computed}")
