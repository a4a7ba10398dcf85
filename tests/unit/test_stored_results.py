"""A stored round or match result is believed only when replaying the match gives the same
one (services/match/results.py): the results are outside the hash chain, so any change of
one in the store is refused on replay at exactly the event that holds it, in every family,
and an untouched log replays to the result that was played."""

from __future__ import annotations

import json
import random
from functools import cache

import pytest
from eventsourcing.persistence import StoredEvent
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from services.match.application import MatchApplication, SeatSpec
from services.match.errors import StoredResultMismatch
from tests.support.families import option_tables, sample_tables
from tests.support.matches import Matches, random_move

POPO = {"PERSISTENCE_MODULE": "eventsourcing.popo"}
MAPPER = MatchApplication(env=POPO).mapper
TABLES = {t.id: t for t in (*sample_tables(), *option_tables())}  # every kind of stored result
RESULT_FIELDS = {
    "RoundEnded": ("reason", "winner", "points", "scores", "play_points", "written", "remembered", "pot"),
    "MatchEnded": ("winner", "scores", "goats", "abandoned"),
}


@cache
def stored_log(name: str, seed: int, abandon_after: int | None = None) -> tuple[tuple[StoredEvent, ...], tuple]:
    """A whole match of random legal moves (or one abandoned after some): its stored events,
    and (winner, scores) as played."""
    table = TABLES[name]
    rng = random.Random(seed)
    app = Matches(MatchApplication(env=POPO, seed_source=lambda: rng.randbytes(32)))
    try:
        match = app.create_match(f"{name}-{seed}", table.family, table.variant or "", table.teams, None, 0,
                                 [SeatSpec(f"p{i}", f"s{i}") for i in range(table.seats)], table.chosen)
        n = 0
        while not match.finished:
            if n == abandon_after:
                match = app.abandon_match(match.id, match.version, 60)
                break
            n += 1
            match = random_move(app, match, rng, f"r{n}")
        events = tuple(MAPPER.to_stored_event(e) for e in app.events_after(match.id, 0))
        return events, (match.state.winner, match.state.scores)
    finally:
        app.close()


def replay(events):
    aggregate = None
    for stored in events:
        aggregate = MAPPER.to_domain_event(stored).mutate(aggregate)
    return aggregate


def kind(stored: StoredEvent) -> str:
    return stored.topic.rsplit(".", 1)[-1]


def edited(stored: StoredEvent, field: str, value) -> StoredEvent:
    state = json.loads(stored.state)
    state[field] = value
    return StoredEvent(stored.originator_id, stored.originator_version, stored.topic, json.dumps(state).encode())


def other_than(value) -> st.SearchStrategy:
    """Any value of the field's shape but this one."""
    if isinstance(value, bool):
        return st.just(not value)
    if value is None:
        return st.integers(0, 3)
    if isinstance(value, int):
        return st.one_of(st.none(), st.integers(-5, 200)).filter(lambda v: v != value)
    if isinstance(value, str):
        return st.sampled_from(["domino", "blocked", "redeal", "fish"]).filter(lambda v: v != value)
    if isinstance(value, list):
        if value and isinstance(value[0], list):  # play points: [action, side, points]
            return st.integers(0, len(value) - 1).flatmap(
                lambda i: st.sampled_from([value[:i] + value[i + 1:], value[:i] + [value[i][:2] + [value[i][2] + 5]]
                                           + value[i + 1:]]))
        bumped = st.integers(0, max(0, len(value) - 1)).flatmap(
            lambda i: st.integers(1, 60).map(lambda k: value[:i] + [value[i] + k] + value[i + 1:]) if value
            else st.just([0]))
        return st.one_of(bumped, st.just(value[::-1]).filter(lambda v: v != value), st.just(value + [0]))
    raise AssertionError(f"no strategy for {value!r}")


@settings(max_examples=120, deadline=None)
@given(name=st.sampled_from(sorted(TABLES)), seed=st.integers(0, 2), abandoned=st.booleans(), data=st.data())
def test_any_change_of_a_stored_result_is_refused_on_replay_at_exactly_that_event(name, seed, abandoned, data):
    events, _ = stored_log(name, seed, 40 if abandoned else None)
    which = data.draw(st.sampled_from(sorted(RESULT_FIELDS)))  # the one MatchEnded as often as the rounds'
    places = [(i, field) for i, s in enumerate(events) if kind(s) == which
              for field in RESULT_FIELDS[which] if field in json.loads(s.state)]
    assume(places)  # a match abandoned early may have ended no round
    i, field = data.draw(st.sampled_from(places))
    value = data.draw(other_than(json.loads(events[i].state)[field]))
    before = replay(events[:i])  # everything before the edited event still replays
    with pytest.raises(StoredResultMismatch, match=kind(events[i])):
        MAPPER.to_domain_event(edited(events[i], field, value)).mutate(before)


@pytest.mark.parametrize("name", sorted(TABLES))
def test_an_untouched_log_replays_to_the_result_that_was_played(name):
    for abandon_after in (None, 40):
        events, (winner, scores) = stored_log(name, 0, abandon_after)
        match = replay(events)
        assert match.finished and (match.state.winner, match.state.scores) == (winner, scores)
        assert match.abandoned == (abandon_after is not None)
        assert (match.ended_at is not None) and kind(events[-1]) == "MatchEnded"
