"""The Node example (examples/node/) plays a whole practice match over plain gRPC against the
services as processes, with the generated TypeScript SDK and nothing of the server's: signed
in by device, DescribeRules, StartPractice, the seed, WatchMatch with its token refreshed,
every turn, and the result; the JSON summary it prints is checked against what GetMatch and
ListMyMatches answer. It calls again only on CONFLICT or UNAVAILABLE with RetryInfo, so a
summary without retries is a match played with none on a guess."""

from __future__ import annotations

import json
import os
import subprocess
import urllib.request
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from services.common.supervisor import LocalSystem, Ports
from tests.system.quick_practice import QUICK_PRACTICE, check_played

from .conftest import scratch_dir

pytestmark = pytest.mark.system

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "node"
TSX = EXAMPLE / "node_modules" / ".bin" / "tsx"
RUN_TIMEOUT_SECONDS = 300  # generous: what is awaited is the summary, never a duration


@pytest.fixture(scope="module")
def quick_system():
    """One system for the example's runs that need it whole (each signs in a device of its own)."""
    with scratch_dir("domino-node-") as path, LocalSystem(path, Ports.free(), extra_env=QUICK_PRACTICE) as running:
        yield running


def example_env(system: LocalSystem) -> dict[str, str]:
    assert TSX.exists(), "run `make install`: it runs `npm ci` in examples/node"
    return {**os.environ, "DOMINO_MATCH_ADDRESS": system.match_address,
            "DOMINO_MATCHMAKING_ADDRESS": system.matchmaking_address, "DOMINO_ACCOUNT_ADDRESS": system.account_address}


def played(system: LocalSystem, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(TSX), "play-practice.ts", *args], cwd=EXAMPLE, env=example_env(system),
                          capture_output=True, text=True, timeout=RUN_TIMEOUT_SECONDS)


def metric(system: LocalSystem, port: int, name: str, **labels: str) -> float:
    """A sample of a service's metrics page (0 when absent)."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as page:
        text = page.read().decode()
    return sum(sample.value for family in text_string_to_metric_families(text) for sample in family.samples
               if sample.name == name and all(sample.labels.get(k) == v for k, v in labels.items()))


class MatchmakingOnOneReplica(LocalSystem):
    """Two match replicas on one store, matchmaking reaching the first alone: with it down, the
    example (sent to the second) signs in and reads the rules, and StartPractice is refused
    UNAVAILABLE, with RetryInfo, until it is back."""

    def env(self, service: str | None = None) -> dict[str, str]:
        env = super().env(service)
        if service == "matchmaking":
            env["DOMINO_MATCH_ADDRESS"] = self.match_address
        return env


@pytest.mark.timeout(RUN_TIMEOUT_SECONDS + 120)
def test_the_node_example_plays_a_whole_practice_match_over_grpc_and_prints_its_summary(quick_system):
    run = played(quick_system, "--shortest-target")
    assert run.returncode == 0, run.stderr
    summary = json.loads(run.stdout)
    check_played(quick_system, summary)
    assert summary["retries"] == [] and summary["signIns"] == 1, run.stderr


def test_the_node_example_stops_at_a_refusal_naming_its_reason_and_never_calls_again(quick_system):
    def sign_ins() -> float:
        return metric(quick_system, quick_system.ports.account_metrics, "domino_account_rpcs_total",
                      method="SignInWithDevice")

    before = sign_ins()
    run = played(quick_system, "--name", "x")  # a display name is 3-20 characters
    assert run.returncode == 1 and run.stdout == ""
    assert "failed: InvalidArgument" in run.stderr and "(INVALID_REQUEST)" in run.stderr, run.stderr
    assert sign_ins() - before == 1  # asked once, never again


@pytest.mark.timeout(RUN_TIMEOUT_SECONDS + 120)
def test_the_node_example_calls_again_after_retry_info_with_the_same_request_id_until_the_match_starts(var_dir):
    with MatchmakingOnOneReplica(var_dir, Ports.free(), extra_env=QUICK_PRACTICE, match_replicas=2) as system:
        system.kill("match")  # matchmaking cannot create the match; the second replica answers the rest
        second = system.grpc_address("match-2")
        assert second is not None
        example = subprocess.Popen([str(TSX), "play-practice.ts", "--shortest-target", "--match", second],
                                   cwd=EXAMPLE, env=example_env(system), stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True)
        try:
            assert example.stderr is not None
            said = []
            for line in example.stderr:  # until the example says it will call again
                said.append(line)
                if line.startswith("calling again"):
                    break
            assert said and said[-1].startswith("calling again"), "".join(said)
            system.start_service("match")
            out, err = example.communicate(timeout=RUN_TIMEOUT_SECONDS)
        finally:
            example.kill()
        assert example.returncode == 0, "".join(said) + err
        summary = json.loads(out)
        check_played(system, summary)
        started = metric(system, system.ports.matchmaking_metrics, "domino_matchmaking_tables_started_total",
                         kind="practice")
    first = summary["retries"][0]
    assert first == {"reason": "UNAVAILABLE", "delayMs": 1000, "retryInfoMs": 1000}  # as ErrorInfo and RetryInfo said
    assert all(r["reason"] == "UNAVAILABLE" and r["retryInfoMs"] for r in summary["retries"]), summary["retries"]
    assert started == 1  # every StartPractice carried the one request_id: one match
