"""Replays a match record through the rules engine and says what it found (RECORD.md).

The verifier trusts nothing in the record: it re-deals from the written hands, re-derives
them from the revealed seeds when there are any, replays every action through the same
engine the match service runs, and stops at the first action the rules refuse.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass, field

from services.match.record import MatchRecord, RecordedRound
from services.match.rules import fairness
from services.match.rules.autoplay import timeout_move
from services.match.rules.errors import BadDeal, NotYourTurn, RulesError
from services.match.rules.match import apply, new_match, start_round
from services.match.rules.state import Match
from services.match.rules.tiles import NAMES


@dataclass
class Fault:
    round: int
    action: int | None
    message: str


@dataclass
class Verdict:
    match: Match | None = None
    fault: Fault | None = None
    leaders: list[int] = field(default_factory=list)  # who led each round
    events: int = 0  # actions replayed

    @property
    def valid(self) -> bool:
        return self.fault is None

    @property
    def complete(self) -> bool:
        m = self.match
        return m is None or m.round is None or m.round.outcome is not None

    def to_json(self) -> dict:
        if self.fault is not None:
            f = self.fault
            return {"valid": False, "error": {"round": f.round, "action": f.action, "message": f.message}}
        m = self.match
        rounds = [
            {"reason": r.reason, "winner": r.winner, "points": r.points, "scores": list(r.scores)} for r in m.results
        ]
        return {"valid": True, "complete": self.complete, "rounds": rounds, "scores": list(m.scores), "winner": m.winner}


class _Stop(Exception):
    def __init__(self, fault: Fault) -> None:
        self.fault = fault


def verify(record: MatchRecord) -> Verdict:
    verdict = Verdict()
    try:
        _replay(record, verdict)
    except _Stop as stop:
        verdict.fault = stop.fault
    return verdict


def _replay(record: MatchRecord, verdict: Verdict) -> None:
    rules = record.rule_set()
    match = new_match(rules, record.target)
    verdict.match = match
    seed = _revealed_seed(record)
    for r, rnd in enumerate(record.rounds):
        if match.winner is not None:
            raise _Stop(Fault(r, None, "the match had already ended; no round may follow"))
        if match.round is not None and match.round.outcome is None:
            raise _Stop(Fault(r - 1, None, "the round stops before its end, but another round follows"))
        _check_written_hands(rnd, r)
        if seed is not None:
            expected = fairness.fair_deal(rules, seed, record.fairness.client_seeds, r)
            if expected != rnd.deal:
                raise _Stop(Fault(r, None, "the deal is not the one the revealed seeds give"))
        try:
            match = start_round(match, rnd.deal)
        except RulesError as e:
            raise _Stop(Fault(r, None, f"bad deal: {e}")) from None
        verdict.leaders.append(match.round.turn)
        for a, action in enumerate(rnd.actions):
            match = _replay_action(match, action, r, a)
            verdict.match = match
            verdict.events += 1
        verdict.match = match


def _revealed_seed(record: MatchRecord) -> bytes | None:
    f = record.fairness
    if f is None or f.server_seed is None:
        return None
    seed = bytes.fromhex(f.server_seed)
    if not hmac.compare_digest(fairness.commitment(seed), f.commitment.lower()):
        raise _Stop(Fault(0, None, "the revealed server seed does not match its commitment"))
    return seed


def _check_written_hands(rnd: RecordedRound, r: int) -> None:
    for seat, hand in enumerate(rnd.hand_order or ()):
        if len(set(hand)) != len(hand):
            raise _Stop(Fault(r, None, f"bad deal: seat {seat}'s hand lists a tile twice"))


def _replay_action(match: Match, action, r: int, a: int) -> Match:
    rnd = match.round
    try:
        if rnd.outcome is not None:
            raise RulesError(f"the round had already ended ({rnd.outcome}); no action may follow")
        if action.seat != rnd.turn:
            raise NotYourTurn(f"it is seat {rnd.turn}'s turn, not seat {action.seat}'s")
        move = action.move
        after = apply(match, move)
        if move.kind == "draw" and action.drawn != rnd.boneyard[rnd.drawn]:
            raise BadDeal(
                f"seat {rnd.turn} drew {NAMES[action.drawn]}, but the next boneyard tile is {NAMES[rnd.boneyard[rnd.drawn]]}"
            )
        if action.timeout and move != timeout_move(rnd):
            raise RulesError(f"a timed-out turn is played by the server as {timeout_move(rnd)}, not {move}")
        return after
    except RulesError as e:
        raise _Stop(Fault(r, a, str(e))) from None
