"""The replay page's steps (services/console/replay.py): one per chain entry, each with the
board and the hands after it, and the evidence at that point; a tampered record shows the
step where it was changed. Records from a real match application (tests/console/played_match.py),
edited as the tamper tests edit stored logs (tests/integration/test_tampering.py)."""

from __future__ import annotations

import copy

from services.audit.witness import compare
from services.console.replay import replay
from services.console.step_evidence import AGREES, CHANGED_HERE, DISAGREES, NOT_CHECKED
from services.match import chain
from services.match.record import from_json
from services.rules.tiles import NAMES, tile as tile_of
from tests.console.played_match import played


def edited(export: dict, edit, relink: bool = False):
    data = copy.deepcopy(export)
    edit(data)
    record = from_json(data)
    if relink:
        record.chain["links"] = chain.links(record)
    return record


def first_draw(data: dict) -> tuple[int, int]:
    """(round, action) of the record's first draw."""
    for r, rnd in enumerate(data["rounds"]):
        for a, action in enumerate(rnd["actions"]):
            if "draw" in action:
                return r, a
    raise AssertionError("no draw in the match")


def entry_of(record, r: int, a: int) -> int:
    return next(i for i, e in enumerate(chain.entries(record)) if (e.round, e.action) == (r, a))


def test_an_untouched_record_replays_to_its_end_with_every_check_passing():
    p = played()
    result = replay(p.record(), p.keys, list(p.kept), compare(p.record(), [p.kept[-1]], p.keys))
    assert result.valid and result.changed_at is None
    assert all(s.replayed and not s.fault for s in result.steps)
    assert {(s.marks.chain, s.marks.heads, s.marks.witness) for s in result.steps} == {(AGREES, AGREES, AGREES)}
    assert result.report.splitlines()[-2].startswith("VALID (complete)")


def test_there_is_one_step_per_chain_entry_named_as_the_verifier_names_it():
    p = played()
    result = replay(p.record(), p.keys, list(p.kept))
    assert [s.where for s in result.steps] == [e.where for e in chain.entries(p.record())]
    assert result.steps[0].kind == "match" and result.steps[-1].kind == "end"


def test_a_play_lays_its_tile_on_the_board_and_takes_it_from_the_hand():
    p = played()
    steps = replay(p.record()).steps
    play = next(s for s in steps if s.kind == "action" and " plays " in s.said)
    before = steps[play.number - 1]
    tile = play.said.split(" plays ")[1].split()[0]
    seat = int(play.said.split()[1])
    assert tile in before.hands[seat] and tile not in play.hands[seat]
    assert len(play.board.line) == len(before.board.line) + 1
    assert tile in {NAMES[tile_of(a, b)] for a, b in play.board.line}


def test_each_step_carries_its_chain_entry_and_both_links():
    p = played()
    step = replay(p.record()).steps[5]
    assert '"entry":"action"' in step.entry
    assert step.marks.link == p.export["chain"]["links"][5] == step.marks.recomputed


def test_an_edited_draw_shows_at_its_step_with_the_chain_and_the_replay_both_refusing_it():
    p = played()
    r, a = first_draw(p.export)

    def edit(data):
        data["rounds"][r]["actions"][a]["draw"] = "6-6" if data["rounds"][r]["actions"][a]["draw"] != "6-6" else "0-0"

    record = edited(p.export, edit)
    result = replay(record, p.keys, list(p.kept))
    at = entry_of(record, r, a)
    assert not result.valid and result.changed_at == at
    step = result.steps[at]
    assert step.fault and step.marks.chain == DISAGREES and not step.replayed
    assert all(s.replayed for s in result.steps[:at]) and not any(s.replayed for s in result.steps[at:])
    assert result.report.splitlines()[-1].startswith(f"INVALID at round {r + 1}, action {a}")


def test_a_rewrite_that_recomputed_every_link_is_bounded_by_the_heads_a_player_kept():
    p = played()

    def edit(data):
        data["seats"][0] = "mallory"

    result = replay(edited(p.export, edit, relink=True), p.keys, list(p.kept))
    assert not result.valid and result.changed_at == 0
    assert result.steps[0].marks.chain == AGREES and result.steps[0].marks.heads == CHANGED_HERE
    assert result.steps[-1].marks.heads == DISAGREES


def test_evidence_the_console_could_not_reach_is_not_checked_never_passed():
    p = played()
    result = replay(p.record(), None, None, None)
    assert {(s.marks.heads, s.marks.witness) for s in result.steps} == {(NOT_CHECKED, NOT_CHECKED)}
    assert result.witness is None
    assert "player's heads: absent" in result.report


def test_a_witness_that_disagrees_makes_the_replay_invalid():
    p = played()
    other = played(8)
    result = replay(p.record(), p.keys, list(p.kept), compare(p.record(), [other.kept[-1]], p.keys))
    assert result.verdict.valid and not result.valid
    assert result.steps[3].marks.witness == DISAGREES


def test_a_record_without_a_chain_replays_with_its_chain_absent_and_the_spinner_on_the_board():
    from services.audit.simulate import simulate
    from services.console.step_evidence import ABSENT

    record, _ = simulate(None, 3, rules="all-fives", seats=2)
    result = replay(record)
    assert result.valid and result.changed_at is None
    assert {s.marks.chain for s in result.steps} == {ABSENT}
    assert any(s.board.spinner_at is not None for s in result.steps)
