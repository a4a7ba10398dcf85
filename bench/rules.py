"""Benchmark of the pure rules engine (services/rules) and of the audit verifier.

    .venv/bin/python bench/rules.py            # a short human-readable summary
    .venv/bin/python bench/rules.py --json     # one JSON object on stdout (see bench/README.md)

Every figure is single-process, one core. All randomness is seeded (``--seed``): our random
players use their own ``random.Random``; the peer (PyPI ``dominoes``, which deals and plays
with the global ``random`` module) is reseeded with ``random.seed`` before each of its
samples. A timed sample runs whole rounds until ``--seconds`` have passed, so the rounds a
sample plays are always a prefix of the same seeded sequence.

The machine may be noisy, so the metrics are measured round-robin: each of ``--repeats``
passes takes one sample of every metric, our block-4 and the peer back to back (their order
alternating between passes), and each metric reports the median of its samples. Rates divide
by wall time unless ``--clock cpu`` (this process's CPU time, blind to preemption by other
processes); ``cpu_share_min`` in the output shows whether any sample was preempted.
"""

from __future__ import annotations

import argparse
import gc
import importlib.metadata
import json
import os
import platform
import random
import statistics
import sys
import time

import dominoes

from services.audit.simulate import simulate
from services.audit.verify import verify
from services.rules.fairness import deal
from services.rules.match import new_match, start_round
from services.rules.moves import legal_moves
from services.rules.playout import random_playout
from services.rules.rulesets import egyptian, rule_set
from services.rules.turns import step

TARGET_RATIO = 5.0  # the engine's goal: block-4 teams random rounds at least 5x the peer's games
FAMILY_TARGET_RATIO = 3.0  # every other family's random rounds at least 3x the peer's games
LEGAL_MOVES_BATCH = 1000  # calls per timed batch of legal_moves
POSITION_ROUNDS = 300  # random rounds per variant from which legal_moves positions are taken
VERIFY_SEEDS = 10  # simulated matches per variant for the verifier
# simulate() keywords of the records the verifier replays: every family
VERIFY_RULE_SETS = (
    dict(variant="block-4"), dict(variant="block-4", teams=False), dict(variant="draw-2"), dict(variant="block-3"),
    dict(rules="all-fives", variant=None, teams=True), dict(rules="goat", variant="koza", teams=True),
    dict(rules="goat", variant="gamezz", teams=True), dict(rules="classic", variant=None),
    dict(rules="sports", variant=None),
)

# metric name -> (variant, teams)
ROUND_METRICS = {
    "block4_teams_random_rounds_per_s": ("block-4", None),
    "block4_solo_random_rounds_per_s": ("block-4", False),
    "draw2_random_rounds_per_s": ("draw-2", None),
    "block3_random_rounds_per_s": ("block-3", None),
}
# metric name -> rule_set() arguments: the other families at 4 seats, in teams where the family allows
FAMILY_METRICS = {
    "all_fives_random_rounds_per_s": ("all-fives", None, True, 4),
    "goat_koza_random_rounds_per_s": ("goat", "koza", True, 4),
    "goat_gamezz_random_rounds_per_s": ("goat", "gamezz", True, 4),
    "classic_random_rounds_per_s": ("classic", None, False, 4),
    "sports_random_rounds_per_s": ("sports", None, True, 4),
}
PEER = "peer_dominoes_random_games_per_s"
VERIFY = "verify_events_per_s"
OURS = "block4_teams_random_rounds_per_s"
VIA_STEP = "block4_teams_random_rounds_per_s_via_step"


def _key(n: int) -> bytes:
    return n.to_bytes(8, "big")


# --- whole random rounds --------------------------------------------------------------------


# Each timed sample returns (units done, wall seconds, CPU seconds of this process).


