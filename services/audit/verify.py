"""Replays a match record through the rules engine and says what it found (docs/record.md).

The verifier trusts nothing in the record: it re-deals from the written hands, re-derives
them (and any leader drawn by chance) from the revealed seeds when there are any, checks
each round's written leader and redeal mark against the rules, replays every action
through the same engine the match service runs, and stops at the first fault.

A player's export hides what the seat could not see; seat_export.py fills it in from the
revealed seeds, and what stays hidden is listed as not checked (``Verdict.unchecked``)
rather than taken as a fault. Positions are kept as indices; the report names rounds from
1, as players number them.
"""

from __future__ import annotations

import dataclasses
import hmac
from dataclasses import dataclass, field
from typing import Any

from services.match.heads import Head, PublishedKeys
from services.match.record import MatchRecord, RecordedAction, RecordedRound

from .evidence import Evidence, examine
from .seat_export import hidden_from, reveal, with_undrawn_boneyard
from services.rules import fairness
from services.rules.autoplay import timeout_move
from services.rules.errors import BadDeal, NotYourTurn, RulesError, TileDoesNotFit
from services.rules.registry import family
from services.rules.match import apply, current_round, leads_by_chance, new_match, start_round
from services.rules.moves import END_NAMES
from services.rules.state import MatchState, RoundResult
from services.rules.tiles import NAMES


@dataclass
class Fault:
    round: int | None  # None: the record as a whole (its chain, its heads)
    action: int | None
    message: str


@dataclass
class Verdict:
    match: MatchState  # as far as the record was replayed
    fault: Fault | None = None
    abandoned: bool = False  # the record says the match was abandoned
    leaders: list[int] = field(default_factory=list)  # who led each round
    events: int = 0  # actions replayed
    evidence: Evidence | None = None  # the chain and heads, when the record has a chain or heads were given
    unchecked: list[str] = field(default_factory=list)  # what a player's export hid and the verifier could not check
    not_replayed: int | None = None  # the first round not replayed, its hands being hidden

    @property
    def valid(self) -> bool:
        return self.fault is None and (self.evidence is None or self.evidence.ok)

    @property
    def scores(self) -> tuple[int, ...]:
        """The totals after the last ended round: points an All Fives play scores in a round
        that has not ended yet are not counted (docs/record.md)."""
        m = self.match
        return m.results[-1].scores if m.results else (0,) * len(m.scores)

    @property
    def complete(self) -> bool:
        if self.not_replayed is not None:
            return False
        rnd = self.match.round
        return rnd is None or rnd.outcome is not None

    def to_json(self) -> dict[str, Any]:
        out = self._rules_json()
        if self.evidence is not None:
            out.update(self.evidence.to_json())
        return out

    def _rules_json(self) -> dict[str, Any]:
        fault = self.fault
        if fault is None and self.evidence is not None:
            first = self.evidence.first_fault()
            if first is not None:
                fault = Fault(*first)
        if fault is not None:
            f = fault
            return {"valid": False, "error": {"round": None if f.round is None else f.round + 1,  # from 1
                                              "action": f.action, "message": f.message}}
        m = self.match
        out: dict[str, Any] = {"valid": True, "complete": self.complete,
                               "rounds": [round_json(m.rules.family, r) for r in m.results],
                               "scores": list(self.scores), "winner": m.winner if m.over else None}
        if m.over:
            out.update(m.rules.kind.match_json(m.goats))
        if self.abandoned:
            out["abandoned"] = True
        if self.unchecked:
            out["unchecked"] = list(self.unchecked)
        return out


def round_json(rules: str, result: RoundResult) -> dict[str, Any]:
    """A round as `--json` shows it: the common fields, then its family's (``round_columns``)."""
    return {"reason": result.reason, "winner": result.winner, "points": result.points,
            "scores": list(result.scores), **family(rules).round_json(result)}


class _Stop(Exception):
    def __init__(self, fault: Fault) -> None:
        self.fault = fault


def verify(record: MatchRecord, keys: PublishedKeys | None = None, heads: list[Head] | None = None) -> Verdict:
    """The record replayed; with a chain in it, or ``keys`` or kept ``heads`` given, also
    whether it is the log that was played (evidence.py). A player's export is first filled
    in from its revealed seeds (seat_export.py)."""
    record = reveal(record)
    verdict = Verdict(new_match(record.rule_set(), record.target), abandoned=record.abandoned)
    try:
        _replay(record, verdict)
    except _Stop as stop:
        verdict.fault = stop.fault
    if record.chain is not None or keys is not None or heads is not None:
        verdict.evidence = examine(record, keys, heads)
    return verdict


