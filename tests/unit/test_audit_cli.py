"""`domino audit verify` and `domino audit simulate` (docs/record.md "What `domino audit verify` does").

Exit status 0: a valid record; 1: an illegal deal or action, at its position; 2: a malformed
file, with a one-line message and no traceback. Most tests run the click command in
process (CliRunner); a few run the installed `domino` console script as a real process.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from services.audit.simulate import simulate
from services.cli.main import cli
from services.match.record import dumps, to_json

DOMINO = shutil.which("domino") or str(Path(sys.executable).parent / "domino")

VARIANTS = {  # name: (variant, teams)
    "draw-2": ("draw-2", None),
    "block-3": ("block-3", None),
    "block-4-teams": ("block-4", True),
    "block-4-solo": ("block-4", False),
}
JSON_KEYS = {"valid", "complete", "rounds", "scores", "winner"}
ROUND_KEYS = {"reason", "winner", "points", "scores"}


def record_json(name: str = "block-4-teams", seed: int = 7, target: int | None = None) -> dict:
    variant, teams = VARIANTS[name]
    record, _ = simulate(variant, seed, teams=teams, target=target, strategies=("random", "greedy"))
    return to_json(record)


def write(tmp_path: Path, data, name: str = "record.json") -> Path:
    path = tmp_path / name
    if isinstance(data, bytes):
        path.write_bytes(data)
    elif isinstance(data, str):
        path.write_text(data, encoding="utf-8")
    else:
        path.write_text(json.dumps(data, indent=2, ensure_ascii=False), encoding="utf-8")
    return path


def run(*args: str, input: bytes | None = None):
    return CliRunner().invoke(cli, list(args), input=input)


def verify_json(path: Path):
    result = run("audit", "verify", str(path), "--json")
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result, json.loads(result.stdout)


def assert_malformed(result) -> None:
    """Exit 2 with one line on stderr, nothing on stdout, and no exception escaping."""
    assert result.exit_code == 2, (result.exit_code, result.output)
    assert isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("domino audit verify: ")


# --- valid records -----------------------------------------------------------------------


@pytest.mark.parametrize("name", VARIANTS)
def test_a_valid_simulated_record_exits_0_with_exactly_the_documented_json_keys(tmp_path, name):
    variant, teams = VARIANTS[name]
    record, match = simulate(variant, 11, teams=teams, strategies=("random", "greedy"))
    result, out = verify_json(write(tmp_path, dumps(record)))
    assert result.exit_code == 0
    assert set(out) == JSON_KEYS
    assert out["valid"] is True and out["complete"] is True
    assert all(set(r) == ROUND_KEYS for r in out["rounds"])
    assert out["rounds"] == [{"reason": r.reason, "winner": r.winner, "points": r.points, "scores": list(r.scores)}
                             for r in match.results]
    assert out["scores"] == list(match.scores)
    assert match.winner is not None
    assert out["winner"] == match.winner


def test_a_record_stopping_mid_round_is_valid_but_not_complete(tmp_path):
    data = record_json()
    full, _ = verify_json(write(tmp_path, data, "full.json"))
    full_out = json.loads(full.stdout)
    last = data["rounds"][-1]
    del last["actions"][len(last["actions"]) // 2:]
    result, out = verify_json(write(tmp_path, data))
    assert result.exit_code == 0
    assert set(out) == JSON_KEYS
    assert out["valid"] is True and out["complete"] is False
    assert out["rounds"] == full_out["rounds"][:-1]
    assert out["scores"] == full_out["rounds"][-2]["scores"]
    assert out["winner"] is None


def test_a_record_that_ends_between_rounds_is_complete_with_no_winner_yet(tmp_path):
    data = record_json()
    del data["rounds"][-1]
    result, out = verify_json(write(tmp_path, data))
    assert result.exit_code == 0
    assert out["valid"] is True and out["complete"] is True
    assert out["winner"] is None


def test_the_table_output_mentions_each_round_numbered_from_1_as_players_see_them_and_the_verdict(tmp_path):
    data = record_json("draw-2", seed=3)
    result = run("audit", "verify", str(write(tmp_path, data)))
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    numbers = [int(line.split()[0]) for line in lines if line.split()[:1] and line.split()[0].isdigit()]
    assert numbers == list(range(1, len(data["rounds"]) + 1)), result.stdout
    assert any(line.startswith("VALID") for line in lines)
    assert "match winner: seat" in result.stdout


def test_the_table_output_names_a_round_still_in_play(tmp_path):
    data = record_json()
    del data["rounds"][-1]["actions"][3:]
    result = run("audit", "verify", str(write(tmp_path, data)))
    assert result.exit_code == 0
    in_play = [line for line in result.stdout.splitlines() if "(in play)" in line]
    assert len(in_play) == 1 and in_play[0].split()[0] == str(len(data["rounds"]))  # the last round, from 1
    assert "stops mid-round" in result.stdout


def test_a_record_read_from_stdin_verifies(tmp_path):
    data = record_json()
    result = run("audit", "verify", "-", "--json", input=json.dumps(data).encode())
    assert result.exit_code == 0
    assert json.loads(result.stdout)["valid"] is True


# --- illegal records: exit 1 at the position ---------------------------------------------


def test_an_illegal_action_exits_1_with_its_round_from_1_and_its_action_index(tmp_path):
    data = record_json()
    action = data["rounds"][1]["actions"][2]
    action["seat"] = (action["seat"] + 1) % 4
    result, out = verify_json(write(tmp_path, data))
    assert result.exit_code == 1
    assert set(out) == {"valid", "error"}
    assert out["valid"] is False
    assert set(out["error"]) == {"round", "action", "message"}
    assert (out["error"]["round"], out["error"]["action"]) == (2, 2)  # the second round, its third action
    assert isinstance(out["error"]["message"], str) and out["error"]["message"]


def test_an_illegal_deal_exits_1_with_action_null(tmp_path):
    data = record_json()
    del data["fairness"]
    hands = data["rounds"][0]["hands"]
    hands[0][0] = hands[1][0]
    result, out = verify_json(write(tmp_path, data))
    assert result.exit_code == 1
    assert out == {"valid": False, "error": {"round": 1, "action": None, "message": out["error"]["message"]}}


def test_a_later_play_without_an_end_exits_1_not_2(tmp_path):
    data = record_json()
    a = next(i for i, action in enumerate(data["rounds"][0]["actions"]) if "end" in action)
    del data["rounds"][0]["actions"][a]["end"]
    result, out = verify_json(write(tmp_path, data))
    assert result.exit_code == 1
    assert (out["error"]["round"], out["error"]["action"]) == (1, a)


def test_a_server_seed_that_does_not_match_its_commitment_exits_1(tmp_path):
    data = record_json()
    data["fairness"]["server_seed"] = "00" * 32
    result, out = verify_json(write(tmp_path, data))
    assert result.exit_code == 1
    assert (out["error"]["round"], out["error"]["action"]) == (1, None)


def test_a_commitment_that_is_not_ascii_is_refused_without_a_crash(tmp_path):
    """Either a commitment mismatch (exit 1 at round 1) or a malformed field (exit 2); never a traceback."""
    data = record_json()
    data["fairness"]["commitment"] = "é" * 64
    result = run("audit", "verify", str(write(tmp_path, data)), "--json")
    assert isinstance(result.exception, SystemExit), repr(result.exception)
    if result.exit_code == 2:
        assert_malformed(result)
    else:
        assert result.exit_code == 1
        error = json.loads(result.stdout)["error"]
        assert (error["round"], error["action"]) == (1, None)


def test_the_table_output_of_an_illegal_record_names_the_position_and_exits_1(tmp_path):
    data = record_json()
    action = data["rounds"][0]["actions"][1]
    action["seat"] = (action["seat"] + 2) % 4
    result = run("audit", "verify", str(write(tmp_path, data)))
    assert result.exit_code == 1
    assert "INVALID at round 1, action 1" in result.stdout


# --- malformed files: exit 2, one line, no traceback ------------------------------------

TOP_LEVEL = ("format", "rules", "variant", "teams", "target", "seats", "rounds")


@pytest.mark.parametrize("text", [b"", b"{", b"not json", b"\xff\xfe\x00garbage", b'{"format": "domino-record/1",}'],
                         ids=["empty", "unclosed", "words", "binary", "trailing-comma"])
def test_a_file_that_is_not_json_exits_2(tmp_path, text):
    assert_malformed(run("audit", "verify", str(write(tmp_path, text)), "--json"))


@pytest.mark.parametrize("text", [b"[]", b"42", b'"domino-record/1"', b"null"])
def test_json_that_is_not_an_object_exits_2(tmp_path, text):
    assert_malformed(run("audit", "verify", str(write(tmp_path, text)), "--json"))


@pytest.mark.parametrize("field", TOP_LEVEL)
def test_a_missing_top_level_field_exits_2_naming_it(tmp_path, field):
    data = record_json()
    del data[field]
    result = run("audit", "verify", str(write(tmp_path, data)), "--json")
    assert_malformed(result)
    assert repr(field) in result.stderr


@pytest.mark.parametrize("name,field", [
    *[(name, "hands") for name in VARIANTS],
    *[(name, "actions") for name in VARIANTS],
    ("block-3", "set_aside"),
    ("draw-2", "boneyard"),
])
def test_a_missing_per_round_field_exits_2_naming_it(tmp_path, name, field):
    data = record_json(name)
    del data["rounds"][-1][field]
    result = run("audit", "verify", str(write(tmp_path, data)), "--json")
    assert_malformed(result)
    assert repr(field) in result.stderr


def _set_tile(data: dict, where: str, tile) -> None:
    rnd = data["rounds"][0]
    if where == "hand":
        rnd["hands"][1][2] = tile
    elif where == "play":
        next(a for a in rnd["actions"][1:] if "play" in a)["play"] = tile
    elif where == "boneyard":
        rnd["boneyard"][0] = tile
    elif where == "set_aside":
        rnd["set_aside"] = tile
    elif where == "draw":
        next(a for r in data["rounds"] for a in r["actions"] if "draw" in a)["draw"] = tile


TILE_PLACES = [("block-4-teams", "hand"), ("block-4-teams", "play"), ("draw-2", "boneyard"), ("draw-2", "draw"),
               ("block-3", "set_aside")]


@pytest.mark.parametrize("name,where", TILE_PLACES)
@pytest.mark.parametrize("tile", ["7-1", "1-7", "6-9", "x-y", "66", "1-2-3", "", 12, None])
def test_a_tile_that_does_not_exist_exits_2(tmp_path, name, where, tile):
    data = record_json(name, seed=5)
    _set_tile(data, where, tile)
    assert_malformed(run("audit", "verify", str(write(tmp_path, data)), "--json"))


@pytest.mark.parametrize("tile", [" 1-2", "1-2 ", "1 -2", "1-\t2"])
def test_a_tile_with_spaces_around_its_digits_exits_2(tmp_path, tile):
    data = record_json()
    _set_tile(data, "hand", tile)
    assert_malformed(run("audit", "verify", str(write(tmp_path, data)), "--json"))


@pytest.mark.parametrize("name,field,value", [
    ("block-4-teams", "boneyard", ["1-2"]), ("block-3", "boneyard", ["1-2"]),
    ("block-4-teams", "set_aside", "1-2"), ("draw-2", "set_aside", "1-2"),
])
def test_tiles_written_where_the_variant_deals_none_are_a_fault_of_the_round(tmp_path, name, field, value):
    data = record_json(name, seed=5)
    data["rounds"][0][field] = value
    result, report = verify_json(write(tmp_path, data))
    assert result.exit_code == 1
    assert report["error"]["round"] == 1 and report["error"]["action"] is None
    assert ("boneyard" if field == "boneyard" else "set_aside") in report["error"]["message"]


@pytest.mark.parametrize("name,field,value", [("block-4-teams", "boneyard", []), ("block-4-teams", "set_aside", None),
                                              ("draw-2", "set_aside", None)])
def test_an_empty_boneyard_or_null_set_aside_where_the_variant_has_none_is_read_as_absent(tmp_path, name, field,
                                                                                       value):
    data = record_json(name, seed=5)
    data["rounds"][0][field] = value
    assert verify_json(write(tmp_path, data))[0].exit_code == 0


def test_a_null_end_is_read_as_a_missing_end(tmp_path):
    data = record_json()
    action = next(a for a in data["rounds"][0]["actions"][1:] if "play" in a)
    action["end"] = None
    index = data["rounds"][0]["actions"].index(action)
    result, report = verify_json(write(tmp_path, data))
    assert result.exit_code == 1
    assert report["error"] == {"round": 1, "action": index, "message": report["error"]["message"]}


@pytest.mark.parametrize("tile", ["²-1", "1-¹"], ids=["superscript-two", "superscript-one"])
def test_a_tile_written_with_superscript_digits_exits_2(tmp_path, tile):
    data = record_json()
    _set_tile(data, "hand", tile)
    assert_malformed(run("audit", "verify", str(write(tmp_path, data)), "--json"))


@pytest.mark.parametrize("kinds", [(), ("play", "pass"), ("play", "draw"), ("draw", "pass"), ("play", "draw", "pass")],
                         ids=lambda kinds: "+".join(kinds) or "none")
def test_an_action_with_none_or_several_of_play_draw_pass_exits_2(tmp_path, kinds):
    data = record_json()
    values = {"play": "0-0", "draw": "0-0", "pass": True}
    data["rounds"][0]["actions"][1] = {"seat": data["rounds"][0]["actions"][1]["seat"],
                                       **{k: values[k] for k in kinds}}
    assert_malformed(run("audit", "verify", str(write(tmp_path, data)), "--json"))


def test_a_malformed_file_exits_2_without_json_too(tmp_path):
    data = record_json()
    del data["seats"]
    assert_malformed(run("audit", "verify", str(write(tmp_path, data))))


def test_a_missing_file_exits_2(tmp_path):
    assert_malformed(run("audit", "verify", str(tmp_path / "nope.json"), "--json"))


# --- domino audit simulate ---------------------------------------------------------------


@pytest.mark.parametrize("args,expect", [
    (["--variant", "draw-2"], {"variant": "draw-2", "teams": False, "target": 71}),
    (["--variant", "block-3", "--target", "51"], {"variant": "block-3", "teams": False, "target": 51}),
    (["--variant", "block-4"], {"variant": "block-4", "teams": True, "target": 101}),
    (["--variant", "block-4", "--teams", "--target", "151"], {"variant": "block-4", "teams": True, "target": 151}),
    (["--variant", "block-4", "--solo", "--bots", "random,greedy"], {"variant": "block-4", "teams": False}),
], ids=["draw-2", "block-3-51", "block-4", "block-4-teams-151", "block-4-solo"])
def test_simulate_writes_a_record_that_verifies(tmp_path, args, expect):
    out = tmp_path / "sim.json"
    result = run("audit", "simulate", *args, "--seed", "42", "-o", str(out))
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    assert {k: data[k] for k in expect} == expect
    assert data["format"] == "domino-record/1" and data["rules"] == "egyptian"
    verified, report = verify_json(out)
    assert verified.exit_code == 0
    assert report["valid"] is True and report["complete"] is True and report["winner"] is not None


def test_simulate_assigns_the_bots_to_seats_in_turn(tmp_path):
    result = run("audit", "simulate", "--variant", "block-3", "--seed", "1", "--bots", "random,greedy")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["seats"] == ["bot:random:0", "bot:greedy:1", "bot:random:2"]


def test_simulate_is_deterministic_for_a_seed():
    args = ["audit", "simulate", "--variant", "draw-2", "--seed", "9", "--bots", "random"]
    first, second = run(*args), run(*args)
    assert first.exit_code == second.exit_code == 0
    assert first.stdout == second.stdout
    other = run("audit", "simulate", "--variant", "draw-2", "--seed", "10", "--bots", "random")
    assert other.stdout != first.stdout


def test_simulate_matches_the_library_simulator():
    result = run("audit", "simulate", "--variant", "block-4", "--solo", "--seed", "3", "--bots", "greedy,random")
    record, _ = simulate("block-4", 3, teams=False, strategies=("greedy", "random"))
    assert result.stdout == dumps(record) + "\n"


@pytest.mark.parametrize("args", [
    ["--variant", "draw-2", "--teams", "--seed", "1"],
    ["--variant", "block-4", "--seed", "1", "--bots", "clever"],
    ["--variant", "block-4", "--seed", "1", "--target", "100"],
    ["--variant", "block-5", "--seed", "1"],
    ["--variant", "draw-2"],
], ids=["teams-in-draw-2", "unknown-bot", "bad-target", "bad-variant", "no-seed"])
def test_simulate_refuses_bad_options_with_a_usage_error(args):
    result = run("audit", "simulate", *args)
    assert result.exit_code == 2
    assert isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.output


@pytest.mark.parametrize("args", [[], ["audit"], ["audit", "verify"], ["audit", "simulate"]],
                         ids=["domino", "audit", "verify", "simulate"])
@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_help_works_on_every_command(args, flag):
    result = run(*args, flag)
    assert result.exit_code == 0, result.output
    assert "Usage:" in result.stdout


# --- the installed console script, as a real process --------------------------------------


def domino(*args: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([DOMINO, *args], capture_output=True, text=True, timeout=60, **kwargs)


def test_the_console_script_verifies_a_valid_record_with_exit_0(tmp_path):
    path = write(tmp_path, record_json("block-3"))
    proc = domino("audit", "verify", str(path), "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert set(out) == JSON_KEYS and out["valid"] is True
    assert proc.stderr == ""


def test_the_console_script_reports_an_illegal_record_with_exit_1(tmp_path):
    data = record_json("draw-2")
    data["rounds"][0]["actions"].append({"seat": 0, "pass": True})
    path = write(tmp_path, data)
    proc = domino("audit", "verify", str(path), "--json")
    assert proc.returncode == 1
    assert json.loads(proc.stdout)["error"]["round"] == 1  # the first round, as players number it
    assert json.loads(proc.stdout)["error"]["action"] == len(data["rounds"][0]["actions"]) - 1


@pytest.mark.parametrize("content", ["{", json.dumps({"format": "domino-record/1"})], ids=["not-json", "missing-field"])
def test_the_console_script_exits_2_on_a_malformed_file_with_one_line_and_no_traceback(tmp_path, content):
    proc = domino("audit", "verify", str(write(tmp_path, content)), "--json")
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr


def test_the_console_script_simulates_a_record_that_it_then_verifies(tmp_path):
    out = tmp_path / "sim.json"
    proc = domino("audit", "simulate", "--variant", "block-4", "--solo", "--target", "51", "--seed", "5",
                  "--bots", "random,greedy", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    again = domino("audit", "simulate", "--variant", "block-4", "--solo", "--target", "51", "--seed", "5",
                   "--bots", "random,greedy")
    assert again.stdout == out.read_text()
    proc = domino("audit", "verify", str(out))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "VALID (complete)" in proc.stdout


def test_the_console_script_prints_help():
    proc = domino("audit", "verify", "--help")
    assert proc.returncode == 0
    assert "Usage: domino audit verify" in proc.stdout
