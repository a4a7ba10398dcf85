"""The strong bot: determinized Monte Carlo search over the tiles its seat cannot see, in
every rule family of docs/rules.md.

It reads the seat's ``PlayerView`` and nothing else. For each decision with a choice:

1. **What is known.** ``Knowledge.from_view`` turns the public history into hard
   constraints on the unseen tiles: tiles played, every seat's tile count, the numbers a
   seat was shown to lack by a pass or a draw (every open end, All Fives' ``up`` and
   ``down`` included), a lead forced by the family's round-1 rule, the boneyard or bazaar
   (order unknown) or the set-aside tile (block-3); it then samples deals *uniformly* among
   all that satisfy them (exact, via a counting table).
2. **What is likely.** The other sides are modelled as playing the family's greedy rule
   (``strategies``), noisily. ``greedy_share`` of the deals come from
   ``Knowledge.assuming_greedy``: also uniform, among the deals in which every opponent
   whose plays agree with greedy play held, at each free play, none of the tiles greedy
   play would have taken first (a hard model: the share is the weight we give it). The
   rest, with ``model_eps`` > 0, are drawn ``oversample`` times over from the plain
   constraints and kept in proportion to how likely each makes the other seats' past free
   choices under greedy play with noise ``model_eps`` (a soft model, over the plays whose
   hand is known from the current one: those not followed by a draw). With
   ``greedy_prior`` set, the hard model keeps only the opponents whose free plays it still
   explains (``knowledge.greedy_odds``: greedy against random play, a Bayes factor, times
   the prior's odds at least 1). Off everywhere: against a searching peer it halved how
   often the model ruled out the true hands, but won no measurable round, and against
   greedy it lost three to five points (docs/bots.md, "Strong against a searching peer").
   With ``play_model`` the weighing is ``play_model``'s instead of noisy greedy: a
   conditional logit over the plays a hand could make, fitted to recorded plays of strong
   players (the partner's by a model of our own play), mixed with ``model_eps`` of random
   play; every seen free play of another seat weighs each deal by how likely its hand then
   makes it (docs/bots.md, "A model of play"). On in Egyptian.
3. **Search.** In every kept deal (a determinization) the position is rebuilt as an engine
   round (``round_from_view``: a ``SpinnerRound`` in All Fives); each candidate move is
   applied with ``turns.step`` and the round is played out on the same engine by every seat
   with the rollout policy: the family's greedy rule (``strategies``: in All Fives the play
   that scores most now, then the heaviest tile; elsewhere the heaviest tile), or with
   probability ``eps`` a random fitting tile (draw / pass when nothing fits). All
   candidates share the deal and the rollout's random stream (common random numbers), so
   their difference is the move's, not the luck's.
4. **Value.** A finished rollout is scored for the bot's side (its team in teams) with the
   family's own scoring, ``w = points_weight``, ``s = point_scale``:

   - Egyptian, Classic, Sports: the family's ``score_round``; ``±((1 - w) + w * points / s)`` for a
     win / loss, 0 for a tie.
   - All Fives: each side's points of the round, those scored during play (for and
     against: the rollout's play points after the decision added to the view's) plus the
     round end's; ``(1 - w) * sign + w * (mine - the others' mean) / s``, ``sign`` +1 when
     the side scored strictly most in the round, -1 when another side did, 0 for a shared
     top (the arena's notion of winning an All Fives round). The points scored before the
     decision are the same for every candidate, so only those from the decision on decide.
   - Goat (points are bad): each side's *cost*, what ``rules.tally`` makes it write this
     round given the view's accounts, plus ``remembered_weight`` times what it adds to its
     remembered points (with ``remembered`` on, a score of 12 or less is only written later
     if the account opens, so it costs a fraction; losing remembered points by going out
     or fishing earns that fraction back). A pot carried by a tied fish goes to a future
     highest score, alike for every side, so it is left out. ``(1 - w) * sign + w *
     (the others' mean cost - mine) / s``, ``sign`` +1 when the side has strictly the lowest
     round score, -1 when another side has, 0 for a shared lowest.

   The candidate with the best mean is played.

5. **Endgame.** Once the tiles in hands and boneyard are at most ``exact_tiles``, rollouts
   give way to exact search: in each kept deal every candidate is valued by
   ``solve.Solver`` (alpha-beta over the same one step, every hand and the boneyard's order
   known, our side making the value most and the others least, with the same scoring), and
   the best mean wins as before. A rollout's seats play greedy with noise, which a
   searching opponent does not, and in the last dozen tiles a move's worth hangs on exact
   sequences a rollout seldom plays; the solved deal has no noise and no policy to be wrong
   about. Its cost grows about fourfold a tile, so the deals are ``exact_samples`` at most,
   and no new one is solved once ``exact_nodes`` positions have been visited
   (docs/bots.md, "Strong against a searching peer"). Only with two sides: with more, the
   others would be searched as one side set against ours, which independent players are
   not (Egyptian block-3 against greedy lost about five points so).

Budget: ``samples`` determinizations (a fixed count, so a seeded rng gives the same move),
fewer when ``samples`` times the legal moves would pass ``max_rollouts`` rollouts, or when
those rollouts' length (tiles in hands and boneyard) would pass ``max_work``. The budgets
are set so that a decision takes well under 100 ms on one core; the wall-clock
``deadline`` is a safety net, for a loaded machine and for the endgame's largest trees (a
draw game's boneyard can make a deal's tree far larger than its tile count says): it stops
the rollouts after the determinization that passes it, and gives up (leaving out) an
endgame deal at the positions the time left allows at the pace so far. Only when it stops a search
can the same seed give another move. A forced move (one legal move) is
returned at once, without searching. Each family plays with the ``StrongConfig`` its own
``bot_tuning`` sets (``tuned``) unless one is given; a family that states none is refused.
"""

