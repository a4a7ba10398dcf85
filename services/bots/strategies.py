"""Simple bot strategies: each picks one of the legal moves, nothing else.

They see only the moves their seat may make, so they can never use hidden information.
"""

from __future__ import annotations

import random
from typing import Callable, Sequence

from services.match.rules.moves import LEFT, Move
from services.match.rules.tiles import HIGH, PIPS

Chooser = Callable[[Sequence[Move], random.Random], Move]


def random_move(moves: Sequence[Move], rng: random.Random) -> Move:
    return moves[int(rng.random() * len(moves))] if len(moves) > 1 else moves[0]


def heaviest_first(moves: Sequence[Move], rng: random.Random) -> Move:
    """"Bota gorda": get rid of the heaviest tile while you can."""
    return max(moves, key=lambda m: (m.kind == "play", PIPS[m.tile], HIGH[m.tile], m.end in (LEFT, None)))


SIMPLE = {"random": random_move, "greedy": heaviest_first}
