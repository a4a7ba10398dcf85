"""The browsers' edge (services/edge/) in front of a real gRPC server, spoken to as a browser
does: gRPC-Web (binary and text) and Connect over HTTP/1.1, from a page's origin.

The upstream (tests/support/echo_upstream.py) answers every public method by its path, so
these tests name no message field and hold whatever the protos become; the social service's
tests at the end go through the edge to a real SocialService beside a real AccountService
(tests/service/social_harness.py), with a real player's token.
"""

from __future__ import annotations

import base64
import http.client
import json
import socket

import pytest

from services.common.config import Settings
from services.edge.methods import CLUSTER_ONLY, forwarded_methods, public_services
from tests.support import grpc_web_client as web
from tests.support.echo_upstream import DOMAIN, REASON, echo_upstream
from tests.support.edge import running_edge

pytestmark = pytest.mark.integration

UNARY = next(m for m in forwarded_methods() if not m.server_streaming)
STREAM = next(m for m in forwarded_methods() if m.server_streaming)
PAGE = "http://localhost:5173"
FAILED_PRECONDITION, RESOURCE_EXHAUSTED, DEADLINE_EXCEEDED, UNAVAILABLE = 9, 8, 4, 14


def settings_for(address: str, **more) -> Settings:
    return Settings(match_address=address, matchmaking_address=address, account_address=address,
                    social_address=address, web_origins=PAGE, **more)


@pytest.fixture
def upstream():
    with echo_upstream() as running:
        yield running


@pytest.fixture
def edge(upstream):
    with running_edge(settings_for(upstream.address)) as running:
        yield running


def preflight(url: str, origin: str, path: str) -> tuple[int, dict[str, str]]:
    host, port = url.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=10)
    connection.request("OPTIONS", path, headers={"origin": origin, "access-control-request-method": "POST",
                                                 "access-control-request-headers": "content-type,x-grpc-web,authorization"})
    response = connection.getresponse()
    response.read()
    connection.close()
    return response.status, {k.lower(): v for k, v in response.getheaders()}


def test_every_method_of_the_three_public_services_is_forwarded_by_its_path():
    paths = {m.path for m in forwarded_methods()}
    assert set(public_services()) == {"domino.match.v1.MatchService", "domino.matchmaking.v1.MatchmakingService",
                                      "domino.account.v1.AccountService", "domino.social.v1.SocialService"}
    from domino.account.v1 import account_service_pb2
    from domino.social.v1 import social_service_pb2

    accounts = {f"/domino.account.v1.AccountService/{m.name}"
                for m in account_service_pb2.DESCRIPTOR.services_by_name["AccountService"].methods}
    assert accounts - CLUSTER_ONLY <= paths and not CLUSTER_ONLY & paths
    # Every SocialService method, those only services may call included: the service refuses a
    # player's token for them (as AccountService.GetStanding), so none is the cluster's alone.
    social = {f"/domino.social.v1.SocialService/{m.name}"
              for m in social_service_pb2.DESCRIPTOR.services_by_name["SocialService"].methods}
    assert social <= paths and not social & CLUSTER_ONLY


def test_a_method_only_the_cluster_calls_is_not_found_through_the_edge(edge, upstream):
    for path in CLUSTER_ONLY:
        assert web.grpc_web(edge.url, path, b"x").http_status == 404
        assert web.grpc_web(edge.url, "/web" + path, b"x").http_status == 404
    assert upstream.calls == []


def test_a_unary_call_over_grpc_web_reaches_the_service_with_its_token_and_comes_back(edge, upstream):
    answer = web.grpc_web(edge.url, UNARY.path, b"request bytes", authorization="Bearer abc", x_request_id="r-1",
                          origin=PAGE)
    assert answer.http_status == 200 and answer.grpc_status == 0
    assert answer.messages == [b"request bytes"]
    assert answer.headers["seen-authorization"] == "Bearer abc" and answer.headers["seen-x-request-id"] == "r-1"
    assert answer.headers["seen-x-grpc-web"] == ""  # the browser protocol's own headers stay at the edge
    assert answer.headers["access-control-allow-origin"] == PAGE
    assert upstream.calls == [UNARY.path]


