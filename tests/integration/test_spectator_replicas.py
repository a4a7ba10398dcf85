"""Two match service replicas on one PostgreSQL: a spectator watching on one while every
move is made through the other learns of the moves only at its timed re-read, and still
sees each event of a whole match once, in order, up to MatchEnded, without an error (every
family and variant).

The re-read once began at the version the spectator had been shown, so the events its
one-turn delay held back were read and held a second time, and applied twice."""

from __future__ import annotations

import uuid

import pytest

from services.match.application import MatchApplication
from tests.service.harness import running_service
from tests.support.clock import Clock
from tests.support.grpc_matches import play_whole_match
from tests.support.spectating import EVERY_VARIANT, Spectator, assert_saw_the_whole_match_once, public_view

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def replicas(postgres):
    """(the spectator's replica, the players' replica), on one database of this module."""
    dbname = f"test_{uuid.uuid4().hex}"
    postgres.create_database(dbname)
    env = postgres.eventsourcing_env(dbname)
    watched, played = MatchApplication(env=env, clock=Clock()), MatchApplication(env=env, clock=Clock())
    try:
        # The spectator's replica is never told of a move: only its re-read (every 0.05 s) finds it.
        with running_service(watched) as one, running_service(played) as two:
            yield one, two
    finally:
        watched.close()
        played.close()
        postgres.drop_database(dbname)


@pytest.mark.parametrize("name", EVERY_VARIANT)
def test_a_spectator_watches_a_whole_match_played_through_another_replica(replicas, name):
    one, two = replicas
    match_id = two.create(request_id=f"watched {name}", spectators=True, **EVERY_VARIANT[name]).match_id
    spectator = Spectator(one, match_id)
    play_whole_match(two, match_id)
    assert_saw_the_whole_match_once(spectator.updates(), public_view(one, match_id))  # heads signed by its key
