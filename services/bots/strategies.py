"""The registry of every bot strategy by name.

``STRATEGIES`` holds the view strategies (``choose(view, rng) -> Move``), which is what bots
and the arena play, one per strength of services.common.bot_strengths (the list
matchmaking, the client and bot ids read): the simple ones (simple.py: ``random``,
``greedy``), ``strong`` (strong.py) and ``expert`` (expert.py). ``SIMPLE`` (the choosers that
see the legal moves only) is simple.py's.
"""

from __future__ import annotations

from services.common import bot_strengths

from .expert import ExpertBot
from .simple import ViewStrategy, from_moves, greedy, random_move
from .strong import StrongBot

STRATEGIES: dict[str, ViewStrategy] = bot_strengths.keyed({
    "random": from_moves(random_move),
    "greedy": greedy,
    "strong": StrongBot(),
    "expert": ExpertBot(),
})
