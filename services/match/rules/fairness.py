"""Commit–reveal deals: every deal is a pure function of committed seeds.

Before the first deal the server publishes ``commitment = SHA-256(server_seed)``. Each
player may send a seed of their own. The deal of round ``r`` shuffles the 28 tiles with a
stream derived from an HMAC-SHA256 key over the server seed, the round number and all
players' seeds, so the server cannot pick deals after seeing the players' seeds, and the
players cannot steer them. When the match ends the server reveals its seed; anyone can
then check the commitment and re-derive every deal (``domino audit verify``).

The algorithm, exactly:
- ``round_key = HMAC-SHA256(server_seed, "domino-deal/1" || 0x00 || JSON([r, client_seeds]))``
  where JSON is compact (``separators=(",", ":")``, UTF-8, ``ensure_ascii=False``);
- ``block(k) = SHA-256(round_key || uint32_be(k))`` (the round key is a secret, uniformly
  random 32-byte value, so these blocks are as unpredictable as HMAC blocks and cost a
  third as much); attempt ``a`` reads
  ``block(2a) || block(2a + 1)`` as 28 big-endian 16-bit sort keys, one for each tile id
  0..27 (0-0, 0-1, … 6-6), and is used only if the 28 keys are all different (else the
  next attempt; this happens about once in 180 deals);
- the shuffled order is the tile ids sorted by their keys. Independent uniform keys, all
  distinct, put every one of the 28! orders equally likely;
- the shuffled order is dealt in runs: seat 0's hand, seat 1's, …; then the boneyard in
  draw order (draw games) or the set-aside tile (block-3);
- in families whose leader is drawn by chance (All Fives, Sports), the seat drawn comes from
  a sequence of big-endian uint32 values: first the last 8 bytes of the accepted attempt's
  64-byte stream (which the sort keys do not use), read as two values; then, should both be
  refused, ``leader_block(k) = SHA-256(round_key || "domino-leader/1" || uint32_be(k))``
  for k = 0, 1, …, each read as eight values. The first value ``v`` below
  ``2**32 - 2**32 % seats`` gives seat ``v % seats``, so every seat is equally likely (with
  2 or 4 seats no value is ever refused; with 3, one value in 2**32). A round's draw is part
  of its deal whether or not the rules use it that round.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import struct

from .errors import BadDeal
from .rulesets import RuleSet
from .state import Deal

DOMAIN = b"domino-deal/1\x00"
LEADER_DOMAIN = b"domino-leader/1"


def commitment(server_seed: bytes) -> str:
    return hashlib.sha256(server_seed).hexdigest()


def round_key(server_seed: bytes, client_seeds: list[str] | tuple[str, ...], round_index: int) -> bytes:
    message = json.dumps([round_index, list(client_seeds)], separators=(",", ":"), ensure_ascii=False)
    return _hmac_sha256(server_seed, DOMAIN + message.encode())


def shuffled_tiles(key: bytes) -> list[int]:
    return _shuffle(key)[0]


def _shuffle(key: bytes) -> tuple[list[int], bytes]:
    """The shuffled order, and the attempt's 64-byte stream."""
    attempt = 0
    while True:
        stream = _sha256(key + _COUNTERS[2 * attempt]).digest() + _sha256(key + _COUNTERS[2 * attempt + 1]).digest()
        keys = _SORT_KEYS.unpack_from(stream)
        if len(set(keys)) == 28:
            return sorted(_TILE_IDS, key=keys.__getitem__), stream
        attempt += 1


def chance_leader(key: bytes, seats: int, stream: bytes | None = None) -> int:
    """The seat a round key draws by chance (see the module's algorithm)."""
    if stream is None:
        stream = _shuffle(key)[1]
    limit = 2**32 - 2**32 % seats
    for v in _SPARE_VALUES.unpack_from(stream, 56):
        if v < limit:
            return v % seats
    k = 0
    while True:
        for v in _LEADER_VALUES.unpack(_sha256(key + LEADER_DOMAIN + k.to_bytes(4, "big")).digest()):
            if v < limit:
                return v % seats
        k += 1


def _hmac_sha256(key: bytes, message: bytes) -> bytes:
    return hmac.digest(key, message, "sha256")


_sha256 = hashlib.sha256
_COUNTERS = tuple(k.to_bytes(4, "big") for k in range(64))
_TILE_IDS = tuple(range(28))
_SORT_KEYS = struct.Struct(">28H")
_LEADER_VALUES = struct.Struct(">8I")
_SPARE_VALUES = struct.Struct(">2I")
_BITS = tuple(1 << t for t in range(28))


def deal_from_order(rules: RuleSet, order: list[int]) -> Deal:
    n, size = rules.seats, rules.hand_size
    bits = list(map(_BITS.__getitem__, order))
    hands = tuple([sum(bits[start : start + size]) for start in range(0, n * size, size)])
    rest = order[n * size :]
    if rules.draws:
        return Deal(hands, tuple(rest), -1)
    if len(rest) > 1:
        raise BadDeal(f"{rules.name} deals every tile but at most one")
    return Deal(hands, (), rest[0] if rest else -1)


def deal(rules: RuleSet, key: bytes) -> Deal:
    """The deal a round key gives (see the module's algorithm)."""
    order, stream = _shuffle(key)
    dealt = deal_from_order(rules, order)
    if rules.chance:
        return dealt._replace(chance=chance_leader(key, rules.seats, stream))
    return dealt


def fair_deal(rules: RuleSet, server_seed: bytes, client_seeds: list[str] | tuple[str, ...], round_index: int) -> Deal:
    return deal(rules, round_key(server_seed, client_seeds, round_index))