def _replay(record: MatchRecord, verdict: Verdict) -> None:
    match = verdict.match
    seed = _revealed_seed(record)
    if record.viewer_seat is not None and seed is None:
        verdict.unchecked.append("the deals were not compared with the seeds: the server seed is revealed when "
                                 "the match ends")
    for r, rnd in enumerate(record.rounds):
        if match.over:
            raise _Stop(Fault(r, None, "the match had already ended; no round may follow"))
        if match.round is not None and match.round.outcome is None:
            raise _Stop(Fault(r - 1, None, "the round stops before its end, but another round follows"))
        if rnd.deal_hidden and not rnd.stray:
            shown = _shown_deal(rnd, r, seed, match, record)
            if shown is None:  # hands hidden: nothing of this round can be replayed
                verdict.not_replayed = r
                verdict.unchecked.append(f"round {r + 1} hides {hidden_from(rnd)} from seat {record.viewer_seat} "
                                         f"until it ends, so its {len(rnd.actions)} actions were not replayed")
                return
            rnd = shown
        match = _deal(match, rnd, r, seed, record)
        verdict.leaders.append(current_round(match).leader)
        verdict.match = match
        for a, action in enumerate(rnd.actions):
            match = _replay_action(match, action, r, a)
            verdict.match = match
            verdict.events += 1
    if record.abandoned and match.over:
        raise _Stop(Fault(len(record.rounds) - 1, None, "a match that ended by the rules was not abandoned"))


def _shown_deal(rnd: RecordedRound, r: int, seed: bytes | None, match: MatchState,
                record: MatchRecord) -> RecordedRound | None:
    """A round of a player's export whose deal is partly hidden and was not filled from
    the seeds: with only its boneyard counted, the round as it replays; None when hands
    are hidden. Hidden parts only the round in play has, so no round may follow one."""
    if seed is not None:  # the seeds give every deal: what they could not fill is the export's fault
        raise _Stop(Fault(r, None, "the deal is not the one the revealed seeds give"))
    deal = with_undrawn_boneyard(rnd)
    if deal is None:
        if r + 1 < len(record.rounds):
            raise _Stop(Fault(r, None, f"this round hides {hidden_from(rnd)}, which only the round in play may do, "
                                       "but another round follows"))
        return None
    undealt = match.rules.undealt
    if rnd.boneyard_count != undealt:
        raise _Stop(Fault(r, None, f"bad deal: this export counts {rnd.boneyard_count} tiles in the boneyard; "
                                   f"{match.rules.name} leaves {undealt} there"))
    return dataclasses.replace(rnd, deal=deal, boneyard_count=None)


def _deal(match: MatchState, rnd: RecordedRound, r: int, seed: bytes | None, record: MatchRecord) -> MatchState:
    """Start round ``r`` as written, checking its deal, its leader and its redeal mark."""
    rules = match.rules
    _check_written_hands(rnd, r)
    if rnd.stray:
        raise _Stop(Fault(r, None, f"bad deal: {rnd.stray}"))
    by_chance = leads_by_chance(match)
    if by_chance and rnd.leader is None:
        raise _Stop(Fault(r, None, "this round's leader is drawn by chance, so the record must name it ('leader')"))
    if seed is not None and record.fairness is not None:  # a seed is revealed in the record's fairness
        expected = fairness.fair_deal(rules, seed, record.fairness.client_seeds, r)
        if expected._replace(chance=-1) != rnd.deal:
            raise _Stop(Fault(r, None, "the deal is not the one the revealed seeds give"))
        if by_chance and expected.chance != rnd.leader:
            raise _Stop(Fault(r, None, f"the revealed seeds draw seat {expected.chance} to lead, not seat {rnd.leader}"))
    chance = rnd.leader if by_chance and rnd.leader is not None else -1  # by chance, a leader is written
    try:
        match = start_round(match, rnd.deal._replace(chance=chance))
    except RulesError as e:
        raise _Stop(Fault(r, None, f"bad deal: {e}")) from None
    dealt = current_round(match)
    leader = dealt.leader
    if rnd.leader is not None and rnd.leader != leader:
        raise _Stop(Fault(r, None, f"the rules have seat {leader} lead this round, not seat {rnd.leader}"))
    redealt = dealt.outcome == "redeal"
    if redealt and not rnd.redeal:
        raise _Stop(Fault(r, None, "this deal must be redealt (a hand with five or more doubles, or six or more "
                                   "tiles showing one number), so the round must be marked 'redeal'"))
    if rnd.redeal and not redealt:
        raise _Stop(Fault(r, None, "this round is marked 'redeal', but the rules do not redeal this deal"))
    if redealt and rnd.actions:
        raise _Stop(Fault(r, 0, "a redealt round has no actions"))
    return match


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


def _replay_action(match: MatchState, action: RecordedAction, r: int, a: int) -> MatchState:
    rnd = current_round(match)
    try:
        if rnd.outcome is not None:
            raise RulesError(f"the round had already ended ({rnd.outcome}); no action may follow")
        if action.seat != rnd.turn:
            raise NotYourTurn(f"it is seat {rnd.turn}'s turn, not seat {action.seat}'s")
        if action.unknown_end is not None:
            ends = END_NAMES if rnd.four_ends else END_NAMES[:2]
            raise TileDoesNotFit(f"{action.unknown_end!r} is not an end of this line ({', '.join(ends)})")
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
