"""Strategy A against strategy B, in-process on the pure engine, in duplicate format.

Every deal comes from a seeded key (``fairness.deal``) and is played several times with the
same hands in the same seats, only the strategies moving between seats, so the luck of the
deal cancels and what is left is how the strategies play. Each play is one round, from the
deal to its end, led by the round-1 rule (docs/rules.md §1.4).

Seatings per deal:

- block-4 teams: A holds team 0 (seats 0+2) and B team 1 (seats 1+3); then swapped.
- draw-2 (two seats): A in seat 0, B in seat 1; then swapped.
- solo with n >= 3 seats (block-3, block-4 solo): A alone in seat k against B in every
  other seat, for each k; then B alone in seat k against A everywhere else, for each k
  (2n plays; for block-3 that is every way to split the seats between A and B).

A "win" for A is a decided (non-tied) round won by a seat that A plays. Every seating
appears with its mirror image, so two equal strategies win 50% of decided rounds in
expectation, in every variant; the report also gives the 1-vs-rest win rates of solo
games against their fair share 1/n.

Each strategy's decision time is measured with ``time.perf_counter`` around every
``choose`` call that had more than one legal move.
"""

from __future__ import annotations

import hashlib
import math
import random
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from services.match.rules import fairness
from services.match.rules.match import apply, new_match, start_round
from services.match.rules.rulesets import egyptian
from services.match.rules.view import player_view

Z95 = 1.959963984540054


def resolve(spec: str):
    """A view strategy from its name, optionally with options: ``strong:samples=32,eps=0.1``."""
    from services.bots.strategies import STRATEGIES

    name, _, opts = spec.partition(":")
    if name not in STRATEGIES:
        raise ValueError(f"unknown strategy {name!r}; choose one of {', '.join(STRATEGIES)}")
    if not opts:
        return STRATEGIES[name]
    if name != "strong":
        raise ValueError(f"strategy {name!r} takes no options")
    from services.bots.strong import StrongBot, StrongConfig

    kw: dict[str, Any] = {}
    defaults = StrongConfig()
    for item in opts.split(","):
        key, _, value = item.partition("=")
        key, value = key.strip(), value.strip()
        if key not in StrongConfig.__dataclass_fields__:
            raise ValueError(f"strong has no option {key!r}")
        if value.lower() in ("none", ""):
            kw[key] = None
        elif isinstance(getattr(defaults, key), int) and not isinstance(getattr(defaults, key), bool):
            kw[key] = int(value)
        else:
            kw[key] = float(value)
    return StrongBot(StrongConfig(**kw))


def seatings(rules) -> list[tuple[int, ...]]:
    """For each play of a deal, the seats A plays (B plays the rest)."""
    n = rules.seats
    if rules.teams:
        return [rules.seats_of(0), rules.seats_of(1)]
    if n == 2:
        return [(0,), (1,)]
    alone = [(k,) for k in range(n)]
    rest = [tuple(s for s in range(n) if s != k) for k in range(n)]
    return alone + rest


def deal_key(seed: int, index: int) -> bytes:
    return hashlib.sha256(f"domino-arena/1:{seed}:{index}".encode()).digest()


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def timing_summary(times: list[float]) -> dict:
    if not times:
        return {"count": 0, "mean_ms": None, "p50_ms": None, "p99_ms": None, "max_ms": None}
    s = sorted(times)
    n = len(s)

    def rank(q: float) -> float:  # nearest-rank percentile
        return s[max(0, math.ceil(q * n) - 1)] * 1000

    return {"count": n, "mean_ms": round(sum(s) / n * 1000, 3), "p50_ms": round(rank(0.50), 3),
            "p99_ms": round(rank(0.99), 3), "max_ms": round(s[-1] * 1000, 3)}


@dataclass
class PlayResult:
    deal: int
    a_seats: tuple[int, ...]
    winner_side: int | None
    points: int
    a_won: bool | None  # None for a tie
    reason: str


@dataclass
class Tally:
    plays: list[PlayResult] = field(default_factory=list)
    times: dict[str, list[float]] = field(default_factory=lambda: {"a": [], "b": []})
    cpu: dict[str, list[float]] = field(default_factory=lambda: {"a": [], "b": []})


def play_round(rules, deal, strategies: list[Callable], rngs: list[random.Random], labels: list[str],
               times: dict[str, list[float]], cpu: dict[str, list[float]] | None = None):
    """One round of ``deal`` with ``strategies[seat]``; returns the finished Match."""
    m = start_round(new_match(rules), deal)
    clock = time.perf_counter
    thread_clock = time.thread_time
    while m.round is not None and m.round.outcome is None:
        seat = m.round.turn
        view = player_view(m, seat)
        if len(view.legal_moves) > 1:
            c0 = thread_clock()
            t0 = clock()
            move = strategies[seat](view, rngs[seat])
            times[labels[seat]].append(clock() - t0)
            if cpu is not None:
                cpu[labels[seat]].append(thread_clock() - c0)
        else:
            move = strategies[seat](view, rngs[seat])
        m = apply(m, move, seat)
    return m


