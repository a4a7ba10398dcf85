"""Half-open HTTP/2 calls against a real match service: its memory before, during and
after a flood, with the server's bounds on and off.

    .venv/bin/python bench/h2_flood.py --json                  # the server as configured now
    .venv/bin/python bench/h2_flood.py --json --old-options    # without the bounds, as before
    .venv/bin/python bench/h2_flood.py --calls 2000 2000 --hold 3 --settle 3   # ~15 s

What runs: ``.venv/bin/domino serve match`` as its own process (SQLite in a temporary
directory, configured by environment as in production). Then one raw HTTP/2 connection per
``--calls`` value (tests/support/raw_h2.py: the preface, SETTINGS, and one HEADERS frame per
call for ``POST /domino.match.v1.MatchService/GetMatch``, with no DATA and no END_STREAM,
no token) sends that many calls, as fast as the server reads them; the connections answer
the server's pings and stay open ``--hold`` seconds, then close, and after ``--settle``
seconds the server's memory is read again. ``--old-options`` starts the server with
DOMINO_GRPC_MAX_CONCURRENT_STREAMS, DOMINO_GRPC_MAX_CONCURRENT_CALLS,
DOMINO_GRPC_REQUEST_WAIT_SECONDS and DOMINO_MEMORY_RELEASE_SECONDS set to 0, which turns
those bounds and the release of freed memory off: the server as it was before them.

Prints one JSON object (``--json``) with the server's resident memory (VmRSS of
/proc/<pid>/status, MB): ``rss_before_mb`` (served one call, idle), ``rss_peak_mb`` (the
highest sampled every 0.1 s while a flood ran) with ``rss_hwm_mb`` (the kernel's VmHWM, the
true peak), ``rss_after_mb`` (``--settle`` seconds after the last round's connections closed)
and ``rss_after_each_round_mb`` (``--rounds`` floods one after the other on the same server:
memory that grows round after round would be a leak, memory that stays put is the allocator
keeping what it once needed). ``totals`` (of the last round; ``per_round`` has each round,
each connection) count the calls ``sent``; ``refused`` (RST_STREAM REFUSED_STREAM or
ENHANCE_YOUR_CALM: the server never took them); ``accepted`` (the rest); ``ended_by_server``
(accepted, then ended by the server: answered with a status, as when the request wait ran
out or the process was at its call bound, or reset); ``open_at_close`` (still open when the
client closed). ``served_during`` and ``served_after`` say whether a well-behaved GetMatch
was answered (NOT_FOUND) while the connections were open and after, and how long it took.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import grpc  # noqa: E402

from domino.match.v1 import match_service_pb2 as pb  # noqa: E402
from domino.match.v1 import match_service_pb2_grpc as pb_grpc  # noqa: E402
from services.common.auth import KeyRing, mint_token  # noqa: E402
from services.common.config import SQLITE_MODULE  # noqa: E402
from services.common.servers import free_ports  # noqa: E402
from tests.support.raw_h2 import SETTINGS_MAX_CONCURRENT_STREAMS, RawH2Connection  # noqa: E402
from bench.procfs import memory_kb  # noqa: E402

VENV_BIN = ROOT / ".venv" / "bin" if (ROOT / ".venv" / "bin" / "domino").exists() else Path(sys.executable).parent
OLD_OPTIONS = {"DOMINO_GRPC_MAX_CONCURRENT_STREAMS": "0", "DOMINO_GRPC_MAX_CONCURRENT_CALLS": "0",
               "DOMINO_GRPC_REQUEST_WAIT_SECONDS": "0", "DOMINO_MEMORY_RELEASE_SECONDS": "0"}


def log(message: str, quiet: bool) -> None:
    if not quiet:
        print(message, file=sys.stderr, flush=True)


def memory_mb(pid: int, field: str = "VmRSS") -> float:
    """VmRSS or VmHWM in MB; raises once the process is gone (the sampler then stops)."""
    kb = memory_kb(pid).get(field)
    if kb is None:
        raise RuntimeError(f"no {field} for process {pid}")
    return round(kb / 1024, 1)


class MatchServer:
    """``domino serve match`` in its own process, on SQLite in ``tmp``."""

    def __init__(self, tmp: Path, old_options: bool, extra_env: list[str]) -> None:
        from services.match.heads import rotate

        self.keys = KeyRing.generate()
        keys_dir = tmp / "keys"
        self.keys.write(keys_dir)
        rotate(keys_dir)  # the head signing key views are signed with
        port, metrics_port = free_ports(2)
        self.address = f"127.0.0.1:{port}"
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PERSISTENCE_", "SQLITE_", "POSTGRES_",
                                                                           "DOMINO_"))}
        env.update({"PERSISTENCE_MODULE": SQLITE_MODULE, "SQLITE_DBNAME": str(tmp / "match.sqlite"),
                    "DOMINO_MATCH_ADDRESS": self.address, "DOMINO_MATCH_METRICS_PORT": str(metrics_port),
                    "DOMINO_KEYS_DIR": str(keys_dir), "DOMINO_VAR_DIR": str(tmp / "var"),
                    "DOMINO_SHUTDOWN_GRACE_SECONDS": "1"})
        if old_options:
            env.update(OLD_OPTIONS)
        for item in extra_env:
            key, _, value = item.partition("=")
            env[key] = value
        self.env = {k: v for k, v in env.items() if k.startswith("DOMINO_GRPC")}
        self.log_path = tmp / "match.log"
        self._log = self.log_path.open("ab")
        self.proc = subprocess.Popen([str(VENV_BIN / "domino"), "serve", "match"], env=env, cwd=str(tmp),
                                     stdin=subprocess.DEVNULL, stdout=self._log, stderr=subprocess.STDOUT)

    @property
    def pid(self) -> int:
        return self.proc.pid

    def wait_serving(self, timeout: float = 60.0) -> None:
        from grpc_health.v1 import health_pb2, health_pb2_grpc

        end = time.monotonic() + timeout
        with grpc.insecure_channel(self.address) as channel:
            stub = health_pb2_grpc.HealthStub(channel)
            while True:
                if self.proc.poll() is not None:
                    raise RuntimeError(f"the server exited ({self.proc.returncode}):\n{self.tail()}")
                try:
                    if stub.Check(health_pb2.HealthCheckRequest(), timeout=1).status == \
                            health_pb2.HealthCheckResponse.SERVING:
                        return
                except grpc.RpcError:
                    pass
                if time.monotonic() > end:
                    raise TimeoutError(f"not SERVING within {timeout} s:\n{self.tail()}")
                time.sleep(0.1)

    def get_match(self) -> dict:
        """One well-behaved GetMatch of an unknown match: its status and time."""
        token = mint_token("bench-player", self.keys)
        started = time.perf_counter()
        with grpc.insecure_channel(self.address) as channel:
            try:
                pb_grpc.MatchServiceStub(channel).GetMatch(pb.GetMatchRequest(match_id=str(uuid.uuid4())),
                                                           metadata=(("authorization", f"Bearer {token}"),),
                                                           timeout=10)
                code = "OK"
            except grpc.RpcError as error:
                code = error.code().name
        return {"code": code, "ms": round((time.perf_counter() - started) * 1000, 1)}

    def tail(self, lines: int = 30) -> str:
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._log.close()


class PeakSampler:
    """The highest VmRSS seen, sampled every ``interval`` seconds on a thread."""

    def __init__(self, pid: int, interval: float = 0.1) -> None:
        self.pid, self.interval = pid, interval
        self.peak = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.peak = max(self.peak, memory_mb(self.pid))
            except (OSError, RuntimeError):
                return
            self._stop.wait(self.interval)

    def stop(self) -> float:
        self._stop.set()
        self._thread.join(5)
        return self.peak


def connection_figures(conn: RawH2Connection, sent: int) -> dict:
    f = conn.frames
    refused = len(f.refused_streams)
    ended = len(f.ended | (f.reset_streams - f.refused_streams))
    return {"sent": sent, "refused": refused, "accepted": sent - refused, "ended_by_server": ended,
            "open_at_close": conn.open_streams(), "resets_by_code": {str(k): v for k, v in sorted(f.resets.items())},
            "goaway": f.goaway, "max_concurrent_streams_advertised": f.settings.get(SETTINGS_MAX_CONCURRENT_STREAMS)}


def flood(server: MatchServer, args) -> dict:
    """One round: the connections send their calls, hold ``--hold`` s, close; then ``--settle`` s."""
    host, port = server.address.rsplit(":", 1)
    sampler = PeakSampler(server.pid)
    conns = [RawH2Connection(host, int(port), timeout=60) for _ in args.calls]
    for conn in conns:
        conn.frames.settings_seen.wait(10)
    senders = [threading.Thread(target=conn.open_calls, args=(n,), daemon=True) for conn, n in zip(conns, args.calls)]
    started = time.perf_counter()
    for sender in senders:
        sender.start()
    for sender in senders:
        sender.join()
    flood_seconds = time.perf_counter() - started
    log(f"sent {sum(args.calls)} HEADERS in {flood_seconds:.1f} s, holding {args.hold:g} s", args.json)
    time.sleep(args.hold)
    during = memory_mb(server.pid)
    served_during = server.get_match()
    per_connection = [connection_figures(conn, n) for conn, n in zip(conns, args.calls)]
    for conn in conns:
        conn.close()
    time.sleep(args.settle)
    peak = sampler.stop()
    after = memory_mb(server.pid)
    log(f"RSS at the end of the hold {during} MB, peak {peak} MB, {after} MB {args.settle:g} s after closing",
        args.json)
    totals = {key: sum(c[key] for c in per_connection)
              for key in ("sent", "refused", "accepted", "ended_by_server", "open_at_close")}
    return {"rss_at_end_of_hold_mb": during, "rss_peak_mb": peak, "rss_after_mb": after,
            "flood_seconds": round(flood_seconds, 1), "totals": totals, "per_connection": per_connection,
            "served_during": served_during, "served_after": server.get_match()}


def run(args) -> dict:
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="domino-h2-flood-") as tmpdir:
        server = MatchServer(Path(tmpdir), args.old_options, args.server_env)
        try:
            server.wait_serving()
            server.get_match()  # warm: one real call through every layer before the baseline
            time.sleep(args.warmup)
            before = memory_mb(server.pid)
            log(f"server {server.pid} SERVING, {before} MB; options {server.env or 'defaults'}", args.json)
            rounds = [flood(server, args) for _ in range(args.rounds)]
            hwm = memory_mb(server.pid, "VmHWM")
        finally:
            server.stop()
    last = rounds[-1]
    return {
        "bench": "h2_flood", "old_options": args.old_options, "server_env": server.env,
        "connections": len(args.calls), "calls_per_connection": args.calls, "rounds": len(rounds),
        "rss_before_mb": before, "rss_peak_mb": max(r["rss_peak_mb"] for r in rounds), "rss_hwm_mb": hwm,
        "rss_after_mb": last["rss_after_mb"], "rss_after_over_before": round(last["rss_after_mb"] / before, 2),
        "rss_after_each_round_mb": [r["rss_after_mb"] for r in rounds],
        "hold_seconds": args.hold, "settle_seconds": args.settle,
        "totals": last["totals"], "served_after": last["served_after"], "per_round": rounds,
        "python": platform.python_version(), "grpcio": grpc.__version__, "cpu_count": os.cpu_count(),
        "elapsed_s": round(time.perf_counter() - started, 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, nargs="+", default=[20_000, 130_000, 200_000],
                        help="HEADERS-only calls per connection, one connection per value")
    parser.add_argument("--hold", type=float, default=15.0, help="seconds the connections stay open after sending "
                                                                 "(longer than the request wait)")
    parser.add_argument("--settle", type=float, default=10.0, help="seconds after closing before the last reading")
    parser.add_argument("--rounds", type=int, default=1, help="floods one after the other on the same server "
                                                                 "(memory that grows with each round would be a leak)")
    parser.add_argument("--warmup", type=float, default=1.0, help="seconds between start-up and the baseline")
    parser.add_argument("--old-options", action="store_true",
                        help="turn the bounds and the memory release off (DOMINO_GRPC_MAX_CONCURRENT_STREAMS, "
                             "..._CALLS, ..._REQUEST_WAIT_SECONDS, DOMINO_MEMORY_RELEASE_SECONDS = 0): the "
                             "server as it was before them")
    parser.add_argument("--server-env", action="append", default=[], metavar="KEY=VALUE",
                        help="extra environment for the server (repeatable)")
    parser.add_argument("--json", action="store_true", help="print only the JSON object")
    args = parser.parse_args(argv)
    result = run(args)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        t = result["totals"]
        print(f"RSS {result['rss_before_mb']} MB before, peak {result['rss_peak_mb']} MB (HWM "
              f"{result['rss_hwm_mb']}), {result['rss_after_mb']} MB {args.settle:g} s after closing; "
              f"{t['sent']} calls sent, {t['refused']} refused, {t['accepted']} accepted "
              f"({t['ended_by_server']} ended by the server); after: {result['served_after']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
