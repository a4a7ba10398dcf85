"""What `domino audit verify` prints for people (services/audit/report.py), on real exports of a
match a real match service played over gRPC: its chain as it is (present, how many entries,
whether it verifies; a player's export carries the signed head alone and was reported
"chain: absent (357 entries)"), seats by short labels in columns that stay aligned whatever
the account ids hold (long ids broke them), and where kept heads put a change ("changed at
or after entry 339 … and by entry 339" said one entry twice)."""

from __future__ import annotations

import json
import uuid

import pytest
from click.testing import CliRunner
from rich.cells import cell_len

from domino.match.v1 import match_service_pb2 as pb
from services.cli.main import cli
from services.client.store import KeptHeads
from services.match.application import MatchApplication
from services.match.heads import PublishedKey, PublishedKeys, key_id
from services.match.messages import head_pb
from tests.support.grpc_matches import play_whole_match
from tests.support.keys import auth

from .harness import running_service

SEATS = ("3f2a9c0e1b7d4e5f8a6b2c1d0e9f8a7b", "bot:strong:1", "3f2a9c7d4e5f8a6b2c1d0e9f8a7b1c2d",
         "名前" * 7 + "x" * 80)  # two account ids alike for six digits, a bot, a long one of wide characters
PLAYER = SEATS[0]


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> dict:
    """A finished block-4 team match: the auditor's and the first player's exports, the
    player's kept heads, the published key."""
    app = MatchApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"},
                           seed_source=lambda: b"audit-report".ljust(32, b"\0"))
    where = tmp_path_factory.mktemp("report")
    with running_service(app) as svc:
        match_id = svc.create(variant="block-4", players=SEATS, teams=True, request_id="report").match_id
        play_whole_match(svc, match_id)
        kept = KeptHeads(where, PLAYER)
        # Every head from the first event on: the one of version 1 (the header alone, stored with
        # the first deal in one command) signed as the service signs it, then the stream's.
        first = app.match_at(uuid.UUID(match_id), 1)
        kept.keep(pb.MatchView(head=head_pb(svc.signer.head(match_id, 1, first.chain_entries, first.chain_head))))
        for update in svc.stub.WatchMatch(pb.WatchMatchRequest(match_id=match_id, from_version=1),
                                          metadata=auth(PLAYER)):
            kept.keep(update.view)
        exported = {who: svc.stub.ExportMatch(pb.ExportMatchRequest(match_id=match_id), metadata=auth(who, kind))
                    .record_json for who, kind in (("auditor-1", "auditor"), (PLAYER, "player"))}
        public = svc.signer.public_key
    app.close()
    keys = where / "keys.json"
    keys.write_text(json.dumps(PublishedKeys([PublishedKey(key_id(public), public)]).to_json()))
    return {"auditor": json.loads(exported["auditor-1"]), "player": json.loads(exported[PLAYER]),
            "heads": json.loads(kept.path(match_id).read_text()), "keys": str(keys), "dir": where}


def verified(played: dict, record: dict, *args: str, heads: dict | None = None):
    path = played["dir"] / "record.json"
    path.write_text(json.dumps(record))
    more = list(args)
    if heads is not None:
        (played["dir"] / "heads.json").write_text(json.dumps(heads))
        more += ["--heads", str(played["dir"] / "heads.json")]
    return CliRunner().invoke(cli, ["audit", "verify", str(path), *more])


def line_of(output: str, start: str) -> str:
    [line] = [line for line in output.splitlines() if line.startswith(start)]
    return line


def entries(record: dict) -> int:
    return len(record["chain"]["links"])


def with_seat(record: dict, seat: int, player: str) -> dict:
    return {**record, "seats": [player if s == seat else p for s, p in enumerate(record["seats"])]}


def test_an_auditors_export_says_its_chain_is_present_with_its_entries_and_verified(played):
    result = verified(played, played["auditor"], "--key", played["keys"])
    assert result.exit_code == 0, result.output
    assert line_of(result.stdout, "chain:") == (f"chain: present, {entries(played['auditor'])} entries, "
                                                "every link verified against the record's content")


def test_a_players_export_says_its_chain_is_present_as_the_signed_head_and_verified(played):
    result = verified(played, played["player"], "--key", played["keys"])
    assert result.exit_code == 0, result.output
    assert line_of(result.stdout, "chain:") == (
        f"chain: present as its signed head alone (no links stored), {entries(played['auditor'])} entries, "
        "verified: the links recomputed from the record's content end in the head's hash")


def test_a_players_export_edited_after_export_says_its_recomputed_chain_misses_the_head(played):
    result = verified(played, with_seat(played["player"], 2, "3f2a9c7d4e5f8a6b2c1d0e9f8a7b1c2e"))
    assert result.exit_code == 1, result.output
    assert line_of(result.stdout, "chain:").endswith(
        "BROKEN: the links recomputed from the record's content do not lead to the head (see below)")


def test_a_record_without_a_chain_says_it_carries_none(played):
    result = verified(played, {k: v for k, v in played["auditor"].items() if k != "chain"}, "--key", played["keys"])
    assert result.exit_code == 1, result.output
    assert line_of(result.stdout, "chain:") == "chain: absent (the record carries none)"


def at_cell(line: str, column: int) -> str:
    """The character of ``line`` shown at terminal column ``column`` (wide characters take two)."""
    width = 0
    for char in line:
        if width >= column:
            return char
        width += cell_len(char)
    return ""


def test_seats_are_short_labels_that_tell_them_apart_and_every_column_stays_aligned(played):
    result = verified(played, played["auditor"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert all(player in lines[0] for player in SEATS)  # the title names every id in full
    header, rule, *rest = lines[1:]
    rows = rest[:rest.index("")]
    assert len(rows) == len(played["auditor"]["rounds"]) and cell_len(rule) == cell_len(header)
    shown = "\n".join(rows)
    for label in ("seat 0 (3f2a9c0…)", "seat 1 (bot:strong:1)", "seat 2 (3f2a9c7…)", "seat 3 (名前名前名前名…)",
                  "team 0 (3f2a9c0… & 3f2a9c7…)", "team 1 (bot:strong:1 & 名前名前名前名…)"):
        assert label in shown, label
    for column in ("led by", "ended", "winner", "scores"):  # left-aligned: every cell starts under it
        at = cell_len(header[:header.index(column)])
        assert all(at_cell(row, at - 1) == " " != at_cell(row, at) for row in rows), column
    for column in ("round", "points"):  # right-aligned: every cell ends under its last letter
        end = cell_len(header[:header.index(column)]) + len(column)
        assert all(at_cell(row, end - 1) != " " == at_cell(row, end) for row in rows), column


def test_heads_that_put_the_change_at_one_entry_say_it_was_changed_at_that_entry(played):
    result = verified(played, with_seat(played["auditor"], 1, "bot:greedy:1"), heads=played["heads"])
    assert result.exit_code == 1, result.output
    heads = line_of(result.stdout, "player's heads:")
    assert "the log was changed at entry 0 (" in heads and "at or after" not in heads and "by entry" not in heads


def test_heads_further_apart_name_the_entries_the_first_change_lies_between(played):
    last = played["heads"]["heads"][-1]
    result = verified(played, with_seat(played["auditor"], 1, "bot:greedy:1"),
                      heads={**played["heads"], "heads": [last]})
    assert result.exit_code == 1, result.output
    heads = line_of(result.stdout, "player's heads:")
    assert f"the log was first changed somewhere in entries 0 to {last['entries'] - 1} (" in heads
