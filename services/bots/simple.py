"""The simple strategies: ``random`` plays any legal move. ``greedy`` is one simple rule per
family of docs/rules.md:

- **All Fives**: the play that scores the most points now (the open ends adding up to a
  positive multiple of five after it, §2), then the heaviest tile, ties as §1.6 (the higher
  pip, then the first end of ``left``, ``right``, ``up``, ``down``);
- **Goat**: shed the heaviest tile (§1.6's order): points left in hand are bad;
- **Egyptian, Classic, Sports**: the heaviest tile (§1.6's order), the pips an opponent
  would score.

``SIMPLE`` holds the choosers that see the legal moves only; ``SIMPLE["greedy"]`` is always
§1.6's timeout choice (the audit simulator and a property test rely on that), whatever the
family. The expert's first answer is ``greedy`` too, which is why these live apart from the
registry of strategies (strategies.py), which imports the expert.
"""

from __future__ import annotations

import random
from typing import Callable, Sequence

from services.rules import autoplay
from services.rules.moves import Move
from services.rules.view import PlayerView

from .knowledge import Line, play_points_of

Chooser = Callable[[Sequence[Move], random.Random], Move]


def random_move(moves: Sequence[Move], rng: random.Random) -> Move:
    return moves[int(rng.random() * len(moves))] if len(moves) > 1 else moves[0]


def shed_heaviest(moves: Sequence[Move], rng: random.Random) -> Move:
    """"Bota gorda": get rid of the heaviest tile while you can (the order the server's
    own timeout play uses, docs/rules.md §1.6)."""
    return max(moves, key=autoplay.timeout_order)


SIMPLE = {"random": random_move, "greedy": shed_heaviest}


# --- strategies that see a seat's view -------------------------------------------------------
# A ViewStrategy is ``choose(view: PlayerView, rng) -> Move``: it gets exactly what its seat
# may see (services.rules.view.player_view) and returns one of ``view.legal_moves``.

ViewStrategy = Callable[[PlayerView, random.Random], Move]


def from_moves(chooser: Chooser) -> ViewStrategy:
    """A simple chooser as a view strategy: it looks at the legal moves only."""

    def choose(view, rng: random.Random) -> Move:
        return chooser(view.legal_moves, rng)

    choose.__name__ = chooser.__name__
    return choose


def greedy(view, rng: random.Random) -> Move:
    """The family's greedy rule (see the module's docstring). The family names it
    (``Family.greedy_key``) and we fill in what a play would score, read off the line we
    replay from the view (``knowledge``): the reading our inferences already use, and one
    the rules engine may not import from us."""
    moves = view.legal_moves
    if len(moves) == 1:
        return moves[0]
    line: list[Line] = []  # replayed on first use: only a family that counts points asks

    def play_points(move: Move) -> int:
        if not line:
            line.append(Line.of(view))
        return play_points_of(line[0], move.tile, move.end)

    key = view.rules.kind.greedy_key(view, play_points)
    return shed_heaviest(moves, rng) if key is None else max(moves, key=key)
