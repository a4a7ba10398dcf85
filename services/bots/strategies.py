"""Simple bot strategies: each picks one of the legal moves, nothing else.

They see only the moves their seat may make, so they can never use hidden information.
"""

from __future__ import annotations

import random
from typing import Callable, Sequence

from services.match.rules import autoplay
from services.match.rules.moves import Move
from services.match.rules.view import PlayerView

Chooser = Callable[[Sequence[Move], random.Random], Move]


def random_move(moves: Sequence[Move], rng: random.Random) -> Move:
    return moves[int(rng.random() * len(moves))] if len(moves) > 1 else moves[0]


def heaviest_first(moves: Sequence[Move], rng: random.Random) -> Move:
    """"Bota gorda": get rid of the heaviest tile while you can (the order the server's
    own timeout play uses, docs/rules.md §1.6)."""
    return max(moves, key=autoplay.heaviest_first)


SIMPLE = {"random": random_move, "greedy": heaviest_first}


# --- strategies that see a seat's view -------------------------------------------------------
# A ViewStrategy is ``choose(view: PlayerView, rng) -> Move``: it gets exactly what its seat
# may see (services.match.rules.view.player_view) and returns one of ``view.legal_moves``.

ViewStrategy = Callable[[PlayerView, random.Random], Move]


def from_moves(chooser: Chooser) -> ViewStrategy:
    """A simple chooser as a view strategy: it looks at the legal moves only."""

    def choose(view, rng: random.Random) -> Move:
        return chooser(view.legal_moves, rng)

    choose.__name__ = chooser.__name__
    return choose


def _strong() -> ViewStrategy:
    from services.bots.strong import StrongBot

    return StrongBot()


STRATEGIES: dict[str, ViewStrategy] = {
    "random": from_moves(random_move),
    "greedy": from_moves(heaviest_first),
    "strong": _strong(),
}