from __future__ import annotations

import random
import time
from functools import cache, partial
from dataclasses import asdict, dataclass, replace
from typing import Callable

from services.rules.facets import BotTuning
from services.rules.moves import Move
from services.rules.playout import timeout_playout
from services.rules.solve import Solver
from services.rules.state import Accounts
from services.rules.turns import step

from .knowledge import Knowledge, greedy_odds, play_evidence, public_round, shuffled_tiles, with_tiles
from .play_model import OTHERS, PARTNER, likelihood, seen_choices

def rollout(rnd, rand, eps: float) -> None:
    """Play ``rnd`` to its end in place: each seat plays its heaviest fitting tile (on the
    left end if it fits both; in All Fives the play that scores most now first), or with
    probability ``eps`` a random fitting tile; it draws or passes when nothing fits.

    The engine's compiled ``playout.timeout_playout``, which makes each move with the one
    step of every family (``step.py``); tests/unit/test_bots_rollout.py checks that it ends
    every round exactly where the same policy played with ``legal_moves`` and ``step`` does.
    Only the history differs: the rollout's actions are not kept, but for the last one on
    top of the position's (what scoring reads, ``last_seat``)."""
    timeout_playout(rnd, rand, eps, False)


@dataclass(frozen=True)
class StrongConfig(BotTuning):
    """A family's ``BotTuning`` (greedy_share, max_work, exact_tiles, play_model, deadline)
    and the rest of the search, which no family tunes."""
    samples: int = 256  # determinizations per decision
    max_rollouts: int = 1000  # fewer determinizations when samples * moves would exceed this
    eps: float = 0.2  # rollout noise: a random fitting tile instead of the greedy one
    model_eps: float = 0.3  # weigh deals by the seen plays under noisy greedy; 0: uniform deals
    oversample: int = 4  # deals drawn per deal kept, when weighing
    points_weight: float = 0.5  # value = (1 - w) * win/loss sign + w * points / point_scale
    point_scale: float = 40.0
    remembered_weight: float = 0.5  # Goat: what a remembered point costs, against a written one
    greedy_prior: float | None = None  # trust the greedy model for a seat only while its odds (greedy_odds)
    # times greedy_prior / (1 - greedy_prior) stay at least 1; None: for every seat whose plays allow it
    exact_samples: int = 64  # deals per decision when solving exactly
    exact_nodes: int = 200000  # and no new deal once the solver has visited this many positions
    exact_min: int = 8  # rollouts instead when the first deal takes more than exact_nodes / exact_min


