"""What the system tests of the web and Node clients share: a system whose practice matches
are quick and outlast an access token, and the match as the services answer it over gRPC."""

from __future__ import annotations

import grpc

from domino.match.v1 import match_service_pb2 as pb
from domino.match.v1 import match_service_pb2_grpc as pb_grpc
from services.common.supervisor import LocalSystem
from tests.system.conftest import metadata

# No pause between rounds, and bots that think 0.4 s a move: a match has at least six bot moves
# (a round ends when a hand of seven is played out), so it outlasts a two-second token however
# fast the machine, and the client must refresh; the refreshes are allowed for.
QUICK_PRACTICE = {"DOMINO_ACCESS_TOKEN_SECONDS": "2", "DOMINO_SIGN_INS_PER_MINUTE": "1000",
                  "DOMINO_ROUND_PAUSE_SECONDS": "0", "DOMINO_BOT_THINK_MIN_SECONDS": "0.4",
                  "DOMINO_BOT_THINK_MAX_SECONDS": "0.4", "DOMINO_LOG_FORMAT": "json"}


def described(system: LocalSystem) -> pb.DescribeRulesResponse:
    with grpc.insecure_channel(system.match_address) as channel:
        return pb_grpc.MatchServiceStub(channel).DescribeRules(pb.DescribeRulesRequest(),
                                                               metadata=metadata(system, "ops", "service"))


def as_served(system: LocalSystem, summary: dict) -> tuple[pb.MatchView, pb.MatchSummary]:
    """The match of a client's summary as GetMatch answers it, and the player's own
    ListMyMatches line for it."""
    with grpc.insecure_channel(system.match_address) as channel:
        stub = pb_grpc.MatchServiceStub(channel)
        view = stub.GetMatch(pb.GetMatchRequest(match_id=summary["matchId"]),
                             metadata=metadata(system, "ops", "service")).view
        listed = stub.ListMyMatches(pb.ListMyMatchesRequest(), metadata=metadata(system, summary["playerId"])).matches
    return view, next(m for m in listed if m.match_id == summary["matchId"])


def check_played(system: LocalSystem, summary: dict) -> tuple[pb.MatchView, pb.MatchSummary]:
    """What every client's summary of a practice match must say: the default family at its
    shortest target, played to its end with no move refused, its seed taken, its tokens
    outlasted, and the result the services hold."""
    family = described(system).families[0]  # what a request naming no family gets
    view, line = as_served(system, summary)
    assert (summary["rules"], summary["target"]) == (family.name, min(family.targets))
    assert view.status == pb.MATCH_STATUS_ENDED and summary["status"] == "MATCH_STATUS_ENDED"
    assert summary["scores"] == list(view.scores)
    assert summary["winner"] == (view.winner if view.HasField("winner") else None)
    assert summary["history"] == {"result": pb.MatchResult.Name(line.result), "scores": list(line.scores)}
    assert summary["history"]["result"] != "MATCH_RESULT_IN_PLAY"
    assert summary["plays"] > 0 and summary["refused"] == [] and summary["seedTaken"]
    assert summary["refreshes"] >= 1 and summary["streams"] >= 2  # it outlasted its tokens
    return view, line
