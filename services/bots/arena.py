"""Strategy A against strategy B, in-process on the pure engine, in duplicate format, in
any rule family of docs/rules.md.

Every deal comes from a seeded key (``fairness.deal``, which also draws All Fives' and
Sports' chance leader) and is played several times with the same hands in the same seats,
only the strategies moving between seats, so the luck of the deal cancels and what is left
is how the strategies play. Each play is one round, from the deal to its end, led as round
1 is (docs/rules.md: by the family's round-1 rule, or by the seat drawn by chance). A Goat
deal that calls for a redeal is thrown in and followed by the next deal of the same play
(keys ``deal_key(seed, i, 1)``, ...), exactly as in a match.

Seatings per deal, for any seat count:

- teams (block-4, All Fives / Goat with teams, Sports): A holds team 0 (seats 0+2) and B team
  1 (seats 1+3); then swapped.
- two seats: A in seat 0, B in seat 1; then swapped.
- solo with n >= 3 seats: A alone in seat k against B in every other seat, for each k; then
  B alone in seat k against A everywhere else, for each k (2n plays; for three seats that is
  every way to split the seats between A and B).

Who *won* a round, per family (``round_outcome``):

- Egyptian, Classic, Sports: the side the family's ``score_round`` names (a domino, or the lowest
  blocked hand or pair); its points are what that round end scores.
- All Fives: the side that scored strictly the most points in the round, points during play
  and the round end's together (a domino with few points left can lose the round to the
  side that scored more on the way); equal tops are a tie.
- Goat: points are bad, so the side with strictly the lowest *round score* (its hands'
  value, 0 for the seat that went out or fished) wins; equal lowest are a tie. Round scores,
  not written points: with ``remembered`` on, small scores are not written yet, which would
  make most rounds look tied. The points reported for Goat are those round scores (lower is
  better).

A "win" for A is a decided (non-tied) round won by a side that A plays. Every seating
appears with its mirror image, so two equal strategies win 50% of decided rounds in
expectation, in every family; the report also gives the 1-vs-rest win rates of solo
games against their fair share 1/n.

Solo games of three or four seats also get the **same-seat comparison** (``same_seat``),
the way duplicate bridge scores a board: each deal is played twice more, once with A in
every seat and once with B in every seat, and for every deal and seat k the round of "A
alone in seat k among B" is set against the round of "B in seat k among B" (the all-B
play), and "A in seat k among A" (the all-A play) against "B alone in seat k among A".
A comparison is decided when seat k won in exactly one of its two rounds; A is better
when that was A's. With the same cards, the same seat and the same company, only the
strategy in seat k differs, so this asks directly whether A does better than B would
have in its place; two equal strategies are again 50% in expectation. The headline rate
above stays the all-seatings one.

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

from services.rules import fairness
from services.rules.registry import family
from services.rules.match import apply, current_round, new_match, start_round
from services.rules.rulesets import rule_set
from services.rules.view import player_view

Z95 = 1.959963984540054


def arena_rules(rules: str = "egyptian", variant: str | None = None, teams: bool | None = None,
                seats: int | None = None, options: dict | None = None):
    """The RuleSet an arena plays; without a variant, the family's ``bots_variant`` (Egyptian:
    block-4, as it always was). Raises ``BadOptions`` with the engine's own words for
    anything it does not offer."""
    return rule_set(rules, variant or family(rules).bots_variant, teams, seats, options)


def resolve(spec: str):
    """A view strategy from its name, optionally with options: ``strong:samples=32,eps=0.1``,
    ``expert:budget=0.3`` (services/bots/expert.py: ExpertConfig's options and strong's)."""
    from services.bots.strategies import STRATEGIES
    from services.common.bot_strengths import NAMES

    name, _, opts = spec.partition(":")
    if name not in NAMES:
        raise ValueError(f"unknown strategy {name!r}; choose one of {', '.join(NAMES)}")
    if not opts:
        return STRATEGIES[name]
    if name not in ("strong", "expert"):
        raise ValueError(f"strategy {name!r} takes no options")
    from services.bots.expert import ExpertConfig, expert_from_options
    from services.bots.strong import StrongBot, StrongConfig

    fields = StrongConfig.__dataclass_fields__
    if name == "expert":  # its own options, strong's (for the search it runs), and deadline for budget
        fields = {**fields, **ExpertConfig.__dataclass_fields__, "deadline": ExpertConfig.__dataclass_fields__["budget"]}
    kw = parse_options(name, opts, fields)
    if name == "expert":
        return expert_from_options(kw)
    return StrongBot(**kw)  # the family's tuned configuration with these changes


def parse_options(name: str, opts: str, fields: dict) -> dict[str, Any]:
    """``key=value,...`` as keyword arguments for a config dataclass with these ``fields``
    (``none`` or an empty value: None; ints for int fields, floats otherwise)."""
    kw: dict[str, Any] = {}
    for item in filter(None, opts.split(",")):
        key, _, value = item.partition("=")
        key, value = key.strip(), value.strip()
        if key not in fields:
            raise ValueError(f"{name} has no option {key!r}")
        if value.lower() in ("none", ""):
            kw[key] = None
        elif str(fields[key].type).startswith("int"):
            kw[key] = int(value)
        else:
            kw[key] = float(value)
    return kw


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


def compares_seats(rules) -> bool:
    """Whether the arena adds the same-seat comparison: solo games of three or more seats."""
    return not rules.teams and rules.seats > 2


def same_seat(plays: list[PlayResult], fields: list[FieldResult], seats: int) -> dict:
    """The same-seat comparison (see the module's docstring) over every deal with both field
    plays: A's rate among decided comparisons, overall and in each company."""
    won = {(f.deal, f.everyone): f.winner_side for f in fields}
    counts = {"among_b": [0, 0], "among_a": [0, 0]}  # [A better, B better]
    for p in plays:
        if (p.deal, "a") not in won or (p.deal, "b") not in won:
            continue
        if len(p.a_seats) == 1:  # A alone in seat k, against B in seat k of the all-B play
            k = p.a_seats[0]
            company, a_won, b_won = "among_b", p.winner_side == k, won[p.deal, "b"] == k
        else:  # B alone in seat k, against A in seat k of the all-A play
            k = next(s for s in range(seats) if s not in p.a_seats)
            company, a_won, b_won = "among_a", won[p.deal, "a"] == k, p.winner_side == k
        if a_won != b_won:
            counts[company][0 if a_won else 1] += 1
    overall = _rate(sum(c[0] for c in counts.values()), sum(c[1] for c in counts.values()))
    return {**overall, **{company: _rate(*c) for company, c in counts.items()}}


def _rate(a_better: int, b_better: int) -> dict:
    n = a_better + b_better
    lo, hi = wilson(a_better, n)
    return {"decided": n, "a_better": a_better, "b_better": b_better,
            "a_rate": round(a_better / n, 4) if n else None, "a_rate_ci95": [round(lo, 4), round(hi, 4)]}


def deal_key(seed: int, index: int, redeal: int = 0) -> bytes:
    """The key of deal ``index``; ``redeal`` > 0 names the deals that follow thrown-in ones."""
    text = f"domino-arena/1:{seed}:{index}" + (f":redeal:{redeal}" if redeal else "")
    return hashlib.sha256(text.encode()).digest()


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
    points: int  # the winner's points (Goat: its round score)
    a_won: bool | None  # None for a tie
    reason: str
    a_points: int = 0  # what A's seats scored this round (Goat: their round scores, bad)
    b_points: int = 0


@dataclass
class FieldResult:
    """A play of a deal with one strategy in every seat (the same-seat comparison's baseline)."""

    deal: int
    everyone: str  # "a" or "b"
    winner_side: int | None


@dataclass
class Tally:
    plays: list[PlayResult] = field(default_factory=list)
    fields: list[FieldResult] = field(default_factory=list)
    times: dict[str, list[float]] = field(default_factory=lambda: {"a": [], "b": []})
    cpu: dict[str, list[float]] = field(default_factory=lambda: {"a": [], "b": []})


def round_outcome(rules, result) -> tuple[int | None, list[int]]:
    """(the side that won the round or None for a tie, each side's points) by the family's
    notion of winning a round (see the module's docstring)."""
    sides = rules.sides
    scores = rules.kind.side_round_scores(rules, result.last_seat, result.hands)
    if scores is not None:  # Goat: the lowest round score wins
        low = min(scores)
        return (scores.index(low) if scores.count(low) == 1 else None), scores
    points = [0] * sides
    if result.winner is not None:
        points[result.winner] += result.points
    if not rules.four_ends:
        return result.winner, points
    # All Fives: the most points in the round wins, its points during play included
    for _, side, scored in rules.kind.round_json(result).get("play_points", ()):
        points[side] += scored
    top = max(points)
    return (points.index(top) if points.count(top) == 1 else None), points


def first_round(rules, seed: int, index: int):
    """A new match with deal ``index``'s round in play (thrown-in deals followed by the next)."""
    m = start_round(new_match(rules), fairness.deal(rules, deal_key(seed, index)))
    redeal = 0
    while current_round(m).outcome == "redeal":
        redeal += 1
        m = start_round(m, fairness.deal(rules, deal_key(seed, index, redeal)))
    return m


def play_round(m, strategies: list[Callable], rngs: list[random.Random], labels: list[str],
               times: dict[str, list[float]], cpu: dict[str, list[float]] | None = None):
    """Play the round in play of match ``m`` with ``strategies[seat]``; returns the MatchState after it."""
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


def play_rngs(seed: int, deal: int, play, seats: int) -> list[random.Random]:
    """Each seat's random stream for one play of a deal."""
    return [random.Random(f"domino-arena/1:{seed}:{deal}:{play}:{s}") for s in range(seats)]


def play_result(rules, deal: int, a_seats: tuple[int, ...], m) -> PlayResult:
    """The result of a play whose round has just ended in match ``m``, A holding ``a_seats``."""
    res = m.results[-1]
    winner, points = round_outcome(rules, res)
    a_sides = {rules.side_of(s) for s in a_seats}
    won = None if winner is None else winner in a_sides
    a_points = sum(points[side] for side in a_sides)
    return PlayResult(deal, tuple(a_seats), winner, 0 if winner is None else points[winner], won, res.reason,
                      a_points, sum(points) - a_points)


def run_deals(a_spec: str, b_spec: str, variant: str | None, teams: bool | None, seed: int, indices,
              progress: Callable[[int], None] | None = None, rules: str = "egyptian", seats: int | None = None,
              options: dict | None = None) -> Tally:
    ruleset = arena_rules(rules, variant, teams, seats, options)
    a, b = resolve(a_spec), resolve(b_spec)
    tally = Tally()
    plans = seatings(ruleset)
    n = ruleset.seats
    for done, i in enumerate(indices, 1):
        start = first_round(ruleset, seed, i)
        for p, a_seats in enumerate(plans):
            strategies = [a if s in a_seats else b for s in range(n)]
            labels = ["a" if s in a_seats else "b" for s in range(n)]
            m = play_round(start, strategies, play_rngs(seed, i, p, n), labels, tally.times, tally.cpu)
            tally.plays.append(play_result(ruleset, i, a_seats, m))
        if compares_seats(ruleset):
            for who, strategy in (("a", a), ("b", b)):
                rngs = play_rngs(seed, i, f"all-{who}", n)
                m = play_round(start, [strategy] * n, rngs, [who] * n, tally.times, tally.cpu)
                tally.fields.append(FieldResult(i, who, round_outcome(ruleset, m.results[-1])[0]))
        if progress is not None:
            progress(done)
    return tally


def _worker(args):
    a_spec, b_spec, variant, teams, seed, indices, rules, seats, options = args
    return run_deals(a_spec, b_spec, variant, teams, seed, indices, None, rules, seats, options)


def arena(a_spec: str, b_spec: str, variant: str | None = None, teams: bool | None = None, deals: int = 100,
          seed: int = 0, jobs: int = 1, progress: Callable[[int], None] | None = None, rules: str = "egyptian",
          seats: int | None = None, options: dict | None = None) -> dict:
    """Play ``deals`` deals of ``rules`` (a family name) in duplicate format and report as a
    JSON-ready dict."""
    ruleset = arena_rules(rules, variant, teams, seats, options)
    resolve(a_spec), resolve(b_spec)  # fail early on a bad name
    start = time.perf_counter()
    if jobs <= 1:
        tally = run_deals(a_spec, b_spec, variant, teams, seed, range(deals), progress, rules, seats, options)
    else:
        import multiprocessing as mp

        chunks = [list(range(j, deals, jobs)) for j in range(jobs)]
        with mp.get_context("fork").Pool(jobs) as pool:
            parts = pool.map(_worker, [(a_spec, b_spec, variant, teams, seed, c, rules, seats, options)
                                       for c in chunks])
        tally = Tally()
        for part in parts:
            tally.plays.extend(part.plays)
            tally.fields.extend(part.fields)
            for k in ("a", "b"):
                tally.times[k].extend(part.times[k])
                tally.cpu[k].extend(part.cpu[k])
        tally.plays.sort(key=lambda r: r.deal)
    return report(ruleset, a_spec, b_spec, seed, deals, tally, time.perf_counter() - start, jobs)


def report(rules, a_spec, b_spec, seed, deals, tally: Tally, elapsed: float, jobs: int = 1) -> dict:
    plays = tally.plays
    rounds = len(plays)
    decided = [p for p in plays if p.a_won is not None]
    a_wins = sum(1 for p in decided if p.a_won)
    lo, hi = wilson(a_wins, len(decided))
    # Per deal: A's wins minus B's wins over the deal's plays (duplicate scoring).
    net: dict[int, int] = {}
    for p in decided:
        net[p.deal] = net.get(p.deal, 0) + (1 if p.a_won else -1)
    out = {
        "a": a_spec,
        "b": b_spec,
        "rules": rules.family,
        "variant": rules.variant,
        "seats": rules.seats,
        "teams": rules.teams,
        "options": rules.kind.played_options(rules),
        "won_by": rules.kind.round_won_by,
        "points_are": "round scores, bad" if rules.tally is not None else "scored",
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
        "a_points_per_round": round(sum(p.a_points for p in plays) / rounds, 3) if rounds else None,
        "b_points_per_round": round(sum(p.b_points for p in plays) / rounds, 3) if rounds else None,
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
    if compares_seats(rules):
        out["same_seat"] = same_seat(plays, tally.fields, rules.seats)
    return out


def _format_name(rules) -> str:
    if rules.teams:
        return "duplicate: A as team 0+2 vs B as 1+3, then swapped"
    if rules.seats == 2:
        return "duplicate: A in seat 0 vs B in seat 1, then swapped"
    return f"duplicate: A alone in each seat vs B in the other {rules.seats - 1}, then B alone in each seat vs A"
