"""Commit–reveal deals: every deal is a pure function of committed seeds.

Before the first deal the server publishes ``commitment = SHA-256(server_seed)``. Each
player may send a seed of their own. The deal of round ``r`` shuffles the 28 tiles with a
stream of HMAC-SHA256 blocks keyed by the server seed over the round number and all
players' seeds, so the server cannot pick deals after seeing the players' seeds, and the
players cannot steer them. When the match ends the server reveals its seed; anyone can
then check the commitment and re-derive every deal (``domino audit verify``).

The algorithm, exactly:
- ``round_key = HMAC-SHA256(server_seed, "domino-deal/1" || 0x00 || JSON([r, client_seeds]))``
  where JSON is compact (``separators=(",", ":")``, UTF-8, ``ensure_ascii=False``);
- the byte stream is ``HMAC-SHA256(round_key, uint32_be(0)) || HMAC-SHA256(round_key, uint32_be(1)) || …``;
- Fisher–Yates over tile ids 0..27 (0-0, 0-1, … 6-6): for ``i`` from 27 down to 1, take
  the next byte ``b``, drop it if ``b >= 256 - 256 % (i + 1)``, else swap ``i`` with
  ``b % (i + 1)``;
- the shuffled order is dealt in runs: seat 0's hand, seat 1's, …; then the boneyard in
  draw order (draw games) or the set-aside tile (block-3).
"""

from __future__ import annotations

import hashlib
import hmac
import json

from .errors import BadDeal
from .rulesets import RuleSet
from .state import Deal

DOMAIN = b"domino-deal/1\x00"


def commitment(server_seed: bytes) -> str:
    return hashlib.sha256(server_seed).hexdigest()


def round_key(server_seed: bytes, client_seeds: list[str] | tuple[str, ...], round_index: int) -> bytes:
    message = json.dumps([round_index, list(client_seeds)], separators=(",", ":"), ensure_ascii=False)
    return _hmac_sha256(server_seed, DOMAIN + message.encode())


def shuffled_tiles(key: bytes) -> list[int]:
    order = list(range(28))
    stream = _hmac_sha256(key, b"\0\0\0\0")
    pos = 0
    for i, bound, limit in _STEPS:
        while True:
            if pos == len(stream):
                stream += _hmac_sha256(key, (len(stream) // 32).to_bytes(4, "big"))
            b = stream[pos]
            pos += 1
            if b < limit:
                break
        j = b % bound
        order[i], order[j] = order[j], order[i]
    return order


def _hmac_sha256(key: bytes, message: bytes) -> bytes:
    return hmac.digest(key, message, "sha256")


_BITS = tuple(1 << t for t in range(28))
_STEPS = tuple((i, i + 1, 256 - 256 % (i + 1)) for i in range(27, 0, -1))


def deal_from_order(rules: RuleSet, order: list[int]) -> Deal:
    n, size = rules.seats, rules.hand_size
    bits = _BITS
    hands = tuple(sum(map(bits.__getitem__, order[s * size : (s + 1) * size])) for s in range(n))
    rest = order[n * size :]
    if rules.draws:
        return Deal(hands, tuple(rest), -1)
    if len(rest) > 1:
        raise BadDeal(f"{rules.variant} deals every tile but at most one")
    return Deal(hands, (), rest[0] if rest else -1)


def deal(rules: RuleSet, key: bytes) -> Deal:
    """The deal a round key gives (see the module's algorithm)."""
    return deal_from_order(rules, shuffled_tiles(key))


def fair_deal(rules: RuleSet, server_seed: bytes, client_seeds, round_index: int) -> Deal:
    return deal(rules, round_key(server_seed, client_seeds, round_index))
