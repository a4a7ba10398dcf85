"""Proof that a family is one module (docs/design.md, "Adding a family"): Fifty
(tests/support/fifty_family.py), a family only the tests know, registered in every process of
the real local system by one line of environment, is offered by DescribeRules, played to the
end in a room with its own option and at practice against each offered bot strength,
exported and verified by `domino audit verify`, and shown by the terminal client's own
screens from the server's description alone. Nothing outside its module names it."""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import grpc
import pytest

from domino.match.v1 import match_service_pb2 as match_pb
from domino.matchmaking.v1 import matchmaking_service_pb2 as pb
from domino.matchmaking.v1 import matchmaking_service_pb2_grpc as pb_grpc
from services.client import families, lobby_screens, render
from services.common.bot_strengths import OFFERED
from services.common.rule_options import settings_of, value_pb
from services.common.supervisor import LocalSystem, Ports

from .conftest import Client, domino_command, signed_in

pytestmark = pytest.mark.system

ROOT = Path(__file__).resolve().parents[2]
# Every process of the system, and the auditor's command line, registers Fifty from here.
PLUGIN = {"DOMINO_FAMILY_MODULES": "tests.support.fifty_family",
          "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}


@pytest.fixture(scope="module")
def system(tmp_path_factory):
    with LocalSystem(tmp_path_factory.mktemp("fifty"), Ports.free(),
                     extra_env={"DOMINO_LOG_FORMAT": "json", **PLUGIN}) as running:
        yield running


@pytest.fixture(scope="module")
def client(system):
    c = Client(system)
    yield c
    c.close()


@pytest.fixture(scope="module")
def matchmaking(system):
    with grpc.insecure_channel(system.matchmaking_address) as channel:
        yield pb_grpc.MatchmakingServiceStub(channel)


@pytest.fixture(scope="module")
def described(client):
    return client.stub.DescribeRules(match_pb.DescribeRulesRequest(), metadata=signed_in(client.system, "reader"))


def setting(name: str, value) -> match_pb.OptionSetting:
    return match_pb.OptionSetting(name=name, value=value_pb(value))


def play_to_the_end(client: Client, match_id: str, player: str) -> match_pb.MatchView:
    """The person's seat sends its seed, then plays its first legal move until the match
    ends (the bots play theirs), as tests/system/test_matchmaking_processes.py's auto_play."""
    who = signed_in(client.system, player)
    n = 0
    while True:
        view = client.stub.GetMatch(match_pb.GetMatchRequest(match_id=match_id), metadata=who).view
        if view.status == match_pb.MATCH_STATUS_ENDED:
            return view
        if view.status == match_pb.MATCH_STATUS_WAITING_FOR_SEEDS and view.seats[view.your_seat].awaiting_seed:
            client.stub.SubmitSeed(match_pb.SubmitSeedRequest(match_id=match_id, seed=secrets.token_hex(16)),
                                   metadata=who)
        elif view.HasField("turn") and view.turn == view.your_seat and view.legal_moves:
            move = view.legal_moves[0]
            try:
                if move.kind == match_pb.MOVE_KIND_DRAW:
                    client.stub.DrawTile(match_pb.DrawTileRequest(match_id=match_id, request_id=f"p{n}"), metadata=who)
                else:
                    client.stub.PlayTile(match_pb.PlayTileRequest(match_id=match_id, request_id=f"p{n}",
                                                                  tile=move.tile, end=move.end), metadata=who)
            except grpc.RpcError as e:
                assert e.code() == grpc.StatusCode.FAILED_PRECONDITION, e.details()  # the view was a moment old
            n += 1
        else:
            time.sleep(0.05)


def verified(client: Client, match_id: str, tmp_path: Path) -> tuple[dict, dict]:
    """The auditor's export of the match, and `domino audit verify --json`'s verdict on it."""
    record_json = client.export(match_id)
    path = tmp_path / f"{match_id}.json"
    path.write_text(record_json)
    done = subprocess.run([domino_command(), "audit", "verify", "--json", str(path)], capture_output=True, text=True,
                          env={**os.environ, **PLUGIN}, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(record_json), json.loads(done.stdout)


def room_match(matchmaking, client: Client) -> tuple[pb.RoomView, match_pb.MatchView]:
    host = signed_in(client.system, "fay")
    room = matchmaking.CreateRoom(pb.CreateRoomRequest(request_id="fifty-room", rules="fifty",
                                                       rule_options=[setting("domino_bonus", 20)]), metadata=host).room
    matchmaking.AddBot(pb.AddBotRequest(room_id=room.room_id, bot_strength=match_pb.BOT_STRENGTH_GREEDY),
                       metadata=host)
    started = matchmaking.StartRoom(pb.StartRoomRequest(room_id=room.room_id), metadata=host).room
    return room, play_to_the_end(client, started.match_id, "fay")


def practice_match(matchmaking, client: Client, strength: str) -> match_pb.MatchView:
    player = f"pia-{strength}"
    request = pb.StartPracticeRequest(request_id=f"fifty-{strength}", rules="fifty",
                                      bot_strength=match_pb.BotStrength.Value(f"BOT_STRENGTH_{strength.upper()}"))
    started = matchmaking.StartPractice(request, metadata=signed_in(client.system, player))
    return play_to_the_end(client, started.match_id, player)


def test_describe_rules_offers_fifty_with_its_option_and_preset(described):
    fifty = next(f for f in described.families if f.name == "fifty")
    assert fifty.phrases.title == "Fifty" and list(fifty.targets) == [50]
    [option] = fifty.options
    assert option.name == "domino_bonus" and [v.int_value for v in option.values] == [0, 10, 20]
    assert [(s.seats, s.teams) for s in fifty.variants[0].shapes] == [(2, False)]
    assert settings_of(fifty.variants[0].presets) == {"domino_bonus": 10}


def test_fifty_is_played_in_a_room_and_at_every_strength_exported_verified_and_shown(
        system, client, matchmaking, described, tmp_path):
    with ThreadPoolExecutor(1 + len(OFFERED)) as pool:  # the matches are played side by side
        room_future = pool.submit(room_match, matchmaking, client)
        practice = {strength: pool.submit(practice_match, matchmaking, client, strength) for strength in OFFERED}
        room, room_final = room_future.result(timeout=120)
        finals = {strength: future.result(timeout=120) for strength, future in practice.items()}

    # The room's option travels as rule_options: into the room, the match and its record.
    assert settings_of(room.options.rule_options) == {"domino_bonus": 20}
    assert settings_of(room_final.rule_options) == {"domino_bonus": 20}
    for final in finals.values():
        assert settings_of(final.rule_options) == {"domino_bonus": 10}  # the preset

    for name, final in [("room", room_final), *finals.items()]:
        assert final.rules == "fifty" and len(final.seats) == 2 and max(final.scores) >= 50, name
        record, verdict = verified(client, final.match_id, tmp_path)
        assert record["rules"] == "fifty", name
        assert record["options"] == {"domino_bonus": 20 if name == "room" else 10}, name
        assert verdict["valid"] and verdict["complete"], (name, verdict)
        winner = final.winner if final.HasField("winner") else None
        assert verdict["winner"] == winner and verdict["scores"] == list(final.scores), (name, verdict)
        assert all("bonus" in r for r in verdict["rounds"]), name

    # The client knows Fifty from the server's description alone: this process never registered it.
    families.use(families.Rules.of(described))
    try:
        table = render.to_text(render.game_screen(room_final, time.time()), width=110)
        lobby = render.to_text(lobby_screens.room_screen(room, "fay"), width=110)
    finally:
        families.use(None)
    assert "Fifty" in table and "domino_bonus 20" in table, table
    assert "Fifty" in lobby and "domino_bonus 20" in lobby, lobby
