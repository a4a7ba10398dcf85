"""A spectator's WatchMatch stream over real gRPC runs a whole match, of every family and
variant, without an error: each event once, in order, up to MatchEnded.

The bug this names: with the spectator's one-turn delay the events held back were read
from the store again at the next wake and held a second time, so the stream applied one
event twice (OriginatorVersionError) and the client reconnected on almost every move."""

from __future__ import annotations

import pytest

from services.match.application import MatchApplication
from tests.support.grpc_matches import play_whole_match
from tests.support.spectating import EVERY_VARIANT, Spectator, assert_saw_the_whole_match_once, public_view

from .harness import running_service


@pytest.fixture(scope="module")
def svc():
    app = MatchApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    with running_service(app) as service:
        yield service
    app.close()


@pytest.mark.parametrize("name", EVERY_VARIANT)
def test_a_spectator_watches_a_whole_match_played_on_its_server_without_an_error(svc, name):
    match_id = svc.create(request_id=f"watched {name}", spectators=True, **EVERY_VARIANT[name]).match_id
    spectator = Spectator(svc, match_id)
    play_whole_match(svc, match_id)
    assert_saw_the_whole_match_once(spectator.updates(), public_view(svc, match_id))
