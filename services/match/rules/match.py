"""A match: rounds dealt one after another until a side reaches the target (RULES.md §1.5).

Dealing needs a seed, which the engine never invents: the caller passes each round's Deal
to ``start_round`` (see ``fairness``), and ``apply`` plays one move of the round in play.
"""

from __future__ import annotations

from .errors import BadDeal, MatchOver, RulesError
from .moves import Move
from .rulesets import RuleSet, check_target
from .state import Deal, Match, Round, RoundResult
from .tiles import ALL_TILES, NAMES
from .turns import take_turn


def new_match(rules: RuleSet, target: int | None = None) -> Match:
    target = rules.default_target if target is None else target
    check_target(rules, target)
    return Match(rules, target, (0,) * rules.sides, (), None, None, None)


def check_deal(rules: RuleSet, deal: Deal) -> None:
    """The deal holds each of the 28 tiles once, in the variant's shape."""
    hands = deal.hands
    if len(hands) != rules.seats:
        raise BadDeal(f"{rules.variant} deals {rules.seats} hands, not {len(hands)}")
    dealt = 0
    for hand in hands:
        dealt |= hand
    sizes = [hand.bit_count() for hand in hands]
    if sizes.count(rules.hand_size) != rules.seats:
        seat = next(s for s, size in enumerate(sizes) if size != rules.hand_size)
        raise BadDeal(f"seat {seat} was dealt {sizes[seat]} tiles; {rules.variant} deals {rules.hand_size}")
    if dealt.bit_count() != rules.seats * rules.hand_size:
        raise BadDeal("a tile was dealt twice")
    if rules.draws:
        if deal.set_aside >= 0:
            raise BadDeal(f"{rules.variant} sets no tile aside")
        undealt = deal.boneyard
    else:
        if deal.boneyard:
            raise BadDeal(f"{rules.variant} has no boneyard")
        undealt = () if deal.set_aside < 0 else (deal.set_aside,)
    for t in undealt:
        if dealt >> t & 1:
            raise BadDeal(f"{NAMES[t]} is dealt twice")
        dealt |= 1 << t
    if dealt != ALL_TILES or len(undealt) != rules.undealt:
        raise BadDeal("the deal does not hold each of the 28 tiles exactly once")


def start_round(match: Match, deal: Deal) -> Match:
    if match.winner is not None:
        raise MatchOver("the match is over; no more rounds are dealt")
    if match.round is not None and match.round.outcome is None:
        raise RulesError("the current round has not ended")
    rules = match.rules
    check_deal(rules, deal)
    if match.next_leader is None:
        leader, lead = rules.opening_leader(deal.hands)
    else:
        leader, lead = match.next_leader, -1
    rnd = Round(deal, leader, lead)
    return Match(rules, match.target, match.scores, match.results, rnd, match.next_leader, None)


def apply(match: Match, move: Move, seat: int | None = None) -> Match:
    """Play one move of the round in play; score the round, and maybe the match, if it ends."""
    if match.winner is not None:
        raise MatchOver("the match is over")
    rnd = match.round
    if rnd is None:
        raise RulesError("no round has been dealt yet")
    rnd = take_turn(rnd, move, seat)
    if rnd.outcome is None:
        return Match(match.rules, match.target, match.scores, match.results, rnd, match.next_leader, None)
    return _end_round(match, rnd)


def _end_round(match: Match, rnd: Round) -> Match:
    rules = match.rules
    last_seat = rnd.last_seat
    reason = rnd.outcome or ""
    winner, points = rules.score_round(rules, reason, last_seat, rnd.hands)
    scores = match.scores
    if winner is not None:
        scores = scores[:winner] + (scores[winner] + points,) + scores[winner + 1 :]
    result = RoundResult(reason, winner, points, scores, last_seat, tuple(rnd.hands))
    next_leader = rules.next_leader(rules, reason, winner, last_seat, rnd.hands)
    match_winner = winner if winner is not None and scores[winner] >= match.target else None
    return Match(rules, match.target, scores, match.results + (result,), rnd, next_leader, match_winner)
