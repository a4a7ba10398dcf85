"""Bots finish whole matches through real NATS and real gRPC, and survive being killed."""

from __future__ import annotations

import asyncio
import json
import subprocess
import time

import nats
import pytest

from domino.match.v1 import match_service_pb2 as pb
from services.common import bus
from services.common.rule_options import settings_pb
from services.common.supervisor import LocalSystem, Ports

from .conftest import SYSTEM_ENV, Client, domino_command

pytestmark = pytest.mark.system


def verified(record_json: str, tmp_path, *options: str) -> dict:
    path = tmp_path / "record.json"
    path.write_text(record_json)
    done = subprocess.run([domino_command(), "audit", "verify", "--json", str(path), *options], capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("variant", ["draw-2", "block-3", "block-4"])
def test_bots_finish_a_whole_match_of_every_variant(shared_client, variant, tmp_path):
    client = shared_client
    match_id = client.create_bot_match(variant, f"bots-{variant}", target=51)
    final = client.wait_until_ended(match_id)
    verdict = verified(client.export(match_id), tmp_path)
    assert verdict["complete"] and verdict["winner"] == (final.winner if final.HasField("winner") else None)


FAMILIES = {  # bots of every strength play every family through `domino up`'s processes
    "all-fives 3 strong": dict(rules="all-fives", variant="", seats=3, target=100, strength="strong"),
    "goat koza teams": dict(rules="goat", variant="koza", seats=4, teams=True, strength="random",
                            rule_options=settings_pb({"fish": "one"})),
    "classic 2": dict(rules="classic", variant="", seats=2, target=100, strength="greedy"),
    "sports": dict(rules="sports", variant="", seats=4, target=100, strength="strong"),
}


def bot_metric(system, name: str) -> float:
    """A counter of the bot service's metrics page, summed over its labels."""
    import urllib.request

    with urllib.request.urlopen(f"http://127.0.0.1:{system.ports.bots_metrics}/metrics", timeout=5) as page:
        text = page.read().decode()
    return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
               if line.startswith(name) and not line.startswith(f"{name}_created"))


@pytest.mark.parametrize("name", FAMILIES)
def test_bots_finish_a_whole_match_of_every_family_that_exports_and_verifies(shared_system, shared_client, name,
                                                                            tmp_path):
    system, client = shared_system, shared_client
    match_id = client.create_bot_match(request_id=f"bots-{name}", **FAMILIES[name])
    final = client.wait_until_ended(match_id, timeout=240)
    assert bot_metric(system, "domino_bots_errors_total") == 0
    assert bot_metric(system, "domino_bots_turns_total") > 0
    record = json.loads(client.export(match_id))
    verdict = verified(json.dumps(record), tmp_path)
    assert verdict["complete"] and verdict["scores"] == list(final.scores)
    assert record["rules"] == FAMILIES[name]["rules"]
    assert not any(a.get("timeout") for r in record["rounds"] for a in r["actions"])
    if record["rules"] == "goat":
        assert verdict["goats"] == list(final.goats)


@pytest.fixture
def redelivering_client(var_dir):
    """A system of its own whose turn a killed bots process held goes to the restarted one
    after 5 s, not the default 30 (DOMINO_BOT_ACK_WAIT_SECONDS; fault_harness.py's too)."""
    env = {**SYSTEM_ENV, "DOMINO_BOT_ACK_WAIT_SECONDS": "5"}
    with LocalSystem(var_dir, Ports.free(), extra_env=env) as system:
        client = Client(system)
        try:
            yield client
        finally:
            client.close()


def test_a_killed_bot_service_restarts_and_the_match_finishes_with_no_turn_played_twice(redelivering_client, tmp_path):
    client = redelivering_client
    system = client.system
    match_id = client.create_bot_match("block-4", "kill-bots", target=51)
    while client.view(match_id).version < 20:
        time.sleep(0.05)
    system.kill("bots")
    stalled = client.view(match_id)
    assert stalled.status == pb.MATCH_STATUS_IN_PROGRESS  # killed in the middle of the match
    time.sleep(0.5)
    assert client.view(match_id).version == stalled.version  # nobody plays for the bots while they are down
    system.start_service("bots")
    client.wait_until_ended(match_id)
    record = json.loads(client.export(match_id))
    verified(json.dumps(record), tmp_path)
    assert not any(a.get("timeout") for r in record["rounds"] for a in r["actions"])