def test_grpc_web_text_is_decoded_on_the_way_in_and_encoded_on_the_way_out(edge):
    answer = web.grpc_web(edge.url, UNARY.path, b"\x00\xffbinary", text=True)
    assert answer.headers["content-type"].startswith("application/grpc-web-text")
    assert answer.grpc_status == 0 and answer.messages == [b"\x00\xffbinary"]


def test_a_server_stream_arrives_message_by_message_with_its_trailers(edge):
    for text in (False, True):
        answer = web.grpc_web(edge.url, STREAM.path, b"watch", text=text)
        assert answer.messages == [b"watch#0", b"watch#1", b"watch#2"] and answer.grpc_status == 0


def test_a_services_error_reaches_the_browser_with_its_status_details(edge):
    answer = web.grpc_web(edge.url, UNARY.path, b"fail")
    assert answer.grpc_status == FAILED_PRECONDITION and answer.grpc_message == "it is not your turn"
    from google.rpc import error_details_pb2

    status = answer.status_details()
    info = error_details_pb2.ErrorInfo()
    assert status.details[0].Unpack(info) and (info.reason, info.domain) == (REASON, DOMAIN)


def test_connect_carries_the_error_and_its_details_in_its_json(edge):
    answer = web.connect_unary(edge.url, UNARY.path, b"fail")
    error = json.loads(answer.body)
    assert answer.http_status == 400 and error["code"] == "failed_precondition"
    assert error["details"][0]["type"] == "google.rpc.ErrorInfo"
    from google.rpc import error_details_pb2

    detail = error_details_pb2.ErrorInfo.FromString(base64.b64decode(error["details"][0]["value"] + "=="))
    assert detail.reason == REASON


def test_a_stream_that_fails_midway_keeps_what_it_sent_and_ends_with_the_error(edge):
    answer = web.grpc_web(edge.url, STREAM.path, b"fail")
    assert answer.messages == [b"first"] and answer.grpc_status == FAILED_PRECONDITION
    assert answer.status_details().details


def test_a_preflight_from_an_allowed_origin_is_answered_and_exposes_the_grpc_status(edge):
    status, headers = preflight(edge.url, PAGE, UNARY.path)
    assert status == 200 and headers["access-control-allow-origin"] == PAGE
    assert "authorization" in headers["access-control-allow-headers"].lower()
    answer = web.grpc_web(edge.url, UNARY.path, b"x", origin=PAGE)
    exposed = {h.strip() for h in answer.headers["access-control-expose-headers"].split(",")}
    assert {"grpc-status", "grpc-message", "grpc-status-details-bin"} <= exposed


def test_a_preflight_from_another_origin_is_refused_and_its_call_never_reaches_the_service(edge, upstream):
    status, headers = preflight(edge.url, "https://evil.example", UNARY.path)
    assert status == 400 and "access-control-allow-origin" not in headers
    answer = web.grpc_web(edge.url, UNARY.path, b"x", origin="https://evil.example")
    assert answer.http_status == 403 and upstream.calls == []


def test_the_browsers_address_is_appended_to_x_forwarded_for_after_what_the_client_wrote(edge):
    answer = web.grpc_web(edge.url, UNARY.path, b"x", x_forwarded_for="6.6.6.6")
    assert answer.headers["seen-x-forwarded-for"] == "6.6.6.6, 127.0.0.1"
    alone = web.grpc_web(edge.url, UNARY.path, b"x")
    assert alone.headers["seen-x-forwarded-for"] == "127.0.0.1"


def test_the_clients_deadline_becomes_the_upstream_deadline_and_a_call_without_one_gets_the_default(edge):
    given = web.grpc_web(edge.url, UNARY.path, b"x", grpc_timeout="2S")
    assert 0 < float(given.headers["seen-deadline"]) <= 2.0
    none = web.grpc_web(edge.url, UNARY.path, b"x")
    assert 2.0 < float(none.headers["seen-deadline"]) <= 30.1
    longer = web.grpc_web(edge.url, UNARY.path, b"x", grpc_timeout="100H")
    assert float(longer.headers["seen-deadline"]) <= 30.1  # the edge's bound, whatever a client asks


