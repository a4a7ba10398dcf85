"""Whole matches of any rule family between simple bots, written as domino-record/1.

Deterministic for a given seed (the seeds below are derived from it and revealed in the
record), so a simulated record is a reproducible fixture for tests, demos and auditors.
"""

from __future__ import annotations

import hashlib
import random

from services.bots.simple import SIMPLE
from services.match.record import Fairness, MatchRecord, RecordedAction, RecordedRound
from services.rules import fairness
from services.rules.match import apply, current_round, new_match, start_round
from services.rules.moves import legal_moves
from services.rules.registry import family
from services.rules.state import MatchState

MAX_ROUNDS = 1000  # a run of tied rounds this long does not happen, but a loop must end


def simulated_seeds(seed: int, seats: int) -> tuple[bytes, list[str]]:
    server_seed = hashlib.sha256(f"domino-simulate:{seed}".encode()).digest()
    client_seeds = [f"simulated-seat-{s}:{seed}" for s in range(seats)]
    return server_seed, client_seeds


def simulate(variant: str | None, seed: int, teams: bool | None = None, target: int | None = None,
             strategies: tuple[str, ...] = ("greedy",), rules: str = "egyptian", seats: int | None = None,
             options: dict | None = None) -> tuple[MatchRecord, MatchState]:
    """A whole match of any family (``rules``), its seats played by ``strategies`` in turn."""
    named = family(rules)
    ruleset = named.build(variant, seats, teams, options)
    match = new_match(ruleset, target)
    server_seed, client_seeds = simulated_seeds(seed, ruleset.seats)
    choosers = [SIMPLE[strategies[s % len(strategies)]] for s in range(ruleset.seats)]
    rng = random.Random(seed)
    record = MatchRecord(
        rules, variant or None, ruleset.teams, match.target,
        [f"bot:{strategies[s % len(strategies)]}:{s}" for s in range(ruleset.seats)],
        fairness=Fairness(fairness.commitment(server_seed), server_seed.hex(), client_seeds),
        options=named.played_options(ruleset),
    )
    writes_leaders = named.record.leaders
    while not match.over and len(record.rounds) < MAX_ROUNDS:
        deal = fairness.fair_deal(ruleset, server_seed, client_seeds, len(record.rounds))
        match = start_round(match, deal)
        dealt = current_round(match)
        redealt = dealt.outcome == "redeal"
        played = RecordedRound(deal._replace(chance=-1), leader=dealt.leader if writes_leaders else None,
                               redeal=True if redealt else None)
        record.rounds.append(played)
        while current_round(match).outcome is None:
            rnd = current_round(match)
            seat = rnd.turn
            move = choosers[seat](legal_moves(rnd), rng)
            drawn = rnd.boneyard[rnd.drawn] if move.kind == "draw" else -1
            played.actions.append(RecordedAction(seat, move, drawn))
            match = apply(match, move)
    return record, match
