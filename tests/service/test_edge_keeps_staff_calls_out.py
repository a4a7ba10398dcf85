"""The staff's APIs (domino.admin.v1.*) are never reached from the players' side: the edge
forwards only the methods of the public services' descriptors (services/edge/methods.py), and
the public Gateway routes only those services by their exact names (deploy/k8s
components/public-edge). An admin call with a valid staff token, through the edge in front of a
real match service that serves MatchAdminService, is refused by the edge and never arrives."""

from __future__ import annotations

from pathlib import Path

import grpc
import pytest
import yaml

from domino.admin.v1 import match_admin_service_pb2 as admin
from services.common.config import Settings
from services.edge.methods import forwarded_methods, public_services
from services.match.application import MatchApplication
from tests.support import grpc_web_client as web
from tests.support.edge import running_edge

from .harness import running_service
from .staff_harness import admin_stub, staff

LIST_MATCHES = "/domino.admin.v1.MatchAdminService/ListMatches"
GATEWAY = Path(__file__).resolve().parents[2] / "deploy" / "k8s" / "components" / "public-edge" / "gateway.yaml"


@pytest.fixture(scope="module")
def served():
    """(the match service, the edge in front of it)."""
    app = MatchApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    with running_service(app) as svc:
        address = f"127.0.0.1:{svc.port}"
        settings = Settings(match_address=address, matchmaking_address=address, account_address=address,
                            social_address=address, web_origins="http://localhost:5173")
        with running_edge(settings) as edge:
            yield svc, edge
    app.close()


def test_the_edge_forwards_no_method_of_a_staff_api():
    assert not any(name.startswith("domino.admin.") for name in public_services())
    assert not any(m.path.startswith("/domino.admin.") for m in forwarded_methods())


def test_a_staff_call_through_the_edge_is_not_found_and_never_reaches_the_service(served):
    svc, edge = served
    authorization = staff("viewer")[0][1]  # "Bearer ..."
    request = admin.ListMatchesRequest().SerializeToString()
    for path in (LIST_MATCHES, "/web" + LIST_MATCHES):  # the service would answer HTTP 200 with a gRPC status
        assert web.grpc_web(edge.url, path, request, authorization=authorization).http_status == 404
        assert web.connect_unary(edge.url, path, request, authorization=authorization).http_status == 404
    # The same call made inside the cluster is answered (UNAVAILABLE: this one has no history).
    with pytest.raises(grpc.RpcError) as answered:
        admin_stub(svc).ListMatches(admin.ListMatchesRequest(), metadata=staff("viewer"))
    assert answered.value.code() == grpc.StatusCode.UNAVAILABLE


def test_the_public_gateway_routes_no_staff_api():
    routes = [doc for doc in yaml.safe_load_all(GATEWAY.read_text()) if doc and doc.get("kind") == "GRPCRoute"]
    services = {match["method"]["service"] for route in routes for rule in route["spec"]["rules"]
                for match in rule.get("matches", ()) if "method" in match}
    assert routes and services and not any(name.startswith("domino.admin.") for name in services)
    assert all(match["method"].get("type", "Exact") == "Exact" for route in routes
               for rule in route["spec"]["rules"] for match in rule.get("matches", ()) if "method" in match)
