"""``python -m services.match.development_head_key DIR``: a head signing key in DIR
(heads.py's ``rotate``) unless DIR holds one already.

The local run (services/common/supervisor.py) makes its development keys once per
installation. The head key is the match service's, and the supervisor knows the services only
as processes it starts (``python -m services.cli serve NAME``), so it asks for this key as a
process too, rather than importing the match service: common is below every service
(docs/design.md, "The parts")."""

from __future__ import annotations

import sys
from pathlib import Path

from .heads import PRIVATE_FILE, rotate


def ensure(directory: Path) -> str | None:
    """The id of the key made in ``directory``, or None when it had one."""
    if (directory / PRIVATE_FILE).exists():
        return None
    return rotate(directory)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python -m services.match.development_head_key DIR")
    ensure(Path(sys.argv[1]))
