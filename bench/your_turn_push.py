""""Your turn" on a closed app, the whole way: from the match event that began a person's
turn being stored to the fake APNs receiving the push, and the CPU the system spends on each
such push.

Starts the match service, the relay, the account and social services and the notifier as
processes (`domino serve ...` with a real NATS, as `domino up` does) and a fake APNs on
loopback that the notifier is pointed at. Pairs of players sign in and register an iPhone
each; each pair plays a match of its own (egyptian draw-2, timed) in which no app is open, so
every turn of every seat is pushed. A player moves only once the push of their turn has
arrived. The path a push takes: the relay publishes `domino.v1.seat_turn`, the notifier asks
the match service (GetTurnAttention) and posts YOUR_TURN to the social service, whose outbox
publishes the notice, which the notifier claims (ClaimPush), asks the match service again and
sends to APNs (docs/notifier.md).

- ``latency_ms``: the turn's start (its deadline less the match's timer, the server's clock,
  this machine) to the fake APNs receiving the push, with the notifier's grace set to 0
  (production waits DOMINO_NOTIFIER_TURN_GRACE_SECONDS, 3 s, for an app that opens). A
  round's first turn, whose clock starts after the pause before the round, is pushed but not
  timed; a draw keeps the turn and is not pushed again;
- ``cpu_ms_per_push``: utime + stime of the notifier, social, match and relay processes over
  the timed part, divided by the pushes; each process's share is given too (the match
  service's share includes the moves themselves, so it is an upper bound).

    .venv/bin/python bench/your_turn_push.py --json      # about 40 s
"""

from __future__ import annotations

import argparse
import json
import secrets
import sys
import threading
import time
import urllib.request
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import grpc  # noqa: E402

from bench.push_system import push_system  # noqa: E402
from bench.procfs import cpu_seconds, git_commit, loadavg, pct  # noqa: E402
from domino.account.v1 import account_service_pb2 as acc  # noqa: E402
from domino.account.v1 import account_service_pb2_grpc as acc_grpc  # noqa: E402
from domino.match.v1 import match_service_pb2 as mpb  # noqa: E402
from domino.match.v1 import match_service_pb2_grpc as mpb_grpc  # noqa: E402
from domino.social.v1 import social_service_pb2 as pb  # noqa: E402
from domino.social.v1 import social_service_pb2_grpc as pb_grpc  # noqa: E402
from services.common.auth import mint_token  # noqa: E402
from services.common.supervisor import LocalSystem  # noqa: E402

TIMER = 90
MEASURED = ("notifier", "social", "match", "relay")


def sign_up(system: LocalSystem, count: int) -> list[dict]:
    with grpc.insecure_channel(system.account_address) as a, grpc.insecure_channel(system.social_address) as s:
        accounts, social = acc_grpc.AccountServiceStub(a), pb_grpc.SocialServiceStub(s)
        players = []
        for i in range(count):
            session = accounts.SignInWithDevice(acc.SignInWithDeviceRequest(
                device_id=secrets.token_urlsafe(24), device_secret=secrets.token_hex(32),
                display_name=f"Turn{i:03d}"), timeout=10).session
            token = secrets.token_hex(32)
            metadata = (("authorization", f"Bearer {session.access_token}"),)
            social.RegisterPushToken(pb.RegisterPushTokenRequest(
                installation_id="phone", platform=pb.PUSH_PLATFORM_APNS, token=token,
                apns_environment=pb.APNS_ENVIRONMENT_SANDBOX, locale="en-GB"), metadata=metadata, timeout=10)
            players.append({"id": session.player_id, "token": token, "metadata": metadata})
        return players


def pushed_at(fake, token: str, match_id: str, version: int, timeout: float = 30.0) -> float | None:
    """When the push of this turn (its match and version) reached the fake APNs."""
    def arrived() -> float | None:
        for r in reversed(fake.received):
            extra = r.payload.get("domino", {})
            if r.token == token and extra.get("match_id") == match_id and \
                    extra.get("args", {}).get("version") == str(version):
                return r.at
        return None

    with fake.seen:  # woken by each push the fake records, rather than polled
        fake.seen.wait_for(lambda: arrived() is not None, timeout)
        return arrived()


