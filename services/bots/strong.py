"""The strong bot: determinized Monte Carlo search over the tiles its seat cannot see.

It works from the seat's ``PlayerView`` only. Each decision:

1. ``Knowledge.from_view`` turns the public history into constraints on the unseen tiles
   (played tiles, tile counts, voids shown by passes and draws, the forced round-1 lead,
   the boneyard / set-aside tile) and builds an exact uniform sampler over the deals that
   satisfy them;
2. it samples ``samples`` such deals (determinizations); in each it copies the position
   into an engine ``Round`` and, for every candidate move, ``step``s the move and plays
   the round out with the rollout policy on the same pure engine (``turns.step``);
   all candidates share the sample and the rollout's random stream (common random numbers);
3. a rollout scores the round's outcome for the bot's side (its team in block-4 teams):
   a mix of the win/loss sign and the points won or lost;
4. the move with the best mean wins.

The rollout policy is greedy with noise and a little judgement (dump heavy tiles, keep
doubles from getting stuck, prefer ends that leave the mover's own numbers open).

Budget: ``samples`` determinizations (a fixed count, for reproducibility) with a
wall-clock ``deadline`` as a safety net; a forced move returns at once.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

from services.match.rules.moves import DRAW, OPEN, PASS, PLAY_LEFT, PLAY_RIGHT, Move
from services.match.rules.playout import random_playout
from services.match.rules.tiles import BIT_TILE, HIGH, LOW, MATCHES, PIPS, TILE_COUNT
from services.match.rules.turns import step

from .knowledge import Knowledge, play_evidence, round_from_view

# Tiles, heaviest first (pip sum, then the higher pip): the greedy order.
_HEAVY_ORDER = tuple(sorted(range(TILE_COUNT), key=lambda t: (PIPS[t], HIGH[t]), reverse=True))
_HEAVY_BITS = tuple(1 << t for t in _HEAVY_ORDER)
_heaviest_cache: dict[int, int] = {}


def heaviest(fit: int) -> int:
    """The greedy choice among the tiles in ``fit``: highest pip sum, then higher pip."""
    t = _heaviest_cache.get(fit)
    if t is None:
        for b in _HEAVY_BITS:
            if fit & b:
                t = BIT_TILE[b]
                break
        if len(_heaviest_cache) < 1 << 16:
            _heaviest_cache[fit] = t
    return t


_preferred_caches: dict[float, dict[int, int]] = {}


def preferred_picker(double_bonus: float):
    """Like ``heaviest`` with doubles counted ``double_bonus`` pips heavier."""
    if not double_bonus:
        return heaviest
    order = tuple(1 << t for t in sorted(range(TILE_COUNT), key=lambda t: (PIPS[t] + (double_bonus if LOW[t] == HIGH[t] else 0), HIGH[t]), reverse=True))
    cache = _preferred_caches.setdefault(double_bonus, {})

    def pick(fit: int) -> int:
        t = cache.get(fit)
        if t is None:
            for b in order:
                if fit & b:
                    t = BIT_TILE[b]
                    break
            if len(cache) < 1 << 16:
                cache[fit] = t
        return t

    return pick


def rollout(rnd, rand, eps: float, pick=heaviest) -> None:
    """Play ``rnd`` to its end in place: heaviest fitting tile, a random one with prob eps."""
    hands = rnd.hands
    boneyard = rnd.boneyard
    if rnd.outcome is None and rnd.left < 0:  # the round's first play: any tile (or the lead)
        t = rnd.lead if rnd.lead >= 0 else pick(hands[rnd.turn])
        step(rnd, OPEN[t])
    while rnd.outcome is None:
        hand = hands[rnd.turn]
        left = rnd.left
        ml = MATCHES[left]
        fit = hand & (ml | MATCHES[rnd.right])
        if not fit:
            step(rnd, DRAW if rnd.drawn < len(boneyard) else PASS)
            continue
        if fit & (fit - 1) and rand() < eps:
            # a uniformly random fitting tile
            k = int(rand() * fit.bit_count())
            while k:
                fit &= fit - 1
                k -= 1
            t = BIT_TILE[fit & -fit]
        else:
            t = pick(fit)
        step(rnd, PLAY_LEFT[t] if ml >> t & 1 else PLAY_RIGHT[t])


@dataclass
class StrongConfig:
    samples: int = 64  # determinizations per decision
    max_rollouts: int = 1000  # fewer determinizations when samples * moves would exceed this
    eps: float = 0.2  # rollout noise
    points_weight: float = 0.5  # utility = (1 - w) * sign + w * points / POINT_SCALE
    deadline: float | None = 0.2  # seconds; None: no cap (fully reproducible)
    point_scale: float = 40.0
    model_eps: float = 0.0  # >0: weigh sampled deals by how likely noisy-greedy play makes the seen plays
    policy: str = "greedy"  # rollouts: "greedy" (noisy greedy, above) or "random" (engine's random_playout)
    double_bonus: float = 0.0  # rollouts: doubles count this many pips heavier
    oversample: int = 4  # candidate deals drawn per determinization kept, when weighing


class StrongBot:
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
        start = time.perf_counter()
        deadline = None if cfg.deadline is None else start + cfg.deadline
        rules = view.rules
        side = rules.side_of(view.seat)
        score_round = rules.score_round
        side_of = rules.side_of
        know = Knowledge.from_view(view)
        nmoves = len(moves)
        totals = [0.0] * nmoves
        w = cfg.points_weight
        wsign = 1.0 - w
        wpts = w / cfg.point_scale
        eps = cfg.eps
        roll_rng = random.Random()
        pick = preferred_picker(cfg.double_bonus)
        random_policy = cfg.policy == "random"
        deals = self._determinizations(view, know, rng)
        done = 0
        for hands, boneyard, aside in deals:
            base = round_from_view(view, hands, boneyard, aside)
            seed = rng.getrandbits(64)
            for j, m in enumerate(moves):
                r = base.copy()
                step(r, m)
                roll_rng.seed(seed)
                if random_policy:
                    random_playout(r, roll_rng.random)
                else:
                    rollout(r, roll_rng.random, eps, pick)
                winner, points = score_round(rules, r.outcome, r.history[1], r.hands)
                if winner is None:
                    continue
                u = wsign + wpts * points
                totals[j] += u if winner == side else -u
            done += 1
            if deadline is not None and time.perf_counter() > deadline:
                break
        best = max(range(nmoves), key=lambda j: (totals[j], -j))
        return moves[best]


    def _determinizations(self, view, know: Knowledge, rng: random.Random) -> list:
        """``samples`` deals consistent with the view; with ``model_eps`` > 0, drawn from
        ``oversample`` times as many uniform ones in proportion to how likely the other
        seats' seen plays are if each plays its heaviest fitting tile, or any fitting tile
        with probability ``model_eps``."""
        cfg = self.config
        n = max(8, min(cfg.samples, cfg.max_rollouts // len(view.legal_moves)))
        if cfg.model_eps <= 0:
            return [know.sample_deal(rng) for _ in range(n)]
        evidence = play_evidence(view)
        if not evidence:
            return [know.sample_deal(rng) for _ in range(n)]
        pool = [know.sample_deal(rng) for _ in range(n * cfg.oversample)]
        me = cfg.model_eps
        weights = []
        for hands, _, _ in pool:
            w = 1.0
            for seat, t, fits, later in evidence:
                f = (hands[seat] | later) & fits
                k = f.bit_count()
                if k > 1:
                    w *= me / k + (1.0 - me if heaviest(f) == t else 0.0)
            weights.append(w)
        total = sum(weights)
        # systematic resampling: n picks, each deal about n * weight / total times
        out = []
        step_w = total / n
        u = rng.random() * step_w
        acc = 0.0
        i = -1
        for _ in range(n):
            while acc <= u and i + 1 < len(pool):
                i += 1
                acc += weights[i]
            out.append(pool[i])
            u += step_w
        return out


def make_strong(**kw) -> StrongBot:
    return StrongBot(StrongConfig(**kw))