def random_rounds(rules, seconds: float, rng_seed: str, key_base: int, via_step: bool = False
                  ) -> tuple[int, float, float]:
    """Whole rounds, each from a fresh seeded deal to its end, with uniformly random legal moves:
    by the engine's playout kernel (what bots' rollouts use), or ``via_step``: the public
    ``legal_moves`` + ``step`` loop, which makes the very same moves (tests/unit/test_playout.py)."""
    rand = random.Random(rng_seed).random
    clock = time.perf_counter
    n = 0
    cpu = time.process_time()
    start = clock()
    deadline = start + seconds
    while True:
        r = start_round(new_match(rules), deal(rules, (key_base + n).to_bytes(8, "big"))).round
        if via_step:
            while r.outcome is None:
                mv = legal_moves(r)
                step(r, mv[int(rand() * len(mv))])
        else:
            random_playout(r, rand)
        n += 1
        now = clock()
        if now >= deadline:
            return n, now - start, time.process_time() - cpu


def peer_games(seconds: float, seed: str) -> tuple[int, float, float]:
    """The peer's 4-player team block game: one ``Game`` is one hand, played by its random player."""
    random.seed(seed)
    new_game = dominoes.Game.new
    choose = dominoes.players.random
    clock = time.perf_counter
    n = 0
    cpu = time.process_time()
    start = clock()
    deadline = start + seconds
    while True:
        g = new_game()
        while g.result is None:
            choose(g)
            g.make_move(*g.valid_moves[0])
        n += 1
        now = clock()
        if now >= deadline:
            return n, now - start, time.process_time() - cpu


# --- the strong bot's rollouts -----------------------------------------------------------------


def strong_positions(rules, rounds: int, seed: int) -> list:
    """Rounds in play a few turns after the opening, from random play: where rollouts start."""
    rand = random.Random(seed).random
    out = []
    for n in range(rounds):
        r = start_round(new_match(rules), deal(rules, _key(10**8 + seed * rounds + n))).round
        for _ in range(3):
            if r.outcome is None:
                mv = legal_moves(r)
                step(r, mv[int(rand() * len(mv))])
        if r.outcome is None:
            out.append(r)
    return out


def strong_rollouts(positions: list, seconds: float, window: float = 0.1) -> list[int]:
    """Rollouts done in each ``window`` (100 ms) of ``seconds``, each as ``StrongBot.choose`` makes
    one: a copy of the position, the rollout's random stream seeded, ``rollout`` to the end."""
    from services.bots.strong import rollout

    roll = random.Random()
    clock = time.process_time
    counts = []
    i = 0
    end = clock() + seconds
    while clock() < end:
        n = 0
        stop = clock() + window
        while clock() < stop:
            for _ in range(10):
                r = positions[i % len(positions)].copy()
                roll.seed(i)
                rollout(r, roll.random, 0.2)
                i += 1
            n += 10
        counts.append(n)
    return counts


def run_strong(seconds: float, seed: int) -> dict:
    """Median rollouts per 100 ms of CPU of the strong bot's rollout in each family's rule set."""
    sets = {name.removesuffix("_random_rounds_per_s"): egyptian(variant, teams)
            for name, (variant, teams) in ROUND_METRICS.items()}
    sets.update({name.removesuffix("_random_rounds_per_s"): rule_set(*args) for name, args in FAMILY_METRICS.items()})
    result = {}
    for name, rules in sets.items():
        positions = strong_positions(rules, 200, seed)
        strong_rollouts(positions, min(0.2, seconds))  # warm-up
        result[name] = statistics.median(strong_rollouts(positions, seconds))
    return {"strong_rollouts_per_100ms_cpu": result, "seconds": seconds, "seed": seed,
            "loadavg_1m_after": _loadavg()}


# --- legal_moves ----------------------------------------------------------------------------


