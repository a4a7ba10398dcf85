"""The pure rules engine: docs/rules.md as values and functions (no I/O, clock or randomness).

Typical use::

    rules = egyptian("block-4")
    m = new_match(rules, target=101)
    m = start_round(m, fair_deal(rules, server_seed, client_seeds, 0))
    m = apply(m, legal_moves(m.round)[0])
"""

from .autoplay import timeout_move
from .errors import RulesError
from .fairness import commitment, fair_deal
from .match import apply, check_deal, new_match, start_round
from .moves import DRAW, LEFT, PASS, RIGHT, Move, legal_moves, play
from .rulesets import RuleSet, egyptian, rule_set
from .state import Deal, MatchState, Round, RoundResult, round_number
from .tiles import NAMES, parse_tile
from .turns import take_turn
from .view import PlayerView, player_view

__all__ = [
    "DRAW", "LEFT", "NAMES", "PASS", "RIGHT", "Deal", "MatchState", "Move", "PlayerView", "Round", "RoundResult",
    "RuleSet", "RulesError", "apply", "check_deal", "commitment", "egyptian", "fair_deal", "legal_moves",
    "new_match", "parse_tile", "play", "player_view", "round_number", "rule_set", "start_round", "take_turn",
    "timeout_move",
]
