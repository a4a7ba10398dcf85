"""The double-six set as small ints, and hands as 28-bit masks.

Tile ids run 0..27 in the order 0-0, 0-1, ... 0-6, 1-1, ... 6-6, so a hand is an int
whose bit ``t`` says it holds tile ``t``; set operations are single integer ops, which is
what keeps the engine fast enough for bots that simulate thousands of rounds.
"""

from __future__ import annotations

from typing import Iterable

from .errors import MalformedTile, shown

TILE_COUNT = 28
ALL_TILES = (1 << TILE_COUNT) - 1

LOW: tuple[int, ...]
HIGH: tuple[int, ...]
_pairs = [(a, b) for a in range(7) for b in range(a, 7)]
LOW = tuple(a for a, _ in _pairs)
HIGH = tuple(b for _, b in _pairs)
PIPS = tuple(a + b for a, b in _pairs)
NAMES = tuple(f"{a}-{b}" for a, b in _pairs)
DOUBLES = tuple(i for i, (a, b) in enumerate(_pairs) if a == b)
_ID = {(a, b): i for i, (a, b) in enumerate(_pairs)}

# MATCHES[n]: mask of the 7 tiles that show number n.
MATCHES = tuple(sum(1 << i for i, (a, b) in enumerate(_pairs) if n in (a, b)) for n in range(7))
# OTHER_END[t][n]: the number tile t shows opposite n (only meaningful when t shows n).
OTHER_END = tuple(tuple(HIGH[t] if n == LOW[t] else LOW[t] for n in range(7)) for t in range(TILE_COUNT))
# BIT_TILE[1 << t] == t, for walking a mask one lowest bit at a time.
BIT_TILE = {1 << t: t for t in range(TILE_COUNT)}

# Pip total of a mask, computed 7 bits at a time.
_CHUNK_PIPS = tuple(
    tuple(sum(PIPS[c * 7 + i] for i in range(7) if v >> i & 1) for v in range(128)) for c in range(4)
)


def tile(a: int, b: int) -> int:
    """The id of tile a-b, in either order."""
    if a > b:
        a, b = b, a
    try:
        return _ID[(a, b)]
    except KeyError:
        raise MalformedTile(f"{a}-{b} is not a double-six tile") from None


def parse_tile(text: str) -> int:
    """Read ``"a-b"`` (or ``"b-a"``) into a tile id."""
    if not isinstance(text, str):
        raise MalformedTile(f"a tile is written as a string like '2-5', not {shown(text)}")
    parts = text.split("-")
    if len(parts) != 2 or not all(len(p) == 1 and p in "0123456789" for p in parts):
        raise MalformedTile(f"{shown(text)} is not a tile (write tiles as 'a-b' with 0 <= a, b <= 6)")
    return tile(int(parts[0]), int(parts[1]))


def mask_of(tiles: Iterable[int]) -> int:
    m = 0
    for t in tiles:
        m |= 1 << t
    return m


def tiles_in(mask: int) -> list[int]:
    """Tile ids in a mask, ascending."""
    out = []
    while mask:
        low = mask & -mask
        out.append(BIT_TILE[low])
        mask ^= low
    return out


def pip_total(mask: int) -> int:
    c = _CHUNK_PIPS
    return c[0][mask & 127] + c[1][mask >> 7 & 127] + c[2][mask >> 14 & 127] + c[3][mask >> 21 & 127]


def count(mask: int) -> int:
    return mask.bit_count()
