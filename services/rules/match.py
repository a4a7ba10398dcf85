"""A match: rounds dealt one after another until the rule set's match end (docs/rules.md).

Dealing needs a seed, which the engine never invents: the caller passes each round's Deal
to ``start_round`` (see ``fairness``), and ``apply`` plays one move of the round in play.
"""

from __future__ import annotations

from .errors import BadDeal, MatchOver, RulesError
from .moves import Move
from .family import RuleSet, check_target
from .spinner import SpinnerRound
from .state import Accounts, Deal, MatchState, Round, RoundResult
from .tiles import ALL_TILES, NAMES
from .turns import take_turn


def new_match(rules: RuleSet, target: int | None = None) -> MatchState:
    target = rules.default_target if target is None else target
    check_target(rules, target)
    sides = rules.sides
    accounts = Accounts((0,) * sides, (False,) * sides) if rules.tally is not None else None
    return MatchState(rules, target, (0,) * sides, (), None, None, None, False, accounts)


def check_deal(rules: RuleSet, deal: Deal) -> None:
    """The deal holds each of the 28 tiles once, in the rule set's shape."""
    hands = deal.hands
    if len(hands) != rules.seats:
        raise BadDeal(f"{rules.name} deals {rules.seats} hands, not {len(hands)}")
    dealt = 0
    for hand in hands:
        dealt |= hand
    sizes = [hand.bit_count() for hand in hands]
    if sizes.count(rules.hand_size) != rules.seats:
        seat = next(s for s, size in enumerate(sizes) if size != rules.hand_size)
        raise BadDeal(f"seat {seat} was dealt {sizes[seat]} tiles; {rules.name} deals {rules.hand_size}")
    if dealt.bit_count() != rules.seats * rules.hand_size:
        raise BadDeal("a tile was dealt twice")
    if rules.draws:
        if deal.set_aside >= 0:
            raise BadDeal(f"{rules.name} sets no tile aside")
        undealt = deal.boneyard
    else:
        if deal.boneyard:
            raise BadDeal(f"{rules.name} has no boneyard")
        undealt = () if deal.set_aside < 0 else (deal.set_aside,)
    for t in undealt:
        if dealt >> t & 1:
            raise BadDeal(f"{NAMES[t]} is dealt twice")
        dealt |= 1 << t
    if dealt != ALL_TILES or len(undealt) != rules.undealt:
        raise BadDeal("the deal does not hold each of the 28 tiles exactly once")


# Why the round in play is led by its leader (``round_lead``).
ROUND_ONE_RULE = "round_one_rule"  # round 1: the holder of the tile the rules name, with it
AFTER_A_TIE = "after_a_tie"  # led as round 1 is, because the last round played to its end was tied
TOOK_THE_LAST_ROUND = "took_the_last_round"  # the seat (or its side) took the last round: any tile
BY_CHANCE = "by_chance"  # round 1 of a family whose leader is drawn by chance: any tile


def round_lead(match: MatchState) -> tuple[int, str] | None:
    """(the seat that leads the round in play, why), from the rules that chose it: the
    family's next leader after the last round (kept in the state while the round is played;
    a redeal keeps it too), else round 1's rule, again after a tied round, which a family
    that draws round 1's leader by chance draws again (its reason then still says the tie).
    None while no round is in play."""
    rnd = match.round
    if rnd is None or rnd.outcome is not None:
        return None
    if match.next_leader is not None:
        return rnd.leader, TOOK_THE_LAST_ROUND
    if any(result.reason != "redeal" for result in match.results):
        return rnd.leader, AFTER_A_TIE
    return rnd.leader, BY_CHANCE if match.rules.chance else ROUND_ONE_RULE


def leads_by_chance(match: MatchState) -> bool:
    """Whether the next round's leader is the seat the deal draws by chance."""
    return match.rules.chance and match.next_leader is None


