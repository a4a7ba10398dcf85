"""bench/console_pages.py's own parts that need no running system: the store it fills (on a
real SQLite file, through MatchApplication) and how it counts a load (a real httpx client
over a mock transport). No timing is asserted."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from uuid import UUID

import httpx
import pytest

from services.match.application import MatchApplication

BENCH = Path(__file__).resolve().parents[2] / "bench" / "console_pages.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_console_pages", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    path = list(sys.path)
    try:
        spec.loader.exec_module(module)  # puts the repository on sys.path: undone below
    finally:
        sys.path[:] = path
    return module


def test_the_fill_stores_every_match_and_ends_the_long_ones_past_their_moves(bench, tmp_path):
    env = {"PERSISTENCE_MODULE": "services.common.sqlite_store", "SQLITE_DBNAME": str(tmp_path / "events.sqlite")}
    players = [f"player-{n}" for n in range(8)]
    long = bench.fill(env, players, matches=25, long=2, long_moves=40, seed=3)
    assert len(long) == 2 and all(moves >= 40 for _, moves in long)
    app = MatchApplication(env=env)
    try:
        for match_id, _ in long:
            match = app.get_match(UUID(match_id))
            assert match.finished and match.seats and set(match.seats) <= set(players)
        stored = {n.originator_id for n in app.recorder.select_notifications(start=1, limit=100_000)}
        assert len(stored) == 25
    finally:
        app.close()


def test_a_load_counts_an_error_for_a_bad_status_or_a_missing_text(bench):
    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/missing":
            return httpx.Response(404, text="no")
        return httpx.Response(200, text="hello player-7")

    with httpx.Client(base_url="http://console.test", transport=httpx.MockTransport(answer)) as client:
        figures = bench.measure(client, {}, "players", [["/a#player-7", "/b"], ["/a#player-8"], ["/missing"]])
    assert figures["loads"] == 3 and figures["errors"] == 2
    assert figures["bytes"] == (14 + 14 + 14 + 2) // 3  # the mean size of a load, its pages together
    assert set(figures) >= {"p50_ms", "p95_ms", "max_ms"}
