"""A session that ended stops working everywhere, not only at the account service: for each
way a session ends, the match service and matchmaking refuse its access token after one
step of their revocation lists, and its open streams end UNAUTHENTICATED (issue 35, point 9:
a replayed refresh token's session went on reading GetMatch, GetPresence and DescribeRules).
Real services over loopback (tests/service/revocation_harness.py); each test fails on the
code before the revocation list, where the token worked until it expired. Every refusal says
SESSION_ENDED in its ErrorInfo, as the account service's own does (docs/api.md, "Errors"):
the one reason on which a client signs in again."""

from __future__ import annotations

import itertools

import grpc
import pytest

from domino.account.v1 import account_service_pb2 as acc
from domino.match.v1 import match_service_pb2 as match_pb
from domino.matchmaking.v1 import matchmaking_service_pb2 as mm
from tests.support.errors import Refusal, refusal

from .account_harness import bearer, device
from .revocation_harness import ENDINGS, running_services, status_of

_ids = itertools.count()
ENDED = "this session has ended: sign in again"


def refused(call) -> Refusal:
    with pytest.raises(grpc.RpcError) as caught:
        call()
    return refusal(caught.value)


def ended_with(stream) -> Refusal | None:
    """How an open stream ends (its call has a deadline, so one that never ends says so):
    None when it ended OK."""
    try:
        for _ in stream:
            pass
    except grpc.RpcError as error:
        return refusal(error)
    return None


def said(refusal_: Refusal | None) -> tuple | None:
    """What a client tells a refusal by: its code, its ErrorInfo reason and domain."""
    return None if refusal_ is None else (refusal_.code, refusal_.reason, refusal_.domain)


def session_ended(domain: str) -> tuple:
    return grpc.StatusCode.UNAUTHENTICATED, "SESSION_ENDED", domain


@pytest.fixture(scope="module")
def services(tmp_path_factory):
    with running_services(tmp_path_factory.mktemp("revocations")) as running:
        yield running


def signed_up(services):
    pair = device()
    return services.accounts.sign_up(f"Leaver {next(_ids)}", pair), pair


def get_match(services, match_id, session):
    return lambda: services.match.stub.GetMatch(match_pb.GetMatchRequest(match_id=match_id),
                                                metadata=bearer(session), timeout=10)


def get_presence(services, session):
    return lambda: services.matchmaking.GetPresence(mm.GetPresenceRequest(), metadata=bearer(session), timeout=10)


@pytest.mark.parametrize("ending", sorted(ENDINGS))
def test_the_match_service_refuses_an_ended_sessions_token_after_one_poll(services, ending):
    session, pair = signed_up(services)
    match_id = services.seat(session, request_id=f"refuse-{next(_ids)}")
    assert status_of(get_match(services, match_id, session)) == grpc.StatusCode.OK
    ENDINGS[ending](services.accounts, session, pair)
    services.poll()
    refusal_ = refused(get_match(services, match_id, session))
    assert said(refusal_) == session_ended("domino.match")
    assert refusal_.message == ENDED


@pytest.mark.parametrize("ending", sorted(ENDINGS))
def test_an_open_watch_match_stream_of_an_ended_session_ends_unauthenticated(services, ending):
    session, pair = signed_up(services)
    match_id = services.seat(session, request_id=f"watch-{next(_ids)}")
    stream = services.match.stub.WatchMatch(match_pb.WatchMatchRequest(match_id=match_id), metadata=bearer(session),
                                            timeout=10)
    next(stream)  # open, and waiting for the next move
    ENDINGS[ending](services.accounts, session, pair)
    services.poll()
    assert said(ended_with(stream)) == session_ended("domino.match")


@pytest.mark.parametrize("ending", sorted(ENDINGS))
def test_matchmaking_refuses_an_ended_sessions_token_after_one_poll(services, ending):
    session, pair = signed_up(services)
    services.room(session, request_id=f"room-{next(_ids)}")
    assert status_of(get_presence(services, session)) == grpc.StatusCode.OK
    ENDINGS[ending](services.accounts, session, pair)
    services.poll()
    refusal_ = refused(get_presence(services, session))
    assert said(refusal_) == session_ended("domino.matchmaking")
    assert refusal_.message == ENDED


