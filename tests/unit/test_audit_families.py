"""`domino audit verify` and `simulate` for All Fives, Goat, Classic and Sports (docs/record.md,
"The other rule families"): their fields, their JSON, their readable table and exit statuses."""

from __future__ import annotations

import json

import pytest

from services.audit.simulate import simulate
from services.match.record import to_json
from services.rules import registry
from tests.support.families import option_tables, params, sample_tables

from .test_audit_cli import assert_malformed, run, verify_json, write

FAMILIES = {  # name: simulate() keywords
    "all-fives-2": dict(rules="all-fives", variant=None, seats=2),
    "all-fives-teams": dict(rules="all-fives", variant=None, seats=4, teams=True),
    "goat-koza": dict(rules="goat", variant="koza", seats=3),
    "goat-gamezz-teams": dict(rules="goat", variant="gamezz", seats=4, teams=True),
    "goat-fish-one": dict(rules="goat", variant="koza", seats=4, options={"fish": "one", "zero_zero": 25}),
    "classic-3": dict(rules="classic", variant=None, seats=3),
    "sports": dict(rules="sports", variant=None),
}
ROUND_KEYS = {"reason", "winner", "points", "scores"}


def family_json(name: str, seed: int = 11) -> dict:
    record, _ = simulate(seed=seed, strategies=("random", "greedy"), **FAMILIES[name])
    return to_json(record)


@pytest.mark.parametrize("table", params(sample_tables() + option_tables()))
def test_a_simulated_record_of_every_family_verifies_with_exit_0(tmp_path, table):
    record, _ = simulate(table.variant, seed=11, teams=table.teams, strategies=("random", "greedy"), rules=table.family,
                         seats=table.seats, options=table.chosen)
    result, report = verify_json(write(tmp_path, to_json(record)))
    assert result.exit_code == 0, report
    assert report["valid"] and report["complete"] and report["rounds"]
    extra = {column.key for column in registry.family(table.family).round_columns}
    assert all(set(r) == ROUND_KEYS | extra for r in report["rounds"])


def test_all_fives_rounds_list_every_scoring_play_and_count_it_in_the_scores(tmp_path):
    _, report = verify_json(write(tmp_path, family_json("all-fives-teams")))
    totals = [0, 0]
    for rnd in report["rounds"]:
        for index, side, points in rnd["play_points"]:
            assert points % 5 == 0 and points > 0 and side in (0, 1) and index >= 0
            totals[side] += points
        if rnd["winner"] is not None:
            totals[rnd["winner"]] += rnd["points"]
        assert rnd["points"] % 5 == 0
        assert rnd["scores"] == totals


def test_goat_reports_the_goats_and_the_lowest_side_only_once_the_match_has_ended(tmp_path):
    data = family_json("goat-koza")
    _, ended = verify_json(write(tmp_path, data))
    assert ended["goats"] and ended["scores"][ended["goats"][0]] >= 101
    assert ended["winner"] == ended["scores"].index(min(ended["scores"]))
    data["rounds"] = data["rounds"][:1]
    _, early = verify_json(write(tmp_path, data, "early.json"))
    assert early["winner"] is None and "goats" not in early


def test_goat_rounds_carry_written_remembered_and_pot_and_points_are_what_was_written(tmp_path):
    _, report = verify_json(write(tmp_path, family_json("goat-koza")))
    for rnd in report["rounds"]:
        assert rnd["points"] == sum(rnd["written"])
        assert len(rnd["written"]) == len(rnd["remembered"]) == 3 and isinstance(rnd["pot"], int)


def test_goat_target_may_be_omitted_but_anything_but_101_is_malformed(tmp_path):
    data = family_json("goat-koza")
    del data["target"]
    assert verify_json(write(tmp_path, data))[0].exit_code == 0
    data["target"] = 100
    assert_malformed(run("audit", "verify", str(write(tmp_path, data))))


