"""The head signing keys at a stable public path, `/.well-known/domino/head-keys.json`.

Players keep the signed heads of their matches; to check them later they need the public
keys with their periods of use (docs/record.md). The edge serves them as JSON to anyone,
any origin (they are public), as the match service answers them (MatchService.GetHeadKeys,
no token), in the `domino-keys/1` form of `heads-keys.json` that `domino audit verify --key`
reads. So the edge holds no keys file of its own (in Kubernetes, no ConfigMap to keep in step
with the match service's): a rotation the match service serves is served here once the
answer kept is older than CACHE_SECONDS. While the match service cannot be asked, the last
answer is served; with none yet, the page is unavailable.
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import time
from collections.abc import Awaitable, Callable

import grpc

from domino.match.v1 import match_service_pb2 as pb

from .upstreams import Upstreams

log = logging.getLogger("domino.edge")

PATH = "/.well-known/domino/head-keys.json"
FORMAT = "domino-keys/1"  # services/match/heads.py writes heads-keys.json in it
SERVICE = "domino.match.v1.MatchService"
METHOD = f"/{SERVICE}/GetHeadKeys"
CACHE_SECONDS = 60.0  # keys are published a day before they sign (`domino audit rotate-head-key`)
DEADLINE_SECONDS = 5.0

HeadKeysSource = Callable[[], Awaitable[bytes]]  # the JSON document; HeadKeysUnavailable when none can be had


class HeadKeysUnavailable(Exception):
    pass


def keys_document(answer: pb.GetHeadKeysResponse) -> bytes:
    """GetHeadKeys' answer as the published keys file holds it: Unix seconds, null for open-ended."""
    keys = [{"id": key.key_id, "public_key": base64.b64encode(key.public_key).decode(),
             "not_before": key.valid_from.seconds if key.HasField("valid_from") else None,
             "not_after": key.valid_until.seconds if key.HasField("valid_until") else None}
            for key in answer.keys]
    return json.dumps({"format": FORMAT, "keys": keys}, indent=2).encode() + b"\n"


def asked_of_the_match_service(upstreams: Upstreams) -> Callable[[], Awaitable[bytes]]:
    async def ask() -> bytes:
        call = upstreams.channel(SERVICE).unary_unary(METHOD, request_serializer=pb.GetHeadKeysRequest.SerializeToString,
                                                      response_deserializer=pb.GetHeadKeysResponse.FromString)
        try:
            answer = await call(pb.GetHeadKeysRequest(), timeout=DEADLINE_SECONDS)
        except grpc.aio.AioRpcError as e:
            raise HeadKeysUnavailable(f"GetHeadKeys answered {e.code().name}") from None
        return keys_document(answer)
    return ask


class KeptHeadKeys:
    """The document of ``ask``, asked again once older than ``ttl_seconds``, by one call at a
    time however many browsers want it at once."""

    def __init__(self, ask: Callable[[], Awaitable[bytes]], ttl_seconds: float = CACHE_SECONDS,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._ask, self._ttl, self._clock = ask, ttl_seconds, clock
        self._kept: tuple[float, bytes] | None = None  # (when asked, document)
        self._lock = asyncio.Lock()

    def _fresh(self) -> bytes | None:
        if self._kept is not None and self._clock() - self._kept[0] < self._ttl:
            return self._kept[1]
        return None

    async def __call__(self) -> bytes:
        fresh = self._fresh()
        if fresh is not None:
            return fresh
        async with self._lock:
            fresh = self._fresh()  # another caller asked while this one waited
            if fresh is not None:
                return fresh
            try:
                document = await self._ask()
            except HeadKeysUnavailable as e:
                if self._kept is None:
                    raise
                log.warning("serving the head keys last asked", extra={"problem": str(e)})
                return self._kept[1]
            self._kept = (self._clock(), document)
            return document
