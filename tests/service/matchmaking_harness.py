"""Matchmaking over real gRPC on loopback, in front of a real in-process MatchService:
`running_matchmaking` serves a MatchmakingApplication in a background event loop, and
`running_system` starts a match service and matchmaking wired to it by the real gRPC clients
(matches and ratings), whose channel records every CreateMatchRequest it sends
(`System.created`). Its match service has no history view unless given one (`history=`), so
GetRating answers UNAVAILABLE and public tables are seated first come, first seated.
"""

from __future__ import annotations

import hashlib
from contextlib import contextmanager
from dataclasses import dataclass, field

import grpc

from domino.match.v1 import match_service_pb2 as match_pb
from domino.matchmaking.v1 import matchmaking_service_pb2 as pb
from domino.match.v1 import match_service_pb2_grpc as match_grpc
from domino.matchmaking.v1 import matchmaking_service_pb2_grpc as pb_grpc
from services.common.grpc_metrics import RpcMetrics
from services.match.application import MatchApplication
from services.common.changes import ChangeFeed
from services.matchmaking.application import MatchmakingApplication
from services.matchmaking.bootstrap import create_server
from services.matchmaking.match_client import GrpcMatchCreator, GrpcRatings
from tests.service.harness import UNLIMITED, Service, running_service
from tests.support.background import serving_in_background
from tests.support.clock import Clock
from tests.support.keys import KEYS, auth

POPO = {"PERSISTENCE_MODULE": "eventsourcing.popo"}
SERVICE = auth("ops", "service")


@contextmanager
def running_matchmaking(app: MatchmakingApplication, changes: ChangeFeed, watch_poll_seconds: float = 0.2,
                        metrics: RpcMetrics | None = None, limits=None):
    """The port of a MatchmakingService serving ``app``; ``app`` reports changes to ``changes``.
    ``limits``: (StreamLimits, RateLimit); none that tests reach unless given."""
    def create():
        return create_server("127.0.0.1:0", app, KEYS, changes, metrics, watch_poll_seconds, limits or UNLIMITED())

    with serving_in_background(create, mark_serving=True) as (port, _loop):
        yield port


@dataclass
class System:
    clock: Clock
    match: Service  # the real match service (tests.service.harness)
    app: MatchmakingApplication
    stub: pb_grpc.MatchmakingServiceStub
    port: int
    created: list[match_pb.CreateMatchRequest] = field(default_factory=list)  # as matchmaking sent them

    def match_view(self, match_id: str) -> match_pb.MatchView:
        return self.match.stub.GetMatch(match_pb.GetMatchRequest(match_id=match_id), metadata=SERVICE).view

    def rules(self) -> match_pb.DescribeRulesResponse:
        """What the match service's DescribeRules says, as a client reads it."""
        return self.match.stub.DescribeRules(match_pb.DescribeRulesRequest(), metadata=auth("ann"))

    def shape(self, rules: str, variant: str, seats: int, teams: bool) -> match_pb.SeatShape:
        """DescribeRules' seat shape of that family, variant, seat count and team setting."""
        family = next(f for f in self.rules().families if f.name == rules)
        shapes = next(v for v in family.variants if v.name == variant).shapes
        return next(s for s in shapes if (s.seats, s.teams) == (seats, teams))

    def stored(self) -> tuple[int, int]:
        """(matchmaking's, the match service's) stored events."""
        return self.app.recorder.max_notification_id() or 0, self.match.app.recorder.max_notification_id() or 0

    # ---- calls as a player -------------------------------------------------------------

    def create_room(self, host: str, variant: str = "block-4", request_id: str = "room-1", **options) -> pb.RoomView:
        return self.stub.CreateRoom(pb.CreateRoomRequest(request_id=request_id, variant=variant, **options),
                                    metadata=auth(host)).room

    def join(self, player: str, code: str, **seat) -> pb.RoomView:
        return self.stub.JoinRoom(pb.JoinRoomRequest(code=code, **seat), metadata=auth(player)).room

    def add_bot(self, host: str, room_id: str, strength: str | None = "greedy", **seat) -> pb.RoomView:
        """``strength``: a name ("greedy"), or None to leave it to the room's default."""
        request = pb.AddBotRequest(room_id=room_id, bot_strength=bot_strength(strength), **seat)
        return self.stub.AddBot(request, metadata=auth(host)).room

    def practice(self, player: str, request_id: str = "p1", strength: str | None = "greedy",
                 **options) -> pb.StartPracticeResponse:
        request = pb.StartPracticeRequest(request_id=request_id, bot_strength=bot_strength(strength), **options)
        return self.stub.StartPractice(request, metadata=auth(player))

    def start(self, host: str, room_id: str) -> pb.RoomView:
        return self.stub.StartRoom(pb.StartRoomRequest(room_id=room_id), metadata=auth(host)).room

    def request_table(self, player: str, variant: str = "block-4", request_id: str = "table-1",
                      **teams) -> pb.TicketView:
        return self.stub.RequestTable(pb.RequestTableRequest(request_id=request_id, variant=variant, **teams),
                                      metadata=auth(player)).ticket

    def ticket(self, player: str, ticket_id: str) -> pb.TicketView:
        return self.stub.GetTicket(pb.GetTicketRequest(ticket_id=ticket_id), metadata=auth(player)).ticket

    def presence(self, player: str) -> pb.GetPresenceResponse:
        return self.stub.GetPresence(pb.GetPresenceRequest(), metadata=auth(player))

    def sent(self, request_id: str) -> match_pb.CreateMatchRequest:
        """The CreateMatchRequest matchmaking sent with this request id (`room:<room id>`,
        `table:<table id>`, `practice:<table id>`); the last one if it was retried."""
        sent = [r for r in self.created if r.request_id == request_id]
        if not sent:
            raise LookupError(f"matchmaking sent no CreateMatch {request_id!r} "
                              f"(it sent {[r.request_id for r in self.created]})")
        return sent[-1]