@pytest.mark.parametrize("change", [
    lambda d: d.pop("options"),
    lambda d: d["options"].pop("fish"),
    lambda d: d["options"].update(fish="two"),
    lambda d: d["options"].update(zero_zero=5),
    lambda d: d["options"].update(redeal="yes"),
    lambda d: d["options"].update(colour="red"),
    lambda d: d.pop("variant"),
    lambda d: d.update(variant="kozel"),
], ids=["no-options", "option-missing", "bad-fish", "bad-zero-zero", "bad-redeal", "unknown-option", "no-variant",
        "bad-variant"])
def test_goat_options_and_variant_are_checked_before_playing(tmp_path, change):
    data = family_json("goat-koza")
    change(data)
    assert_malformed(run("audit", "verify", str(write(tmp_path, data))))


@pytest.mark.parametrize("name,change", [
    ("all-fives-2", lambda d: d.update(target=101)),
    ("classic-3", lambda d: d.update(target=250)),
    ("all-fives-2", lambda d: d.update(variant="straight")),
    ("sports", lambda d: d.update(teams=False)),
    ("classic-3", lambda d: d.update(teams=True)),
    ("all-fives-2", lambda d: d["seats"].append("eve") or d["seats"].extend(["x", "y"])),
    ("all-fives-2", lambda d: d["rounds"][0].pop("boneyard")),
    ("sports", lambda d: d["rounds"][0].update(leader="0")),
    ("classic-3", lambda d: d["rounds"][0].update(leader=True)),
    ("goat-koza", lambda d: d["rounds"][0].update(redeal="no")),
    ("all-fives-2", lambda d: d["rounds"][0]["actions"][1].update(end=3)),
], ids=["all-fives-target", "classic-target", "all-fives-variant", "sports-solo", "classic-teams", "five-seats",
        "no-boneyard", "leader-string", "leader-bool", "redeal-string", "end-number"])
def test_structural_faults_of_the_other_families_exit_2(tmp_path, name, change):
    data = family_json(name)
    change(data)
    assert_malformed(run("audit", "verify", str(write(tmp_path, data))))


def test_absent_teams_means_the_familys_default(tmp_path):
    data = family_json("sports")
    del data["teams"]
    assert verify_json(write(tmp_path, data))[0].exit_code == 0
    classic = family_json("classic-3")
    del classic["teams"]
    assert verify_json(write(tmp_path, classic, "classic.json"))[0].exit_code == 0


def test_options_outside_goat_are_ignored(tmp_path):
    data = family_json("classic-3")
    data["options"] = {"fish": "one"}
    assert verify_json(write(tmp_path, data))[0].exit_code == 0


def test_a_null_variant_outside_goat_and_egyptian_is_accepted(tmp_path):
    data = family_json("all-fives-2")
    data["variant"] = None
    assert verify_json(write(tmp_path, data))[0].exit_code == 0


def test_a_wrong_chance_leader_exits_1_at_its_round(tmp_path):
    data = family_json("sports")
    data["rounds"][0]["leader"] = (data["rounds"][0]["leader"] + 1) % 4
    result, report = verify_json(write(tmp_path, data))
    assert result.exit_code == 1
    assert report["error"]["round"] == 1 and report["error"]["action"] is None
    assert "draw seat" in report["error"]["message"]


def _cut_after_a_scoring_play(tmp_path, first_round: bool) -> tuple[dict, dict]:
    """An All Fives record stopped right after a play that scored, in the first round or a later
    round, and the verifier's report on the whole record."""
    for seed in range(11, 40):
        data = family_json("all-fives-2", seed)
        _, whole = verify_json(write(tmp_path, data, "whole.json"))
        for r, rnd in enumerate(whole["rounds"]):
            if rnd["play_points"] and (r == 0) == first_round:
                index = rnd["play_points"][0][0]
                cut = data["rounds"][r]
                data["rounds"] = data["rounds"][:r] + [dict(cut, actions=cut["actions"][:index + 1])]
                return data, whole
    raise AssertionError("no simulated All Fives round scored during play")


def test_all_fives_top_level_scores_are_the_totals_after_the_last_ended_round(tmp_path):
    data, whole = _cut_after_a_scoring_play(tmp_path, first_round=False)
    ended = len(data["rounds"]) - 1
    _, report = verify_json(write(tmp_path, data))
    assert report["valid"] and not report["complete"] and len(report["rounds"]) == ended
    assert report["scores"] == whole["rounds"][ended - 1]["scores"]
    table = run("audit", "verify", str(write(tmp_path, data))).stdout
    assert "scores " + " / ".join(map(str, report["scores"])) in table


