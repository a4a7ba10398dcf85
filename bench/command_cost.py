"""Where a match command's server CPU goes: the gRPC floor against the application's own work.

``bench/match_service.py`` reports one figure, server CPU per command. This splits it:

* **transport**: the real match server (``domino serve match`` on SQLite, its interceptors,
  health and metrics) answering the cheapest RPC it has, ``grpc.health.v1.Health/Check``, at
  ``--inflight`` requests in flight, against the bare grpc.aio echo of ``match_service.py``
  at the same level. The health figure is what any RPC to this server costs before it does
  anything of its own.
* **application**: the match servicer called in this process, without gRPC (a context that
  only answers ``invocation_metadata``), playing whole block-4 matches one command at a
  time. Its CPU per command is split into the store's append, the view (the player's view,
  its protobuf and the signed head) and the rest (token check, loading the match, the
  engine's step, the event and its chain link), by timing those two calls.
  PostgreSQL's own CPU (its backends) is reported beside it.

Run: ``.venv/bin/python bench/command_cost.py --json`` (about a minute and a half). The sum
transport + application is close to match_service.py's ``*_server_cpu_ms_per_command``; what
remains there is the drivers' GetMatch calls and match creation, which this leaves out.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from grpc_health.v1 import health_pb2, health_pb2_grpc  # noqa: E402

import match_service as ms  # noqa: E402
from services.common.config import SQLITE_MODULE  # noqa: E402


class _Context:
    """The one thing the servicer asks of a call's context on the success path."""

    def __init__(self, token: str) -> None:
        self._md = (("authorization", "Bearer " + token),)

    def invocation_metadata(self):
        return self._md


class _Clock:
    """CPU seconds spent inside wrapped calls, per name, while ``on`` (during a command)."""

    def __init__(self) -> None:
        self.spent: dict[str, float] = {}
        self.on = False

    def _count(self, name: str, since: float) -> None:
        if self.on:
            self.spent[name] = self.spent.get(name, 0.0) + time.process_time() - since

    def wrap_async(self, name: str, fn):
        async def timed(*args):
            t = time.process_time()
            try:
                return await fn(*args)
            finally:
                self._count(name, t)
        return timed

    def wrap(self, name: str, fn):
        def timed(*args):
            t = time.process_time()
            try:
                return fn(*args)
            finally:
                self._count(name, t)
        return timed


async def application_cost(env: dict[str, str], matches: int, pg_pid: int | None) -> dict:
    from domino.match.v1 import match_service_pb2 as pb
    from services.common.auth import KeyRing, mint_token
    from services.common.changes import ChangeFeed
    from services.common.limits import RateLimit
    from services.match.application import MatchApplication
    from services.common.auth_interceptor import CALLER
    from services.match.grpc_adapter import MatchServicer, authentication

    keys = KeyRing.generate()
    app = MatchApplication(env=env)
    servicer = MatchServicer(app, ChangeFeed())
    auth = authentication(keys, RateLimit(1e9, 1e9))

    def identified(context: _Context, rpc: str) -> _Context:  # what the server's interceptor does first
        CALLER.set(auth.identify(context.invocation_metadata(), rpc))
        return context
    clock = _Clock()
    app.store.append = clock.wrap_async("append", app.store.append)  # type: ignore[method-assign]
    # the replies take their view from the servicer's view cache (built on a miss, reused on a hit)
    servicer.views.serialized = clock.wrap("view", servicer.views.serialized)  # type: ignore[method-assign]
    service = _Context(mint_token("bench-matchmaking", keys, "service"))
    run = os.urandom(4).hex()
    commands, total, pg_cpu = 0, 0.0, 0.0
    for m in range(matches):
        players = [f"cost-{run}-{m}-{s}" for s in range(4)]
        contexts = {p: _Context(mint_token(p, keys, "player")) for p in players}
        created = await servicer.CreateMatch(pb.CreateMatchRequest(
            request_id=f"{run}-c{m}", rules="egyptian", variant="block-4", turn_timer_seconds=0,
            seats=[pb.SeatSpec(player_id=p, client_seed=f"seed-{p}") for p in players]), identified(service, "CreateMatch"))
        view = created.view
        while view.status != pb.MATCH_STATUS_ENDED:
            assert view.HasField("turn"), "a match in play names the seat to act"
            context = contexts[players[view.turn]]
            own = (await servicer.GetMatch(pb.GetMatchRequest(match_id=created.match_id),
                                           identified(context, "GetMatch"))).view
            move = own.legal_moves[0]
            rid = f"{run}-{commands}"
            pg0 = ms.tree_cpu_seconds(pg_pid) if pg_pid else 0.0
            clock.on = True
            t = time.process_time()
            if move.kind == pb.MOVE_KIND_DRAW:  # block-4 has no boneyard, and its passes are the server's
                reply = await servicer.DrawTile(pb.DrawTileRequest(match_id=created.match_id, request_id=rid),
                                                identified(context, "DrawTile"))
            else:
                reply = await servicer.PlayTile(pb.PlayTileRequest(match_id=created.match_id, request_id=rid,
                                                                   tile=move.tile, end=move.end),
                                                identified(context, "PlayTile"))
            total += time.process_time() - t
            clock.on = False
            if pg_pid:
                pg_cpu += ms.tree_cpu_seconds(pg_pid) - pg0
            commands += 1
            view = reply.view
    await app.aclose()
    app.close()
    per = 1000 / commands
    out = {"commands": commands, "app_cpu_ms_per_command": total * per,
           "append_ms_per_command": clock.spent.get("append", 0.0) * per,
           "view_ms_per_command": clock.spent.get("view", 0.0) * per}
    out["rest_ms_per_command"] = out["app_cpu_ms_per_command"] - out["append_ms_per_command"] - out["view_ms_per_command"]
    if pg_pid:
        out["postgres_cpu_ms_per_command"] = pg_cpu * per
    return out


