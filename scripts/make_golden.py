"""Writes the golden replay corpus, tests/golden/*.jsonl.xz: seeded matches of every rule
family the registry holds, at every variant, seat count and team setting it offers and
every combination of its host options (Goat's), each with what
`domino audit verify --json` printed for it. tests/unit/test_golden_replay.py replays and
verifies every one and asks for the same bytes, so a change to the engine that changes
who won, the scores or a legal move fails there (docs/operations.md, "The golden replay
corpus").

    .venv/bin/python scripts/make_golden.py              # refuses: the corpus exists
    .venv/bin/python scripts/make_golden.py --overwrite  # after a deliberate rules change
    .venv/bin/python scripts/make_golden.py --json       # print the sizes as JSON

Regenerating is a decision that the engine's behaviour changed on purpose, so the script
refuses to replace a file unless told to, and the diff of the corpus belongs in the commit
that changes the rules. The output is the same on every run: the matches come from
services/audit/simulate.py (what `domino audit simulate` runs) with fixed seeds, and xz
with a fixed preset writes the same bytes for the same input.
"""

from __future__ import annotations

import argparse
import itertools
import json
import lzma
import sys
import time
from pathlib import Path
from typing import Any, NamedTuple

from services.audit.simulate import simulate
from services.audit.verify import verify
from services.match import record as record_format
from services.match.domainmodel import Match
from services.match.export import full_record
from services.rules.errors import RulesError
from services.rules import registry
from services.rules.family import Family
from services.rules.moves import END_OF_NAME
from services.rules.tiles import parse_tile

GOLDEN = Path(__file__).resolve().parent.parent / "tests" / "golden"
MATCHES = 100  # per configuration
XZ_PRESET = 9 | lzma.PRESET_EXTREME
# Bots per seat, cycled through the matches: random and greedy seats make different games.
BOTS = (("random",), ("greedy",), ("random", "greedy"), ("greedy", "random"))


class Config(NamedTuple):
    """One kind of table; the shortest target the family offers keeps the matches short."""
    rules: str
    variant: str | None
    seats: int
    teams: bool
    target: int | None

    @property
    def name(self) -> str:
        return "-".join([self.rules, *([self.variant] if self.variant else []), str(self.seats),
                         "teams" if self.teams else "solo"])


def configs(family: Family) -> tuple[Config, ...]:
    """Every variant, seat count and team setting the family offers; no target where the
    record leaves it out, as the family offers one only."""
    target = None if family.target_implied else min(family.targets)
    return tuple(Config(family.name, variant or None, shape.seats, shape.teams, target)
                 for variant in family.variants or ("",) for shape in family.shapes(variant))


def option_sets(family: Family) -> list[dict[str, Any]]:
    """Every combination of the family's host options (Goat's four), cycled through the
    matches of each of its configurations; [{}] for a family without options."""
    return [dict(zip([o.name for o in family.options], values))
            for values in itertools.product(*(o.values for o in family.options))]


CONFIGS = tuple(config for family in registry.families() for config in configs(family))


def golden_line(config: Config, index: int) -> dict[str, Any]:
    """Match ``index`` of ``config``: its record as the simulator writes it, the verifier's
    JSON of that record read back as `domino audit verify` reads a file, and the last link of
    the hash chain the match aggregate computes when the record is played through it."""
    family = registry.family(config.rules)
    options = option_sets(family)
    record, _ = simulate(config.variant, seed=index, teams=config.teams, target=config.target,
                         strategies=BOTS[index % len(BOTS)], rules=config.rules,
                         seats=family.seats_to_build(config.seats), options=options[index % len(options)] or None)
    text = record_format.dumps(record, indent=None)
    verdict = verify(record_format.loads(text)).to_json()
    if not verdict["valid"] or not verdict["complete"]:
        raise SystemExit(f"{config.name} match {index} does not verify as a whole match: {verdict}")
    exported, head = played_by_aggregate(json.loads(text))
    if record_format.dumps(record_format.from_json(exported), indent=None) != text:
        raise SystemExit(f"{config.name} match {index}: the match aggregate exports another record than it played")
    return {"record": json.loads(text), "verify": verdict, "head": head}


def played_by_aggregate(record: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """The record played through the match service's aggregate, command by command, as a
    match of bots is (the aggregate deals from the seeds and makes the forced passes
    itself): its export as an auditor gets it, without the chain, and the chain's last link.
    RulesError names the round (from 1) and action the aggregate refuses."""
    fair = record["fairness"]
    match = Match.start(request_id="golden", rules=record["rules"], variant=record.get("variant") or "",
                  teams=record["teams"], target=record["target"], turn_timer=0, seats=record["seats"],
                  client_seeds=fair["client_seeds"], commitment=fair["commitment"], server_seed=fair["server_seed"],
                  options=record.get("options"))
    match.begin(0.0)
    for r, rnd in enumerate(record["rounds"]):
        for a, action in enumerate(rnd["actions"]):
            key = f"{r}:{a}"
            try:
                if "play" in action:
                    end = END_OF_NAME[action["end"]] if "end" in action else None
                    match.play_tile(action["seat"], parse_tile(action["play"]), end, key, 0.0)
                elif "draw" in action:
                    match.draw_tile(action["seat"], key, 0.0)
            except RulesError as e:
                raise RulesError(f"round {r + 1}, action {a}: {e}") from e
    exported = record_format.to_json(full_record(match.collect_events()))
    exported.pop("chain", None)
    return exported, match.chain_head


def write(config: Config, matches: int) -> bytes:
    lines = "".join(json.dumps(golden_line(config, i), ensure_ascii=False, separators=(",", ":")) + "\n"
                    for i in range(matches))
    return lzma.compress(lines.encode(), format=lzma.FORMAT_XZ, check=lzma.CHECK_CRC64, preset=XZ_PRESET)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--overwrite", action="store_true",
                        help="Replace existing files: the engine's behaviour changed on purpose.")
    parser.add_argument("--matches", type=int, default=MATCHES, help="Matches per configuration.")
    parser.add_argument("--json", action="store_true", help="Print what was written as JSON.")
    args = parser.parse_args()
    paths = {config: GOLDEN / f"{config.name}.jsonl.xz" for config in CONFIGS}
    existing = [p for p in paths.values() if p.exists()]
    if existing and not args.overwrite:
        sys.exit(f"{len(existing)} golden files exist (e.g. {existing[0].name}); regenerating them declares "
                 "that the engine's behaviour changed on purpose: pass --overwrite to do so")
    GOLDEN.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    written = {}
    for config, path in paths.items():
        data = write(config, args.matches)
        path.write_bytes(data)
        written[path.name] = len(data)
        if not args.json:
            print(f"{path.name}: {args.matches} matches, {len(data) / 1e6:.2f} MB", file=sys.stderr)
    summary = {"files": len(written), "matches": args.matches * len(written), "bytes": sum(written.values()),
               "per_file": written, "seconds": round(time.perf_counter() - started, 1)}
    if args.json:
        print(json.dumps(summary))
    else:
        print(f"{summary['files']} files, {summary['matches']} matches, {summary['bytes'] / 1e6:.2f} MB "
              f"in {summary['seconds']} s", file=sys.stderr)


if __name__ == "__main__":
    main()
