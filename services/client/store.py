"""What `domino play` keeps on this machine: the last match each player joined, so it can
offer to resume it (<var>/players/), the signed heads each match sent (<var>/heads/), and the
records the player exported (<var>/exports/). All of it is the player's alone: directories
0700, files 0600 (services/common/private_files.py)."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import time
from pathlib import Path

from services.common.private_files import write_private


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
            write_private(self.path, json.dumps({"match_id": match_id, "saved_at": time.time()}))
        except OSError:
            pass  # resuming by id still works; only the offer is lost

    def clear(self, match_id: str | None = None) -> None:
        if match_id is None or self.load() == match_id:
            try:
                self.path.unlink()
            except OSError:
                pass


class KeptHeads:
    """Every signed chain head this player's client received, one `domino-heads/1` file per
    match under <var>/heads/: the player's own evidence of what was played, which
    `domino audit verify --heads` checks an export against (docs/record.md, "Signed heads")."""

    def __init__(self, var_dir: str | Path, player: str) -> None:
        self.directory = Path(var_dir) / "heads" / LastMatch(var_dir, player).path.stem
        self._heads: dict[str, dict[int, dict]] = {}

    def path(self, match_id: str) -> Path:
        safe = re.sub(r"[^A-Za-z0-9-]", "_", match_id)[:60]
        return self.directory / f"{safe}.json"

    def keep(self, view) -> None:
        """Keep ``view``'s head (a MatchView), if it has one not kept yet."""
        if not view.HasField("head"):
            return
        h = view.head
        kept = self._heads.get(h.match_id)
        if kept is None:
            kept = self._heads[h.match_id] = self._read(h.match_id)
        if h.version in kept:
            return
        kept[h.version] = {"match": h.match_id, "version": h.version, "entries": h.entries, "hash": h.hash,
                           "key": h.key_id, "signed_at": h.signed_at.seconds,  # the signed JSON's Unix seconds
                           "signature": base64.b64encode(h.signature).decode()}
        self._write(h.match_id, kept)

    def _read(self, match_id: str) -> dict[int, dict]:
        try:
            data = json.loads(self.path(match_id).read_text())
            return {int(h["version"]): h for h in data["heads"]}
        except (OSError, ValueError, KeyError, TypeError):
            return {}

    def _write(self, match_id: str, kept: dict[int, dict]) -> None:
        path = self.path(match_id)
        try:
            heads = [kept[v] for v in sorted(kept)]
            write_private(path, json.dumps({"format": "domino-heads/1", "match": match_id, "heads": heads}, indent=1))
        except OSError:
            pass  # the game goes on; only this evidence is lost


class Exports:
    """Match records the player exported from "Your matches": one pretty-printed
    domino-record/1 file per match under <var>/exports/<player>-<hash>/, the directory name
    the player's heads are kept under (LastMatch's): two ids that read alike once made safe
    for a file name never share it, and a record and its heads sit under one name."""

    def __init__(self, var_dir: str | Path, player: str) -> None:
        self.directory = Path(var_dir) / "exports" / LastMatch(var_dir, player).path.stem

    def path(self, match_id: str) -> Path:
        safe = re.sub(r"[^A-Za-z0-9-]", "_", match_id)[:60]
        return self.directory / f"{safe}.json"

    def save(self, match_id: str, record_json: str) -> Path:
        """Writes the record (OSError when it cannot); returns where."""
        try:
            text = json.dumps(json.loads(record_json), indent=2, ensure_ascii=False) + "\n"
        except ValueError:
            text = record_json  # kept as the server sent it
        return write_private(self.path(match_id), text)
