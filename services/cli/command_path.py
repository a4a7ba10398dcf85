"""How to run `domino` from here, said in hints ("start it with: .venv/bin/domino up"): a
module of its own, so `domino play` can say it without importing what `domino up` starts."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path


def command_path() -> str:
    """How to run `domino` from here: the bare name when the shell finds this one, else the
    path (`.venv/bin/domino` after `make run`)."""
    mine = Path(sys.argv[0]).resolve() if sys.argv and sys.argv[0] else Path(sys.executable).parent / "domino"
    if mine.name != "domino":
        mine = Path(sys.executable).parent / "domino"
    found = shutil.which("domino")
    if found and Path(found).resolve() == mine.resolve():
        return "domino"
    try:
        return str(mine.relative_to(Path.cwd()))
    except ValueError:
        return str(mine)
