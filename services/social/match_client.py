"""Which friends are playing, from the match service (MatchService.ListPlayingNow, the
social service's `service` token, sub "social"), under a short deadline.

Presence is a courtesy: when the match service is away or slow, friends are answered as
not playing, never with an error; each failure is counted."""

from __future__ import annotations

import logging
from dataclasses import dataclass

import grpc
from prometheus_client import Counter

from domino.match.v1 import match_service_pb2 as pb
from domino.match.v1 import match_service_pb2_grpc as pb_grpc
from services.common.auth import KeyRing
from services.common.service_tokens import ServiceToken

log = logging.getLogger("domino.social")
FAILURES = Counter("domino_social_playing_now_failures_total",
                   "ListPlayingNow calls that failed (friends were shown as not playing)", ["code"])
SERVICE_SUBJECT = "social"
TOKEN_TTL_SECONDS = 600
MAX_ASKED = 100


@dataclass(frozen=True)
class Playing:
    match_id: str
    rules: str
    watchable: bool


class GrpcPlayingNow:
    def __init__(self, address: str, keys: KeyRing, timeout_seconds: float = 1.0) -> None:
        self.channel = grpc.insecure_channel(address)
        self.stub = pb_grpc.MatchServiceStub(self.channel)
        self.timeout_seconds = timeout_seconds
        self.token = ServiceToken(SERVICE_SUBJECT, keys, TOKEN_TTL_SECONDS)
        self.failures = 0

    def playing(self, player_ids: list[str]) -> dict[str, Playing]:
        """player -> the match they are seated in now; {} when the match service cannot say."""
        if not player_ids:
            return {}
        try:
            reply = self.stub.ListPlayingNow(pb.ListPlayingNowRequest(player_ids=player_ids[:MAX_ASKED]),
                                             metadata=self.token.metadata(), timeout=self.timeout_seconds)
        except grpc.RpcError as e:
            self.failures += 1
            FAILURES.labels(e.code().name).inc()
            log.warning("cannot ask the match service who is playing; friends shown as not playing",
                        extra={"code": e.code().name})
            return {}
        return {p.player_id: Playing(p.match_id, p.rules, p.watchable) for p in reply.playing}

    def close(self) -> None:
        self.channel.close()


class NobodyPlaying:
    """Without a match service (tests of friends alone)."""

    def playing(self, player_ids: list[str]) -> dict[str, Playing]:
        return {}

    def close(self) -> None:
        pass
