"""The strong bot: determinized Monte Carlo search over the tiles its seat cannot see.

It reads the seat's ``PlayerView`` and nothing else. For each decision with a choice:

1. **What is known.** ``Knowledge.from_view`` turns the public history into hard
   constraints on the unseen tiles: tiles played, every seat's tile count, the numbers a
   seat was shown to lack by a pass or a draw, the forced round-1 lead, the boneyard
   (draw-2, order unknown) or the set-aside tile (block-3); it then samples deals
   *uniformly* among all that satisfy them (exact, via a counting table).
2. **What is likely.** With ``model_eps`` > 0 it draws ``oversample`` times more such
   deals and keeps ``samples`` of them in proportion to how likely each makes the other
   seats' past free choices under the rollout policy (play the heaviest fitting tile, or
   any fitting tile with probability ``model_eps``): a deal in which a seat passed over a
   heavier tile it could have played is less likely than one in which it could not.
3. **Search.** In every kept deal (a determinization) the position is rebuilt as an engine
   ``Round``; each candidate move is applied with ``turns.step`` and the round is played
   out on the same engine by every seat with the rollout policy: the heaviest fitting
   tile, or with probability ``eps`` a random fitting tile (draw / pass when nothing
   fits). All candidates share the deal and the rollout's random stream (common random
   numbers), so their difference is the move's, not the luck's.
4. **Value.** A finished rollout is scored for the bot's side (its team in block-4 teams):
   ``±((1 - w) + w * points / point_scale)`` for a win / loss, 0 for a tie, ``w =
   points_weight``: winning the round and the points it carries both count. The candidate
   with the best mean is played.

Budget: ``samples`` determinizations (a fixed count, so a seeded rng gives the same move)
capped at ``max_rollouts`` rollouts per decision (fewer determinizations for a choice of
many moves); the wall-clock ``deadline`` is only a safety net on a loaded machine. A
forced move (one legal move) is returned at once, without searching.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

from services.match.rules.moves import DRAW, OPEN, PASS, PLAY_LEFT, PLAY_RIGHT, Move
from services.match.rules.tiles import BIT_TILE, HIGH, MATCHES, PIPS, TILE_COUNT
from services.match.rules.turns import step

from .knowledge import Knowledge, play_evidence, round_from_view

# Tiles, heaviest first (pip sum, then the higher pip): the greedy order.
_HEAVY_BITS = tuple(1 << t for t in sorted(range(TILE_COUNT), key=lambda t: (PIPS[t], HIGH[t]), reverse=True))
_heaviest_cache: dict[int, int] = {}


def heaviest(fit: int) -> int:
    """The greedy choice among the tiles in the mask ``fit``: highest pip sum, then higher pip."""
    got = _heaviest_cache.get(fit)
    if got is not None:
        return got
    t = -1
    for b in _HEAVY_BITS:
        if fit & b:
            t = BIT_TILE[b]
            break
    if len(_heaviest_cache) < 1 << 16:
        _heaviest_cache[fit] = t
    return t


def rollout(rnd, rand, eps: float) -> None:
    """Play ``rnd`` to its end in place with ``turns.step``: each seat plays its heaviest
    fitting tile (on the left end if it fits both), or with probability ``eps`` a random
    fitting tile; it draws or passes when nothing fits."""
    hands = rnd.hands
    boneyard = rnd.boneyard
    if rnd.outcome is None and rnd.left < 0:  # the round's first play: the lead, or any tile
        step(rnd, OPEN[rnd.lead if rnd.lead >= 0 else heaviest(hands[rnd.turn])])
    while rnd.outcome is None:
        hand = hands[rnd.turn]
        ml = MATCHES[rnd.left]
        fit = hand & (ml | MATCHES[rnd.right])
        if not fit:
            step(rnd, DRAW if rnd.drawn < len(boneyard) else PASS)
            continue
        if fit & (fit - 1) and rand() < eps:
            k = int(rand() * fit.bit_count())
            while k:
                fit &= fit - 1
                k -= 1
            t = BIT_TILE[fit & -fit]
        else:
            t = heaviest(fit)
        step(rnd, PLAY_LEFT[t] if ml >> t & 1 else PLAY_RIGHT[t])


@dataclass
class StrongConfig:
    samples: int = 256  # determinizations per decision
    max_rollouts: int = 1000  # fewer determinizations when samples * moves would exceed this
    eps: float = 0.2  # rollout noise: a random fitting tile instead of the heaviest
    model_eps: float = 0.3  # weigh deals by the seen plays under noisy greedy; 0: uniform deals
    oversample: int = 4  # deals drawn per deal kept, when weighing
    points_weight: float = 0.5  # value = (1 - w) * win/loss sign + w * points / point_scale
    point_scale: float = 40.0
    deadline: float | None = 0.15  # seconds of wall clock, a safety net; None: no cap


class StrongBot:
    """``choose(view, rng) -> Move``; stateless, so one instance may serve every seat."""

    name = "strong"

    def __init__(self, config: StrongConfig | None = None, **kw) -> None:
        self.config = config or StrongConfig(**kw)

    def __call__(self, view, rng: random.Random) -> Move:
        return self.choose(view, rng)

    def choose(self, view, rng: random.Random) -> Move:
        moves = view.legal_moves
        if len(moves) == 1:
            return moves[0]
        if not moves:
            raise ValueError("it is not this seat's turn")
        cfg = self.config
        deadline = None if cfg.deadline is None else time.perf_counter() + cfg.deadline
        rules = view.rules
        side = rules.side_of(view.seat)
        score_round = rules.score_round
        know = Knowledge.from_view(view)
        totals = [0.0] * len(moves)
        wsign = 1.0 - cfg.points_weight
        wpts = cfg.points_weight / cfg.point_scale
        eps = cfg.eps
        roll_rng = random.Random()
        for hands, boneyard, aside in self.determinizations(view, know, rng):
            base = round_from_view(view, hands, boneyard, aside)
            seed = rng.getrandbits(64)
            for j, m in enumerate(moves):
                r = base.copy()
                step(r, m)
                roll_rng.seed(seed)
                rollout(r, roll_rng.random, eps)
                winner, points = score_round(rules, r.outcome, r.history[1], r.hands)
                if winner is not None:
                    u = wsign + wpts * points
                    totals[j] += u if winner == side else -u
            if deadline is not None and time.perf_counter() > deadline:
                break
        best = max(range(len(moves)), key=lambda j: (totals[j], -j))
        return moves[best]

    def determinizations(self, view, know: Knowledge, rng: random.Random) -> list:
        """Deals ``(hands, boneyard, set-aside)`` to search, consistent with the view."""
        cfg = self.config
        n = max(8, min(cfg.samples, cfg.max_rollouts // len(view.legal_moves)))
        evidence = play_evidence(view) if cfg.model_eps > 0 else None
        if not evidence:
            return [know.sample_deal(rng) for _ in range(n)]
        pool = [know.sample_deal(rng) for _ in range(n * cfg.oversample)]
        me = cfg.model_eps
        keep = 1.0 - me
        weights = []
        for hands, _, _ in pool:
            w = 1.0
            for seat, t, fits, later in evidence:
                f = (hands[seat] | later) & fits  # what that seat could play then
                k = f.bit_count()
                if k > 1:
                    w *= me / k + (keep if heaviest(f) == t else 0.0)
            weights.append(w)
        # systematic resampling: n deals, each kept about n * weight / total times
        spacing = sum(weights) / n
        u = rng.random() * spacing
        out = []
        acc = 0.0
        i = -1
        last = len(pool) - 1
        for _ in range(n):
            while acc <= u and i < last:
                i += 1
                acc += weights[i]
            out.append(pool[i])
            u += spacing
        return out
