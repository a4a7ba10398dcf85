import grpc
import pytest

from domino.match.v1 import match_service_pb2 as pb
from services.match.application import MatchApplication
from tests.support.clock import Clock
from tests.support.keys import auth

from .harness import running_service


def test_a_whole_match_over_grpc():
    app = MatchApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"}, clock=Clock())
    with running_service(app) as svc:
        created = svc.create()
        mid = created.match_id
        n = 0
        while True:
            view = svc.stub.GetMatch(pb.GetMatchRequest(match_id=mid), metadata=auth("ann")).view
            if view.status == pb.MATCH_STATUS_ENDED:
                break
            player = view.seats[view.turn].player_id
            v = svc.stub.GetMatch(pb.GetMatchRequest(match_id=mid), metadata=auth(player)).view
            mv = v.legal_moves[0]
            svc.stub.PlayTile(pb.PlayTileRequest(match_id=mid, request_id=f"r{n}", tile=mv.tile, end=mv.end),
                              metadata=auth(player))
            n += 1
        assert view.winner in (0, 1)
        rec = svc.stub.ExportMatch(pb.ExportMatchRequest(match_id=mid), metadata=auth("aud", "auditor"))
        assert "domino-record/1" in rec.record_json
        with pytest.raises(grpc.RpcError) as e:
            svc.stub.GetMatch(pb.GetMatchRequest(match_id="nope"), metadata=auth("ann"))
        assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
