"""`domino bots`: play bot strategies against each other."""

from __future__ import annotations

import json
import sys

import click

from services.cli.choices import Registered
from services.rules import registry
from services.rules.facets import HostOption
from services.rules.family import Family


@click.group()
def bots() -> None:
    """Bot strategies: compare them on the pure engine."""


def option_value(text: str):
    """An ``--option`` value as JSON would have it: true/false, a number, else the text."""
    lowered = text.strip().lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    try:
        return int(text)
    except ValueError:
        return text.strip()


def _variants_help() -> str:
    return "; ".join(f"{f.name}: {', '.join(f.variants)}" + (f" (default {f.bots_variant})" if f.bots_variant else "")
                     for f in registry.families() if f.variants) + "."


def _options_help() -> str:
    def values(option: HostOption) -> str:
        return "|".join(str(v).lower() if isinstance(v, bool) else str(v) for v in option.values)

    return "; ".join(f"{f.name}: " + ", ".join(f"{o.name}={values(o)}" for o in f.options)
                     for f in registry.families() if f.options)


def parse_options(items: tuple[str, ...]) -> dict | None:
    options = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise click.BadParameter(f"{item!r}: write options as NAME=VALUE", param_hint="--option")
        options[name.strip()] = option_value(value)
    return options or None


@bots.command()
@click.option("--a", "a_spec", required=True, metavar="STRATEGY",
              help="Strategy A: random, greedy or strong (strong takes options: strong:samples=32,eps=0.2).")
@click.option("--b", "b_spec", required=True, metavar="STRATEGY", help="Strategy B, as --a.")
@click.option("--rules", "family", type=Registered(registry.names), default="egyptian", show_default=True,
              help="The rule family.")
@click.option("--variant", default=None, help=_variants_help())
@click.option("--seats", type=int, default=None, help="Players, where the family offers a choice (2, 3 or 4).")
@click.option("--teams/--solo", default=None, help="Teams (0+2 against 1+3) or solo, where the family offers both.")
@click.option("--option", "option_items", multiple=True, metavar="NAME=VALUE",
              help=f"A family's host option ({_options_help()}); repeatable.")