def test_a_call_past_its_deadline_is_deadline_exceeded(edge):
    answer = web.grpc_web(edge.url, UNARY.path, b"slow", grpc_timeout="200m")
    assert answer.grpc_status == DEADLINE_EXCEEDED


def test_an_oversized_request_is_resource_exhausted_and_never_forwarded(edge, upstream):
    for text in (False, True):
        answer = web.grpc_web(edge.url, UNARY.path, b"x" * (64 * 1024 + 1), text=text)
        assert answer.grpc_status == RESOURCE_EXHAUSTED, answer
    assert upstream.calls == []


def test_an_unreachable_service_is_unavailable_without_its_address(upstream):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]
    with running_edge(settings_for(f"127.0.0.1:{closed}")) as edge:
        answer = web.grpc_web(edge.url, UNARY.path, b"x")
    assert answer.grpc_status == UNAVAILABLE
    assert "127.0.0.1" not in answer.grpc_message and str(closed) not in answer.grpc_message
    assert answer.grpc_message == "the service is unavailable; try again"


def test_one_client_holds_only_its_share_of_streams_and_its_next_call_is_resource_exhausted(upstream):
    import threading

    with running_edge(settings_for(upstream.address, web_calls_per_client=2)) as edge:
        host, port = "127.0.0.1", edge.port
        held = []
        for _ in range(2):
            connection = http.client.HTTPConnection(host, port, timeout=10)
            connection.request("POST", STREAM.path, body=web.frame(b"hold"),
                               headers={"content-type": "application/grpc-web+proto"})
            response = connection.getresponse()
            response.read1(5)  # the first message's frame has started: the stream is open
            held.append(connection)
        refused = web.grpc_web(edge.url, UNARY.path, b"x")
        assert refused.grpc_status == RESOURCE_EXHAUSTED and "calls open" in refused.grpc_message
        assert edge.metric("domino_edge_refused_total", reason="client") == 1
        assert edge.metric("domino_edge_open_streams") == 2
        for connection in held:
            connection.close()
        done = threading.Event()
        for _ in range(200):  # the edge learns of each disconnect and ends its upstream call
            if len(upstream.ended) == 2:
                break
            done.wait(0.05)
        assert sorted(upstream.ended) == [STREAM.path, STREAM.path]
        assert web.grpc_web(edge.url, UNARY.path, b"x").grpc_status == 0


def test_a_call_whose_request_never_arrives_is_ended_after_the_request_wait(upstream):
    with running_edge(settings_for(upstream.address, grpc_request_wait_seconds=0.3)) as edge:
        connection = http.client.HTTPConnection("127.0.0.1", edge.port, timeout=10)
        connection.putrequest("POST", UNARY.path)
        connection.putheader("content-type", "application/grpc-web+proto")
        connection.putheader("content-length", "100")
        connection.endheaders()  # and no body
        response = connection.getresponse()
        data = response.read()
        connection.close()
    _, trailers = web.unframe(data)
    assert response.getheader("grpc-status", trailers.get("grpc-status")) not in (None, "0")
    assert upstream.calls == []


def test_calls_are_counted_by_method_protocol_and_code(edge):
    web.grpc_web(edge.url, UNARY.path, b"x")
    web.grpc_web(edge.url, UNARY.path, b"x", text=True)
    web.connect_unary(edge.url, UNARY.path, b"fail")
    method = UNARY.path.lstrip("/")
    assert edge.metric("domino_edge_requests_total", method=method, protocol="grpc-web", code="OK") == 1
    assert edge.metric("domino_edge_requests_total", method=method, protocol="grpc-web-text", code="OK") == 1
    assert edge.metric("domino_edge_requests_total", method=method, protocol="connect",
                       code="FAILED_PRECONDITION") == 1
    assert edge.metric("domino_edge_request_seconds_count", method=method, protocol="grpc-web") == 1


