"""The head signing keys at a stable public path, `/.well-known/domino/head-keys.json`.

Players keep the signed heads of their matches; to check them later they need the public
keys with their periods of use (docs/record.md). The edge serves them as JSON to anyone,
any origin (they are public), from a source: today the published keys file the match
service signs against (`heads-keys.json` in `DOMINO_KEYS_DIR`, the ConfigMap
`domino-head-keys` in Kubernetes), re-read when it changes.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Awaitable, Callable
from pathlib import Path

PATH = "/.well-known/domino/head-keys.json"
PUBLISHED_FILE = "heads-keys.json"  # services/match/heads.py writes it; `domino audit rotate-head-key` updates it

HeadKeysSource = Callable[[], Awaitable[bytes | None]]  # the JSON document, or None: none published


def published_file(keys_dir: str) -> HeadKeysSource:
    path = Path(keys_dir) / PUBLISHED_FILE
    cached: tuple[float, bytes] | None = None

    def read() -> bytes | None:
        nonlocal cached
        try:
            modified = os.stat(path).st_mtime
        except OSError:
            return None
        if cached is None or cached[0] != modified:
            document = json.loads(path.read_bytes())  # a broken file is the operator's error, loudly
            cached = (modified, json.dumps(document, indent=2).encode() + b"\n")
        return cached[1]

    async def source() -> bytes | None:
        if not keys_dir:
            return None
        return await asyncio.to_thread(read)
    return source