@click.option("--deals", type=click.IntRange(min=1), default=100, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True,
              help="Worker processes (decision times are only one-core figures with 1).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("--progress", is_flag=True, help="Report progress on stderr.")
def arena(a_spec: str, b_spec: str, family: str, variant: str | None, seats: int | None, teams: bool | None,
          option_items: tuple[str, ...], deals: int, seed: int, jobs: int, as_json: bool, progress: bool) -> None:
    """Play A against B on DEALS seeded deals in duplicate format (each deal replayed with
    the seats swapped), one round per play, and report A's win rate among decided rounds
    (All Fives: the most points in the round, play points included; Goat: the lowest round
    score). Solo games of three or four seats also get the same-seat comparison: A in a
    seat against B in that seat, with the same cards and the same company."""
    from services.bots.arena import arena as run_arena
    from services.bots.arena import arena_rules, resolve
    from services.rules.errors import BadOptions

    _check_teams(registry.family(family), variant, teams)
    options = parse_options(option_items)
    try:
        arena_rules(family, variant, teams, seats, options)
    except BadOptions as e:
        raise click.UsageError(str(e)) from None
    for spec in (a_spec, b_spec):
        try:
            resolve(spec)
        except (ValueError, TypeError) as e:
            raise click.BadParameter(str(e)) from None

    def tick(done: int) -> None:
        if done % max(1, deals // 20) == 0 or done == deals:
            click.echo(f"{done}/{deals} deals", err=True)

    result = run_arena(a_spec, b_spec, variant, teams, deals, seed, jobs, tick if progress else None, family, seats,
                       options)
    if as_json:
        json.dump(result, sys.stdout)
        sys.stdout.write("\n")
        return
    d = result["decision_ms"]
    lo, hi = result["a_win_rate_ci95"]
    name = " ".join(x for x in (result["rules"], result["variant"]) if x)
    click.echo(f"{result['a']} (A) vs {result['b']} (B), {name}, {result['seats']} seats"
               f"{' teams' if result['teams'] else ' solo'}, {deals} deals, seed {seed}, {result['format']}")
    click.echo(f"rounds {result['rounds']}, decided {result['decided']}, A wins {result['a_wins']}: "
               f"{result['a_win_rate']:.1%} (95% CI {lo:.1%}-{hi:.1%})" if result["decided"] else "no decided rounds")
    click.echo(f"a round is won by {result['won_by']}")
    same = result.get("same_seat")
    if same and same["decided"]:
        lo, hi = same["a_rate_ci95"]
        click.echo(f"same seat, same cards (A in a seat against B in it): A better in {same['a_better']} of "
                   f"{same['decided']} decided comparisons, {same['a_rate']:.1%} (95% CI {lo:.1%}-{hi:.1%})")
    click.echo(f"points per round ({result['points_are']}): A {result['a_points_per_round']}, "
               f"B {result['b_points_per_round']}")
    for k in ("a", "b"):
        t = d[k]
        if t["count"]:
            click.echo(f"decisions {k.upper()} ({t['strategy']}): {t['count']}, mean {t['mean_ms']} ms, "
                       f"p50 {t['p50_ms']} ms, p99 {t['p99_ms']} ms, max {t['max_ms']} ms")


def _check_teams(chosen: Family, variant: str | None, teams: bool | None) -> None:
    """--teams/--solo on a variant that offers no choice of them (block-3) is refused rather
    than quietly meaning nothing; families without variants leave it to their rule set."""
    variant = variant or chosen.bots_variant
    if teams is None or variant not in chosen.variants or _team_choice(chosen, variant):
        return
    offered = [v for v in chosen.variants if _team_choice(chosen, v)]
    played = "in teams" if chosen.shapes(variant)[0].teams else "solo"
    where = f"applies to {' or '.join(offered)} only" if offered else f"does not apply to {chosen.name}"
    raise click.UsageError(f"--teams/--solo {where}; {variant} is played {played}")


def _team_choice(chosen: Family, variant: str) -> bool:
    return len({shape.teams for shape in chosen.shapes(variant)}) > 1


@bots.command()
@click.option("--deals", type=click.IntRange(min=1), default=10, show_default=True,
              help="Deals per family setting (variant, seats, teams), each played by every pair of strengths in "
                   "every seating; 10 take about five minutes on an idle core.")
@click.option("--team-deals", type=click.IntRange(min=1), default=None,
              help="Deals per team setting (default: DEALS); a team deal is played in two seatings, a solo one of "
                   "three or four seats in six or eight.")
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--out", type=click.Path(dir_okay=False, writable=True), default=None,
              help="Where to write the ladder (default: services/common/bot_ladder.json, which the services read).")
@click.option("--progress", is_flag=True, help="Report progress on stderr.")
def ladder(deals: int, team_deals: int | None, seed: int, out: str | None, progress: bool) -> None:
    """Rate every registered bot strength against the others, per rule family and team
    setting, as players are rated (OpenSkill), from arena play of every pair of strengths
    on DEALS seeded deals of every variant and seat count, and write the ladder that
    GetRating answers for `bot:<strength>` and public tables choose their bots by."""
    import time
    from pathlib import Path

    from services.bots import ladder as bot_ladder
    from services.common.bot_ladder import PATH

    def tick(done: int, total: int) -> None:
        if done % max(1, total // 20) == 0 or done == total:
            click.echo(f"{done}/{total} deals", err=True)

    began = time.perf_counter()
    ratings = bot_ladder.run(deals, seed, progress=tick if progress else None, team_deals=team_deals)
    data = bot_ladder.as_data(ratings)
    data["commit"] = _commit()
    data["command"] = (f"domino bots ladder --deals {deals}" + (f" --team-deals {team_deals}" if team_deals else "")
                       + f" --seed {seed}")
    target = Path(out) if out else PATH
    target.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    for key, rated in data.items():
        if isinstance(rated, dict):
            click.echo(f"{key}: " + ", ".join(f"{s} {r['rating']:.1f}" for s, r in rated.items()))
    click.echo(f"wrote {target} in {time.perf_counter() - began:.0f} s", err=True)


def _commit() -> str:
    """The commit the ladder was measured at, "-dirty" when the code differed from it."""
    import subprocess

    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
        changed = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "--", "services"],
                                 capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("-dirty" if changed else "")
