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

pytestmark = pytest.mark.system

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "node"
TSX = EXAMPLE / "node_modules" / ".bin" / "tsx"
RUN_TIMEOUT_SECONDS = 300  # generous: what is awaited is the summary, never a duration


@pytest.fixture
def quick_system(var_dir):
    with LocalSystem(var_dir, Ports.free(), extra_env=QUICK_PRACTICE) as running:
        yield running


def played(system: LocalSystem, *args: str) -> subprocess.CompletedProcess:
    assert TSX.exists(), "run `make install`: it runs `npm ci` in examples/node"
    env = {**os.environ, "DOMINO_MATCH_ADDRESS": system.match_address,
           "DOMINO_MATCHMAKING_ADDRESS": system.matchmaking_address, "DOMINO_ACCOUNT_ADDRESS": system.account_address}
    return subprocess.run([str(TSX), "play-practice.ts", *args], cwd=EXAMPLE, env=env, capture_output=True,
                          text=True, timeout=RUN_TIMEOUT_SECONDS)


def sign_in_calls(system: LocalSystem) -> dict[str, float]:
    """The account service's SignInWithDevice calls by status code, read off its metrics page."""
    with urllib.request.urlopen(f"http://127.0.0.1:{system.ports.account_metrics}/metrics", timeout=5) as page:
        text = page.read().decode()
    return {sample.labels["code"]: sample.value for family in text_string_to_metric_families(text)
            for sample in family.samples
            if sample.name == "domino_account_rpcs_total" and sample.labels["method"] == "SignInWithDevice"}


def test_the_node_example_plays_a_whole_practice_match_over_grpc_and_prints_its_summary(quick_system):
    run = played(quick_system, "--shortest-target")
    assert run.returncode == 0, run.stderr
    summary = json.loads(run.stdout)
    check_played(quick_system, summary)
    assert summary["retries"] == [] and summary["signIns"] == 1, run.stderr


def test_the_node_example_stops_at_a_refusal_naming_its_reason_and_never_calls_again(quick_system):
    run = played(quick_system, "--name", "x")  # a display name is 3-20 characters
    assert run.returncode == 1 and run.stdout == ""
    assert "failed: InvalidArgument" in run.stderr and "(INVALID_REQUEST)" in run.stderr, run.stderr
    assert sign_in_calls(quick_system) == {"INVALID_ARGUMENT": 1.0}  # asked once, never again