def bot_strength(name: str | None) -> int:
    """A strength's name as the API's BotStrength, as a client reads it from DescribeRules
    (BotStrengthInfo.name); None: unset."""
    if name is None:
        return match_pb.BOT_STRENGTH_UNSPECIFIED
    return match_pb.BotStrength.Value(f"BOT_STRENGTH_{name.upper()}")


class _Recorder(grpc.UnaryUnaryClientInterceptor):
    """Keeps every CreateMatchRequest on its way out of matchmaking's match client."""

    def __init__(self, created: list) -> None:
        self.created = created

    def intercept_unary_unary(self, continuation, details, request):
        if isinstance(request, match_pb.CreateMatchRequest):
            self.created.append(request)
        return continuation(details, request)


@contextmanager
def running_system(metrics: RpcMetrics | None = None, history=None, ratings_address: str = "",
                   ratings_timeout_seconds: float = 1.0, **app_options):
    """A real match service (in memory, fixed seed) and matchmaking wired to it over gRPC.
    ``history``: the match service's history view (services/history/view.py), which
    GetRating reads; ``ratings_address``: ask ratings there instead (a hung socket...)."""
    clock = Clock()
    seed = hashlib.sha256(b"matchmaking service tests").digest()
    match_app = MatchApplication(env=POPO, clock=clock, seed_source=lambda: seed)
    with running_service(match_app, history=history) as match:
        creator = GrpcMatchCreator(f"127.0.0.1:{match.port}", KEYS)
        created: list[match_pb.CreateMatchRequest] = []
        creator.stub = match_grpc.MatchServiceStub(grpc.intercept_channel(creator.channel, _Recorder(created)))
        asked = GrpcMatchCreator(ratings_address, KEYS) if ratings_address else creator
        ratings = GrpcRatings(asked, timeout_seconds=ratings_timeout_seconds)
        changes = ChangeFeed()
        app = MatchmakingApplication(env=POPO, matches=creator, clock=clock, on_change=changes.publish,
                                     ratings=ratings, **app_options)
        with running_matchmaking(app, changes, metrics=metrics) as port:
            with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
                yield System(clock, match, app, pb_grpc.MatchmakingServiceStub(channel), port, created)
        if asked is not creator:
            asked.close()
        creator.close()