def test_health_says_serving_and_an_unknown_path_is_not_found(edge):
    connection = http.client.HTTPConnection("127.0.0.1", edge.port, timeout=10)
    connection.request("GET", "/healthz")
    health = connection.getresponse()
    assert health.status == 200 and health.read() == b"serving"
    connection.close()
    answer = web.grpc_web(edge.url, "/domino.match.v1.MatchService/NoSuchMethod", b"x")
    assert answer.http_status == 404


def test_the_public_hosts_browser_path_reaches_the_same_methods(edge):
    answer = web.grpc_web(edge.url, "/web" + UNARY.path, b"under /web")
    assert answer.grpc_status == 0 and answer.messages == [b"under /web"]


# ---- SocialService through the edge, to a real social service ------------------------------

SOCIAL = "/domino.social.v1.SocialService/GetFriendCode"
UNAUTHENTICATED = 16


@pytest.fixture
def social(tmp_path):
    from tests.service.social_harness import running_social

    with running_social(tmp_path) as running:
        yield running


@pytest.fixture
def social_edge(social):
    settings = Settings(match_address="127.0.0.1:1", matchmaking_address="127.0.0.1:1",
                        account_address=f"127.0.0.1:{social.accounts.port}",
                        social_address=f"127.0.0.1:{social.port}", web_origins=PAGE)
    with running_edge(settings) as running:
        yield running


def test_a_players_friend_code_comes_through_the_edge_over_grpc_web_and_connect(social, social_edge):
    from domino.social.v1 import social_service_pb2 as social_pb

    session = social.sign_up("EdgeFriend")
    bearer = f"Bearer {session.access_token}"
    request = social_pb.GetFriendCodeRequest().SerializeToString()
    direct = social.stub.GetFriendCode(social_pb.GetFriendCodeRequest(),
                                       metadata=(("authorization", bearer),)).friend_code
    for text in (False, True):
        for path in (SOCIAL, "/web" + SOCIAL):
            answer = web.grpc_web(social_edge.url, path, request, text=text, authorization=bearer, origin=PAGE)
            assert answer.http_status == 200 and answer.grpc_status == 0, answer
            assert answer.headers["access-control-allow-origin"] == PAGE
            [message] = answer.messages
            assert social_pb.GetFriendCodeResponse.FromString(message).friend_code == direct
    connect = web.connect_unary(social_edge.url, "/web" + SOCIAL, request, authorization=bearer, origin=PAGE)
    assert connect.http_status == 200 and connect.headers["access-control-allow-origin"] == PAGE
    assert social_pb.GetFriendCodeResponse.FromString(connect.body).friend_code == direct
    assert social_edge.metric("domino_edge_requests_total", method=SOCIAL.lstrip("/"), protocol="connect",
                              code="OK") == 1


def test_the_social_services_refusal_reaches_the_browser_with_its_error_info(social, social_edge):
    from google.rpc import error_details_pb2

    answer = web.grpc_web(social_edge.url, SOCIAL, b"", origin=PAGE)  # no token
    assert answer.grpc_status == UNAUTHENTICATED
    info = error_details_pb2.ErrorInfo()
    assert answer.status_details().details[0].Unpack(info)
    assert (info.reason, info.domain) == ("TOKEN_MISSING", "domino.social")
    connect = web.connect_unary(social_edge.url, SOCIAL, b"", authorization="Bearer not-a-token", origin=PAGE)
    assert connect.http_status == 401 and json.loads(connect.body)["code"] == "unauthenticated"


def test_cors_covers_the_social_service(social_edge):
    status, headers = preflight(social_edge.url, PAGE, "/web" + SOCIAL)
    assert status == 200 and headers["access-control-allow-origin"] == PAGE
    assert "authorization" in headers["access-control-allow-headers"].lower()
    status, headers = preflight(social_edge.url, "https://evil.example", SOCIAL)
    assert status == 400 and "access-control-allow-origin" not in headers
    refused = web.grpc_web(social_edge.url, SOCIAL, b"", origin="https://evil.example")
    assert refused.http_status == 403