def test_a_killed_relay_restarts_and_every_event_reaches_nats_once_in_order(system, client):
    match_ids = [client.create_bot_match("draw-2", f"relay-{i}", target=71) for i in range(3)]
    time.sleep(0.3)
    system.kill("relay")
    time.sleep(0.5)
    system.start_service("relay")
    finals = {m: client.wait_until_ended(m) for m in match_ids}
    time.sleep(1.0)  # the relay publishes what the last commands stored
    events = asyncio.run(_stream_events(f"nats://127.0.0.1:{system.ports.nats}", system.nats_passwords()["admin"]))
    ids = [msg_id for msg_id, _ in events]
    assert len(ids) == len(set(ids))
    for match_id, final in finals.items():
        versions = [v for msg_id, v in events if msg_id.startswith(match_id)]
        assert versions == list(range(1, final.version + 1))


async def _stream_events(url: str, admin_password: str) -> list[tuple[str, int]]:
    nc = await nats.connect(url, user="admin", password=admin_password)
    js = nc.jetstream()
    info = await js.stream_info(bus.STREAM)
    out = []
    for seq in range(info.state.first_seq, info.state.last_seq + 1):
        msg = await js.get_msg(bus.STREAM, seq=seq)
        if ".match." in msg.subject:
            out.append((msg.headers["Nats-Msg-Id"], json.loads(msg.data)["version"]))
    await nc.close()
    return out


@pytest.mark.parametrize("args", [["--rules", "all-fives", "--seats", "2", "--target", "100"],
                                  ["--rules", "goat", "--variant", "gamezz", "--seats", "3", "--bots", "random"]],
                         ids=["all-fives", "goat"])
def test_domino_demo_plays_a_whole_bot_match_of_a_family_and_prints_its_record(shared_system, args, tmp_path):
    system = shared_system
    env = {"DOMINO_MATCH_ADDRESS": system.match_address, "DOMINO_KEYS_DIR": str(system.keys_dir),
           "PATH": "/usr/bin:/bin"}
    done = subprocess.run([domino_command(), "demo", *args, "--json", "--timeout", "200"], capture_output=True,
                          text=True, env=env, timeout=240)
    assert done.returncode == 0, done.stderr
    record = json.loads(done.stdout)
    assert record["rules"] == args[1] and len(record["seats"]) == int(args[args.index("--seats") + 1])
    verdict = verified(done.stdout, tmp_path, "--key", str(system.keys_dir / "heads-keys.json"))
    assert verdict["complete"]
    assert verdict["goats"] if record["rules"] == "goat" else verdict["winner"] is not None
    assert verdict["chain"]["status"] == "ok" and verdict["signature"]["status"] == "ok"
    assert_witnessed(system, record, tmp_path)
    assert_in_history(system, record)


def assert_in_history(system, record: dict) -> None:
    """The relay's process keeps the history: the match is listed for its first bot, as not
    rated (bots alone: their ratings are the ladder's), and no bot is on the leaderboard."""
    import grpc

    from domino.match.v1 import match_service_pb2 as pb
    from domino.match.v1 import match_service_pb2_grpc as pb_grpc
    from services.common.auth import KeyRing, mint_token

    keys = KeyRing.load(system.keys_dir, issues=("player", "bot"))
    bot = (("authorization", f"Bearer {mint_token(record['seats'][0], keys, 'bot')}"),)
    onlooker = (("authorization", f"Bearer {mint_token('onlooker', keys, 'player')}"),)
    with grpc.insecure_channel(system.match_address) as channel:
        stub = pb_grpc.MatchServiceStub(channel)
        match_id = record["chain"]["head"]["match"]
        listed = [m for m in stub.ListMyMatches(pb.ListMyMatchesRequest(), metadata=bot, timeout=10).matches
                  if m.match_id == match_id]
        board = stub.GetLeaderboard(pb.GetLeaderboardRequest(rules=record["rules"], teams=record["teams"], top=20),
                                    metadata=onlooker, timeout=10)
    assert listed and listed[0].result != pb.MATCH_RESULT_IN_PLAY and not listed[0].rated  # read as soon as it ended
    assert not [r.player_id for r in board.top if r.player_id.startswith("bot:")]


def assert_witnessed(system, record: dict, tmp_path) -> None:
    """The relay stored the finished match's final head in the witness stream, and
    `domino audit witness` finds the exported log agrees with it."""
    path = tmp_path / "witnessed.json"
    path.write_text(json.dumps(record))
    env = {"DOMINO_NATS_URL": f"nats://127.0.0.1:{system.ports.nats}", "DOMINO_NATS_USER": "auditor",
           "DOMINO_NATS_PASSWORD": system.nats_passwords()["auditor"], "PATH": "/usr/bin:/bin"}
    command = [domino_command(), "audit", "witness", record["chain"]["head"]["match"], "--record", str(path),
               "--key", str(system.keys_dir / "heads-keys.json"), "--json"]
    for _ in range(50):  # the relay publishes the head just after the match's last events
        done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=60)
        if json.loads(done.stdout or "{}").get("status") != "absent":
            break
        time.sleep(0.2)
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(done.stdout)["witness_heads"] == 1