def collect_positions(seed: int) -> tuple[list, dict[str, float]]:
    """Mid-round positions (after the opening play, before the end) from random rounds of every
    variant, the variants' rounds taken in turn, each round's positions in play order; and the
    mean number of actions per round of each variant.

    Play order, not a shuffle: a caller asks about the position it has just stepped, which is
    in cache. Shuffling 30,000 positions instead measures memory latency (about 2x slower here).
    """
    sources = []
    for name, (variant, teams) in ROUND_METRICS.items():
        rules = egyptian(variant, teams)
        sources.append((name, rules, random.Random(f"positions:{seed}:{name}").random))
    positions = []
    actions = dict.fromkeys(ROUND_METRICS, 0)
    for n in range(POSITION_ROUNDS):
        for name, rules, rand in sources:
            r = start_round(new_match(rules), deal(rules, _key(10**9 + seed * POSITION_ROUNDS + n))).round
            while r.outcome is None:
                if r.left >= 0:
                    positions.append(r.copy())
                mv = legal_moves(r)
                step(r, mv[int(rand() * len(mv))])
                actions[name] += 1
    per_round = {name.removesuffix("_random_rounds_per_s"): count / POSITION_ROUNDS for name, count in actions.items()}
    return positions, per_round


def legal_moves_batches(batches: list[list], seconds: float, start_at: int, cpu_clock: bool):
    """Per-call ns of successive batches (cycling from ``start_at``) until ``seconds`` pass;
    returns (per-call ns of each batch, the next batch index, wall s, CPU s)."""
    wall = time.perf_counter_ns
    clock = time.process_time_ns if cpu_clock else wall
    lm = legal_moves
    out = []
    i = start_at
    cpu0 = time.process_time_ns()
    wall0 = wall()
    deadline = wall0 + int(seconds * 1e9)
    while True:
        batch = batches[i % len(batches)]
        t0 = clock()
        for p in batch:
            lm(p)
        t1 = clock()
        out.append((t1 - t0) / len(batch))
        i += 1
        now = wall()
        if now >= deadline:
            return out, i, (now - wall0) / 1e9, (time.process_time_ns() - cpu0) / 1e9


def loop_overhead_ns(batches: list[list]) -> float:
    """Per-item cost of the bare ``for`` loop the batches are timed with (not subtracted)."""
    clock = time.perf_counter_ns
    samples = []
    for batch in batches[:200]:
        t0 = clock()
        for p in batch:
            pass
        samples.append((clock() - t0) / len(batch))
    return statistics.median(samples)


# --- verify ---------------------------------------------------------------------------------


def simulated_records(seed: int) -> list:
    records = []
    for keywords in VERIFY_RULE_SETS:
        for s in range(VERIFY_SEEDS):
            record, _ = simulate(seed=seed * 1000 + s, **keywords)
            verdict = verify(record)
            if not verdict.valid:
                raise SystemExit(f"bench: a simulated {keywords} record does not verify: {verdict.fault}")
            records.append(record)
    return records


def verify_events(records: list, seconds: float) -> tuple[int, float, float]:
    clock = time.perf_counter
    events = 0
    i = 0
    cpu = time.process_time()
    start = clock()
    deadline = start + seconds
    while True:
        events += verify(records[i % len(records)]).events
        i += 1
        now = clock()
        if now >= deadline:
            return events, now - start, time.process_time() - cpu


# --- the run --------------------------------------------------------------------------------


def _loadavg() -> float | None:
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:
        return None


