"""Hostile files handed to `domino audit` end with exit status 2 and one line on stderr,
never a traceback and never status 1, which means "invalid" (docs/security.md, "Hostile
files"; services/match/untrusted_json.py).

The red team crashed every command that reads a file: 10,000 levels of `[[[...]]]` in a
record, a heads file or a key file (RecursionError), a target or seat number of 5,000 digits
(Python refuses int() beyond 4300 digits with a ValueError), and a lone surrogate
(`"\\ud800"`) in a seat id, which decodes but cannot be hashed or printed. Each of those is
tested as the red team wrote it, then a fuzzer mutates real files (a finished match's
signed export, a player's export of it, the heads the player kept, the published keys)
with values of every JSON type at random places, and runs every `domino audit` command
that reads files on them, in process through the CLI's entry point: `verify` (table and
--json), `verify --key`, `verify --heads`, `witness --record` (against a real NATS whose
witness holds the match's final head) and `rotate-head-key` (whose directory holds the
published keys).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import nats
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from services.audit.witness import publish
from services.cli.main import cli
from services.common import bus
from services.match import chain
from services.match.export import full_record, seat_record_json
from services.match.heads import Head, heads_file, load_signer, rotate
from services.match.record import to_json
from tests.unit.test_chain import play_match

pytestmark = pytest.mark.integration

DEEP_LIST = "[" * 10_000 + "]" * 10_000
DEEP_OBJECT = '{"a":' * 10_000 + "1" + "}" * 10_000
HUGE = "9" * 5_000
RAW = [  # JSON text no Python value writes: put in place of a value as it is
    DEEP_LIST, DEEP_OBJECT, HUGE, "-" + "1" * 4_301, "1" + "0" * 4_300, "1e999", "-1e999", "NaN", "Infinity",
    '"\\ud800"', '"a\\udfffb"', '"\\ud800\\u0000\\n"', '"\\u0000"', "[" * 40 + "]" * 40,
]
MARK = "\u0001raw:"  # a string the mutations put in place of RAW text


@pytest.fixture(scope="module")
def files(tmp_path_factory, nats_server) -> dict:
    """A finished draw-2 match, exported as the match service exports it (signed final
    head; a player's export with the head of the match), the heads a player kept, the
    published keys; the witness holds the final head."""
    where = tmp_path_factory.mktemp("hostile")
    rotate(where / "keys", now=0)
    signer = load_signer(where / "keys", clock=lambda: 100)
    events, match = play_match("draw-2", 3)
    match_id = str(match.id)
    record = to_json(full_record(events))
    links = record["chain"]["links"]
    final = signer.head(match_id, match.version, len(links), links[-1])
    record["chain"]["head"] = final.to_json()
    seats = seat_record_json(events, 1)
    seats["chain"] = {"head": final.to_json()}
    kept = heads_file(match_id, [signer.head(match_id, i + 1, i + 1, link) for i, link in enumerate(links[:8])]
                      + [final])

    async def witness() -> None:
        nc = await nats.connect(nats_server.url)
        try:
            await bus.ensure_witness_stream(nc.jetstream(), replicas=1)
            await publish(nc.jetstream(), Head.from_json(final.to_json()))
        finally:
            await nc.close()

    asyncio.run(witness())
    goat_events, goat = play_match("goat-koza", 1)  # a family with options, a spinner-free four-seat deal
    goat_record = to_json(full_record(goat_events))
    goat_links = goat_record["chain"]["links"]
    goat_record["chain"]["head"] = signer.head(str(goat.id), goat.version, len(goat_links), goat_links[-1]).to_json()
    return {"dir": where, "match": match_id, "record": record, "seat": seats, "goat": goat_record, "heads": kept,
            "keys": json.loads((where / "keys" / "heads-keys.json").read_text()),
            "env": {"DOMINO_NATS_URL": nats_server.url, "DOMINO_VAR_DIR": str(where / "var")}}


def write(path: Path, doc) -> str:
    text = json.dumps(doc, ensure_ascii=True)  # ASCII: surrogates and the mark are written as \u escapes
    for i, raw in enumerate(RAW):
        text = text.replace(json.dumps(f"{MARK}{i}"), raw)
    path.write_text(text)
    return str(path)


def commands(files: dict, record: str, heads: str, keys: str, keys_dir: str) -> list[list[str]]:
    match = files["match"]
    return [["verify", record], ["verify", record, "--json"], ["verify", record, "--key", keys],
            ["verify", record, "--heads", heads, "--key", keys, "--json"], ["verify", record, "--heads", heads],
            ["witness", match, "--record", record, "--key", keys], ["rotate-head-key", "--keys-dir", keys_dir]]


def run_audit(files: dict, args: list[str]):
    result = CliRunner().invoke(cli, ["audit", *args], env=files["env"])
    where = " ".join(args)
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        f"`domino audit {where}` crashed: {result.exception!r}"
    assert result.exit_code in (0, 1, 2), (where, result.exit_code, result.output)
    assert "Traceback" not in result.output
    if result.exit_code == 2:
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("domino audit "), (where, result.stderr)
        assert result.stdout == "", (where, result.stdout)
    return result


def run_all(files: dict, tmp: Path, record, heads, keys) -> dict[str, int]:
    """Every command on these files; {command: exit status}."""
    keys_dir = tmp / "keys-dir"
    keys_dir.mkdir(exist_ok=True)
    paths = (write(tmp / "record.json", record), write(tmp / "heads.json", heads), write(tmp / "keys.json", keys))
    write(keys_dir / "heads-keys.json", keys)
    return {" ".join(args[:1] + [a for a in args[2:] if a.startswith("--")]): run_audit(files, args).exit_code
            for args in commands(files, *paths, str(keys_dir))}


def test_the_unmutated_files_verify_and_agree_with_the_witness(files, tmp_path):
    status = run_all(files, tmp_path, files["record"], files["heads"], files["keys"])
    assert set(status.values()) == {0}, status
    status = run_all(files, tmp_path, files["seat"], files["heads"], files["keys"])
    assert set(status.values()) == {0}, status
    status = run_all(files, tmp_path, files["goat"], files["heads"], files["keys"])
    assert {c: s for c, s in status.items() if "--heads" not in c and c != "witness --record --key"} == \
           {c: 0 for c in status if "--heads" not in c and c != "witness --record --key"}, status  # another match


# ---- what the red team handed over ----------------------------------------------------------

def with_raw(doc, path: tuple, raw: str):
    return mutated(doc, [("replace", path, f"{MARK}{RAW.index(raw)}")])


RED_TEAM = {
    "record nested 10,000 deep": ("record", (), DEEP_LIST),
    "record with a 5,000-digit target": ("record", ("target",), HUGE),
    "record with a 5,000-digit seat number": ("record", ("rounds", 0, "actions", 0, "seat"), HUGE),
    "record with a 5,000-digit leader": ("record", ("rounds", 0, "leader"), HUGE),
    "record with a lone surrogate in a seat id": ("record", ("seats", 1), '"\\ud800"'),
    "record with a lone surrogate in a client seed": ("record", ("fairness", "client_seeds", 0), '"\\ud800"'),
    "player's export with a 5,000-digit viewer seat": ("seat", ("viewer_seat",), HUGE),
    "heads file nested 10,000 deep": ("heads", ("heads", 0), DEEP_LIST),
    "heads file with a 5,000-digit version": ("heads", ("heads", 0, "version"), HUGE),
    "key file nested 10,000 deep": ("keys", ("keys", 0), DEEP_OBJECT),
    "key file with a lone surrogate in a key id": ("keys", ("keys", 0, "id"), '"a\\udfffb"'),
}


@pytest.mark.parametrize("name", RED_TEAM)
def test_the_red_teams_files_exit_2_with_one_line_in_every_command_that_reads_them(files, tmp_path, name):
    which, path, raw = RED_TEAM[name]
    docs = {"record": files["record"], "heads": files["heads"], "keys": files["keys"]}
    docs["record" if which == "seat" else which] = with_raw(files[which], path, raw)
    status = run_all(files, tmp_path, docs["record"], docs["heads"], docs["keys"])
    reading = {"record": [c for c in status if c != "rotate-head-key"],
               "heads": ["verify --heads --key --json", "verify --heads"],
               "keys": [c for c in status if "--key" in c or c == "rotate-head-key"]}
    reads = reading["record" if which == "seat" else which]
    assert {c: status[c] for c in reads} == {c: 2 for c in reads}, status


# ---- the fuzzer ----------------------------------------------------------------------------

SURROGATES = st.sampled_from(["\ud800", "\udfff", "a\udc80b", "\ud83d"])
LEAVES = st.one_of(st.none(), st.booleans(), st.integers(-2**80, 2**80), st.sampled_from([0, 1, -1, 3, 28, 2**53 + 1]),
                   st.floats(), st.text(max_size=6), SURROGATES,
                   st.sampled_from(["1-2", "6-6", "left", "up", "draw-2", "goat", "domino-record/1", "ab" * 32]),
                   st.sampled_from([f"{MARK}{i}" for i in range(len(RAW))]))
VALUES = st.recursive(LEAVES, lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(st.one_of(st.text(max_size=6), SURROGATES), inner, max_size=3), max_leaves=6)


def paths_of(doc, prefix: tuple = ()) -> list[tuple]:
    out = [prefix]
    if isinstance(doc, dict):
        for k, v in doc.items():
            out += paths_of(v, prefix + (k,))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            out += paths_of(v, prefix + (i,))
    return out


def mutated(doc, changes: list[tuple]):
    doc = json.loads(json.dumps(doc))
    for op, path, value in changes:
        if not path:
            doc = value if op != "delete" else {}
            continue
        parent = doc
        try:
            for step in path[:-1]:
                parent = parent[step]
            last = path[-1]
            if op == "replace":
                parent[last] = value
            elif op == "delete":
                del parent[last]
            elif isinstance(parent[last], dict):
                parent[last][value if isinstance(value, str) else "extra"] = value
            elif isinstance(parent[last], list):
                parent[last].insert(len(parent[last]) // 2, value)
            else:
                parent[last] = [parent[last], value]
        except (KeyError, IndexError, TypeError):
            pass  # an earlier change removed the place: the document stays as it is
    return doc


@st.composite
def hostile(draw, files: dict):
    which = draw(st.sampled_from(["record", "seat", "goat", "heads", "keys"]), label="file")
    doc = files[which]
    places = paths_of(doc)
    changes = [(draw(st.sampled_from(["replace", "replace", "delete", "insert"])), draw(st.sampled_from(places)),
                draw(VALUES)) for _ in range(draw(st.integers(1, 3)))]
    return which, mutated(doc, changes)


@settings(max_examples=100, derandomize=True, database=None, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture,
                                 HealthCheck.data_too_large])
@given(st.data())
def test_every_audit_command_on_mutated_files_exits_0_1_or_2_without_a_traceback(files, tmp_path, data):
    which, doc = data.draw(hostile(files))
    docs = {"record": files["record"], "heads": files["heads"], "keys": files["keys"]}
    docs["record" if which in ("seat", "goat") else which] = doc
    run_all(files, tmp_path, docs["record"], docs["heads"], docs["keys"])


@pytest.mark.parametrize("seat_id", ["ann\n    1  seat 0 (ann)  out  seat 0 (ann)", "\x1b[2J\x1b[32mVALID", "bob\u202eevil"])
def test_a_seat_id_that_would_drive_the_auditors_terminal_is_printed_escaped(files, tmp_path, seat_id):
    record = json.loads(json.dumps(files["record"]))
    record["seats"][0] = seat_id
    result = run_audit(files, ["verify", write(tmp_path / "record.json", record)])
    printed = result.output
    assert not any(c in printed for c in "\x1b\u202e"), printed
    assert seat_id.replace("\n", "\\n") in printed or seat_id.encode("unicode_escape").decode() in printed
    assert not any(line.lstrip().startswith("1  seat 0 (ann)  out") for line in printed.splitlines())
