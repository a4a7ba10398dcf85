"""bench/hops.py and bench/loop_lag.py, which say where a load run's command time went: the
match service's quantile is read per method from its histogram's increase, the hop between
the phone and the handler is what the server does not account for, and the generator's loop
lag is summarised over the window alone."""

from __future__ import annotations

import asyncio
import time

import pytest

from bench.hops import command_hops, match_gc, server_seconds
from bench.loop_lag import LoopLag, summary

BUCKETS = ("0.001", "0.005", "0.01", "0.05", "+Inf")


def scraped(counts: dict[str, tuple[int, ...]]) -> dict:
    """A match replica's scrape: cumulative bucket counts of domino_match_rpc_seconds per method."""
    return {("domino_match_rpc_seconds_bucket", frozenset({("method", m), ("le", le)})): float(n)
            for m, cumulative in counts.items() for le, n in zip(BUCKETS, cumulative)}


def test_the_servers_quantile_is_over_the_windows_increase_summed_over_replicas_and_split_by_method():
    before = [scraped({"PlayTile": (0, 0, 0, 0, 0), "DrawTile": (0, 0, 0, 0, 0)}),
              scraped({"PlayTile": (0, 0, 0, 0, 0)})]
    # every PlayTile under 1 ms on the first replica, every DrawTile 10-50 ms; the second replica adds PlayTiles
    after = [scraped({"PlayTile": (50, 50, 50, 50, 50), "DrawTile": (0, 0, 0, 10, 10)}),
             scraped({"PlayTile": (40, 40, 40, 40, 40)})]
    assert server_seconds(before, after, ("PlayTile",), 0.99) <= 0.001
    assert 0.01 < server_seconds(before, after, ("DrawTile",), 0.5) <= 0.05
    assert server_seconds(before, after, ("PlayTile", "DrawTile"), 0.5) <= 0.001
    assert server_seconds(before, before, ("PlayTile",), 0.5) is None  # nothing in the window


def test_the_hop_between_phone_and_handler_is_the_phones_time_less_the_servers():
    before = {"match": [scraped({"PlayTile": (0, 0, 0, 0, 0)})]}
    after = {"match": [scraped({"PlayTile": (0, 0, 100, 100, 100)})]}  # every one 5-10 ms at the server
    hops = command_hops([30.0] * 100, before, after, relay_ms=[2.0, 4.0], delivery_ms=[20.0],
                        bot_decision_ms={"p50": 1.0, "p99": 3.0},
                        loop_lag={"loadgen_loop_lag_p50_ms": 0.5, "loadgen_loop_lag_p99_ms": 8.0})
    assert hops["phone_round_trip"] == {"p50": 30.0, "p99": 30.0}
    assert 5.0 < hops["match_service"]["p99"] <= 10.0
    assert hops["transport_and_loops"]["p99"] == pytest.approx(30.0 - hops["match_service"]["p99"])
    assert hops["transport_and_loops"]["loadgen_loop_lag_p99"] == 8.0
    assert hops["match_service"]["by_method"]["DrawTile"] == {"p50": None, "p99": None}
    assert hops["store_to_relay_published"]["p99"] == 4.0
    assert hops["not_measured"]


def test_loop_lag_is_summarised_over_the_window_only():
    lag = LoopLag()
    lag.samples = [(1.0, 0.100, 0.15, 0.15), (2.0, 0.001, 0.0, 0.051), (3.0, 0.020, 0.035, 0.07),
                   (3.2, 0.030, 0.0, 0.08), (4.0, 0.300, 0.35, 0.35)]
    figures = lag.figures(1.5, 3.5)
    assert figures["loadgen_loop_lag_max_ms"] == 30.0
    assert figures["loadgen_loop_lag_samples"] == 3
    assert figures["loadgen_late_ticks_on_cpu_share"] == 0.23  # 35 ms on the CPU of the late ticks' 150 ms
    assert summary([])["loadgen_loop_lag_p99_ms"] is None


def test_a_blocked_loop_is_seen_late_by_the_ticker():
    async def scenario() -> list[tuple[float, float]]:
        lag = LoopLag(period=0.01)
        ticker = asyncio.create_task(lag.run())
        await asyncio.sleep(0.03)
        time.sleep(0.1)  # the loop is held: the ticker wakes at least ~0.09 s late, however slow the machine
        await asyncio.sleep(0.03)
        ticker.cancel()
        return lag.samples
    samples = asyncio.run(scenario())
    assert max(late for _, late, _, _ in samples) >= 0.05


def gc_scrape(generation: str, count: int, total: float, under_10ms: int) -> dict:
    """A replica's domino_gc_pause_seconds of one generation: ``under_10ms`` of ``count`` pauses
    took under 10 ms, the rest under 100 ms."""
    labels = ("generation", generation)
    return {("domino_gc_pause_seconds_bucket", frozenset({labels, ("le", "0.01")})): float(under_10ms),
            ("domino_gc_pause_seconds_bucket", frozenset({labels, ("le", "0.1")})): float(count),
            ("domino_gc_pause_seconds_bucket", frozenset({labels, ("le", "+Inf")})): float(count),
            ("domino_gc_pause_seconds_count", frozenset({labels})): float(count),
            ("domino_gc_pause_seconds_sum", frozenset({labels})): total}


def test_the_match_replicas_gc_pauses_are_counted_over_the_window_and_averaged_per_replica():
    before = [{**gc_scrape("0", 100, 0.1, 100), **gc_scrape("2", 1, 0.05, 0)}, gc_scrape("0", 0, 0.0, 0)]
    after = [{**gc_scrape("0", 200, 0.2, 200), **gc_scrape("2", 3, 0.15, 0)}, gc_scrape("0", 50, 0.05, 50)]
    gc = match_gc(before, after, seconds=10.0)
    assert gc["collections"] == 152 and gc["full_collections"] == 2
    assert gc["stopped_share"] == pytest.approx((0.1 + 0.1 + 0.05) / 10 / 2)
    assert 10.0 < gc["p99"] <= 100.0  # the two full collections are the slowest 1.3%
    assert match_gc([{}], [{}], seconds=10.0)["collections"] is None  # a replica that does not expose it