@pytest.mark.parametrize("ending", sorted(ENDINGS))
def test_an_open_watch_room_stream_of_an_ended_session_ends_unauthenticated(services, ending):
    session, pair = signed_up(services)
    room_id = services.room(session, request_id=f"watched-{next(_ids)}")
    stream = services.matchmaking.WatchRoom(mm.WatchRoomRequest(room_id=room_id), metadata=bearer(session),
                                            timeout=10)
    next(stream)
    ENDINGS[ending](services.accounts, session, pair)
    services.poll()
    assert said(ended_with(stream)) == session_ended("domino.matchmaking")


def test_an_open_watch_ticket_stream_of_a_signed_out_session_ends_unauthenticated(services):
    session, pair = signed_up(services)
    ticket = services.matchmaking.RequestTable(mm.RequestTableRequest(request_id=f"t-{next(_ids)}", rules="egyptian",
                                                                      variant="block-4"),
                                               metadata=bearer(session), timeout=10).ticket
    stream = services.matchmaking.WatchTicket(mm.WatchTicketRequest(ticket_id=ticket.ticket_id),
                                              metadata=bearer(session), timeout=10)
    next(stream)
    ENDINGS["signed_out"](services.accounts, session, pair)
    services.poll()
    assert said(ended_with(stream)) == session_ended("domino.matchmaking")


def test_the_tables_other_players_and_the_accounts_other_sessions_play_on(services):
    """Only the ended session is refused: the opponent's stream of the same match goes on, and
    the same phone signed in again (a new session) plays."""
    leaver, pair = signed_up(services)
    opponent, _ = signed_up(services)
    match_id = services.seat(leaver, opponent, request_id=f"both-{next(_ids)}")
    theirs = services.match.stub.WatchMatch(match_pb.WatchMatchRequest(match_id=match_id), metadata=bearer(opponent),
                                            timeout=10)
    next(theirs)
    ENDINGS["signed_out"](services.accounts, leaver, pair)
    services.poll()
    again = services.accounts.sign_up("", pair)
    assert again.player_id == leaver.player_id
    assert status_of(get_match(services, match_id, again)) == grpc.StatusCode.OK
    assert status_of(get_match(services, match_id, opponent)) == grpc.StatusCode.OK
    assert theirs.is_active()
    theirs.cancel()


def test_a_token_whose_session_ended_is_refused_by_every_match_service_call_before_its_handler(services):
    """DescribeRules and the history calls too: the interceptor refuses before any handler."""
    session, pair = signed_up(services)
    ENDINGS["signed_out"](services.accounts, session, pair)
    services.poll()
    calls = [lambda: services.match.stub.DescribeRules(match_pb.DescribeRulesRequest(), metadata=bearer(session)),
             lambda: services.match.stub.ListMyMatches(match_pb.ListMyMatchesRequest(), metadata=bearer(session))]
    assert [said(refused(call)) for call in calls] == [session_ended("domino.match")] * 2


@pytest.mark.parametrize("ending", sorted(ENDINGS))
def test_the_account_service_refuses_the_same_token_with_the_same_reason(services, ending):
    """One answer to one ended session wherever it calls: the account service (at once, from
    its store: the session revoked, or the account gone) says what the match service and
    matchmaking say once their lists have it, so a client has one reason to sign in again on."""
    session, pair = signed_up(services)
    ENDINGS[ending](services.accounts, session, pair)
    services.poll()
    calls = {"account": lambda: services.accounts.stub.GetAccount(acc.GetAccountRequest(), metadata=bearer(session),
                                                                  timeout=10),
             "match": lambda: services.match.stub.DescribeRules(match_pb.DescribeRulesRequest(),
                                                                metadata=bearer(session), timeout=10),
             "matchmaking": get_presence(services, session)}
    assert {api: said(refused(call)) for api, call in calls.items()} == \
        {api: session_ended(f"domino.{api}") for api in calls}
