"""`domino bots`: play bot strategies against each other."""

from __future__ import annotations

import json
import sys

import click

from services.match.rules.rulesets import EGYPTIAN_VARIANTS


@click.group()
def bots() -> None:
    """Bot strategies: compare them on the pure engine."""


@bots.command()
@click.option("--a", "a_spec", required=True, metavar="STRATEGY",
              help="Strategy A: random, greedy or strong (strong takes options: strong:samples=32,eps=0.2).")
@click.option("--b", "b_spec", required=True, metavar="STRATEGY", help="Strategy B, as --a.")
@click.option("--variant", type=click.Choice(EGYPTIAN_VARIANTS), default="block-4", show_default=True)
@click.option("--teams/--solo", default=None, help="block-4 only: teams (default) or solo.")
@click.option("--deals", type=click.IntRange(min=1), default=100, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True,
              help="Worker processes (decision times are only one-core figures with 1).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("--progress", is_flag=True, help="Report progress on stderr.")
def arena(a_spec: str, b_spec: str, variant: str, teams: bool | None, deals: int, seed: int, jobs: int,
          as_json: bool, progress: bool) -> None:
    """Play A against B on DEALS seeded deals in duplicate format (each deal replayed with
    the seats swapped), one round per play, and report A's win rate among decided rounds."""
    from services.bots.arena import arena as run_arena
    from services.bots.arena import resolve

    if teams is not None and variant != "block-4":
        raise click.UsageError(f"--teams/--solo applies to block-4 only; {variant} is played solo")
    for spec in (a_spec, b_spec):
        try:
            resolve(spec)
        except (ValueError, TypeError) as e:
            raise click.BadParameter(str(e)) from None

    def tick(done: int) -> None:
        if done % max(1, deals // 20) == 0 or done == deals:
            click.echo(f"{done}/{deals} deals", err=True)

    result = run_arena(a_spec, b_spec, variant, teams, deals, seed, jobs, tick if progress else None)
    if as_json:
        json.dump(result, sys.stdout)
        sys.stdout.write("\n")
        return
    d = result["decision_ms"]
    lo, hi = result["a_win_rate_ci95"]
    click.echo(f"{result['a']} (A) vs {result['b']} (B), {result['variant']}"
               f"{' teams' if result['teams'] else ' solo'}, {deals} deals, seed {seed}, {result['format']}")
    click.echo(f"rounds {result['rounds']}, decided {result['decided']}, A wins {result['a_wins']}: "
               f"{result['a_win_rate']:.1%} (95% CI {lo:.1%}-{hi:.1%})" if result["decided"] else "no decided rounds")
    click.echo(f"points per round: A {result['a_points_per_round']}, B {result['b_points_per_round']}")
    for k in ("a", "b"):
        t = d[k]
        if t["count"]:
            click.echo(f"decisions {k.upper()} ({t['strategy']}): {t['count']}, mean {t['mean_ms']} ms, "
                       f"p50 {t['p50_ms']} ms, p99 {t['p99_ms']} ms, max {t['max_ms']} ms")