def test_an_all_fives_record_stopping_in_its_first_round_scores_nothing_yet_whatever_was_scored_in_play(tmp_path):
    data, _ = _cut_after_a_scoring_play(tmp_path, first_round=True)
    _, report = verify_json(write(tmp_path, data))
    assert report["valid"] and not report["complete"]
    assert report["rounds"] == [] and report["scores"] == [0, 0]


def test_the_table_shows_points_scored_in_play_for_all_fives(tmp_path):
    result = run("audit", "verify", str(write(tmp_path, family_json("all-fives-2"))))
    assert result.exit_code == 0
    assert "in play" in result.stdout and "all-fives solo" in result.stdout


def test_the_table_shows_written_remembered_and_pot_and_names_the_goat(tmp_path):
    result = run("audit", "verify", str(write(tmp_path, family_json("goat-koza"))))
    assert result.exit_code == 0
    for column in ("written", "remembered", "pot", "ended by", "goat: seat"):
        assert column in result.stdout
    assert "koza (zero_zero=10, redeal=true, remembered=true, fish=all)" in result.stdout


# --- domino audit simulate --------------------------------------------------------------


@pytest.mark.parametrize("args,expect", [
    (["--rules", "all-fives", "--seats", "3"], {"rules": "all-fives", "teams": False, "target": 250}),
    (["--rules", "all-fives", "--teams", "--target", "100"], {"rules": "all-fives", "teams": True, "target": 100}),
    (["--rules", "goat", "--variant", "koza", "--option", "fish=one", "--option", "zero_zero=25"],
     {"rules": "goat", "variant": "koza", "target": 101,
      "options": {"zero_zero": 25, "redeal": True, "remembered": True, "fish": "one"}}),
    (["--rules", "goat", "--variant", "gamezz", "--seats", "2", "--option", "remembered=on"],
     {"rules": "goat", "options": {"zero_zero": 0, "redeal": False, "remembered": True, "fish": "all"}}),
    (["--rules", "classic", "--seats", "2", "--target", "300"], {"rules": "classic", "teams": False, "target": 300}),
    (["--rules", "sports"], {"rules": "sports", "teams": True, "target": 200}),
], ids=["all-fives-3", "all-fives-teams-100", "goat-koza-fish-one", "goat-gamezz-remembered", "classic-2-300", "sports"])
def test_simulate_writes_a_record_of_any_family_that_verifies(tmp_path, args, expect):
    out = tmp_path / "sim.json"
    result = run("audit", "simulate", *args, "--seed", "5", "-o", str(out))
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    assert {k: data[k] for k in expect} == expect
    assert all("boneyard" in r and "leader" in r for r in data["rounds"])
    verified, report = verify_json(out)
    assert verified.exit_code == 0 and report["valid"] and report["complete"]


@pytest.mark.parametrize("args", [
    ["--rules", "goat", "--variant", "koza", "--option", "fish=two"],
    ["--rules", "goat", "--variant", "koza", "--option", "nonsense"],
    ["--rules", "goat", "--variant", "koza", "--option", "colour=red"],
    ["--rules", "goat"],
    ["--rules", "all-fives", "--variant", "straight"],
    ["--rules", "all-fives", "--seats", "5"],
    ["--rules", "all-fives", "--seats", "3", "--teams"],
    ["--rules", "sports", "--solo"],
    ["--rules", "classic", "--teams"],
    ["--rules", "egyptian"],
    ["--rules", "chess"],
], ids=["bad-option-value", "option-without-value", "unknown-option", "goat-without-variant", "all-fives-variant",
        "five-seats", "teams-with-three", "sports-solo", "classic-teams", "egyptian-without-variant", "unknown-rules"])
def test_simulate_refuses_bad_family_options_with_a_usage_error(args):
    result = run("audit", "simulate", *args, "--seed", "1")
    assert result.exit_code == 2, result.output
    assert isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.output
