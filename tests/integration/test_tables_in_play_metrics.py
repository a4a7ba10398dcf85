"""The relay's gauges of tables in play, counted from the history's match index."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, generate_latest

from services.history.match_index import InPlay
from services.history.summary import Ended, Started
from services.history.view import View
from services.match.in_play_metrics import InPlayCollector


def started(match_id: str, rules: str, variant: str, seats: tuple[str, ...]) -> Started:
    return Started(match_id=match_id, rules=rules, variant=variant, teams=False, seats=seats, started_at=1.0,
                   rated=False)


def test_tables_in_play_are_counted_by_family_and_variant_with_people_apart_from_bots(tmp_path):
    view = View.for_env({"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(tmp_path / "h.db")})
    view.create()
    view.apply([started("m1", "egyptian", "draw-2", ("ann", "bob")),
                started("m2", "egyptian", "draw-2", ("cat", "bot:easy:1")),
                started("m3", "all_fives", "classic", ("dan", "eve")),
                started("m4", "egyptian", "block-3", ("fay", "gus"))], 1)
    view.apply([Ended(match_id="m4", winner=0, scores=(101, 3), abandoned=False, ended_at=2.0)], 2)
    assert view.tables_in_play() == [InPlay("all_fives", "classic", 1, 2), InPlay("egyptian", "draw-2", 2, 3)]


def test_the_gauges_are_read_at_most_once_per_max_age_and_keep_the_last_figures_when_the_store_is_away():
    now = [0.0]
    answers: list = [[InPlay("egyptian", "draw-2", 4, 7)], RuntimeError("store away")]

    def read():
        answer = answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    collector = InPlayCollector(read, max_age_seconds=5, clock=lambda: now[0])
    registry = CollectorRegistry()
    registry.register(collector)
    first = generate_latest(registry).decode()
    assert 'domino_tables_in_play{rules="egyptian",variant="draw-2"} 4.0' in first
    assert 'domino_people_in_play{rules="egyptian",variant="draw-2"} 7.0' in first
    now[0] = 1
    generate_latest(registry)
    assert answers  # not read again within max age
    now[0] = 6
    later = generate_latest(registry).decode()
    assert 'domino_tables_in_play{rules="egyptian",variant="draw-2"} 4.0' in later
    assert "domino_tables_in_play_read_failures 1.0" in later
