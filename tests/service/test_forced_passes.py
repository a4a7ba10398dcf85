"""No turn without a choice, over real gRPC, in every family where a seat can be left with
nothing to play or draw: no view a seat is streamed (nor any view at all) gives it the turn
with only a pass. The server still passes for it in the command that left it so, and that
pass is stored and shown as the server's (MOVE_CAUSE_FORCED_PASS).

The bug this names: the stream sends the view after every event, and the view of the play
before a forced pass (the two are stored by one command) said `turn == your_seat` with
`legal_moves == [PASS]`; an app showed "your turn" (and buzzed) for a pass there is no RPC for.
"""

from __future__ import annotations

import hashlib

import pytest

from domino.match.v1 import match_service_pb2 as pb
from services.match.application import MatchApplication
from tests.support.clock import Clock
from tests.support.families import largest_tables, smallest_tables
from tests.support.grpc_matches import act, create_fields
from tests.support.keys import auth

from .harness import running_service

SERVICE = auth("matchmaking", "service")
# Each family at its table of the most seats, and one table of two with a boneyard: where seats
# run out of tiles that fit (no boneyard, or one drawn empty).
TABLES = {t.id: t for t in (*largest_tables(), *smallest_tables(lambda rules: rules.draws)[:1])}


@pytest.fixture(params=list(TABLES))
def passed(request):
    """(the service, the match id, the version reached) once the server passed for a seat."""
    seed = hashlib.sha256(f"forced passes {request.param}".encode()).digest()
    app = MatchApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"}, clock=Clock(), seed_source=lambda: seed)
    with running_service(app) as svc:
        match_id = svc.create(request_id=request.param, **create_fields(TABLES[request.param])).match_id
        view = svc.stub.GetMatch(pb.GetMatchRequest(match_id=match_id), metadata=SERVICE).view
        for n in range(400):
            if any(a.cause == pb.MOVE_CAUSE_FORCED_PASS for r in (view,) for a in r.round_actions):
                break
            assert view.status == pb.MATCH_STATUS_IN_PROGRESS, "the match ended before any forced pass"
            view = act(svc, match_id, view, n)
        else:
            raise AssertionError("no seat was ever passed for")
        yield svc, match_id, view.version


def streamed(svc, match_id: str, player: str, until: int) -> list[pb.WatchMatchResponse]:
    """Every message a stream opened at the match's first event sends ``player`` up to ``until``."""
    got = []
    stream = svc.stub.WatchMatch(pb.WatchMatchRequest(match_id=match_id, from_version=1), metadata=auth(player),
                                 timeout=30)
    for update in stream:
        got.append(update)
        if update.view.version >= until:
            break
    stream.cancel()
    return got


def test_no_view_streamed_to_a_seat_gives_it_a_turn_with_only_a_pass(passed):
    svc, match_id, version = passed
    seats = svc.stub.GetMatch(pb.GetMatchRequest(match_id=match_id), metadata=SERVICE).view.seats
    for seat, player in enumerate(s.player_id for s in seats):
        for update in streamed(svc, match_id, player, version):
            view = update.view
            assert all(m.kind != pb.MOVE_KIND_PASS for m in view.legal_moves), f"v{view.version}: a pass offered"
            if view.HasField("turn") and view.turn == seat:
                assert view.legal_moves, f"v{view.version}: seat {seat}'s turn with nothing to do"


def test_the_server_still_stores_the_pass_and_says_it_was_its_own(passed):
    svc, match_id, version = passed
    passes = [u.event for u in streamed(svc, match_id, "ann", version) if u.event.kind == pb.EVENT_KIND_TURN_PASSED]
    assert passes and all(e.cause == pb.MOVE_CAUSE_FORCED_PASS for e in passes)


def test_the_view_of_the_play_before_a_forced_pass_names_nobody_to_act(passed):
    """The play and the pass are one command: at the play's version the seat to act is the
    server's to pass for, so the view names no turn, no deadline and no moves."""
    svc, match_id, version = passed
    updates = streamed(svc, match_id, "ann", version)
    before = [u for u, after in zip(updates, updates[1:])
              if after.event.kind == pb.EVENT_KIND_TURN_PASSED and after.event.cause == pb.MOVE_CAUSE_FORCED_PASS]
    assert before
    for update in before:
        assert not update.view.HasField("turn") and not update.view.HasField("turn_deadline")
        assert not update.view.legal_moves and update.view.status == pb.MATCH_STATUS_IN_PROGRESS
