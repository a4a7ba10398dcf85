"""The head signing keys as the API publishes them (MatchService.GetHeadKeys), in the
`domino-keys/1` form `domino audit verify --key` reads (docs/record.md, "Signed heads").

A player checks the records they export and the heads their client kept with keys fetched
from the server they played on, as any app would, not with a file read off the server's
disk. The keys are asked once per session (api.MatchApi.head_keys) and asked again only when
a record names a key the answer lacks (a rotation since)."""

from __future__ import annotations

import base64
import json
from pathlib import Path

from domino.match.v1 import match_service_pb2 as pb
from services.common.private_files import write_private

FORMAT = "domino-keys/1"


def _seconds(stamp, present: bool) -> int | None:
    return stamp.seconds if present else None


def keys_document(answer: pb.GetHeadKeysResponse) -> dict:
    """Every key with its period of use, as Unix seconds (null: open-ended)."""
    return {"format": FORMAT, "keys": [
        {"id": key.key_id, "public_key": base64.b64encode(key.public_key).decode(),
         "not_before": _seconds(key.valid_from, key.HasField("valid_from")),
         "not_after": _seconds(key.valid_until, key.HasField("valid_until"))}
        for key in answer.keys]}


def lists(answer: pb.GetHeadKeysResponse, key_id: str) -> bool:
    return any(key.key_id == key_id for key in answer.keys)


def save(path: Path, answer: pb.GetHeadKeysResponse) -> Path:
    """Writes the keys where `domino audit verify --key` can read them (OSError when it cannot)."""
    return write_private(path, json.dumps(keys_document(answer), indent=2) + "\n")