def run(seconds: float, repeats: int, seed: int, cpu_clock: bool = False) -> dict:
    began = time.perf_counter()
    load_before = _loadavg()
    rule_sets = {name: egyptian(variant, teams) for name, (variant, teams) in ROUND_METRICS.items()}
    rule_sets.update({name: rule_set(*args) for name, args in FAMILY_METRICS.items()})

    # Setup, untimed: positions for legal_moves (this also warms its memo), simulated records,
    # and a short warm-up of the peer.
    positions, actions_per_round = collect_positions(seed)
    batches = [positions[i : i + LEGAL_MOVES_BATCH] for i in range(0, len(positions), LEGAL_MOVES_BATCH)]
    batches = [b for b in batches if len(b) == LEGAL_MOVES_BATCH]
    records = simulated_records(seed)
    verify_events_per_pass = sum(verify(r).events for r in records)
    peer_games(min(0.2, seconds), f"peer-warmup:{seed}")

    rates: dict[str, list[float]] = {name: [] for name in (OURS, PEER, *ROUND_METRICS, *FAMILY_METRICS, VERIFY, VIA_STEP)}
    cpu_share: list[float] = []  # CPU s / wall s of each sample; well under 1 means we were preempted

    def record(name: str, units: int, wall_s: float, cpu_s: float) -> None:
        rates[name].append(units / (cpu_s if cpu_clock else wall_s))
        cpu_share.append(cpu_s / wall_s)

    lm_ns: list[float] = []
    batch_at = 0
    for k in range(repeats):
        key_base = (k + 1) << 32  # each pass deals its own sequence of rounds

        def ours(name: str = OURS) -> None:
            gc.collect()
            record(name, *random_rounds(rule_sets[name], seconds, f"{name}:{seed}:{k}", key_base))

        def peer() -> None:
            gc.collect()
            record(PEER, *peer_games(seconds, f"peer:{seed}:{k}"))

        # ours and the peer back to back, alternating which goes first
        for measure in (ours, peer) if k % 2 == 0 else (peer, ours):
            measure()
        for name in (*ROUND_METRICS, *FAMILY_METRICS):
            if name != OURS:
                ours(name)
        gc.collect()
        record(VIA_STEP, *random_rounds(rule_sets[OURS], seconds, f"{VIA_STEP}:{seed}:{k}", key_base, via_step=True))
        gc.collect()
        per_call, batch_at, wall_s, cpu_s = legal_moves_batches(batches, seconds, batch_at, cpu_clock)
        lm_ns.extend(per_call)
        cpu_share.append(cpu_s / wall_s)
        gc.collect()
        record(VERIFY, *verify_events(records, seconds))

    med = {name: statistics.median(values) for name, values in rates.items()}
    paired = [o / p for o, p in zip(rates[OURS], rates[PEER])]
    ratio = med[OURS] / med[PEER]
    result = {
        "block4_teams_random_rounds_per_s": round(med[OURS], 1),
        "draw2_random_rounds_per_s": round(med["draw2_random_rounds_per_s"], 1),
        "block3_random_rounds_per_s": round(med["block3_random_rounds_per_s"], 1),
        "legal_moves_ns": round(statistics.median(lm_ns), 1),
        "verify_events_per_s": round(med[VERIFY], 1),
        "peer_dominoes_random_games_per_s": round(med[PEER], 1),
        "block4_vs_peer_ratio": round(ratio, 3),
        **{name: round(med[name], 1) for name in FAMILY_METRICS},
        "family_vs_peer_ratios": {name.removesuffix("_random_rounds_per_s"): round(med[name] / med[PEER], 3)
                                  for name in FAMILY_METRICS},
        "family_target_ratio": FAMILY_TARGET_RATIO,
        "families_meet_target": all(med[name] / med[PEER] >= FAMILY_TARGET_RATIO for name in FAMILY_METRICS),
        # extras
        VIA_STEP: round(med[VIA_STEP], 1),
        "block4_via_step_vs_peer_ratio": round(med[VIA_STEP] / med[PEER], 3),
        "block4_solo_random_rounds_per_s": round(med["block4_solo_random_rounds_per_s"], 1),
        "block4_vs_peer_ratio_paired_median": round(statistics.median(paired), 3),
        "target_ratio": TARGET_RATIO,
        "meets_target": ratio >= TARGET_RATIO,
        "legal_moves_loop_overhead_ns": round(loop_overhead_ns(batches), 1),
        "legal_moves_positions": len(batches) * LEGAL_MOVES_BATCH,
        "legal_moves_batch": LEGAL_MOVES_BATCH,
        "legal_moves_batches_timed": len(lm_ns),
        "actions_per_round": {name: round(v, 2) for name, v in actions_per_round.items()},
        "verify_records": len(records),
        "verify_events_per_pass": verify_events_per_pass,
        "samples": {
            **{name: [round(v, 1) for v in values] for name, values in rates.items()},
            "block4_vs_peer_ratio": [round(v, 3) for v in paired],
        },
        "cpu_share_min": round(min(cpu_share), 3),
        "loadavg_1m_before": load_before,
        "loadavg_1m_after": _loadavg(),
        "clock": "cpu" if cpu_clock else "wall",
        "seconds": seconds,
        "repeats": repeats,
        "seed": seed,
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "dominoes_version": importlib.metadata.version("dominoes"),
        "cpu_count": os.cpu_count(),
        "elapsed_s": 0.0,
    }
    result["elapsed_s"] = round(time.perf_counter() - began, 1)
    return result


