"""The last match each player joined from this machine, so `domino play` can offer to
resume it: one small JSON file per player under <var>/players/."""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
from pathlib import Path


class LastMatch:
    def __init__(self, var_dir: str | Path, player: str) -> None:
        safe = re.sub(r"[^A-Za-z0-9_.-]", "_", player)[:60] or "player"
        digest = hashlib.sha256(player.encode()).hexdigest()[:8]
        self.path = Path(var_dir) / "players" / f"{safe}-{digest}.json"

    def load(self) -> str | None:
        try:
            return json.loads(self.path.read_text()).get("match_id") or None
        except (OSError, ValueError, AttributeError):
            return None

    def save(self, match_id: str) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.path.with_suffix(".tmp")
            tmp.write_text(json.dumps({"match_id": match_id, "saved_at": time.time()}))
            os.replace(tmp, self.path)
        except OSError:
            pass  # resuming by id still works; only the offer is lost

    def clear(self, match_id: str | None = None) -> None:
        if match_id is None or self.load() == match_id:
            try:
                self.path.unlink()
            except OSError:
                pass
