"""Checks made on a request alone, before anything is loaded, so bad input changes nothing.
Shared by the match service's RPCs (grpc_adapter.py, talk_rpcs.py)."""

from __future__ import annotations

import uuid

from domino.match.v1 import match_service_pb2 as pb

from .errors import InvalidRequest
from services.rules.tiles import tile as tile_id


def match_id(text: str) -> uuid.UUID:
    if not text:
        raise InvalidRequest("match_id is required", "match_id")
    try:
        return uuid.UUID(text)
    except ValueError:
        raise InvalidRequest(f"match_id {text[:40]!r} is not a match id", "match_id") from None


def tile(msg: pb.Tile) -> int:
    if msg.low > 6 or msg.high > 6:
        raise InvalidRequest(f"{msg.low}-{msg.high} is not a double-six tile", "tile")
    return tile_id(msg.low, msg.high)
