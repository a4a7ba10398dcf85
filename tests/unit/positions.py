"""Builders for hand-made positions, so a rule test states its position in tiles."""

from __future__ import annotations

from services.rules.state import Deal, Round
from services.rules.tiles import mask_of, parse_tile


def tiles(text: str) -> list[int]:
    return [parse_tile(t) for t in text.split()]


def hand(text: str) -> int:
    return mask_of(tiles(text))


def deal(*hands: str, boneyard: str = "", set_aside: str | None = None) -> Deal:
    return Deal(tuple(hand(h) for h in hands), tuple(tiles(boneyard)), parse_tile(set_aside) if set_aside else -1)


def position(*hands: str, left: int, right: int, turn: int, boneyard: str = "") -> Round:
    """A round in play with open ends ``left``/``right`` (the line's tiles are not in any hand)."""
    rnd = Round(deal(*hands, boneyard=boneyard), turn, -1)
    rnd.left, rnd.right = left, right
    return rnd
