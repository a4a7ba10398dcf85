"""The MatchCreator port over gRPC: MatchService.CreateMatch with a service token that
matchmaking mints for itself (role `service`, subject `matchmaking`)."""

from __future__ import annotations

import threading
import time

import grpc

from domino.match.v1 import match_service_pb2 as pb
from domino.match.v1 import match_service_pb2_grpc as pb_grpc
from services.common.auth import KeyRing, mint_token

from .errors import MatchRefused, MatchServiceUnavailable
from .match_starts import CreatedMatch
from .options import Options

SERVICE_SUBJECT = "matchmaking"
OVER = (pb.MATCH_STATUS_ENDED, pb.MATCH_STATUS_ABANDONED)
TOKEN_TTL_SECONDS = 3600
# The match service answered and will answer the same again: the match can never be created.
REFUSALS = {grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.FAILED_PRECONDITION}


class GrpcMatchCreator:
    def __init__(self, address: str, keys: KeyRing, timeout_seconds: float = 5.0,
                 seed_wait_seconds: float = 0.0) -> None:
        self.seed_wait_seconds = seed_wait_seconds  # the first deal waits this long for the players' seeds
        self.channel = grpc.insecure_channel(address)
        self.stub = pb_grpc.MatchServiceStub(self.channel)
        self.keys = keys
        self.timeout_seconds = timeout_seconds
        self._token = (0.0, "")
        self._token_lock = threading.Lock()

    def create_match(self, request_id: str, options: Options, seats: list[str]) -> CreatedMatch:
        request = pb.CreateMatchRequest(
            request_id=request_id, rules=options.rules, variant=options.variant, teams=options.teams,
            target=options.target, turn_timer_seconds=options.turn_timer,
            seats=[pb.SeatSpec(player_id=player) for player in seats],
            goat_options=pb.GoatOptions(**options.goat) if options.goat else None,
            seed_wait_seconds=int(self.seed_wait_seconds), spectators=options.spectators)
        try:
            reply = self.stub.CreateMatch(request, metadata=self._metadata(), timeout=self.timeout_seconds)
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
            reply = self.stub.GetMatch(pb.GetMatchRequest(match_id=match_id), metadata=self._metadata(),
                                       timeout=self.timeout_seconds)
        except grpc.RpcError as e:
            if e.code() in (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.INVALID_ARGUMENT):
                return None
            raise MatchServiceUnavailable(f"GetMatch failed: {e.code().name}") from None
        return reply.view

    def _metadata(self) -> tuple:
        with self._token_lock:
            expires, token = self._token
            if expires - time.time() < 60:
                token = mint_token(SERVICE_SUBJECT, self.keys, "service", ttl_seconds=TOKEN_TTL_SECONDS)
                self._token = (time.time() + TOKEN_TTL_SECONDS, token)
        return (("authorization", f"Bearer {token}"),)

    def close(self) -> None:
        self.channel.close()
