"""Whole matches over a running match service's gRPC API, one per rule family, each
player acting from their own view; shared by the service and integration tiers."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from click.testing import CliRunner

from domino.match.v1 import match_service_pb2 as pb
from services.cli.main import cli
from services.common.bot_ids import is_bot
from services.rules import registry
from tests.support.families import Table
from tests.support.keys import auth


def domino_command() -> str:
    return shutil.which("domino") or str(Path(sys.executable).parent / "domino")


PLAYERS = ("ann", "bob", "cat", "dan")
FAMILIES = {  # name: CreateMatch fields, for the tests of one family's own rules
    "all-fives 2": dict(rules="all-fives", variant="", players=PLAYERS[:2], target=100),
    "all-fives teams": dict(rules="all-fives", variant="", players=PLAYERS, teams=True, target=100),
    "goat koza 3": dict(rules="goat", variant="koza", players=PLAYERS[:3], rule_options={"fish": "one"}),
    "goat gamezz teams": dict(rules="goat", variant="gamezz", players=PLAYERS, teams=True),
    "classic 3": dict(rules="classic", variant="", players=PLAYERS[:3], target=100),
    "sports": dict(rules="sports", variant="", players=PLAYERS, target=100, turn_timer_seconds=90),
}


def create_fields(table: Table) -> dict:
    """CreateMatch fields for a table, seated by PLAYERS in turn, to the family's shortest
    target (a short match); none where the family offers one only."""
    family = registry.family(table.family)
    fields = dict(rules=table.family, variant=table.variant or "", players=PLAYERS[:table.seats], teams=table.teams)
    if not family.target_implied:
        fields["target"] = min(family.targets)
    if table.chosen:
        fields["rule_options"] = table.chosen
    return fields


def act(svc, match_id: str, view: pb.MatchView, n: int) -> pb.MatchView:
    player = view.seats[view.turn].player_id
    token = auth(player, "bot" if is_bot(player) else "player")  # bot seats speak with bot tokens
    mine = svc.stub.GetMatch(pb.GetMatchRequest(match_id=match_id), metadata=token).view
    move = mine.legal_moves[-1]  # the last legal move: the up and down ends come last
    if move.kind == pb.MOVE_KIND_DRAW:
        return svc.stub.DrawTile(pb.DrawTileRequest(match_id=match_id, request_id=f"q{n}"), metadata=token).view
    return svc.stub.PlayTile(pb.PlayTileRequest(match_id=match_id, request_id=f"q{n}", tile=move.tile, end=move.end),
                             metadata=token).view


def play_whole_match(svc, match_id: str, check=lambda view: None) -> pb.MatchView:
    view = svc.stub.GetMatch(pb.GetMatchRequest(match_id=match_id), metadata=auth("observer", "service")).view
    n = 0
    while view.status != pb.MATCH_STATUS_ENDED:
        check(view)
        view = act(svc, match_id, view, n)
        n += 1
        assert n < 3000, "the match does not end"
    return view


def verified(svc, match_id: str, tmp_path) -> tuple[dict, dict]:
    exported = svc.stub.ExportMatch(pb.ExportMatchRequest(match_id=match_id),
                                    metadata=auth("auditor-1", "auditor")).record_json
    path = tmp_path / "record.json"
    path.write_text(exported)
    done = CliRunner().invoke(cli, ["audit", "verify", "--json", str(path)])  # the command, without a new interpreter
    assert done.exit_code == 0, done.output
    return json.loads(exported), json.loads(done.stdout)
