"""The match service's ports over gRPC, with a service token that matchmaking mints for
itself (role `service`, subject `matchmaking`): MatchCreator (MatchService.CreateMatch,
GetMatch) and Ratings (MatchService.GetRating). Every call has a deadline."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from typing import Callable

import grpc

from domino.match.v1 import match_service_pb2 as pb
from domino.match.v1 import match_service_pb2_grpc as pb_grpc
from services.common import rule_options
from services.common.auth import KeyRing
from services.common.service_tokens import ServiceToken

from .errors import MatchRefused, MatchServiceUnavailable, RatingUnavailable
from .match_starts import CreatedMatch
from .options import Options
from .table_choice import DEFAULT_ORDINAL

SERVICE_SUBJECT = "matchmaking"
OVER = (pb.MATCH_STATUS_ENDED, pb.MATCH_STATUS_ABANDONED)
TOKEN_TTL_SECONDS = 3600
# The match service answered and will answer the same again: the match can never be created.
REFUSALS = {grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.FAILED_PRECONDITION}
# The match service is away or slow: ratings are not asked again for a moment.
AWAY = {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED}


class GrpcMatchCreator:
    def __init__(self, address: str, keys: KeyRing, timeout_seconds: float = 5.0,
                 seed_wait_seconds: float = 0.0) -> None:
        self.seed_wait_seconds = seed_wait_seconds  # the first deal waits this long for the players' seeds
        self.channel = grpc.insecure_channel(address)
        self.stub = pb_grpc.MatchServiceStub(self.channel)
        self.keys = keys
        self.timeout_seconds = timeout_seconds
        self.token = ServiceToken(SERVICE_SUBJECT, keys, TOKEN_TTL_SECONDS)

    def create_match(self, request_id: str, options: Options, seats: list[str], rated: bool | None = None) -> CreatedMatch:
        request = pb.CreateMatchRequest(
            request_id=request_id, rules=options.rules, variant=options.variant, teams=options.teams,
            target=options.target, turn_timer_seconds=options.turn_timer,
            seats=[pb.SeatSpec(player_id=player) for player in seats],
            rule_options=rule_options.settings_pb(options.host_options),
            seed_wait_seconds=int(self.seed_wait_seconds), spectators=options.spectators, rated=rated)
        try:
            reply = self.stub.CreateMatch(request, metadata=self.token.metadata(), timeout=self.timeout_seconds)
        except grpc.RpcError as e:
            if e.code() in REFUSALS:
                raise MatchRefused(e.details() or e.code().name) from None
            raise MatchServiceUnavailable(f"CreateMatch failed: {e.code().name} {e.details() or ''}".strip()) from None
        return CreatedMatch(reply.match_id, reply.view.status in OVER)

    def has_ended(self, match_id: str) -> bool:
        view = self._view(match_id)
        return view is not None and view.status in OVER

    def left_players(self, match_id: str) -> list[str]:
        view = self._view(match_id)
        return [] if view is None else [seat.player_id for seat in view.seats if seat.left]

    def _view(self, match_id: str) -> pb.MatchView | None:
        try:
            reply = self.stub.GetMatch(pb.GetMatchRequest(match_id=match_id), metadata=self.token.metadata(),
                                       timeout=self.timeout_seconds)
        except grpc.RpcError as e:
            if e.code() in (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.INVALID_ARGUMENT):
                return None
            raise MatchServiceUnavailable(f"GetMatch failed: {e.code().name}") from None
        return reply.view


    def close(self) -> None:
        self.channel.close()


class GrpcRatings:
    """The Ratings port (table_choice.py) over gRPC: MatchService.GetRating, on the match
    client's channel and token. It is asked while a player waits for RequestTable, so its
    deadline is short (``timeout_seconds``). A rating is kept ``ttl_seconds`` per player,
    family and team setting (at most ``max_kept`` of them, the least recently used go first);
    ratings move only when matches end. When the match service is away or does not answer
    in time it is not asked again for ``backoff_seconds``: RatingUnavailable "backoff"."""

    def __init__(self, client: GrpcMatchCreator, timeout_seconds: float = 1.0, ttl_seconds: float = 60.0,
                 max_kept: int = 10_000, backoff_seconds: float = 5.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.client = client
        self.timeout_seconds = timeout_seconds
        self.ttl_seconds = ttl_seconds
        self.max_kept = max_kept
        self.backoff_seconds = backoff_seconds
        self.clock = clock
        self._kept: OrderedDict[tuple[str, str, bool], tuple[float, float]] = OrderedDict()  # -> (until, ordinal)
        self._quiet_until = 0.0
        self._lock = threading.Lock()

    def ordinal(self, player_id: str, rules: str, teams: bool) -> float:
        key = (player_id, rules, teams)
        with self._lock:
            kept = self._kept.get(key)
            if kept is not None and kept[0] > self.clock():
                self._kept.move_to_end(key)
                return kept[1]
            if self.clock() < self._quiet_until:
                raise RatingUnavailable("backoff", "GetRating failed moments ago; not asked")
        request = pb.GetRatingRequest(player_id=player_id, rules=rules, teams=teams)
        try:
            reply = self.client.stub.GetRating(request, metadata=self.client.token.metadata(),
                                               timeout=self.timeout_seconds)
        except grpc.RpcError as e:
            code = e.code()
            if code in AWAY:
                with self._lock:
                    self._quiet_until = self.clock() + self.backoff_seconds
            reason = "deadline" if code == grpc.StatusCode.DEADLINE_EXCEEDED else "error"
            raise RatingUnavailable(reason, f"GetRating failed: {code.name} {e.details() or ''}".strip()) from None
        ordinal = reply.rating.ordinal if reply.rating.matches else DEFAULT_ORDINAL
        with self._lock:
            self._kept[key] = (self.clock() + self.ttl_seconds, ordinal)
            self._kept.move_to_end(key)
            while len(self._kept) > self.max_kept:
                self._kept.popitem(last=False)
        return ordinal
