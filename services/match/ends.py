"""The line's ends on the wire: the one mapping between the API's `End` and the engine's."""

from __future__ import annotations

from domino.match.v1 import match_service_pb2 as pb

from services.rules.moves import DOWN, LEFT, RIGHT, UP

TO_PB = {None: pb.END_UNSPECIFIED, LEFT: pb.END_LEFT, RIGHT: pb.END_RIGHT, UP: pb.END_UP, DOWN: pb.END_DOWN}
FROM_PB: dict[int, int | None] = {v: k for k, v in TO_PB.items()}


def from_pb(end: int) -> int | None:
    """The engine's end for a wire value; ValueError for a value the API does not define."""
    try:
        return FROM_PB[end]
    except KeyError:
        raise ValueError(f"unknown end {end}") from None