def run_deals(a_spec: str, b_spec: str, variant: str, teams: bool | None, seed: int, indices,
              progress: Callable[[int], None] | None = None) -> Tally:
    rules = egyptian(variant, teams)
    a, b = resolve(a_spec), resolve(b_spec)
    tally = Tally()
    plans = seatings(rules)
    for done, i in enumerate(indices, 1):
        deal = fairness.deal(rules, deal_key(seed, i))
        for p, a_seats in enumerate(plans):
            strategies = [a if s in a_seats else b for s in range(rules.seats)]
            labels = ["a" if s in a_seats else "b" for s in range(rules.seats)]
            rngs = [random.Random(f"domino-arena/1:{seed}:{i}:{p}:{s}") for s in range(rules.seats)]
            m = play_round(rules, deal, strategies, rngs, labels, tally.times, tally.cpu)
            res = m.results[-1]
            won = None if res.winner is None else any(rules.side_of(s) == res.winner for s in a_seats)
            tally.plays.append(PlayResult(i, tuple(a_seats), res.winner, res.points, won, res.reason))
        if progress is not None:
            progress(done)
    return tally


def _worker(args):
    a_spec, b_spec, variant, teams, seed, indices = args
    return run_deals(a_spec, b_spec, variant, teams, seed, indices)


def arena(a_spec: str, b_spec: str, variant: str, teams: bool | None = None, deals: int = 100, seed: int = 0,
          jobs: int = 1, progress: Callable[[int], None] | None = None) -> dict:
    """Play ``deals`` deals in duplicate format and report as a JSON-ready dict."""
    rules = egyptian(variant, teams)
    resolve(a_spec), resolve(b_spec)  # fail early on a bad name
    start = time.perf_counter()
    if jobs <= 1:
        tally = run_deals(a_spec, b_spec, variant, teams, seed, range(deals), progress)
    else:
        import multiprocessing as mp

        chunks = [list(range(j, deals, jobs)) for j in range(jobs)]
        with mp.get_context("fork").Pool(jobs) as pool:
            parts = pool.map(_worker, [(a_spec, b_spec, variant, teams, seed, c) for c in chunks])
        tally = Tally()
        for part in parts:
            tally.plays.extend(part.plays)
            for k in ("a", "b"):
                tally.times[k].extend(part.times[k])
                tally.cpu[k].extend(part.cpu[k])
        tally.plays.sort(key=lambda r: r.deal)
    return report(rules, a_spec, b_spec, seed, deals, tally, time.perf_counter() - start, jobs)


def report(rules, a_spec, b_spec, seed, deals, tally: Tally, elapsed: float, jobs: int = 1) -> dict:
    plays = tally.plays
    rounds = len(plays)
    decided = [p for p in plays if p.a_won is not None]
    a_wins = sum(1 for p in decided if p.a_won)
    lo, hi = wilson(a_wins, len(decided))
    a_points = sum(p.points for p in decided if p.a_won)
    b_points = sum(p.points for p in decided if not p.a_won)
    # Per deal: A's wins minus B's wins over the deal's plays (duplicate scoring).
    net: dict[int, int] = {}
    for p in decided:
        net[p.deal] = net.get(p.deal, 0) + (1 if p.a_won else -1)
    out = {
        "a": a_spec,
        "b": b_spec,
        "variant": rules.variant,
        "teams": rules.teams,
        "seed": seed,
        "deals": deals,
        "format": _format_name(rules),
        "plays_per_deal": len(seatings(rules)),
        "rounds": rounds,
        "decided": len(decided),
        "ties": rounds - len(decided),
        "a_wins": a_wins,
        "b_wins": len(decided) - a_wins,
        "a_win_rate": round(a_wins / len(decided), 4) if decided else None,
        "a_win_rate_ci95": [round(lo, 4), round(hi, 4)],
        "a_points_per_round": round(a_points / rounds, 3) if rounds else None,
        "b_points_per_round": round(b_points / rounds, 3) if rounds else None,
        "deals_a_ahead": sum(1 for v in net.values() if v > 0),
        "deals_b_ahead": sum(1 for v in net.values() if v < 0),
        "decision_ms": {"a": {"strategy": a_spec, **timing_summary(tally.times["a"])},
                        "b": {"strategy": b_spec, **timing_summary(tally.times["b"])}},
        # the same decisions in this thread's CPU time: blind to other processes on the machine
        "decision_cpu_ms": {"a": timing_summary(tally.cpu["a"]), "b": timing_summary(tally.cpu["b"])},
        "elapsed_s": round(elapsed, 1),
        "jobs": jobs,
    }
    if not rules.teams and rules.seats > 2:
        n = rules.seats
        for who, alone_a in (("a_alone", True), ("b_alone", False)):
            sub = [p for p in plays if (len(p.a_seats) == 1) == alone_a]
            dec = [p for p in sub if p.a_won is not None]
            lone_wins = sum(1 for p in dec if p.a_won == alone_a)
            lo1, hi1 = wilson(lone_wins, len(dec))
            out[who] = {"rounds": len(sub), "decided": len(dec), "lone_seat_wins": lone_wins,
                        "lone_win_rate": round(lone_wins / len(dec), 4) if dec else None,
                        "lone_win_rate_ci95": [round(lo1, 4), round(hi1, 4)], "fair_share": round(1 / n, 4)}
    return out


def _format_name(rules) -> str:
    if rules.teams:
        return "duplicate: A as team 0+2 vs B as 1+3, then swapped"
    if rules.seats == 2:
        return "duplicate: A in seat 0 vs B in seat 1, then swapped"
    return f"duplicate: A alone in each seat vs B in the other {rules.seats - 1}, then B alone in each seat vs A"