def start_round(match: MatchState, deal: Deal) -> MatchState:
    if match.over:
        raise MatchOver("the match is over; no more rounds are dealt")
    if match.round is not None and match.round.outcome is None:
        raise RulesError("the current round has not ended")
    rules = match.rules
    check_deal(rules, deal)
    if match.next_leader is None:
        if rules.chance and not 0 <= deal.chance < rules.seats:
            raise BadDeal(f"this round's leader is drawn by chance: the deal must name a seat from 0 to {rules.seats - 1}")
        leader, lead = rules.kind.opening_leader(rules, deal)
    else:
        leader, lead = match.next_leader, -1
    if rules.four_ends:
        rnd: Round = SpinnerRound(deal, leader, lead, rules.barred, _seat_sides(rules))
    else:
        rnd = Round(deal, leader, lead, rules.barred)
    if rules.redeal is not None and rules.redeal(deal.hands):
        return _redealt(match, rnd)
    return MatchState(rules, match.target, match.scores, match.results, rnd, match.next_leader, None, False,
                 match.accounts)


def _seat_sides(rules: RuleSet) -> tuple[int, ...]:
    """The side each seat scores for, built once per seat count and team setting."""
    shape = (rules.seats, rules.teams)
    sides = _SEAT_SIDES.get(shape)
    if sides is None:
        sides = _SEAT_SIDES[shape] = tuple(map(rules.side_of, range(rules.seats)))
    return sides


_SEAT_SIDES: dict[tuple[int, bool], tuple[int, ...]] = {}


def _redealt(match: MatchState, rnd: Round) -> MatchState:
    """A deal the rules throw in (Goat's redeal): the round ends at once and nothing
    changes but the count of rounds; the next deal is led as this one would have been."""
    rnd.outcome = "redeal"
    rules = match.rules
    accounts = match.accounts
    extras = None if rules.round_extras is None else rules.round_extras(rnd, (0,) * rules.sides, accounts)
    result = RoundResult("redeal", None, 0, match.scores, -1, tuple(rnd.hands), extras)
    return MatchState(rules, match.target, match.scores, match.results + (result,), rnd, match.next_leader, None,
                      False, accounts)


def current_round(match: MatchState) -> Round:
    """The round dealt last, in play or ended; RulesError before the first deal."""
    if match.round is None:
        raise RulesError("no round has been dealt yet")
    return match.round


def apply(match: MatchState, move: Move, seat: int | None = None) -> MatchState:
    """Play one move of the round in play; score the play, the round and maybe the match."""
    if match.over:
        raise MatchOver("the match is over")
    before = current_round(match)
    rnd = take_turn(before, move, seat)
    scores = match.scores
    if len(rnd.play_points) != len(before.play_points):
        _, side, points = rnd.play_points[-1]
        scores = scores[:side] + (scores[side] + points,) + scores[side + 1 :]
    if rnd.outcome is None:
        return MatchState(match.rules, match.target, scores, match.results, rnd, match.next_leader, None, False,
                          match.accounts)
    return _end_round(match, rnd, scores)


def _end_round(match: MatchState, rnd: Round, scores: tuple[int, ...]) -> MatchState:
    rules = match.rules
    kind = rules.kind
    last_seat = rnd.last_seat
    reason = rnd.outcome or ""
    accounts = match.accounts
    written: tuple[int, ...] = ()
    winner: int | None
    if rules.tally is not None:
        written, accounts = rules.tally(rules, reason, last_seat, rnd.hands, accounts)
        winner, points = rules.side_of(last_seat), sum(written)
        scores = tuple(s + w for s, w in zip(scores, written))
    else:
        winner, points = kind.score_round(rules, reason, last_seat, rnd.hands)
        if winner is not None:
            scores = scores[:winner] + (scores[winner] + points,) + scores[winner + 1 :]
    extras = None if rules.round_extras is None else rules.round_extras(rnd, written, accounts)
    result = RoundResult(reason, winner, points, scores, last_seat, tuple(rnd.hands), extras)
    next_leader = kind.next_leader(rules, reason, winner, last_seat, rnd.hands)
    match_winner, over, goats = kind.match_end(rules, scores, match.target)
    return MatchState(rules, match.target, scores, match.results + (result,), rnd, next_leader, match_winner, over,
                      accounts, goats)