async def transport_cost(tmp: Path, inflight: int, seconds: float) -> dict:
    """Server CPU per request of Health/Check on the match server and of the bare echo."""
    args = argparse.Namespace(server_env=[], profile_server="none", json=True, echo_seconds=seconds, warmup=1.0,
                              echo_bytes=32)
    server = ms.MatchServer("sqlite", args, tmp)
    echo = ms.EchoServer(args, tmp)
    try:
        await server.start()
        await echo.start()
        health = await ms.measure_calls(
            server.target, lambda channel: partial(health_pb2_grpc.HealthStub(channel).Check,
                                                   health_pb2.HealthCheckRequest(), timeout=10),
            inflight, seconds, 1.0, server.child.pid)
        bare = await echo.measure(inflight)
        return {"health_server_cpu_ms_per_request": health["server_cpu_ms_per_request"],
                "echo_server_cpu_ms_per_request": bare["server_cpu_ms_per_request"], "inflight": inflight}
    finally:
        echo.stop()
        server.stop()


async def run(args) -> dict:
    results: dict = {"matches": args.matches}
    with tempfile.TemporaryDirectory(prefix="command-cost-") as d:
        tmp = Path(d)
        if "sqlite" in args.stores:
            env = {"PERSISTENCE_MODULE": SQLITE_MODULE, "SQLITE_DBNAME": str(tmp / "cost.sqlite")}
            results["sqlite"] = await application_cost(env, args.matches, None)
        if "postgres" in args.stores:
            from services.common.servers import start_postgres

            pg = start_postgres(tmp / "pgdata")
            try:
                pg.create_database("cost")
                results["postgres"] = await application_cost(pg.eventsourcing_env("cost"), args.matches, pg.pid)
            finally:
                pg.stop()
        if not args.no_transport:
            results["transport"] = await transport_cost(tmp, args.inflight, args.seconds)
    return results


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--matches", type=int, default=20, help="block-4 matches per store (default 20)")
    p.add_argument("--stores", nargs="+", choices=("sqlite", "postgres"), default=["sqlite", "postgres"])
    p.add_argument("--inflight", type=int, default=50, help="requests in flight for the transport figures")
    p.add_argument("--seconds", type=float, default=8.0, help="measured seconds per transport figure")
    p.add_argument("--no-transport", action="store_true", help="skip the gRPC floor")
    args = p.parse_args()
    results = asyncio.run(run(args))
    if args.json:
        print(json.dumps(results, indent=2))
        return
    for store in ("sqlite", "postgres"):
        r = results.get(store)
        if r:
            print(f"{store:9} application {r['app_cpu_ms_per_command']:.3f} ms/command: append "
                  f"{r['append_ms_per_command']:.3f}, view {r['view_ms_per_command']:.3f}, rest "
                  f"{r['rest_ms_per_command']:.3f}"
                  + (f"; postgres {r['postgres_cpu_ms_per_command']:.3f}" if "postgres_cpu_ms_per_command" in r
                     else ""))
    t = results.get("transport")
    if t:
        print(f"transport at {t['inflight']} in flight: health check {t['health_server_cpu_ms_per_request']:.3f} "
              f"ms/request on the match server, bare echo {t['echo_server_cpu_ms_per_request']:.3f}")


if __name__ == "__main__":
    main()
