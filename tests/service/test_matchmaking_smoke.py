"""Matchmaking serves health, reflection and metrics, and plays a practice match end to end."""

from __future__ import annotations

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from prometheus_client import CollectorRegistry

from domino.match.v1 import match_service_pb2 as match_pb
from services.common.grpc_metrics import RpcMetrics
from services.matchmaking.bootstrap import SERVICE_NAME

from .matchmaking_harness import running_system

# ---- smoke -------------------------------------------------------------------------------


def test_matchmaking_serves_health_and_reflection():
    with running_system() as system, grpc.insecure_channel(f"127.0.0.1:{system.port}") as channel:
        health = health_pb2_grpc.HealthStub(channel)
        for name in (SERVICE_NAME, ""):
            assert health.Check(health_pb2.HealthCheckRequest(service=name)).status == \
                health_pb2.HealthCheckResponse.SERVING
        stub = reflection_pb2_grpc.ServerReflectionStub(channel)
        replies = list(stub.ServerReflectionInfo(iter([reflection_pb2.ServerReflectionRequest(list_services="")])))
        names = {s.name for s in replies[0].list_services_response.service}
        assert "domino.matchmaking.v1.MatchmakingService" in names


def test_rpcs_are_counted_by_method_and_status():
    registry = CollectorRegistry()
    with running_system(metrics=RpcMetrics("matchmaking", registry)) as system:
        system.create_room("ann")
        try:
            system.create_room("ann", request_id="another")
        except grpc.RpcError:
            pass
    value = registry.get_sample_value
    assert value("domino_matchmaking_rpcs_total", {"method": "CreateRoom", "code": "OK"}) == 1
    assert value("domino_matchmaking_rpcs_total", {"method": "CreateRoom", "code": "FAILED_PRECONDITION"}) == 1


def test_a_practice_match_exists_on_the_match_service_at_once():
    with running_system() as system:
        reply = system.practice("ann", variant="draw-2", strength="strong")
        view = system.match_view(reply.match_id)
        assert [s.player_id for s in view.seats] == ["ann", "bot:strong:1"] == list(reply.player_ids)
        assert view.status == match_pb.MATCH_STATUS_IN_PROGRESS and reply.your_seat == 0
