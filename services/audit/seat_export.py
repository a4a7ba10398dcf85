"""A player's export (`viewer_seat`, docs/record.md "Who sees what in an export"): what it
hides, filled in where the revealed seeds give it, and what is left unknown otherwise.

A player's export never names a tile its seat could not see: the boneyard is a count in
every round, and in the round in play the other hands are counts, their draws name no tile
and block-3's set-aside tile is null. Once the match has ended the server seed is revealed,
and the seeds alone give every deal (rules/fairness.py), so every hidden part can be filled
in: the verifier then replays the export as a whole record, and the chain recomputed from
it must be the one the match service signed in the export's head. Before the end only the
deal's hidden parts can be left as they are: a round whose hands are all shown still
replays (its boneyard is the draws in their order, then the tiles nobody drew), and a round
with hidden hands is reported as not checked.
"""

from __future__ import annotations

import dataclasses
import hmac

from services.match.record import MatchRecord, RecordedRound
from services.rules import fairness
from services.rules.state import Deal
from services.rules.tiles import ALL_TILES, mask_of, tiles_in


def revealed_seed(record: MatchRecord) -> bytes | None:
    """The server seed, when the record reveals one that matches its commitment."""
    f = record.fairness
    if f is None or f.server_seed is None:
        return None
    seed = bytes.fromhex(f.server_seed)
    return seed if hmac.compare_digest(fairness.commitment(seed), f.commitment.lower()) else None


def reveal(record: MatchRecord) -> MatchRecord:
    """The record with every hidden part filled from the revealed seeds; the record itself
    when nothing is hidden or no seed is revealed. A round whose counts disagree with the
    seeds stays hidden, with the disagreement as its fault (``stray``); the parts it shows
    are kept as written, so the replay compares them with the seeds' deal."""
    if not any(rnd.hidden for rnd in record.rounds):
        return record
    seed = revealed_seed(record)
    if seed is None:
        return record
    assert record.fairness is not None  # a seed is revealed in it
    rules = record.rule_set()
    rounds = [_filled(rnd, fairness.fair_deal(rules, seed, record.fairness.client_seeds, r)._replace(chance=-1))
              if rnd.hidden else rnd for r, rnd in enumerate(record.rounds)]
    return dataclasses.replace(record, rounds=rounds)


def _filled(rnd: RecordedRound, dealt: Deal) -> RecordedRound:
    hands = list(rnd.deal.hands)
    order = list(rnd.hand_order or ())
    if len(hands) != len(dealt.hands) or len(order) != len(hands):
        return rnd  # the replay names the wrong number of hands
    for seat, count in rnd.hidden_hands.items():
        if dealt.hands[seat].bit_count() != count:
            return _mismatch(rnd, f"this export counts {count} tiles in seat {seat}'s hand, but the revealed seeds "
                                  f"deal it {dealt.hands[seat].bit_count()}")
        hands[seat] = dealt.hands[seat]
        order[seat] = tuple(tiles_in(dealt.hands[seat]))
    boneyard = rnd.deal.boneyard
    if rnd.boneyard_count is not None:
        if rnd.boneyard_count != len(dealt.boneyard):
            return _mismatch(rnd, f"this export counts {rnd.boneyard_count} tiles in the boneyard, but the revealed "
                                  f"seeds leave {len(dealt.boneyard)} there")
        boneyard = dealt.boneyard
    set_aside = dealt.set_aside if rnd.set_aside_hidden else rnd.deal.set_aside
    drawn = 0
    actions = []
    for action in rnd.actions:
        if action.move.kind == "draw":
            if action.drawn < 0 and drawn < len(boneyard):  # beyond the boneyard: the replay refuses the draw
                action = dataclasses.replace(action, drawn=boneyard[drawn])
            drawn += 1
        actions.append(action)
    return dataclasses.replace(rnd, deal=Deal(tuple(hands), tuple(boneyard), set_aside), hand_order=tuple(order),
                               actions=actions, hidden_hands={}, boneyard_count=None, set_aside_hidden=False)


def _mismatch(rnd: RecordedRound, message: str) -> RecordedRound:
    return dataclasses.replace(rnd, stray=rnd.stray or message)


def with_undrawn_boneyard(rnd: RecordedRound) -> Deal | None:
    """Before the seed is revealed, the deal of a round whose hands are all shown and whose
    boneyard is a count: the boneyard is the tiles drawn, in their order, then the tiles
    nobody drew (in which order does not matter: they never come into play). None when more
    is hidden than the boneyard."""
    if rnd.hidden_hands or rnd.set_aside_hidden or any(a.move.kind == "draw" and a.drawn < 0 for a in rnd.actions):
        return None
    draws = [a.drawn for a in rnd.actions if a.move.kind == "draw"]
    known = 0
    for hand in rnd.deal.hands:
        known |= hand
    if rnd.deal.set_aside >= 0:
        known |= 1 << rnd.deal.set_aside
    rest = tiles_in(ALL_TILES & ~known & ~mask_of(draws))
    return rnd.deal._replace(boneyard=tuple(draws) + tuple(rest))


def hidden_from(rnd: RecordedRound) -> str:
    """What a round hides, for a person: "seats 1 and 2's hands"."""
    seats = sorted(rnd.hidden_hands)
    parts = []
    if seats:
        several = len(seats) > 1
        names = ", ".join(map(str, seats[:-1])) + (" and " if several else "") + str(seats[-1])
        parts.append(f"seat{'s' if several else ''} {names}'s hand{'s' if several else ''}")
    if any(a.move.kind == "draw" and a.drawn < 0 for a in rnd.actions):
        parts.append("other seats' draws")
    if rnd.set_aside_hidden:
        parts.append("the set-aside tile")
    return " and ".join(parts) or "part of its deal"
