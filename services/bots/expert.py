"""The expert bot: the strong bot's search, given the time a table with people gives a move.

At a table with people a bot waits a human-looking 0.6-1.5 s before it moves (player.py);
the strong bot spends about 50 ms of it. The expert spends all of it, and is *anytime*: it
holds a best move from the start and answers when its budget is spent, never after.

It composes services.bots.strong rather than copying it, so it plays better whenever strong
does: the deals come from ``StrongBot.determinizations`` (strong's knowledge and its model
of the other seats, with the family's tuned ``StrongConfig``), each candidate move is played
out in each deal with strong's ``rollout`` on the engine's ``step`` and scored with strong's
``round_value``, sharing the deal and the rollout's random stream across candidates as
strong does (docs/bots.md, "Strengths"). What the time buys:

- **More deals, progressively.** Deals are drawn in rounds of ``batch`` and searched one at
  a time; before each deal (and each round's drawing) the bot asks whether ``slack`` times
  the slowest deal so far would still end before the deadline, less ``margin``, and stops
  when it would not (the slack and margin are for a loaded machine, where a thread can lose
  the core for tens of milliseconds at any moment). Strong's caps on a decision (``samples``, ``max_rollouts``, ``max_work``: set so that it
  takes under 100 ms) do not apply; ``deals`` caps the search instead.
- **An early stop when one move dominates.** All candidates are scored on the same deals,
  so the leader's lead over each other move is a paired difference; once ``min_deals`` are
  searched and every lead is ``confidence`` standard errors clear of zero (or exactly
  zero in every deal: two moves that cannot differ), more deals would not change the
  choice and the bot answers early. At a table with people it then waits out the rest of
  its think time, as a strong bot does; elsewhere the time is simply saved.
- **Exact endgames, where strong has them.** Once the tiles in hands and boneyard are at
  most strong's ``exact_tiles`` (its endgame search: Egyptian two-sided games, 20 tiles)
  or the expert's own, each deal is valued by the engine's exact solver
  (services/rules/solve.py) instead of a rollout, as strong's endgame does, only over
  more deals, up to ``exact_nodes`` positions in all (about 0.4 s of one core, six times
  strong's), and under a deadline only as many as the time left allows at the rate solved
  so far; a deal the solver gives up on counts for nothing, and when the first one is that
  big the rollouts decide, as in strong. The expert's own threshold is 0 (off): solving
  from 12 tiles on was no better than rollouts against strong (docs/bots.md, "expert").
- **Before the first deal** the best move is the family's greedy play (simple.greedy),
  so even a budget too short for one deal answers sensibly and on time.

The budget is **wall clock** (``time.perf_counter`` unless a clock is injected), not CPU:
what it promises is to the people at the table, who see a clock on the wall, and a CPU
budget on a loaded machine (or in a thread waiting for the GIL) would overrun it. The price
is that a loaded machine searches fewer deals in the same time, so a timed expert is not
reproducible. With ``budget=None`` the search is bounded by ``deals`` (and the early stop)
alone, and a seeded rng then gives the same move every time: that is how the tests and the
ladder play it (the ladder asks every strength ``deadline=none``; ``deadline`` is the
budget's other name, as it is strong's clock).

``STRATEGIES["expert"]`` (no budget given at the call) plays with ``budget`` = 0.08 s, in
strong's speed class, for bot-only tables, the arena and benchmarks; the bots service
passes it the drawn think time at a table with people (``search(view, rng, until=...)``,
player.py, which also says how a long search is kept from starving other bots' moves).
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass, fields, replace
from typing import Callable

from services.rules.moves import Move
from services.rules.solve import Solver
from services.rules.turns import step

from .knowledge import Knowledge, public_round, with_tiles
from .simple import greedy
from .strong import StrongBot, StrongConfig, round_value, rollout

Clock = Callable[[], float]
#: What a solve is first assumed to visit per second of wall clock (about a third of one
#: core's rate here): it caps the first deal's positions under a deadline.
NODES_PER_SECOND = 1_000_000


@dataclass
class ExpertConfig:
    budget: float | None = 0.08  # seconds of wall clock per decision when none is given; None: ``deals`` alone
    deals: int | None = 2048  # the most deals a decision searches; None: the clock alone
    batch: int = 32  # deals drawn per round
    confidence: float | None = 3.0  # stop when every lead is this many standard errors clear; None: never early
    min_deals: int = 64  # deals searched before an early stop
    margin: float = 0.01  # seconds kept back to hand the move over before the deadline
    slack: float = 2.0  # a deal is started only if this many of the slowest deal so far would still fit
    exact_tiles: int = 0  # solve each deal exactly once tiles in hands + boneyard are at most this; 0: as strong does
    exact_nodes: int = 1_200_000  # and start no new deal once the solver has visited this many positions


class ExpertBot:
    """``choose(view, rng) -> Move`` with the default budget; ``search(view, rng, until)``
    to answer by an absolute time of ``clock``. Stateless between decisions, so one instance
    may serve every seat and thread.

    ``ExpertBot(config, strong=StrongBot(**changes))``: the search of ``strong`` (by default
    strong as registered, each family's tuned configuration), given more time."""

    name = "expert"
    anytime = True  # player.py: it may be handed a deadline

    def __init__(self, config: ExpertConfig | None = None, strong: StrongBot | None = None,
                 clock: Clock = time.perf_counter) -> None:
        self.config = config or ExpertConfig()
        if self.config.budget is None and self.config.deals is None:
            raise ValueError("an expert needs a budget, a deal cap or both")
        self.strong = strong or StrongBot()
        self.clock = clock
        self.last_deals = 0  # deals the last decision searched, for tests and measurements (any thread's last)

    def __call__(self, view, rng: random.Random) -> Move:
        return self.choose(view, rng)

    def choose(self, view, rng: random.Random) -> Move:
        budget = self.config.budget
        return self.search(view, rng, None if budget is None else self.clock() + budget)

    def search(self, view, rng: random.Random, until: float | None, clock: Clock | None = None) -> Move:
        """The best move found by ``until`` (a time of ``clock``; None: no clock, ``deals`` and
        the early stop alone), returned before it."""
        clock = clock or self.clock
        moves = view.legal_moves
        self.last_deals = 0
        if len(moves) == 1:
            return moves[0]
        if not moves:
            raise ValueError("it is not this seat's turn")
        cfg = self.config
        stop = None if until is None else until - cfg.margin
        best = moves.index(greedy(view, rng))
        if stop is not None and clock() >= stop:
            return moves[best]
        scfg = self.strong.config_for(view.rules)
        k = len(moves)
        batch_cfg = replace(scfg, samples=cfg.batch, max_rollouts=cfg.batch * k, max_work=None)
        know = Knowledge.from_view(view)
        value = round_value(view, scfg)
        solver = self._solver(view, scfg, value)
        public = public_round(view)
        eps = scfg.eps
        roll_rng = random.Random()
        totals = [0.0] * k
        gram = [[0.0] * k for _ in range(k)]  # sums of products of the candidates' values: paired variances
        n = 0
        cap = cfg.deals if cfg.deals is not None else math.inf
        slowest_deal = slowest_draw = solving = 0.0
        while n < cap:
            t0 = clock()
            if stop is not None and t0 + cfg.slack * (slowest_draw + slowest_deal) >= stop:
                break
            deals = self.strong.determinizations(view, know, rng, batch_cfg)
            t1 = clock()
            slowest_draw = max(slowest_draw, t1 - t0)
            for hands, boneyard, aside in deals:
                if n >= cap:
                    break
                t0 = clock()
                if stop is not None and t0 + cfg.slack * slowest_deal >= stop:
                    cap = n  # out of time: no further round either
                    break
                base = with_tiles(public, hands, boneyard, aside)
                seed = rng.getrandbits(64)
                vals = []
                if solver is not None:
                    if stop is not None:  # a solve has no clock: give it the positions the time left allows
                        rate = solver.nodes / solving if solving > 0 else NODES_PER_SECOND
                        solver.limit = min(cfg.exact_nodes, solver.nodes + int((stop - t0) / cfg.slack * rate))
                    for m in moves:
                        r = base.copy()
                        step(r, m)
                        vals.append(solver.solve(r))
                    solving += clock() - t0
                    if solver.stopped:  # this deal's values are meaningless
                        vals = []
                        if n > 0 or stop is not None and clock() + cfg.slack * slowest_deal >= stop:
                            cap = n
                            break
                        solver = None  # the first deal alone is too big: rollouts decide
                if not vals:
                    for m in moves:
                        r = base.copy()
                        step(r, m)
                        roll_rng.seed(seed)
                        rollout(r, roll_rng.random, eps)
                        vals.append(value(r))
                for j, v in enumerate(vals):
                    totals[j] += v
                    row = gram[j]
                    for i, w in enumerate(vals):
                        row[i] += v * w
                n += 1
                slowest_deal = max(slowest_deal, clock() - t0)
            if n == 0:
                break
            best = max(range(k), key=lambda j: (totals[j], -j))
            if cfg.confidence is not None and n >= cfg.min_deals and dominates(best, totals, gram, n, cfg.confidence):
                break
        self.last_deals = n
        return moves[best]

    def _solver(self, view, scfg: StrongConfig, value):
        """The exact solver for this decision, or None to play deals out with rollouts: past
        ``exact_tiles`` (ours or strong's, the larger) a solve costs too much."""
        limit = max(self.config.exact_tiles, scfg.exact_tiles)
        if sum(view.tile_counts) + view.boneyard_count > limit:
            return None
        rules = view.rules
        side = rules.side_of(view.seat)
        return Solver(value, sum(1 << s for s in range(rules.seats) if rules.side_of(s) == side), self.config.exact_nodes)


def dominates(best: int, totals: list[float], gram: list[list[float]], n: int, z: float) -> bool:
    """Whether candidate ``best`` leads every other by ``z`` standard errors of the mean
    paired difference over the ``n`` deals (or ties it in every deal: the same move in effect)."""
    for j in range(len(totals)):
        if j == best:
            continue
        mean = (totals[best] - totals[j]) / n
        squares = (gram[best][best] - 2 * gram[best][j] + gram[j][j]) / n  # mean of the squared differences
        var = max(0.0, squares - mean * mean)
        if squares <= 1e-12:
            continue  # equal in every deal
        if mean * mean * n <= z * z * var or mean <= 0:
            return False
    return True


EXPERT_FIELDS = frozenset(f.name for f in fields(ExpertConfig))
STRONG_FIELDS = frozenset(f.name for f in fields(StrongConfig))


def expert_from_options(options: dict[str, float | int | None]) -> ExpertBot:
    """An expert from arena-style options: ``budget`` (or ``deadline``, its other name),
    ``deals``, ``batch``, ``confidence``, ``min_deals``, ``margin``; any of strong's options
    (``eps=0.1``) change the strong search it runs."""
    mine: dict = {}
    theirs: dict = {}
    for key, value in options.items():
        if key == "deadline":
            key = "budget"
        if key in EXPERT_FIELDS:
            mine[key] = value
        elif key in STRONG_FIELDS and key != "deadline":
            theirs[key] = value
        else:
            raise ValueError(f"expert has no option {key!r}")
    return ExpertBot(ExpertConfig(**mine), StrongBot(**theirs) if theirs else None)
