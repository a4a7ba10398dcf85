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
from typing import Final

from .errors import BadDeal
from .family import RuleSet
from .state import Deal

DOMAIN: Final = b"domino-deal/1\x00"
LEADER_DOMAIN: Final = b"domino-leader/1"


def commitment(server_seed: bytes) -> str:
    return hashlib.sha256(server_seed).hexdigest()


def round_key(server_seed: bytes, client_seeds: list[str] | tuple[str, ...], round_index: int) -> bytes:
    message = json.dumps([round_index, list(client_seeds)], separators=(",", ":"), ensure_ascii=False)
    return _hmac_sha256(server_seed, DOMAIN + message.encode())


def shuffled_tiles(key: bytes) -> list[int]:
    return [v & 31 for v in _shuffle(key)[0]]


def _shuffle(key: bytes) -> tuple[list[int], bytes]:
    """The shuffled order as ``sort key << 5 | tile``, and the attempt's 64-byte stream.

    Compiled with mypyc (setup.py): the keys are read byte by byte, packed with their tile so
    that a plain integer sort orders the tiles, and two equal keys are neighbours once sorted.
    """
    attempt = 0
    while True:
        stream = _sha256(key + _COUNTERS[2 * attempt]).digest() + _sha256(key + _COUNTERS[2 * attempt + 1]).digest()
        packed = [stream[2 * t] << 13 | stream[2 * t + 1] << 5 | t for t in range(28)]
        packed.sort()
        previous = -1
        for v in packed:
            if v >> 5 == previous:
                break
            previous = v >> 5
        else:
            return packed, stream
        attempt += 1


def chance_leader(key: bytes, seats: int, stream: bytes | None = None) -> int:
    """The seat a round key draws by chance (see the module's algorithm)."""
    if stream is None:
        stream = _shuffle(key)[1]
    limit = 2**32 - 2**32 % seats
    for i in range(56, 64, 4):
        v = stream[i] << 24 | stream[i + 1] << 16 | stream[i + 2] << 8 | stream[i + 3]
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


_sha256: Final = hashlib.sha256
_COUNTERS: Final = tuple(k.to_bytes(4, "big") for k in range(64))
_LEADER_VALUES: Final = struct.Struct(">8I")
_new_deal: Final = tuple.__new__


def deal_from_order(rules: RuleSet, order: list[int]) -> Deal:
    return _dealt(rules, order, -1)


def _dealt(rules: RuleSet, order: list[int], chance: int) -> Deal:
    """The deal of a shuffled order (tile ids, or sort keys packed above them as ``_shuffle``
    gives them: only the low 5 bits are read)."""
    n: int = rules.seats
    size: int = rules.hand_size
    hands = []
    for seat in range(n):
        hand = 0
        for i in range(seat * size, seat * size + size):
            hand |= 1 << (order[i] & 31)
        hands.append(hand)
    dealt = n * size
    if rules.draws:
        return _new_deal(Deal, (tuple(hands), tuple([v & 31 for v in order[dealt:]]), -1, chance))
    if len(order) - dealt > 1:
        raise BadDeal(f"{rules.name} deals every tile but at most one")
    return _new_deal(Deal, (tuple(hands), (), order[dealt] & 31 if len(order) > dealt else -1, chance))


def deal(rules: RuleSet, key: bytes) -> Deal:
    """The deal a round key gives (see the module's algorithm)."""
    order, stream = _shuffle(key)
    return _dealt(rules, order, chance_leader(key, rules.seats, stream) if rules.chance else -1)


def fair_deal(rules: RuleSet, server_seed: bytes, client_seeds: list[str] | tuple[str, ...], round_index: int) -> Deal:
    return deal(rules, round_key(server_seed, client_seeds, round_index))
