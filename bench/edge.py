"""The browsers' edge: what it adds to a unary call, and its CPU per call.

Starts the match service and the edge as processes (`domino serve match`, `domino serve
edge`, as `domino up` does) and calls MatchService.DescribeRules, a real handler behind the
real token check, N times over plain gRPC (HTTP/2, one channel) and N times over gRPC-Web
through the edge (HTTP/1.1, one keep-alive connection, as a browser tab's fetch), one call
at a time. The edge's added latency is the difference of the two at each percentile; its
CPU per call is the edge process's utime + stime over the edge's calls, divided by N.

    .venv/bin/python bench/edge.py --json            # one JSON object
    .venv/bin/python bench/edge.py --calls 500       # quicker
"""

from __future__ import annotations

import argparse
import http.client
import json
import shutil
import struct
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import grpc  # noqa: E402

from bench.procfs import cpu_seconds, git_commit, loadavg, pct  # noqa: E402
from domino.match.v1 import match_service_pb2 as pb  # noqa: E402
from domino.match.v1 import match_service_pb2_grpc as pb_grpc  # noqa: E402
from services.common.auth import mint_token  # noqa: E402
from services.common.supervisor import EDGE, LocalSystem, Ports  # noqa: E402

PATH = "/domino.match.v1.MatchService/DescribeRules"


def direct(system: LocalSystem, token: str, calls: int) -> list[float]:
    with grpc.insecure_channel(system.match_address) as channel:
        describe = pb_grpc.MatchServiceStub(channel).DescribeRules
        metadata = (("authorization", f"Bearer {token}"),)
        seconds = []
        for _ in range(calls):
            started = time.perf_counter()
            describe(pb.DescribeRulesRequest(), metadata=metadata, timeout=10)
            seconds.append(time.perf_counter() - started)
    return seconds


def through_edge(system: LocalSystem, token: str, calls: int) -> list[float]:
    body = pb.DescribeRulesRequest().SerializeToString()
    framed = b"\x00" + struct.pack(">I", len(body)) + body
    headers = {"content-type": "application/grpc-web+proto", "x-grpc-web": "1", "authorization": f"Bearer {token}",
               "grpc-timeout": "10S"}
    connection = http.client.HTTPConnection("127.0.0.1", system.ports.web, timeout=10)
    seconds = []
    try:
        for _ in range(calls):
            started = time.perf_counter()
            connection.request("POST", PATH, body=framed, headers=headers)
            response = connection.getresponse()
            data = response.read()
            seconds.append(time.perf_counter() - started)
            if response.status != 200 or b"grpc-status:0" not in data.replace(b" ", b""):
                raise RuntimeError(f"the edge answered {response.status} {data[-200:]!r}")
    finally:
        connection.close()
    return seconds


def ms(values: list[float], q: float) -> float:
    return round((pct(values, q) or 0.0) * 1000, 3)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--warmup", type=int, default=200)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    var = Path(tempfile.mkdtemp(prefix="domino-bench-edge-"))
    try:
        with LocalSystem(var, Ports.free(), services=("match", EDGE),
                         extra_env={"DOMINO_LOG_LEVEL": "WARNING"}) as system:
            token = mint_token("bench", system.keys(), "service")
            direct(system, token, args.warmup)
            through_edge(system, token, args.warmup)
            plain = direct(system, token, args.calls)
            edge_pid = system.processes[EDGE].pid
            cpu_before = cpu_seconds(edge_pid)
            edged = through_edge(system, token, args.calls)
            edge_cpu = cpu_seconds(edge_pid) - cpu_before
    finally:
        shutil.rmtree(var, ignore_errors=True)
    result = {
        "bench": "edge", "commit": git_commit(), "calls": args.calls, "method": PATH.lstrip("/"),
        "direct_grpc_ms": {"p50": ms(plain, 50), "p99": ms(plain, 99)},
        "through_edge_grpc_web_ms": {"p50": ms(edged, 50), "p99": ms(edged, 99)},
        "edge_added_ms": {"p50": round(ms(edged, 50) - ms(plain, 50), 3),
                          "p99": round(ms(edged, 99) - ms(plain, 99), 3)},
        "edge_cpu_ms_per_call": round(edge_cpu / args.calls * 1000, 3),
        "loadavg": loadavg(),
    }
    if args.json:
        print(json.dumps(result))
    else:
        print(f"edge adds {result['edge_added_ms']['p50']} ms p50, {result['edge_added_ms']['p99']} ms p99 to "
              f"{result['method']}; {result['edge_cpu_ms_per_call']} ms of edge CPU per call")


if __name__ == "__main__":
    main()
