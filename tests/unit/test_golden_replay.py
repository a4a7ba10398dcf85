"""The golden replay corpus (tests/golden, written by scripts/make_golden.py): 2,000 seeded
matches of every rule family, variant, seat count, team setting and Goat option, each
stored with what `domino audit verify --json` printed for it and the last link of the hash
chain the match aggregate computed.

An event-sourced match is only as good as its replay: an engine that replays a stored
match differently has silently changed who won. So every stored record is replayed by
today's engine three ways, each compared byte for byte with what is stored: read and
written back by the record module, verified as the auditor's CLI does, and played through
the match service's aggregate command by command (its export and its chain head). A change
of behaviour that is meant is declared by regenerating the corpus
(`scripts/make_golden.py --overwrite`, docs/operations.md, "The golden replay corpus").
One test case per file, so pytest-xdist spreads them.
"""

from __future__ import annotations

import json
import lzma
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterator

import pytest

from services.audit.verify import verify
from services.match import record as record_format
from services.rules.errors import RulesError
from services.rules import registry
from tests.support.golden import GOLDEN, SCRIPT, load_generator

FILES = sorted(GOLDEN.glob("*.jsonl.xz"))


def golden_lines(path: Path) -> Iterator[dict[str, Any]]:
    with lzma.open(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            yield json.loads(line)


def first_difference(stored: Any, now: Any, where: str = "") -> tuple[str, Any, Any] | None:
    """(path of the first differing field, stored value, replayed value), or None."""
    if isinstance(stored, dict) and isinstance(now, dict):
        for key in list(stored) + [k for k in now if k not in stored]:
            inner = f"{where}.{key}" if where else key
            if key not in stored or key not in now:
                return inner, stored.get(key, "(absent)"), now.get(key, "(absent)")
            found = first_difference(stored[key], now[key], inner)
            if found:
                return found
        if list(stored) != list(now):
            return f"{where or 'the record'} (order of keys)", list(stored), list(now)
        return None
    if isinstance(stored, list) and isinstance(now, list):
        for i, (a, b) in enumerate(zip(stored, now)):
            found = first_difference(a, b, f"{where}[{i}]")
            if found:
                return found
        if len(stored) != len(now):
            return f"{where} (length)", len(stored), len(now)
        return None
    if stored != now or type(stored) is not type(now):
        return where or "(the whole value)", stored, now
    return None


def differences(path: Path, index: int, line: dict[str, Any], generator) -> list[str]:
    """What today's engine replays differently from what is stored for this match."""
    stored_record = line["record"]
    kind = " ".join([stored_record["rules"], *([stored_record["variant"]] if stored_record.get("variant") else []),
                     f"{len(stored_record['seats'])} seats", "teams" if stored_record["teams"] else "solo"])
    label = f"{path.name} match {index} ({kind})"
    text = json.dumps(stored_record, ensure_ascii=False)  # as record_format.dumps(..., indent=None) wrote it
    found = []

    def compare(what: str, stored: Any, now: Any, stored_text: str, now_text: str) -> None:
        if stored_text != now_text:
            field, was, got = first_difference(stored, now) or ("(formatting)", stored_text[:80], now_text[:80])
            found.append(f"{label}: {what} differs first at {field}: stored {json.dumps(was)[:200]}, "
                         f"replayed {json.dumps(got)[:200]}")

    record = record_format.loads(text)
    written = record_format.to_json(record)
    compare("the record read and written back", stored_record, written, text,
            record_format.dumps(record, indent=None))
    verdict = verify(record).to_json()
    compare("`domino audit verify --json`", line["verify"], verdict, json.dumps(line["verify"]), json.dumps(verdict))
    try:
        exported, head = generator.played_by_aggregate(stored_record)
    except RulesError as e:
        return [*found, f"{label}: the match aggregate refuses it at {e}"]
    compare("the match aggregate's export", stored_record, exported, text, json.dumps(exported, ensure_ascii=False))
    if head != line["head"]:
        found.append(f"{label}: the match aggregate's chain head differs: stored {line['head']}, replayed {head}")
    return found


@pytest.fixture(scope="module")
def generator():
    return load_generator()


@pytest.mark.parametrize("path", FILES, ids=[p.name.removesuffix(".jsonl.xz") for p in FILES])
def test_every_golden_record_replays_and_verifies_byte_for_byte(path: Path, generator) -> None:
    found: list[str] = []
    matches = 0
    for index, line in enumerate(golden_lines(path)):
        matches += 1
        found += differences(path, index, line, generator)
    assert matches > 0, f"{path.name} holds no match"
    assert not found, (f"{len(found)} difference(s) from the golden corpus; the first: {found[0]}\n"
                       "If the engine's behaviour changed on purpose, regenerate it: "
                       ".venv/bin/python scripts/make_golden.py --overwrite (docs/operations.md)")


def test_the_corpus_holds_every_family_variant_seating_and_host_option(generator) -> None:
    assert {p.name for p in FILES} == {f"{c.name}.jsonl.xz" for c in generator.CONFIGS}
    seen: set[tuple] = set()
    options: set[tuple[str, Any]] = set()
    redealt = carried_pot = False
    bots: set[str] = set()
    for path in FILES:
        for line in golden_lines(path):
            record = line["record"]
            seen.add((record["rules"], record.get("variant"), len(record["seats"]), record["teams"]))
            options |= set((record.get("options") or {}).items())
            redealt = redealt or any(r.get("redeal") for r in record["rounds"])
            carried_pot = carried_pot or any(r.get("pot") for r in line["verify"]["rounds"])
            bots |= {seat.split(":")[1] for seat in record["seats"]}
    assert seen == {(c.rules, c.variant, c.seats, c.teams) for c in generator.CONFIGS}
    assert options == {(o.name, value) for f in registry.families() for o in f.options for value in o.values}
    assert redealt and carried_pot and bots == {"random", "greedy"}


def test_a_changed_result_is_reported_with_its_file_match_family_and_field(generator) -> None:
    path = GOLDEN / "egyptian-draw-2-2-solo.jsonl.xz"
    line = next(golden_lines(path))
    line["verify"]["rounds"][0]["points"] += 1
    found = differences(path, 0, line, generator)
    assert len(found) == 1
    assert found[0].startswith(f"{path.name} match 0 (egyptian draw-2 2 seats solo): `domino audit verify --json` "
                                "differs first at rounds[0].points: stored ")


def test_a_move_the_engine_now_refuses_is_reported_at_its_round_and_action(generator) -> None:
    path = GOLDEN / "goat-koza-4-teams.jsonl.xz"
    line = next(golden_lines(path))
    actions = line["record"]["rounds"][0]["actions"]
    actions[1], actions[2] = actions[2], actions[1]  # out of turn, as an engine with another turn order would see it
    found = differences(path, 0, line, generator)
    assert "verify --json` differs first at valid: stored true, replayed false" in found[0]
    assert found[-1].startswith(f"{path.name} match 0 (goat koza 4 seats teams): the match aggregate refuses it "
                                "at round 1, action 1: ")


def test_the_generator_refuses_to_overwrite_the_corpus_unless_told() -> None:
    before = {p: p.stat().st_mtime_ns for p in FILES}
    run = subprocess.run([sys.executable, str(SCRIPT), "--matches", "1"], capture_output=True, text=True)
    assert run.returncode != 0 and "--overwrite" in run.stderr
    assert {p: p.stat().st_mtime_ns for p in FILES} == before
