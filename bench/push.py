"""Pushes: how fast one notifier process delivers, how long a push takes from the
notification stored to the provider receiving it, and the notifier's CPU per push.

Starts the account service, the social service and the notifier as processes (`domino
serve ...`, as `domino up` does, with a real NATS) and a fake APNs on loopback (HTTP/2 over
TLS, checking every provider token and payload: tests/support/fake_apns.py) that the
notifier is pointed at. Players sign in and register an iPhone each; "your turn"
notifications are then posted to the social service (PostNotifications, the notifier's own
service token), which stores them and publishes each notice to JetStream through its
outbox; the notifier claims each one (ClaimPush) and sends it to APNs.

- latency: one notification at a time at a modest rate; the time from PostNotifications
  returning (stored) to the fake APNs receiving the push, p50 and p99;
- throughput: a burst posted in batches of 100; pushes per second from the first stored to
  the last received, and the notifier process's CPU (utime + stime) over the burst divided
  by its pushes.

    .venv/bin/python bench/push.py --json                   # one JSON object (about 30 s)
    .venv/bin/python bench/push.py --burst 500 --latency 50 # quicker
"""

from __future__ import annotations

import argparse
import json
import secrets
import sys
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import grpc  # noqa: E402

from bench.push_system import push_system  # noqa: E402
from bench.procfs import cpu_seconds, git_commit, loadavg, pct  # noqa: E402
from domino.account.v1 import account_service_pb2 as acc  # noqa: E402
from domino.account.v1 import account_service_pb2_grpc as acc_grpc  # noqa: E402
from domino.social.v1 import social_service_pb2 as pb  # noqa: E402
from domino.social.v1 import social_service_pb2_grpc as pb_grpc  # noqa: E402
from services.common.auth import mint_token  # noqa: E402
from services.common.supervisor import NOTIFIER, LocalSystem  # noqa: E402

PLAYERS = 20


def sign_up(system: LocalSystem, players: int) -> list[tuple[str, str]]:
    """(player id, access token) of each new player, each with an iPhone registered."""
    with grpc.insecure_channel(system.account_address) as a, grpc.insecure_channel(system.social_address) as s:
        accounts, social = acc_grpc.AccountServiceStub(a), pb_grpc.SocialServiceStub(s)
        out = []
        for i in range(players):
            session = accounts.SignInWithDevice(acc.SignInWithDeviceRequest(
                device_id=secrets.token_urlsafe(24), device_secret=secrets.token_hex(32),
                display_name=f"Bench{i:03d}"), timeout=10).session
            social.RegisterPushToken(pb.RegisterPushTokenRequest(
                installation_id="phone", platform=pb.PUSH_PLATFORM_APNS, token=secrets.token_hex(32),
                apns_environment=pb.APNS_ENVIRONMENT_SANDBOX, locale="en-GB"),
                metadata=(("authorization", f"Bearer {session.access_token}"),), timeout=10)
            out.append((session.player_id, session.access_token))
        return out


def your_turn(player_id: str) -> pb.NewNotification:
    notice = pb.NewNotification(notification_id=str(uuid.uuid4()), recipient_player_id=player_id,
                                kind=pb.NOTIFICATION_KIND_YOUR_TURN, text_key="notice.your_turn",
                                match_id=str(uuid.uuid4()), args={"seconds_left": "45", "rules": "egyptian"})
    notice.expires_at.FromSeconds(int(time.time()) + 45)
    return notice


def received_at(fake, notification_id: str, timeout: float = 30.0) -> float:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with fake.lock:
            for r in reversed(fake.received):
                if r.headers.get("apns-id") == notification_id:
                    return r.at
        time.sleep(0.001)
    raise TimeoutError(f"push {notification_id} never arrived")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--latency", type=int, default=200, help="pushes measured one at a time")
    parser.add_argument("--rate", type=float, default=50.0, help="latency pushes per second")
    parser.add_argument("--burst", type=int, default=2000, help="pushes posted at once for the throughput")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with push_system("push", ("accounts", "social")) as (system, fake):
        result = measure(system, fake, args)
    if args.json:
        print(json.dumps(result))
    else:
        print(f"{result['pushes_per_second']} pushes/s; stored to APNs p50 {result['latency_ms']['p50']} ms, "
              f"p99 {result['latency_ms']['p99']} ms; {result['notifier_cpu_ms_per_push']} ms notifier CPU a push")


def measure(system: LocalSystem, fake, args) -> dict:
    players = sign_up(system, PLAYERS)
    metadata = (("authorization", f"Bearer {mint_token('notifier', system.keys(), 'service')}"),)
    with grpc.insecure_channel(system.social_address) as channel:
        post = pb_grpc.SocialServiceStub(channel).PostNotifications
        for i in range(20):  # warm up: connections, provider token, claims
            notice = your_turn(players[i % len(players)][0])
            post(pb.PostNotificationsRequest(notifications=[notice]), metadata=metadata, timeout=10)
            received_at(fake, notice.notification_id)
        latencies = []
        for i in range(args.latency):
            notice = your_turn(players[i % len(players)][0])
            post(pb.PostNotificationsRequest(notifications=[notice]), metadata=metadata, timeout=10)
            stored = time.time()
            latencies.append(received_at(fake, notice.notification_id) - stored)
            time.sleep(max(0.0, 1.0 / args.rate - latencies[-1]))
        pid = system.processes[NOTIFIER].pid
        cpu_before = cpu_seconds(pid)
        count_before = len(fake.received)
        burst = [your_turn(players[i % len(players)][0]) for i in range(args.burst)]
        started = time.time()
        for i in range(0, len(burst), 100):
            post(pb.PostNotificationsRequest(notifications=burst[i:i + 100]), metadata=metadata, timeout=30)
        last = max(received_at(fake, n.notification_id, timeout=120) for n in burst[-100:])
        fake.wait_for(count_before + args.burst, 120)
        last = max(last, max(r.at for r in fake.received[count_before:]))
        cpu = cpu_seconds(pid) - cpu_before
    return {"bench": "push", "commit": git_commit(), "provider": "apns (fake, HTTP/2 TLS on loopback)",
            "latency_pushes": args.latency, "latency_ms": {"p50": round((pct(latencies, 50) or 0) * 1000, 1),
                                                           "p99": round((pct(latencies, 99) or 0) * 1000, 1)},
            "burst": args.burst, "pushes_per_second": round(args.burst / (last - started), 1),
            "notifier_cpu_ms_per_push": round(cpu / args.burst * 1000, 3), "refused": len(fake.refused), "refused_reasons": sorted({f"{s} {r}" for s, r in fake.refused}),
            "loadavg": loadavg()}


if __name__ == "__main__":
    main()
