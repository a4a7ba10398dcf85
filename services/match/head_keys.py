"""GetHeadKeys' answer: the public keys the match heads are signed with, each with its period
of use, served to any caller, with or without a token (callers.OPEN_RPCS; the handler is in
rules_servicer.py).

A player verifies the heads its client kept against these keys (`domino audit verify --key`,
docs/record.md "Signed heads"), so they must be had from the API, not from the server's disk.
They are the deployment's published file (`heads-keys.json` beside `heads.key` in
DOMINO_KEYS_DIR, which `domino audit rotate-head-key` writes), read again whenever it changes:
after a rotation every replica serves the new key at once, before any is restarted to sign
with it. A server without the file (tests, tools) serves its signer's own key, valid at any
time. A file that stops being readable keeps the last good answer and is logged.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from google.protobuf.timestamp_pb2 import Timestamp

from domino.match.v1 import match_service_pb2 as pb

from .errors import StoreUnavailable
from .heads import PUBLISHED_FILE, BadHead, PublishedKey, PublishedKeys, Signer

log = logging.getLogger("domino.match")
ALGORITHM = "Ed25519"


def key_pb(key: PublishedKey) -> pb.HeadKey:
    raw = key.public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    msg = pb.HeadKey(key_id=key.id, algorithm=ALGORITHM, public_key=raw)
    if key.not_before is not None:
        msg.valid_from.CopyFrom(Timestamp(seconds=key.not_before))
    if key.not_after is not None:
        msg.valid_until.CopyFrom(Timestamp(seconds=key.not_after))
    return msg


def keys_pb(keys: PublishedKeys) -> pb.GetHeadKeysResponse:
    """Oldest first (by the start of their use; a key with no start first), so the last is
    the one in use."""
    ordered = sorted(keys.keys.values(), key=lambda k: (k.not_before is not None, k.not_before or 0))
    return pb.GetHeadKeysResponse(keys=[key_pb(k) for k in ordered])


class HeadKeys:
    """The answer of GetHeadKeys, from ``directory``'s published file (None: ``signer``'s key)."""

    def __init__(self, directory: str | Path | None, signer: Signer) -> None:
        self.path = Path(directory) / PUBLISHED_FILE if directory else None
        self._own = keys_pb(PublishedKeys([PublishedKey(signer.key_id, signer.public_key)]))
        self._read: tuple[tuple[int, int], pb.GetHeadKeysResponse] | None = None  # (file's mtime, size), answer

    def response(self) -> pb.GetHeadKeysResponse:
        if self.path is None:
            return self._own
        try:
            stat = os.stat(self.path)
        except OSError as e:
            return self._kept(f"cannot read {self.path}: {e.strerror}")
        seen = (stat.st_mtime_ns, stat.st_size)
        if self._read is None or self._read[0] != seen:
            try:
                self._read = (seen, keys_pb(PublishedKeys.load(self.path)))
            except (OSError, BadHead) as e:
                return self._kept(str(e))
        return self._read[1]

    def _kept(self, problem: str) -> pb.GetHeadKeysResponse:
        log.error("the published head keys cannot be read", extra={"problem": problem[:300]})
        if self._read is None:
            raise StoreUnavailable("the head keys cannot be read on this server now; try again later")
        return self._read[1]