def summary(r: dict) -> str:
    verdict = "meets" if r["meets_target"] else "MISSES"
    lines = [
        f"rules engine, Python {r['python']}: medians of {r['repeats']} x {r['seconds']:g} s samples ({r['clock']} clock), one core",
        f"  block-4 teams   {r['block4_teams_random_rounds_per_s']:>10,.0f} random rounds/s",
        f"  block-4 solo    {r['block4_solo_random_rounds_per_s']:>10,.0f} random rounds/s",
        f"  draw-2          {r['draw2_random_rounds_per_s']:>10,.0f} random rounds/s",
        f"  block-3         {r['block3_random_rounds_per_s']:>10,.0f} random rounds/s",
        f"  legal_moves     {r['legal_moves_ns']:>10,.0f} ns/call (bare loop {r['legal_moves_loop_overhead_ns']:.0f} ns)",
        *(f"  {name.removesuffix('_random_rounds_per_s'):<15} {r[name]:>10,.0f} random rounds/s"
          f"  ({r['family_vs_peer_ratios'][name.removesuffix('_random_rounds_per_s')]:.2f}x the peer)"
          for name in FAMILY_METRICS),
        f"  verify          {r['verify_events_per_s']:>10,.0f} actions/s (records of every family)",
        f"peer: dominoes {r['dominoes_version']} {r['peer_dominoes_random_games_per_s']:>8,.0f} random games/s",
        f"  block-4 teams / peer = {r['block4_vs_peer_ratio']:.2f}x (paired {r['block4_vs_peer_ratio_paired_median']:.2f}x):"
        f" {verdict} the {r['target_ratio']:g}x target",
        f"  every other family {'meets' if r['families_meet_target'] else 'MISSES'} the"
        f" {r['family_target_ratio']:g}x target",
    ]
    if r["cpu_share_min"] < 0.9:
        hint = "; try --clock cpu" if r["clock"] == "wall" else ""
        lines.append(f"  warning: a sample got only {r['cpu_share_min']:.0%} of a core (load {r['loadavg_1m_after']}){hint}")
    lines.append(f"({r['elapsed_s']} s)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Benchmark the rules engine against the PyPI dominoes package.")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of a summary")
    parser.add_argument("--seconds", type=float, default=1.0, help="length of each timed sample (default 1.0)")
    parser.add_argument("--repeats", type=int, default=5, help="samples per metric; medians are reported (default 5)")
    parser.add_argument("--seed", type=int, default=0, help="seed of every random choice (default 0)")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                        help="divide by wall time (default) or by this process's CPU time, which ignores preemption")
    parser.add_argument("--strong", action="store_true",
                        help="only the strong bot's rollouts per 100 ms of CPU, per rule set (JSON)")
    args = parser.parse_args(argv)
    if args.strong:
        print(json.dumps(run_strong(args.seconds * 2, args.seed)))
        return 0
    if not args.seconds > 0:
        parser.error("--seconds must be positive")
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    result = run(args.seconds, args.repeats, args.seed, cpu_clock=args.clock == "cpu")
    if args.json:
        json.dump(result, sys.stdout)
        sys.stdout.write("\n")
    else:
        print(summary(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