def play(system: LocalSystem, fake, pair: list[dict], turns: int, latencies: list[float], missed: list) -> None:
    with grpc.insecure_channel(system.match_address) as channel:
        stub = mpb_grpc.MatchServiceStub(channel)
        service = (("authorization", f"Bearer {mint_token('matchmaking', system.keys(), 'service')}"),)
        match_id = stub.CreateMatch(mpb.CreateMatchRequest(
            request_id=str(uuid.uuid4()), rules="egyptian", variant="draw-2", turn_timer_seconds=TIMER,
            seats=[mpb.SeatSpec(player_id=p["id"], client_seed=secrets.token_hex(8)) for p in pair]),
            metadata=service, timeout=10).match_id
        turn, told = None, 0  # a draw keeps the turn (and its deadline): one push a turn, at its first version
        for _ in range(turns):
            view = stub.GetMatch(mpb.GetMatchRequest(match_id=match_id), metadata=service, timeout=10).view
            seen = time.time()
            if view.status != mpb.MATCH_STATUS_IN_PROGRESS or not view.HasField("turn"):
                break
            player = pair[view.turn]
            if (view.turn, view.turn_deadline.ToNanoseconds()) != turn:
                turn, told = (view.turn, view.turn_deadline.ToNanoseconds()), view.version
                began = view.turn_deadline.ToNanoseconds() / 1e9 - TIMER
                arrived = pushed_at(fake, player["token"], match_id, told)
                if arrived is None:
                    missed.append((match_id, told))
                elif began <= seen:  # a round's first turn counts from the end of the pause before it
                    latencies.append(arrived - began)
            mine = stub.GetMatch(mpb.GetMatchRequest(match_id=match_id), metadata=player["metadata"], timeout=10).view
            move = mine.legal_moves[-1]
            if move.kind == mpb.MOVE_KIND_DRAW:
                stub.DrawTile(mpb.DrawTileRequest(match_id=match_id, request_id=str(uuid.uuid4())),
                              metadata=player["metadata"], timeout=10)
            else:
                stub.PlayTile(mpb.PlayTileRequest(match_id=match_id, request_id=str(uuid.uuid4()), tile=move.tile,
                                                  end=move.end), metadata=player["metadata"], timeout=10)


def measure(system: LocalSystem, fake, args) -> dict:
    players = sign_up(system, 2 * args.matches)
    warm: list[float] = []
    play(system, fake, players[:2], 4, warm, [])  # connections, the provider token
    pids = {name: system.processes[name].pid for name in MEASURED}
    before = {name: cpu_seconds(pid) for name, pid in pids.items()}
    pushes_before = len(fake.received)
    latencies: list[float] = []
    missed: list = []
    threads = [threading.Thread(target=play, args=(system, fake, players[2 * i:2 * i + 2], args.turns, latencies,
                                                   missed)) for i in range(args.matches)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    pushes = len(fake.received) - pushes_before
    cpu = {name: cpu_seconds(pid) - before[name] for name, pid in pids.items()}
    per_push = {name: round(seconds / max(pushes, 1) * 1000, 3) for name, seconds in cpu.items()}
    outcomes = notifier_outcomes(system)
    return {"bench": "your_turn_push", "commit": git_commit(), "provider": "apns (fake, HTTP/2 TLS on loopback)",
            "matches": args.matches, "pushes": pushes, "missed": len(missed), "refused": len(fake.refused), "refused_reasons": sorted({f"{s} {r}" for s, r in fake.refused}),
            "grace_seconds": 0,
            "latency_ms": {"p50": round((pct(latencies, 50) or 0) * 1000, 1),
                           "p99": round((pct(latencies, 99) or 0) * 1000, 1)},
            "cpu_ms_per_push": round(sum(per_push.values()), 3), "cpu_ms_per_push_by_process": per_push,
            "notifier_outcomes": outcomes, "loadavg": loadavg()}


def notifier_outcomes(system: LocalSystem) -> dict[str, float]:
    """What the notifier's consumers and claims said, from its own metrics: retries show here."""
    url = f"http://127.0.0.1:{system.ports.notifier_metrics}/metrics"
    with urllib.request.urlopen(url, timeout=5) as reply:
        text = reply.read().decode()
    wanted = ("domino_notifier_messages_total{", "domino_push_claims_total{", "domino_push_retries_total{")
    return {line.split(" ")[0]: float(line.split(" ")[1]) for line in text.splitlines()
            if line.startswith(wanted) and float(line.split(" ")[1]) > 0}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--matches", type=int, default=10, help="matches played at once, two closed apps each")
    parser.add_argument("--turns", type=int, default=30, help="turns measured per match (fewer if it ends)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with push_system("your-turn", ("match", "relay", "accounts", "social")) as (system, fake):
        result = measure(system, fake, args)
    if args.json:
        print(json.dumps(result))
    else:
        print(f"{result['pushes']} 'your turn' pushes: turn stored to APNs p50 {result['latency_ms']['p50']} ms, "
              f"p99 {result['latency_ms']['p99']} ms; {result['cpu_ms_per_push']} ms CPU a push "
              f"{result['cpu_ms_per_push_by_process']}")


if __name__ == "__main__":
    main()
