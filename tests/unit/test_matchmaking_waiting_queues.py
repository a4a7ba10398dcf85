"""The bot-fill timer loads only the queues someone may wait in (waiting_queues.py), in
memory; tests/integration/test_matchmaking_waiting_queues.py has two replicas on a store."""

from __future__ import annotations

import pytest

from services.matchmaking.application import MatchmakingApplication
from services.matchmaking.options import Options
from services.matchmaking.tables import Queue
from tests.support.clock import Clock
from tests.support.fakes import FakeMatches

BLOCK_4 = Options.chosen("egyptian", "block-4")
DRAW_2 = Options.chosen("egyptian", "draw-2")


def queue_of(options: Options):
    return Queue.create_id(options.rules, options.variant, options.teams, options.seats)


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def app(clock):
    app = MatchmakingApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"}, matches=FakeMatches(), clock=clock)
    yield app
    app.close()


def queues_loaded(app, monkeypatch) -> list:
    loaded: list = []
    load = app.store.load

    def counting(cls, aggregate_id, version=None):
        if cls is Queue:
            loaded.append(aggregate_id)
        return load(cls, aggregate_id, version)

    monkeypatch.setattr(app.store, "load", counting)
    return loaded


def test_after_one_look_the_timer_loads_no_queue_while_nobody_waits(app, monkeypatch):
    app.tables.fill_waiting_tables()  # every kind once: nobody waits anywhere
    loaded = queues_loaded(app, monkeypatch)
    assert app.tables.fill_waiting_tables() == []
    assert loaded == []


def test_a_player_who_starts_waiting_makes_the_timer_look_at_that_queue_alone_until_it_is_filled(app, clock,
                                                                                                  monkeypatch):
    app.tables.fill_waiting_tables()
    loaded = queues_loaded(app, monkeypatch)
    ticket = app.tables.request_table("ann", "r1", BLOCK_4)
    queue_id = queue_of(BLOCK_4)
    assert app.tables.fill_waiting_tables() == []  # not long enough yet: looked at, kept
    clock.now += 20
    (table_id,) = app.tables.fill_waiting_tables()
    assert set(loaded) == {queue_id}
    assert app.tables.ticket("ann", ticket.ticket_id).table_id == table_id
    app.tables.fill_waiting_tables()  # the queue is empty now: one last look
    loaded.clear()
    app.tables.fill_waiting_tables()
    assert loaded == []


def test_a_queue_left_empty_by_a_cancel_is_looked_at_once_more_and_then_left_alone(app, monkeypatch):
    app.tables.fill_waiting_tables()
    ticket = app.tables.request_table("ann", "r1", DRAW_2)
    app.tables.fill_waiting_tables()
    app.tables.cancel_ticket("ann", ticket.ticket_id)
    loaded = queues_loaded(app, monkeypatch)
    app.tables.fill_waiting_tables()
    assert loaded == [queue_of(DRAW_2)]
    loaded.clear()
    app.tables.fill_waiting_tables()
    assert loaded == []


def test_a_queue_that_changes_while_the_timer_looks_at_it_is_looked_at_again(app):
    queue_id = queue_of(BLOCK_4)
    ((_, noted),) = [(q, n) for q, n in app.waiting_queues.to_look_at() if q == queue_id]
    app.tables.request_table("ann", "r1", BLOCK_4)  # stored after the timer read the queue empty
    app.waiting_queues.looked_at(queue_id, None, noted)
    assert queue_id in [q for q, _ in app.waiting_queues.to_look_at()]
