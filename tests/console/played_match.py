"""A finished draw-2 match as the match service stores it (in memory), its export as
ExportMatch gives an auditor (the chain's links and its signed final head), every head a
player kept while it was played, and the published keys: the evidence the replay page and
the bundle are built from."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from services.match.application import MatchApplication, SeatSpec
from services.match.export import full_record
from services.match.heads import Head, PublishedKey, PublishedKeys, Signer, key_id
from services.match.record import MatchRecord, from_json, to_json
from tests.support.matches import Matches, played_keeping_heads

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey


@dataclass(frozen=True)
class Played:
    match_id: str
    export: dict  # the auditor's export, as JSON
    kept: tuple[Head, ...]  # a player's heads, one per version they saw
    keys: PublishedKeys

    def record(self) -> MatchRecord:
        return from_json(json.loads(json.dumps(self.export)))


@cache
def played(seed: int = 7) -> Played:
    signer = Signer(Ed25519PrivateKey.from_private_bytes(bytes(range(32))), clock=lambda: 1_800_000_000.0)
    rng = random.Random(seed)
    app = Matches(MatchApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"},
                                   seed_source=lambda: rng.randbytes(32)))
    try:
        match = app.create_match(f"console-{seed}", "egyptian", "draw-2", None, None, 0,
                                 [SeatSpec("ann", "a"), SeatSpec("bob", "b")])
        match, kept = played_keeping_heads(app, match, rng, signer)
        export = to_json(full_record(app.stored_events(match.id)))
    finally:
        app.close()
    export["chain"]["head"] = kept[-1].to_json()  # as ExportMatch signs it
    keys = PublishedKeys([PublishedKey(key_id(signer.public_key), signer.public_key)])
    return Played(str(match.id), export, tuple(kept), keys)


def keys_file(directory: Path, keys: PublishedKeys) -> Path:
    path = directory / "head-keys.json"
    path.write_text(json.dumps(keys.to_json()))
    return path
