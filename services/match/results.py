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
from services.rules.rulesets import RuleSet
from services.rules.state import MatchState, RoundResult


# RoundEnded's fields for a family's part of a round, each as stored where the family has none.
_STORED_EMPTY: dict[str, Any] = {"play_points": [], "written": [], "remembered": [], "pot": 0}


def stored_extras(rules: RuleSet, result: RoundResult) -> dict[str, Any]:
    """A round's family part (``result.extras``) as RoundEnded stores it, the one mapping
    between the two. Every RoundEnded stores the same fields, as it did when the part was
    fields of the result: each holds what the family's round column of that key shows
    (``Family.round_json``: All Fives' play_points; Goat's written, remembered and pot),
    or is empty. A column of another key (a later family's) is not stored: the replay
    computes it like the rest."""
    shown = rules.kind.round_json(result)
    return {name: shown[name] if name in shown else type(empty)() for name, empty in _STORED_EMPTY.items()}


def _plain(value: Any) -> Any:
    """Tuples of the engine and lists of a decoded event, compared as lists (nested too)."""
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def check_round_ended(state: MatchState, reason: str, winner: int | None, points: int, scores: Sequence[int],
                      extras: dict[str, Any]) -> None:
    """The stored end of a round against the round the replay just ended, ``extras`` being
    RoundEnded's fields of ``stored_extras``. A list field is None in a match stored before
    it existed, and is then not compared."""
    if not state.results:
        raise StoredResultMismatch("a stored RoundEnded, but replay has ended no round")
    result = state.results[-1]
    stored = {"reason": reason, "winner": winner, "points": points, "scores": _plain(scores)}
    replayed = {"reason": result.reason, "winner": result.winner, "points": result.points,
                "scores": _plain(result.scores)}
    for name, engine in stored_extras(state.rules, result).items():
        value = extras[name]
        if value is not None or not isinstance(_STORED_EMPTY[name], list):
            stored[name], replayed[name] = _plain(value), _plain(engine)
    _agree("RoundEnded", stored, replayed)


def check_match_ended(state: MatchState, winner: int | None, scores: Sequence[int], goats: Sequence[int] | None,
                      abandoned: bool) -> None:
    """The stored end of the match against the replayed state: a match the rules ended
    (``state.over``) is never abandoned, an abandoned one has no winner, and the totals are
    the replay's either way."""
    stored = {"abandoned": bool(abandoned), "winner": winner, "scores": _plain(scores)}
    replayed = {"abandoned": not state.over, "winner": None if abandoned else state.winner,
                "scores": _plain(state.scores)}
    if goats is not None:
        stored["goats"], replayed["goats"] = _plain(goats), _plain(state.goats)
    _agree("MatchEnded", stored, replayed)


def _agree(kind: str, stored: dict[str, Any], replayed: dict[str, Any]) -> None:
    differ = [name for name in stored if stored[name] != replayed[name]]
    if differ:
        said = ", ".join(f"{name} {stored[name]!r}" for name in differ)
        computed = ", ".join(f"{name} {replayed[name]!r}" for name in differ)
        raise StoredResultMismatch(f"the stored {kind} says {said}; replaying the match gives {computed}")