def tuned(rules) -> StrongConfig:
    """The search a rule set's family is tuned for (``Family.bot_tuning``, tuned against
    ``greedy`` in the arena on duplicate deals); ValueError for a family that states none,
    rather than an untuned search nobody measured."""
    tuning = rules.kind.bot_tuning
    if tuning is None:
        raise ValueError(f"the {rules.family} family states no bot_tuning: the strong bot was never tuned for it")
    return _config_of(tuning)


@cache
def _config_of(tuning: BotTuning) -> StrongConfig:
    """Built once per tuning, as every decision asks for it (a config is frozen, so shared)."""
    return StrongConfig(**asdict(tuning))


def round_value(view, cfg: StrongConfig) -> Callable[[object], float]:
    """How good a finished rollout round is for the view's side, by its family's scoring
    (see the module's docstring, "Value")."""
    rules = view.rules
    side = rules.side_of(view.seat)
    wsign = 1.0 - cfg.points_weight
    wpts = cfg.points_weight / cfg.point_scale
    score_round = partial(rules.kind.score_round, rules)
    sides = rules.sides
    others = sides - 1
    if rules.four_ends:
        before = [0] * sides
        for _, s, points in view.play_points:
            before[s] += points
        known = len(view.play_points)

        def all_fives(r) -> float:
            totals = before[:]
            for _, s, points in r.play_points[known:]:
                totals[s] += points
            winner, points = score_round(r.outcome, r.history[1], r.hands)
            if winner is not None:
                totals[winner] += points
            mine = totals[side]
            top = max(t for s, t in enumerate(totals) if s != side)
            sign = 1.0 if mine > top else -1.0 if mine < top else 0.0
            return wsign * sign + wpts * (mine - (sum(totals) - mine) / others)

        return all_fives
    if rules.tally is not None:
        tally = rules.tally
        accounts = Accounts(tuple(view.remembered), tuple(view.opened), view.pot)
        held = accounts.remembered
        alpha = cfg.remembered_weight
        round_scores = rules.kind.side_round_scores

        def goat_value(r) -> float:
            last = r.history[1]
            written, after = tally(rules, r.outcome, last, r.hands, accounts)
            costs = [w + alpha * (a - b) for w, a, b in zip(written, after.remembered, held)]
            scores = round_scores(rules, last, r.hands)
            assert scores is not None  # a family that tallies says each side's round score
            mine = scores[side]
            low = min(t for s, t in enumerate(scores) if s != side)
            sign = 1.0 if mine < low else -1.0 if mine > low else 0.0
            cost = costs[side]
            return wsign * sign + wpts * ((sum(costs) - cost) / others - cost)

        return goat_value

    def by_round_score(r) -> float:
        winner, points = score_round(r.outcome, r.history[1], r.hands)
        if winner is None:
            return 0.0
        u = wsign + wpts * points
        return u if winner == side else -u

    return by_round_score


