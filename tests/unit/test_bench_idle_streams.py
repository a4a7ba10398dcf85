"""bench/idle_streams.py's own parts that need no server: how streams are spread over
channels and replicas, the limits it raises for big runs, and the figures it reports."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from services.common.config import Settings

BENCH = Path(__file__).resolve().parents[2] / "bench" / "idle_streams.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_idle_streams", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    path = list(sys.path)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    try:
        spec.loader.exec_module(module)  # puts the repository on sys.path: undone below
    finally:
        sys.path[:] = path
    yield module
    sys.modules.pop(spec.name, None)


def _defaults(bench) -> dict:
    return {name: Settings.model_fields[name].default for name in bench.REPORTED_SETTINGS}


@given(streams=st.integers(1, 100_000), per_channel=st.integers(1, 100))
def test_channels_hold_every_stream_within_their_share(bench, streams, per_channel):
    channels = bench.channels_needed(streams, per_channel)
    assert channels * per_channel >= streams
    assert (channels - 1) * per_channel < streams


def test_two_replicas_each_hold_half_of_every_match(bench):
    for match in range(10):
        on = [bench.replica_of(match, seat, 2) for seat in range(4)]
        assert sorted(on) == [0, 0, 1, 1]
    assert {bench.replica_of(match, seat, 1) for match in range(10) for seat in range(4)} == {0}


def test_no_limit_is_raised_when_the_defaults_hold_the_streams(bench):
    defaults = _defaults(bench)
    assert bench.limits_env(defaults["streams_per_process"], defaults) == {}


@given(streams=st.integers(1, 200_000))
def test_raised_limits_hold_the_streams_and_satisfy_the_settings(bench, streams):
    defaults = _defaults(bench)
    env = bench.limits_env(streams, defaults)
    cap = int(env.get("DOMINO_STREAMS_PER_PROCESS", defaults["streams_per_process"]))
    calls = int(env.get("DOMINO_GRPC_MAX_CONCURRENT_CALLS", defaults["grpc_max_concurrent_calls"]))
    assert cap >= streams
    Settings(streams_per_process=cap, grpc_max_concurrent_calls=calls)  # calls above streams: accepted


def test_reported_settings_are_the_defaults_unless_the_bench_set_them(bench):
    used = bench.settings_used({"DOMINO_WATCH_POLL_SECONDS": "5", "DOMINO_STREAMS_PER_PROCESS": "12000"})
    assert used["DOMINO_WATCH_POLL_SECONDS"] == 5.0
    assert used["DOMINO_STREAMS_PER_PROCESS"] == 12000
    assert used["DOMINO_SPECTATOR_STREAMS_PER_PROCESS"] == "(unset: 3000)"
    assert used["DOMINO_GRPC_MAX_CONCURRENT_CALLS"] == Settings.model_fields["grpc_max_concurrent_calls"].default
    assert bench.settings_used({"DOMINO_SPECTATOR_STREAMS_PER_PROCESS": "7"})["DOMINO_SPECTATOR_STREAMS_PER_PROCESS"] == 7


def test_idle_figures_are_per_stream_and_second(bench):
    figures = bench.idle_figures(cpu_seconds=3.0, streams=1000, window_seconds=30.0, rss_before_kb=80_000,
                                 rss_open_kb=120_000)
    assert figures["idle_stream_cpu_ms_per_s"] == pytest.approx(0.1)
    assert figures["stream_rss_kb"] == pytest.approx(40.0)
    assert bench.idle_figures(1.0, 0, 30.0, 1, 2) == {"idle_stream_cpu_ms_per_s": None, "stream_rss_kb": None}


def test_percentiles_are_nearest_rank(bench):
    assert bench.pct([], 50) is None
    assert bench.pct([3.0, 1.0, 2.0], 50) == 2.0
    assert bench.pct(list(range(1, 101)), 99) == 99
