"""The account service under sign-ins and refreshes: rates, latency, and its server CPU per
call against the match service's CPU per command.

    .venv/bin/python bench/accounts.py --json                 # SQLite, about 50 s
    .venv/bin/python bench/accounts.py --json --postgres      # embedded PostgreSQL, about 50 s
    .venv/bin/python bench/accounts.py --seconds 2 --rounds 1 # quicker, noisier

What runs: the account service as its own process (``python -m services.cli serve
accounts``, configured by environment as in production: ``DOMINO_ACCOUNT_ADDRESS`` on a free
port, keys made for the run, the store of ``PERSISTENCE_MODULE``, SQLite in a temporary
directory or, with ``--postgres``, an embedded PostgreSQL from
``services.common.servers.start_postgres``), trusting one real OpenID Connect issuer
(``tests/support/oidc_issuer.py`` ``OidcIssuer``: HTTPS JWKS on loopback, configured as
provider "google" with client id "domino-app" and plain nonces), its sign-in and request rate
limits lifted (``DOMINO_SIGN_INS_PER_MINUTE``, ``DOMINO_COMMAND_RATE``/``_BURST``: they are
per client address, and every client here is 127.0.0.1). Beside it the match service
(``bench/match_service.py`` ``MatchServer``, same store kind) for the comparison. This
process is only the client: ``--inflight`` concurrent grpc.aio callers spread over
``--channels`` channels (separate connections).

Kinds of call, each measured for ``--seconds`` after ``--warmup``, at most ``--max-calls``
calls a measurement:

* ``device``: SignInWithDevice with a new device id and secret (creates a guest account, a
  made-up display name, a session, a refresh token, an access JWT);
* ``returning_device``: SignInWithDevice again with a device made before (a new session);
* ``id_token``: SignInWithIdToken with a fresh RS256 ID token of the issuer for a new
  subject (the token is verified against the issuer's JWKS, cached after the first fetch;
  the first sign-in of an identity creates an account); tokens are signed before the
  measurement so the client's RSA signing stays out of it;
* ``returning_id_token`` (only with ``--kinds``): those identities signing in again;
* ``refresh``: RefreshSession of the sessions the sign-ins made, each caller rotating one
  token after another;
* ``match``: PlayTile/DrawTile of whole matches at the same in-flight level, the way
  ``bench/match_service.py`` drives them (its ``measure_commands``).

``--rounds`` rounds, the match measurement first in even rounds and last in odd ones; a
ratio is the median of the per-round ratios (kind CPU / the same round's match CPU). Server
CPU is utime+stime of the service process from /proc over the measured window, divided by
the calls completed in it (and PostgreSQL's, postmaster and backends, with ``--postgres``).

Then the same use cases are called in this process on the same kind of store, without gRPC
(``AccountApplication.sign_in_with_device``, ``sign_in_with_id_token``, ``refresh``): their
CPU per call is ``app_cpu_ms``; what the server spends beyond it (``outside_app_cpu_ms``) is
gRPC, protobuf, asyncio and its thread hand-off, logging and metrics. When a kind is over
the goal (or with ``--profile``) a cProfile of those calls says where the application's
CPU goes (``profile``: store, Ed25519 signing, JWT encoding, RSA verification, ...).

The goal (the issue): a device sign-in or a refresh costs no more server CPU than two match
commands (``goal_max_match_commands``).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import cProfile
import json
import os
import platform
import pstats
import secrets
import shutil
import statistics
import sys
import tempfile
import time
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

import grpc  # noqa: E402

import match_service as ms  # noqa: E402
from domino.account.v1 import account_service_pb2 as pb  # noqa: E402
from domino.account.v1 import account_service_pb2_grpc as pb_grpc  # noqa: E402
from services.common.config import SQLITE_MODULE  # noqa: E402

GOAL_MATCH_COMMANDS = 2.0  # a device sign-in or a refresh: at most the server CPU of two match commands
PROVIDER = "google"
CLIENT_ID = "domino-app"
NONCE = "plain"
KINDS = ("device", "returning_device", "id_token", "returning_id_token", "refresh")
DEFAULT_KINDS = ("device", "returning_device", "id_token", "refresh")
PREFIX = {"device": "device_sign_in", "returning_device": "returning_device_sign_in", "id_token": "id_token_sign_in",
          "returning_id_token": "returning_id_token_sign_in", "refresh": "refresh", "match": "match_command"}
RATE = {"device": "device_sign_ins_per_s", "returning_device": "returning_device_sign_ins_per_s",
        "id_token": "id_token_sign_ins_per_s", "returning_id_token": "returning_id_token_sign_ins_per_s",
        "refresh": "refreshes_per_s", "match": "match_commands_per_s"}
GOAL_KINDS = ("device", "returning_device", "refresh")  # what the goal names


def log(msg: str, quiet: bool) -> None:
    if not quiet:
        print(msg, file=sys.stderr, flush=True)


def new_device() -> tuple[str, str]:
    """What an app makes at first launch: a random id (32 characters) and a 256-bit secret."""
    return secrets.token_urlsafe(24), secrets.token_hex(32)


# ---------------------------------------------------------------------------------------
# the account service process


class AccountServer:
    """``python -m services.cli serve accounts`` on a free port, configured by environment;
    with ``postgres`` its own embedded PostgreSQL."""

    def __init__(self, args, tmp: Path, issuer_env: dict[str, str], match_address: str) -> None:
        self.args = args
        self.tmp = tmp
        self.issuer_env = issuer_env
        self.match_address = match_address
        self.pg = None
        self.child: ms.Child | None = None
        self.target = ""
        self.store_env: dict[str, str] = {}
        self.cpu_pids: dict[str, tuple[int, bool]] = {}

    async def start(self) -> None:
        from services.common.auth import KeyRing
        from services.common.servers import free_ports, start_postgres

        args, tmp = self.args, self.tmp
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PERSISTENCE_", "SQLITE_", "POSTGRES_",
                                                                        "DOMINO_"))}
        if args.postgres:
            started = time.perf_counter()
            self.pg = await asyncio.to_thread(start_postgres, tmp / "pg_accounts")
            self.pg.create_database("bench_accounts")
            self.store_env = self.pg.eventsourcing_env("bench_accounts")
            self.cpu_pids["postgres"] = (self.pg.pid, True)
            log(f"  accounts: embedded PostgreSQL up in {time.perf_counter() - started:.1f} s", args.json)
        else:  # the account store is accounts.sqlite beside SQLITE_DBNAME
            self.store_env = {"PERSISTENCE_MODULE": SQLITE_MODULE, "SQLITE_DBNAME": str(tmp / "accounts" / "m.sqlite")}
            (tmp / "accounts").mkdir(exist_ok=True)
        keys = tmp / "account_keys"
        KeyRing.generate().write(keys)
        port, metrics_port = free_ports(2)
        env.update(self.store_env)
        env.update(self.issuer_env)
        env.update({
            "DOMINO_ACCOUNT_ADDRESS": f"127.0.0.1:{port}",
            "DOMINO_ACCOUNT_METRICS_PORT": str(metrics_port),
            "DOMINO_MATCH_ADDRESS": self.match_address,  # only DeleteAccount and ExportMyData call it
            "DOMINO_KEYS_DIR": str(keys),
            "DOMINO_VAR_DIR": str(tmp / "var_accounts"),
            "DOMINO_SHUTDOWN_GRACE_SECONDS": "2",
            # every caller here is 127.0.0.1: lift the per-address limits, which would measure themselves
            "DOMINO_SIGN_INS_PER_MINUTE": "1000000000",
            "DOMINO_COMMAND_RATE": "1000000000", "DOMINO_COMMAND_BURST": "1000000000",
        })
        for item in args.server_env:
            key, _, value = item.partition("=")
            env[key] = value
        self.child = ms.Child([sys.executable, "-m", "services.cli", "serve", "accounts"], env,
                              tmp / "accounts.log")
        self.target = f"127.0.0.1:{port}"
        started = time.perf_counter()
        await ms.wait_healthy(self.target, self.child)
        self.cpu_pids["server"] = (self.child.pid, False)
        log(f"  accounts: SERVING after {time.perf_counter() - started:.1f} s", args.json)

    def stop(self) -> None:
        try:
            if self.child is not None:
                self.child.stop()
                self.child = None
        finally:
            if self.pg is not None:
                self.pg.stop()
                self.pg = None


# ---------------------------------------------------------------------------------------
# what the callers send


class Pools:
    """Devices made so far, ID tokens to use and used, refresh tokens to rotate."""

    def __init__(self, issuer) -> None:
        self.issuer = issuer
        self.devices: list[tuple[str, str]] = []
        self.fresh_tokens: collections.deque[str] = collections.deque()
        self.used_tokens: list[str] = []
        self.refresh: collections.deque[str] = collections.deque()
        self.run = secrets.token_hex(4)
        self.subjects = 0
        self.cursor = 0

    def sign_tokens(self, n: int) -> None:
        """``n`` fresh ID tokens for new subjects (signed now: they live 10 minutes)."""
        self.used_tokens = []
        for _ in range(n):
            self.subjects += 1
            self.fresh_tokens.append(self.issuer.sign(f"bench-{self.run}-{self.subjects}", CLIENT_ID, NONCE))

    def next_call(self, kind: str, stub) -> tuple[Any, Any, Any] | None:
        """(method, request, what to do with the reply), or None when nothing is left."""
        if kind == "device":
            device = new_device()

            def made(reply, device=device) -> None:
                self.devices.append(device)
                self.refresh.append(reply.session.refresh_token)
            return stub.SignInWithDevice, pb.SignInWithDeviceRequest(device_id=device[0], device_secret=device[1]), made
        if kind == "returning_device":
            if not self.devices:
                return None
            device = self.devices[self.cursor % len(self.devices)]
            self.cursor += 1
            return (stub.SignInWithDevice, pb.SignInWithDeviceRequest(device_id=device[0], device_secret=device[1]),
                    lambda reply: self.refresh.append(reply.session.refresh_token))
        if kind == "id_token":
            if not self.fresh_tokens:
                return None
            token = self.fresh_tokens.popleft()
            return (stub.SignInWithIdToken, pb.SignInWithIdTokenRequest(provider=PROVIDER, id_token=token, nonce=NONCE),
                    lambda reply, token=token: self.used_tokens.append(token))
        if kind == "returning_id_token":
            if not self.used_tokens:
                return None
            token = self.used_tokens[self.cursor % len(self.used_tokens)]
            self.cursor += 1
            return (stub.SignInWithIdToken, pb.SignInWithIdTokenRequest(provider=PROVIDER, id_token=token, nonce=NONCE),
                    lambda reply: None)
        if kind == "refresh":
            if not self.refresh:
                return None
            token = self.refresh.popleft()
            return (stub.RefreshSession, pb.RefreshSessionRequest(refresh_token=token),
                    lambda reply: self.refresh.append(reply.session.refresh_token))
        raise ValueError(kind)


async def measure_kind(kind: str, pools: Pools, target: str, inflight: int, channels: int, seconds: float,
                       warmup: float, max_calls: int, cpu_pids: dict[str, tuple[int, bool]]) -> dict:
    """``inflight`` callers over ``channels`` connections for warmup + seconds (or until
    ``max_calls`` calls were made, or nothing is left to send): calls per second, latency
    and CPU per call (server, PostgreSQL, this client) of the calls completed in the window."""
    latencies: list[float] = []
    errors: collections.Counter = collections.Counter()
    started = 0
    opened = [grpc.aio.insecure_channel(target, options=[("grpc.use_local_subchannel_pool", 1)])
              for _ in range(max(1, min(channels, inflight)))]
    stubs = [pb_grpc.AccountServiceStub(channel) for channel in opened]
    start = time.perf_counter()
    t_lo, t_hi = start + warmup, start + warmup + seconds

    def cpu() -> dict[str, float]:
        return {name: (ms.tree_cpu_seconds(pid) if tree else ms.cpu_seconds(pid))
                for name, (pid, tree) in cpu_pids.items()} | {"client": time.process_time()}

    async def caller(i: int) -> None:
        nonlocal started
        stub = stubs[i % len(stubs)]
        while started < max_calls and time.perf_counter() < t_hi:
            call = pools.next_call(kind, stub)
            if call is None:
                return
            method, request, then = call
            started += 1
            t0 = time.perf_counter()
            try:
                reply = await method(request, timeout=30)
            except grpc.aio.AioRpcError as e:
                errors[e.code().name] += 1
                continue
            t1 = time.perf_counter()
            then(reply)
            if t1 >= t_lo:
                latencies.append(t1 - t0)

    cpu0: dict[str, float] = {}

    async def sample_start() -> None:
        await asyncio.sleep(max(0.0, t_lo - time.perf_counter()))
        cpu0.update(cpu())

    try:
        sampler = asyncio.create_task(sample_start())
        await asyncio.gather(*(caller(i) for i in range(inflight)))
        ended = time.perf_counter()
        if not sampler.done():  # ran out of calls before the window opened
            sampler.cancel()
        cpu1 = cpu()
    finally:
        for channel in opened:
            await channel.close()
    n = len(latencies) if cpu0 else 0
    window = ended - t_lo
    ms_lat = [x * 1000 for x in latencies]
    out: dict[str, Any] = {"calls": n, "per_s": n / window if n and window > 0 else float("nan"),
                           "p50_ms": ms.pct(ms_lat, 50), "p99_ms": ms.pct(ms_lat, 99),
                           "window_seconds": max(0.0, window), "errors": sum(errors.values())}
    if errors:
        out["error_codes"] = dict(errors)
    for name in cpu1:
        out[f"{name}_cpu_ms"] = (cpu1[name] - cpu0[name]) * 1000 / n if n else float("nan")
    return out


async def measure_match(match, inflight: int, seconds: float, warmup: float) -> dict:
    r = await ms.measure_commands(match.target, match.secret, inflight, seconds, warmup, match.cpu_pids)
    out = {"calls": r["commands"], "per_s": r["commands_per_s"], "p50_ms": r["p50_ms"], "p99_ms": r["p99_ms"],
           "server_cpu_ms": r["server_cpu_ms_per_command"], "client_cpu_ms": r["client_cpu_ms_per_command"],
           "getmatch_per_command": r["getmatch_per_command"], "errors": r["errors"]}
    if "postgres_cpu_ms_per_command" in r:
        out["postgres_cpu_ms"] = r["postgres_cpu_ms_per_command"]
    if r.get("error_codes"):
        out["error_codes"] = r["error_codes"]
    return out


# ---------------------------------------------------------------------------------------
# the application alone, in this process


_CATEGORIES = (  # (category, test on cProfile's (file, function)), first match wins
    ("store", lambda f, fn: "sqlite3" in fn or "psycopg" in f or "psycopg" in fn or f.endswith(("/sql.py", "store.py"))),
    ("ed25519_signing", lambda f, fn: "ed25519" in fn.lower()),
    ("rsa_verify", lambda f, fn: "rsa" in fn.lower()),
    ("jwt_and_json", lambda f, fn: "/jwt/" in f or "/json/" in f or "json" in fn),
    ("hashes_and_random", lambda f, fn: "sha256" in fn or "urandom" in fn or f.endswith(("/secrets.py", "/hashlib.py"))
     or "hmac" in fn or "compare_digest" in fn),
)


def _profile_shares(stats: pstats.Stats) -> tuple[dict[str, float], list[list]]:
    """Shares of the profiled CPU (each function's own time) by category, and the ten
    functions with the most. Shares, not milliseconds: the profiler's own cost inflates
    every figure, the Python-heavy ones most."""
    per: dict[str, float] = collections.defaultdict(float)
    rows = []
    for (file, line, fn), (_cc, _nc, tottime, _cum, _callers) in stats.stats.items():  # type: ignore[attr-defined]
        per[next((c for c, test in _CATEGORIES if test(file, fn)), "other_python")] += tottime
        rows.append((tottime, fn if file == "~" else f"{Path(file).name}:{line}({fn})"))
    total = sum(per.values()) or 1.0
    shares = {k: round(v / total, 3) for k, v in sorted(per.items(), key=lambda kv: -kv[1])}
    return shares, [[name, round(t / total, 3)] for t, name in sorted(rows, reverse=True)[:10]]


class _Split:
    """CPU seconds inside the store's transactions (connect, BEGIN, every statement, COMMIT),
    inside minting the access token (Ed25519 signature and JWT encoding) and inside the ID
    token's verification (JWT decoding, RSA signature check, claims), counted while ``on``."""

    def __init__(self) -> None:
        self.spent: dict[str, float] = collections.defaultdict(float)

    def wrap(self, name: str, fn):
        def timed(*args, **kwargs):
            t = time.process_time()
            try:
                return fn(*args, **kwargs)
            finally:
                self.spent[name] += time.process_time() - t
        return timed

    def transaction(self, opened):
        from contextlib import contextmanager

        @contextmanager
        def timed():
            t = time.process_time()
            with opened() as execute:
                self.spent["store"] += time.process_time() - t
                yield self.wrap("store", execute)
                t = time.process_time()
            self.spent["store"] += time.process_time() - t
        return timed


def app_cost(store_env: dict[str, str], issuer, kinds: tuple[str, ...], calls: int, profile: bool,
             pg_pid: int | None) -> dict:
    """CPU per call of the use cases themselves (no gRPC), on their own rows of the same
    kind of store, split into store, access token and ID-token verification; with
    ``profile`` a cProfile of each kind too."""
    from services.accounts import application, sign_ins
    from services.common.oidc import IdTokenVerifier
    from services.accounts.store import AccountStore
    from services.common.auth import KeyRing

    store = AccountStore.for_env(store_env, "accounts-inprocess.sqlite")
    store.create()
    verifier = IdTokenVerifier([issuer.provider(PROVIDER, (CLIENT_ID,), NONCE)], ca_file=str(issuer.ca_file))
    app = application.AccountApplication(store, KeyRing.generate(), verifier)
    run = secrets.token_hex(4)
    app.sign_in_with_id_token(PROVIDER, issuer.sign(f"warm-{run}", CLIENT_ID, NONCE), NONCE)  # the JWKS fetch
    devices: list[tuple[str, str]] = []
    tokens: list[str] = []
    refresh: list[str] = []

    def fresh(tag: str) -> None:
        devices[:] = [new_device() for _ in range(calls)]
        tokens[:] = [issuer.sign(f"{tag}-{run}-{i}", CLIENT_ID, NONCE) for i in range(calls)]
        refresh.clear()

    def device() -> None:
        for d in devices:
            app.sign_in_with_device(d[0], d[1], "")

    def returning() -> None:
        refresh.extend(app.sign_in_with_device(d[0], d[1], "")[0].refresh_token for d in devices)

    def id_token() -> None:
        for t in tokens:
            app.sign_in_with_id_token(PROVIDER, t, NONCE)

    def rotate() -> None:
        refresh[:] = [app.refresh(t).refresh_token for t in refresh]

    steps = {"device": device, "returning_device": returning, "id_token": id_token, "returning_id_token": id_token,
             "refresh": rotate}
    wanted = [k for k in KINDS if k in kinds]  # dependency order; refresh uses the returning devices' sessions
    if "refresh" in wanted and "returning_device" not in wanted:
        wanted.insert(wanted.index("refresh"), "returning_device")
    out: dict[str, Any] = {"app_cpu_ms": {}, "app_wall_ms": {}, "app_split_ms": {}}
    if pg_pid:
        out["app_postgres_cpu_ms"] = {}
    profiles: dict[str, Any] = {}
    split = _Split()
    original = (store.transaction, sign_ins.mint_token, verifier.verify)
    store.transaction = split.transaction(store.transaction)  # type: ignore[method-assign]
    sign_ins.mint_token = split.wrap("access_token", sign_ins.mint_token)  # type: ignore[assignment]
    verifier.verify = split.wrap("id_token_verify", verifier.verify)  # type: ignore[method-assign]
    try:
        fresh("app")
        for kind in wanted:
            split.spent.clear()
            pg0 = ms.tree_cpu_seconds(pg_pid) if pg_pid else 0.0
            c0, w0 = time.process_time(), time.perf_counter()
            steps[kind]()
            cpu = (time.process_time() - c0) * 1000 / calls
            out["app_cpu_ms"][kind] = cpu
            out["app_wall_ms"][kind] = (time.perf_counter() - w0) * 1000 / calls
            parts = {k: v * 1000 / calls for k, v in split.spent.items()}
            parts["other"] = cpu - sum(parts.values())
            out["app_split_ms"][kind] = {k: round(v, 4) for k, v in parts.items()}
            if pg_pid:
                out["app_postgres_cpu_ms"][kind] = (ms.tree_cpu_seconds(pg_pid) - pg0) * 1000 / calls
        store.transaction, sign_ins.mint_token, verifier.verify = original  # type: ignore[method-assign]
        if profile:
            fresh("prof")
            for kind in wanted:
                profiler = cProfile.Profile(time.process_time)  # CPU, as the server's /proc figures
                profiler.enable()
                steps[kind]()
                profiler.disable()
                shares, top = _profile_shares(pstats.Stats(profiler))
                profiles[kind] = {"self_cpu_shares": shares, "top_self_cpu_shares": top}
    finally:
        store.transaction, sign_ins.mint_token, verifier.verify = original  # type: ignore[method-assign]
        store.close()
    if profiles:
        out["profile"] = profiles
    out["app_calls"] = calls
    return out


# ---------------------------------------------------------------------------------------
# the run


def _median(values) -> float:
    finite = [v for v in values if v == v]
    return statistics.median(finite) if finite else float("nan")


async def run(args) -> dict:
    from tests.support.oidc_issuer import OidcIssuer

    results: dict[str, Any] = {"bench": "accounts", "store": "postgres" if args.postgres else "sqlite",
                               "python": platform.python_version(), "grpcio": grpc.__version__,
                               "cpus": os.cpu_count(), "loadavg_1m_before": os.getloadavg()[0],
                               "seconds": args.seconds, "warmup_seconds": args.warmup, "rounds": args.rounds,
                               "inflight": args.inflight, "channels": args.channels, "max_calls": args.max_calls,
                               "kinds": list(args.kinds), "goal_max_match_commands": GOAL_MATCH_COMMANDS}
    started = time.perf_counter()
    tmp = Path(tempfile.mkdtemp(prefix="bench-accounts-"))
    os.chmod(tmp, 0o755)  # embedded PostgreSQL runs as its own user below it
    (tmp / "issuer").mkdir()
    issuer = OidcIssuer(tmp / "issuer").start()
    match_args = argparse.Namespace(server_env=[], profile_server="none", json=args.json, warmup=args.warmup)
    match = ms.MatchServer("postgres" if args.postgres else "sqlite", match_args, tmp)
    accounts = AccountServer(args, tmp, issuer.env(name=PROVIDER, client_ids=(CLIENT_ID,), nonce=NONCE), "")
    samples: dict[str, list[dict]] = {kind: [] for kind in (*args.kinds, "match")}
    try:
        log("starting the match and account services ...", args.json)
        await match.start()
        accounts.match_address = match.target
        await accounts.start()
        pools = Pools(issuer)
        for i in range(args.rounds):
            order = ["match", *args.kinds] if i % 2 == 0 else [*args.kinds, "match"]
            log(f"round {i + 1}/{args.rounds}: {', '.join(order)}", args.json)
            for kind in order:
                if kind == "match":
                    r = await measure_match(match, args.inflight, args.seconds, args.warmup)
                else:
                    if kind == "id_token":
                        await asyncio.to_thread(pools.sign_tokens, args.id_tokens)
                    r = await measure_kind(kind, pools, accounts.target, args.inflight, args.channels, args.seconds,
                                           args.warmup, args.max_calls, accounts.cpu_pids)
                samples[kind].append(r)
                log(f"  {kind:18} {r['per_s']:7.0f}/s  p50 {r['p50_ms']:6.2f} ms  p99 {r['p99_ms']:6.2f} ms  server "
                    f"CPU {r['server_cpu_ms']:.3f} ms/call"
                    + (f"  postgres {r['postgres_cpu_ms']:.3f}" if "postgres_cpu_ms" in r else "")
                    + (f"  errors {r.get('error_codes')}" if r.get("errors") else ""), args.json)
        if args.floor:  # what any call costs this server: its cheapest RPC, the health check
            from grpc_health.v1 import health_pb2, health_pb2_grpc

            r = await ms.measure_calls(accounts.target, lambda channel: partial(
                health_pb2_grpc.HealthStub(channel).Check, health_pb2.HealthCheckRequest(), timeout=10),
                args.inflight, args.seconds, args.warmup, accounts.child.pid if accounts.child else None)
            results["grpc_floor_cpu_ms"] = r["server_cpu_ms_per_request"]
            log(f"  health check (the gRPC floor) at {args.inflight} in flight: {r['per_s']:.0f}/s, server CPU "
                f"{r['server_cpu_ms_per_request']:.3f} ms/request", args.json)
        if "refresh" in args.kinds and args.latency_seconds > 0:
            r = await measure_kind("refresh", pools, accounts.target, 1, 1, args.latency_seconds, 0.5,
                                   args.max_calls, accounts.cpu_pids)
            results.update({"refresh_inflight1_p50_ms": r["p50_ms"], "refresh_inflight1_p99_ms": r["p99_ms"],
                            "refresh_inflight1_per_s": r["per_s"], "refresh_inflight1_server_cpu_ms": r["server_cpu_ms"],
                            "refresh_inflight1_errors": r["errors"]})
            log(f"  refresh at 1 in flight: p50 {r['p50_ms']:.2f} ms, p99 {r['p99_ms']:.2f} ms, server CPU "
                f"{r['server_cpu_ms']:.3f} ms/call", args.json)
        # figures per kind: medians over the rounds; ratios: medians of the per-round ratios
        for kind, rounds in samples.items():
            p = PREFIX[kind]
            results[RATE[kind]] = _median(r["per_s"] for r in rounds)
            results[f"{RATE[kind]}_per_round"] = [round(r["per_s"], 1) for r in rounds]
            for key in ("p50_ms", "p99_ms", "client_cpu_ms", "postgres_cpu_ms"):
                if any(key in r for r in rounds):
                    results[f"{p}_{key}"] = _median(r.get(key, float("nan")) for r in rounds)
            results[f"{p}_cpu_ms"] = _median(r["server_cpu_ms"] for r in rounds)
            results[f"{p}_cpu_ms_per_round"] = [round(r["server_cpu_ms"], 3) for r in rounds]
            results[f"{p}s" if kind == "match" else f"{p}_calls"] = sum(r["calls"] for r in rounds)
            results[f"{p}_errors"] = sum(r["errors"] for r in rounds)
            codes: collections.Counter = collections.Counter()
            for r in rounds:
                codes.update(r.get("error_codes", {}))
            if codes:
                results[f"{p}_error_codes"] = dict(codes)
        results["match_getmatch_per_command"] = _median(r["getmatch_per_command"] for r in samples["match"])
        for kind in args.kinds:
            p = PREFIX[kind]
            per_round = [a["server_cpu_ms"] / b["server_cpu_ms"] for a, b in zip(samples[kind], samples["match"])
                         if b["server_cpu_ms"] == b["server_cpu_ms"] and b["server_cpu_ms"] > 0]
            results[f"{p}_vs_match_command"] = _median(per_round)
            results[f"{p}_vs_match_command_per_round"] = [round(x, 3) for x in per_round]
            if args.postgres and f"{p}_postgres_cpu_ms" in results:
                both = [(a["server_cpu_ms"] + a.get("postgres_cpu_ms", 0.0))
                        / (b["server_cpu_ms"] + b.get("postgres_cpu_ms", 0.0))
                        for a, b in zip(samples[kind], samples["match"])]
                results[f"{p}_with_postgres_vs_match_command"] = _median(both)
        checks = {PREFIX[k]: results[f"{PREFIX[k]}_vs_match_command"] <= GOAL_MATCH_COMMANDS
                  for k in GOAL_KINDS if k in args.kinds}
        results["goal_checks"] = checks
        results["meets_goal"] = all(checks.values()) if checks else None
        results["errors"] = sum(results[f"{PREFIX[k]}_errors"] for k in samples) + results.get(
            "refresh_inflight1_errors", 0)
        # the application alone, and where its CPU goes when over the goal
        if args.app_calls > 0:
            profile = args.profile or not results["meets_goal"]
            log("the use cases in this process" + (" (and their cProfile)" if profile else "") + " ...", args.json)
            app = await asyncio.to_thread(app_cost, accounts.store_env, issuer, tuple(args.kinds), args.app_calls,
                                          profile, accounts.pg.pid if accounts.pg else None)
            results.update(app)
            results["outside_app_cpu_ms"] = {k: results[f"{PREFIX[k]}_cpu_ms"] - v
                                             for k, v in app["app_cpu_ms"].items() if k in args.kinds}
            if "grpc_floor_cpu_ms" in results:  # beyond the floor: the servicer's own wrapping
                results["servicer_cpu_ms"] = {k: v - results["grpc_floor_cpu_ms"]
                                              for k, v in results["outside_app_cpu_ms"].items()}
    finally:
        try:
            accounts.stop()
            match.stop()
        finally:
            issuer.close()
            if args.keep:
                log(f"kept {tmp}", args.json)
            else:
                shutil.rmtree(tmp, ignore_errors=True)
    results["wall_seconds"] = time.perf_counter() - started
    results["loadavg_1m_after"] = os.getloadavg()[0]
    return results


def human(results: dict) -> str:
    def f(key: str, fmt: str = "{:.2f}") -> str:
        v = results.get(key)
        return "-" if v is None or v != v else fmt.format(v)

    lines = [f"Account service over gRPC ({results['store']}, {results['inflight']} in flight, medians of "
             f"{results['rounds']} rounds; load average {results['loadavg_1m_before']:.1f} -> "
             f"{results['loadavg_1m_after']:.1f})", "",
             f"{'kind':28} {'calls/s':>8} {'p50 ms':>8} {'p99 ms':>8} {'server CPU ms':>14} {'x match cmd':>12}"]
    for kind in [*results["kinds"], "match"]:
        p = PREFIX[kind]
        lines.append(f"{p:28} {f(RATE[kind], '{:.0f}'):>8} {f(p + '_p50_ms'):>8} {f(p + '_p99_ms'):>8} "
                     f"{f(p + '_cpu_ms', '{:.3f}'):>14} {f(p + '_vs_match_command', '{:.2f}') if kind != 'match' else '':>12}")
    if "refresh_inflight1_p50_ms" in results:
        lines.append(f"refresh at 1 in flight: p50 {f('refresh_inflight1_p50_ms')} ms, p99 "
                     f"{f('refresh_inflight1_p99_ms')} ms")
    if "app_cpu_ms" in results:
        lines.append("")
        lines.append("the use cases alone (this process, no gRPC), CPU ms per call: "
                     + ", ".join(f"{k} {v:.3f}" for k, v in results["app_cpu_ms"].items()))
        lines.append("server CPU beyond them (gRPC, asyncio, logging): "
                     + ", ".join(f"{k} {v:.3f}" for k, v in results["outside_app_cpu_ms"].items())
                     + (f"; of which any RPC's floor (health check) {results['grpc_floor_cpu_ms']:.3f}"
                        if "grpc_floor_cpu_ms" in results else ""))
        lines.append("the use cases' CPU split, ms per call:")
        for kind, parts in results["app_split_ms"].items():
            lines.append(f"  {kind}: " + ", ".join(f"{k} {v:.3f}" for k, v in parts.items()))
    for kind, prof in (results.get("profile") or {}).items():
        lines.append(f"  {kind} cProfile, shares of its CPU: "
                     + ", ".join(f"{k} {v:.0%}" for k, v in prof["self_cpu_shares"].items()))
    lines.append("")
    verdict = {True: "MET", False: "NOT MET", None: "n/a"}[results.get("meets_goal")]
    lines.append(f"goal: device sign-in and refresh <= {GOAL_MATCH_COMMANDS:g} match commands of server CPU: {verdict} "
                 f"{results.get('goal_checks')}; errors {results.get('errors')}")
    return "\n".join(lines)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    p.add_argument("--seconds", type=float, default=2.5, help="measured seconds per kind and round (default 2.5)")
    p.add_argument("--warmup", type=float, default=1.0, help="unmeasured seconds before each measurement (default 1)")
    p.add_argument("--rounds", type=int, default=2, help="rounds of every kind and the match commands (default 2)")
    p.add_argument("--inflight", type=int, default=16, help="concurrent callers, and matches in flight (default 16)")
    p.add_argument("--channels", type=int, default=4, help="gRPC channels (connections) they share (default 4)")
    p.add_argument("--max-calls", type=int, default=20000, help="at most this many calls a measurement")
    p.add_argument("--id-tokens", type=int, default=2500,
                   help="fresh ID tokens signed before each round's id_token measurement (its bound; default 2500)")
    p.add_argument("--kinds", nargs="+", choices=KINDS, default=list(DEFAULT_KINDS),
                   help="kinds of call (default: " + " ".join(DEFAULT_KINDS) + ")")
    p.add_argument("--latency-seconds", type=float, default=2.0,
                   help="seconds of refreshes at 1 in flight, for latency without queueing (0: skip)")
    p.add_argument("--no-floor", dest="floor", action="store_false",
                   help="skip the health check at --inflight (the server's CPU for any call)")
    p.add_argument("--postgres", action="store_true", help="both services on embedded PostgreSQL instead of SQLite")
    p.add_argument("--app-calls", type=int, default=300,
                   help="calls of each use case in this process, for the split (0: skip)")
    p.add_argument("--profile", action="store_true", help="cProfile the use cases even when the goal is met")
    p.add_argument("--server-env", action="append", default=[], metavar="KEY=VALUE",
                   help="extra environment for the account service (experiments)")
    p.add_argument("--keep", action="store_true", help="keep the temporary directory (logs)")
    args = p.parse_args()
    if args.rounds < 1:
        p.error("--rounds must be at least 1")
    kinds = list(dict.fromkeys(args.kinds))
    if ("returning_device" in kinds or "refresh" in kinds) and "device" not in kinds:  # they need its sessions
        kinds.insert(0, "device")
    if "returning_id_token" in kinds and "id_token" not in kinds:
        kinds.insert(0, "id_token")
    args.kinds = tuple(k for k in KINDS if k in kinds)  # dependency order
    results = asyncio.run(run(args))
    if args.json:
        print(json.dumps(ms._finite(results), sort_keys=True))
    else:
        print(human(results))


if __name__ == "__main__":
    main()
