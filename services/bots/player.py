"""Answers a turn message for a bot seat, through the same gRPC API a person uses.

Idempotent by construction: the request id of every command is derived from the match
version the bot decided on, so a redelivered turn, or the same turn handled by two bot
replicas, yields one stored action and the first outcome for everyone else.
"""

from __future__ import annotations

import asyncio
import random
import time
from typing import Callable

from domino.match.v1 import match_service_pb2 as pb
from domino.match.v1 import match_service_pb2_grpc as pb_grpc
from services.common.auth import mint_token
from services.match.ends import TO_PB as END_TO_PB
from services.match.rules.tiles import HIGH, LOW

from .strategies import STRATEGIES
from .views import view_from_pb

BOT_PREFIX = "bot:"


def bot_strength(player_id: str) -> str | None:
    """`bot:<strength>:<n>` -> strength; None for people."""
    if not player_id.startswith(BOT_PREFIX):
        return None
    parts = player_id.split(":")
    return parts[1] if len(parts) >= 3 and parts[1] in STRATEGIES else None


class BotPlayer:
    def __init__(self, stub: pb_grpc.MatchServiceStub, jwt_secret: str, seed: int | None = None,
                 on_decision: Callable[[str, float], None] = lambda strength, seconds: None) -> None:
        self.stub = stub
        self.secret = jwt_secret
        self.rng = random.Random(seed)
        self.on_decision = on_decision
        self._tokens: dict[str, tuple[float, str]] = {}

    def _metadata(self, player_id: str) -> tuple:
        expires, token = self._tokens.get(player_id, (0.0, ""))
        if expires - time.time() < 60:
            token = mint_token(player_id, self.secret, "player", ttl_seconds=3600)
            self._tokens[player_id] = (time.time() + 3600, token)
        return (("authorization", f"Bearer {token}"),)

    async def play_turn(self, match_id: str, player_id: str) -> int:
        """Act while it is this bot's turn; returns how many commands were sent."""
        strength = bot_strength(player_id)
        if strength is None:
            return 0
        metadata = self._metadata(player_id)
        view = (await self.stub.GetMatch(pb.GetMatchRequest(match_id=match_id), metadata=metadata)).view
        sent = 0
        while view.status == pb.MATCH_STATUS_IN_PROGRESS and view.turn == view.your_seat >= 0:
            started = time.perf_counter()
            move = await asyncio.to_thread(STRATEGIES[strength], view_from_pb(view), self.rng)
            self.on_decision(strength, time.perf_counter() - started)
            request_id = f"bot:{match_id}:{view.version}"
            if move.kind == "draw":
                reply = await self.stub.DrawTile(pb.DrawTileRequest(match_id=match_id, request_id=request_id),
                                                 metadata=metadata)
            else:
                end = END_TO_PB[move.end]
                reply = await self.stub.PlayTile(
                    pb.PlayTileRequest(match_id=match_id, request_id=request_id,
                                       tile=pb.Tile(low=LOW[move.tile], high=HIGH[move.tile]), end=end),
                    metadata=metadata)
            view = reply.view
            sent += 1
        return sent