def determinization_count(view, cfg: StrongConfig) -> int:
    """How many deals to search: ``samples``, fewer when the rollouts (one per deal and
    legal move) would pass ``max_rollouts``, or their length (each tile still in a hand or
    the boneyard is at least one action) would pass ``max_work``; at least 8."""
    moves = len(view.legal_moves)
    n = min(cfg.samples, cfg.max_rollouts // moves)
    if cfg.max_work is not None:
        length = sum(view.tile_counts) + view.boneyard_count
        n = min(n, cfg.max_work // (moves * length))
    return max(8, n)


class StrongBot:
    """``choose(view, rng) -> Move``; stateless, so one instance may serve every seat.

    ``StrongBot(config)`` plays ``config`` in every family; ``StrongBot(**changes)`` plays
    each family's ``tuned`` configuration with ``changes`` applied."""

    name = "strong"

    def __init__(self, config: StrongConfig | None = None, **changes) -> None:
        if changes:
            StrongConfig(**changes)  # fail now on an unknown name
        self.config = config
        self.changes = changes

    def config_for(self, rules) -> StrongConfig:
        if self.config is not None:
            return self.config
        base = tuned(rules)
        return replace(base, **self.changes) if self.changes else base

    def __call__(self, view, rng: random.Random) -> Move:
        return self.choose(view, rng)

    def choose(self, view, rng: random.Random) -> Move:
        moves = view.legal_moves
        if len(moves) == 1:
            return moves[0]
        if not moves:
            raise ValueError("it is not this seat's turn")
        cfg = self.config_for(view.rules)
        deadline = None if cfg.deadline is None else time.perf_counter() + cfg.deadline
        know = Knowledge.from_view(view)
        value = round_value(view, cfg)
        totals = [0.0] * len(moves)
        eps = cfg.eps
        roll_rng = random.Random()
        public = public_round(view)
        if (cfg.exact_tiles and view.rules.sides == 2
                and sum(view.tile_counts) + view.boneyard_count <= cfg.exact_tiles):
            solved = self._solve(view, know, rng, cfg, value, public, deadline)
            if solved is not None:
                return moves[_pick(solved)]
        for hands, boneyard, aside in self.determinizations(view, know, rng, cfg):
            base = with_tiles(public, hands, boneyard, aside)
            seed = rng.getrandbits(64)
            for j, m in enumerate(moves):
                r = base.copy()
                step(r, m)
                roll_rng.seed(seed)
                rollout(r, roll_rng.random, eps)
                totals[j] += value(r)
            if deadline is not None and time.perf_counter() > deadline:
                break
        return moves[_pick(totals)]

    def _solve(self, view, know: Knowledge, rng: random.Random, cfg: StrongConfig, value, public,
               deadline: float | None) -> list[float] | None:
        """Each legal move's total exact value over the deals solved within ``exact_nodes``
        positions (the module's docstring, "Endgame"); None when the first deal alone takes
        more than ``exact_nodes / exact_min`` (too few deals would fit), and the rollouts
        decide, having lost that fraction of the budget."""
        rules = view.rules
        moves = view.legal_moves
        side = rules.side_of(view.seat)
        ours = sum(1 << s for s in range(rules.seats) if rules.side_of(s) == side)
        solver = Solver(value, ours, cfg.exact_nodes // max(1, cfg.exact_min))
        totals = [0.0] * len(moves)
        solved = 0
        deals = self.determinizations(view, know, rng, cfg, cfg.exact_samples)
        began = time.perf_counter()
        for hands, boneyard, aside in deals:
            base = with_tiles(public, hands, boneyard, aside)
            values = []
            for m in moves:
                r = base.copy()
                step(r, m)
                values.append(solver.solve(r))
            if solver.stopped:
                break
            for j, v in enumerate(values):
                totals[j] += v
            solved += 1
            solver.limit = cfg.exact_nodes
            if deadline is not None:
                now = time.perf_counter()
                if now > deadline:
                    break
                # the next deal is given up (and left out) at the positions the time left allows
                per_node = (now - began) / solver.nodes
                solver.limit = min(cfg.exact_nodes, solver.nodes + int((deadline - now) / per_node))
        return totals if solved else None

    def determinizations(self, view, know: Knowledge, rng: random.Random, cfg: StrongConfig | None = None,
                         n: int | None = None) -> list:
        """``n`` deals ``(hands, boneyard, set-aside)`` to search, consistent with the view
        (by default ``determinization_count``'s)."""
        cfg = cfg or self.config_for(view.rules)
        if n is None:
            n = determinization_count(view, cfg)
        if cfg.greedy_share > 0:
            rules = view.rules
            side = rules.side_of(view.seat)
            opponents = tuple(s for s in range(rules.seats) if rules.side_of(s) != side)
            pool = None
            if cfg.greedy_prior is not None and opponents:
                evidence = play_evidence(view)
                if evidence:
                    pool = [know.sample_deal(rng, shuffled=False) for _ in range(max(n * cfg.oversample, 64))]
                    prior = cfg.greedy_prior / (1.0 - cfg.greedy_prior) if cfg.greedy_prior < 1 else float("inf")
                    opponents = tuple(s for s in opponents
                                      if prior * greedy_odds(view, know, evidence, pool, s) >= 1.0)
            modelled = Knowledge.assuming_greedy(view, opponents) if opponents else None
            if modelled is not None:
                k = round(n * cfg.greedy_share)
                deals = [modelled.sample_deal(rng) for _ in range(k)]
                return deals + self._weighed(view, know, rng, cfg, n - k, pool) if k < n else deals
            return self._weighed(view, know, rng, cfg, n, pool)
        return self._weighed(view, know, rng, cfg, n)

    def _weighed(self, view, know: Knowledge, rng: random.Random, cfg: StrongConfig, n: int,
                 pool: list | None = None) -> list:
        """``n`` deals of ``know``, resampled by the likelihood of the seen plays (from
        ``pool``, unshuffled deals of ``know``, when given)."""
        if cfg.play_model:
            return self._modelled(view, know, rng, cfg, n)
        evidence = play_evidence(view) if cfg.model_eps > 0 else None
        if not evidence:
            return [know.sample_deal(rng) for _ in range(n)]
        if pool is None or len(pool) < n:
            pool = [know.sample_deal(rng, shuffled=False) for _ in range(n * cfg.oversample)]
        me = cfg.model_eps
        keep = 1.0 - me
        weights = []
        for hands, _, _ in pool:
            w = 1.0
            for seat, _, fits, later, better in evidence:
                f = (hands[seat] | later) & fits  # what that seat could play then
                k = f.bit_count()
                if k > 1:
                    w *= me / k + (0.0 if f & better else keep)
            weights.append(w)
        return _resampled(pool, weights, n, rng)

    def _modelled(self, view, know: Knowledge, rng: random.Random, cfg: StrongConfig, n: int) -> list:
        """``n`` deals of ``know`` resampled by ``play_model``'s likelihood of every seen free
        play (the partner's by the model of our own play, the others' by everyone's)."""
        choices = seen_choices(view)
        if not choices:
            return [know.sample_deal(rng) for _ in range(n)]
        rules = view.rules
        side = rules.side_of(view.seat)
        by_seat: dict[int, list] = {}
        for seen, later in choices:
            by_seat.setdefault(seen.seat, []).append(
                (seen, later, PARTNER if rules.side_of(seen.seat) == side else OTHERS))
        pool = [know.sample_deal(rng, shuffled=False) for _ in range(n * cfg.oversample)]
        me = cfg.model_eps
        # a deal's weight is a product over seats of a function of that seat's hand, and
        # the pool holds each seat's likelier hands many times over
        memo: dict[int, dict[int, float]] = {seat: {} for seat in by_seat}
        weights = []
        for hands, _, _ in pool:
            w = 1.0
            for seat, plays in by_seat.items():
                hand = hands[seat]
                got = memo[seat].get(hand)
                if got is None:
                    got = 1.0
                    for seen, later, ws in plays:
                        got *= likelihood(hand | later, seen, ws, me)
                    memo[seat][hand] = got
                w *= got
            weights.append(w)
        return _resampled(pool, weights, n, rng)


def _pick(totals: list[float]) -> int:
    """The index of the best total (the first of equals)."""
    return max(range(len(totals)), key=lambda j: (totals[j], -j))


def _resampled(pool: list, weights: list[float], n: int, rng: random.Random) -> list:
    """``n`` deals of ``pool`` by systematic resampling (each kept about ``n * weight /
    total`` times), each kept deal's boneyard in an order of its own."""
    spacing = sum(weights) / n
    if spacing <= 0:  # the model ruled out every deal drawn: keep them all alike
        weights = [1.0] * len(pool)
        spacing = len(pool) / n
    u = rng.random() * spacing
    out = []
    acc = 0.0
    i = -1
    last = len(pool) - 1
    for _ in range(n):
        while acc <= u and i < last:
            i += 1
            acc += weights[i]
        hands, boneyard, aside = pool[i]
        if len(boneyard) > 1:  # the order only for the deals kept, each its own
            boneyard = shuffled_tiles(sum(1 << t for t in boneyard), rng)
        out.append((hands, boneyard, aside))
        u += spacing
    return out
