"""How far a bot could go: the strong bot shown every hand, in the arena against greedy (or ``--b``).

A diagnostic, not a product bot: the "omniscient" strong bot searches the true hands (the
boneyard's order stays unknown: each deal it searches reshuffles the true boneyard) instead
of deals sampled from its view. What it wins is a ceiling for any bot that plays from its
view alone with this value of a round; the gap between it and ``strong`` is what the
hidden tiles cost (docs/bots.md, "How far a bot could go").

``--own-search exhaustive`` replaces the rollouts by a search of every line of the bot's own
later moves in each deal (the other seats playing greedy, as the rollouts model them), to
show whether planning its own later turns better would matter (families with two ends:
there greedy plays in §1.6's order, ``autoplay.timeout_move``).

    .venv/bin/python bench/bot_ceiling.py --rules classic --seats 4 --deals 150 --seed 2 --json
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from services.bots import arena as A  # noqa: E402
from services.bots import strong as S  # noqa: E402
from services.bots.knowledge import public_round, shuffled_tiles, with_tiles  # noqa: E402
from services.rules.match import apply  # noqa: E402
from services.rules.autoplay import timeout_move  # noqa: E402
from services.rules.moves import legal_moves  # noqa: E402
from services.rules.turns import step  # noqa: E402
from services.rules.view import player_view  # noqa: E402


class Omniscient(S.StrongBot):
    """``strong`` searching the true hands of ``self.truth`` (set before each decision)."""

    def __init__(self, own_search: str = "rollouts", deals: int = 16, budget: int = 300, **changes) -> None:
        super().__init__(**{"deadline": None, **changes})
        self.truth = None
        self.own_search = own_search
        self.deals = deals
        self.budget = budget

    def determinizations(self, view, know, rng, cfg=None, n=None):
        cfg = cfg or self.config_for(view.rules)
        rnd = self.truth
        rest = 0
        for t in rnd.boneyard[rnd.drawn:]:
            rest |= 1 << t
        if n is None:
            n = S.determinization_count(view, cfg) if self.own_search == "rollouts" else self.deals
        return [(list(rnd.hands), shuffled_tiles(rest, rng), rnd.set_aside) for _ in range(n)]

    def choose(self, view, rng):
        if self.own_search == "rollouts" or len(view.legal_moves) == 1:
            return super().choose(view, rng)
        moves = view.legal_moves
        value = S.round_value(view, self.config_for(view.rules))
        public = public_round(view)
        totals = [0.0] * len(moves)
        for hands, boneyard, aside in self.determinizations(view, None, rng):
            base = with_tiles(public, hands, boneyard, aside)
            for j, m in enumerate(moves):
                r = base.copy()
                step(r, m)
                totals[j] += best_line(r, view.seat, value, [self.budget])
        return moves[max(range(len(moves)), key=lambda j: (totals[j], -j))]


class PartlyShown(S.StrongBot):
    """``strong`` shown the true hands of some seats only (``knows``: ``partner``, or ``next``
    for the seat after it): its deals are uniform among those consistent with its view and
    with those hands, the rest searched as strong does. Where the gap between ``strong`` and
    ``Omniscient`` lies: in the partner's hand or in the opponents'."""

    def __init__(self, knows: str = "partner", **changes) -> None:
        super().__init__(**{"deadline": None, **changes})
        self.truth = None
        self.knows = knows

    def determinizations(self, view, know, rng, cfg=None, n=None):
        from services.bots.knowledge import Group, Knowledge

        cfg = cfg or self.config_for(view.rules)
        rules = view.rules
        if self.knows == "partner":
            shown = [s for s in range(rules.seats) if s != view.seat and rules.side_of(s) == rules.side_of(view.seat)]
        else:
            shown = [(view.seat + 1) % rules.seats]
        hands = self.truth.hands
        held = 0
        for s in shown:
            held |= hands[s]
        know = Knowledge.from_view(view)
        groups = [Group(g.seat, g.size, g.allowed & (hands[g.seat] if g.seat in shown else ~held))
                  for g in know.groups]
        know = Knowledge(know.seats, know.seat, know.own, know.played, groups, know.draws, know.redeal,
                         know.dealt_known)
        if n is None:
            n = S.determinization_count(view, cfg)
        return [know.sample_deal(rng) for _ in range(n)]


def best_line(r, me: int, value, budget: list[int]) -> float:
    """The best value ``me`` can reach from round ``r`` (stepped in place), the others
    playing greedy; past ``budget`` choice points, a greedy playout."""
    while True:
        while r.outcome is None and r.turn != me:
            step(r, timeout_move(r))  # greedy in a two-ended family: §1.6's order
        if r.outcome is not None:
            return value(r)
        moves = legal_moves(r)
        if len(moves) == 1:
            step(r, moves[0])
            continue
        budget[0] -= 1
        if budget[0] < 0:
            S.rollout(r, random.random, 0.0)
            return value(r)
        best = -1e9
        for m in moves:
            c = r.copy()
            step(c, m)
            best = max(best, best_line(c, me, value, budget))
        return best


def run(args) -> dict:
    rules = A.arena_rules(args.rules, args.variant, args.teams, args.seats)
    if args.own_search == "exhaustive" and rules.four_ends:
        raise SystemExit("--own-search exhaustive models greedy as §1.6's order, which All Fives' greedy is not")
    bot = Omniscient(args.own_search, args.search_deals, args.budget)
    other = A.resolve(args.b)
    tally = A.Tally()
    start = time.perf_counter()
    n = rules.seats
    for i in range(args.deals):
        first = A.first_round(rules, args.seed, i)
        for p, a_seats in enumerate(A.seatings(rules)):
            rngs = A.play_rngs(args.seed, i, p, n)
            m = first
            while m.round is not None and m.round.outcome is None:
                seat = m.round.turn
                view = player_view(m, seat)
                if seat in a_seats:
                    bot.truth = m.round
                    move = bot.choose(view, rngs[seat])
                else:
                    move = other(view, rngs[seat])
                m = apply(m, move, seat)
            tally.plays.append(A.play_result(rules, i, a_seats, m))
    out = A.report(rules, f"omniscient strong ({args.own_search})", args.b, args.seed, args.deals, tally,
                   time.perf_counter() - start)
    out.pop("same_seat", None)  # no field plays here
    out.pop("decision_ms")
    out.pop("decision_cpu_ms")
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rules", default="classic")
    p.add_argument("--variant", default=None)
    p.add_argument("--seats", type=int, default=None)
    p.add_argument("--teams", action=argparse.BooleanOptionalAction, default=None)
    p.add_argument("--b", default="greedy", help="the strategy in the other seats (an arena name)")
    p.add_argument("--deals", type=int, default=100)
    p.add_argument("--seed", type=int, default=2)
    p.add_argument("--own-search", choices=("rollouts", "exhaustive"), default="rollouts")
    p.add_argument("--search-deals", type=int, default=16, help="deals searched per decision (exhaustive)")
    p.add_argument("--budget", type=int, default=300, help="choice points per searched move (exhaustive)")
    p.add_argument("--json", action="store_true")
    args = p.parse_args()
    out = run(args)
    if args.json:
        print(json.dumps(out))
    else:
        lo, hi = out["a_win_rate_ci95"]
        print(f"{out['a']} vs {args.b}, {out['rules']} {out['seats']} seats: {out['a_win_rate']:.1%} "
              f"[{lo:.1%}, {hi:.1%}] of {out['decided']} decided rounds")


if __name__ == "__main__":
    main()
