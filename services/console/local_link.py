"""The one-time local sign-in link: a random token written to a private file under var/, good once."""

from __future__ import annotations

import hmac
import secrets
from pathlib import Path

from services.common.private_files import write_private


class LocalSignIn:
    def __init__(self, token: str | None = None) -> None:
        self._token: str | None = token or secrets.token_urlsafe(32)

    def link(self, public_url: str) -> str:
        return f"{public_url}/sign-in/local/{self._token}" if self._token else ""

    def write(self, path: Path, public_url: str) -> Path:
        """Writes the link (0600) for `domino up` to print."""
        return write_private(path, self.link(public_url) + "\n")

    def redeem(self, token: str) -> bool:
        """Whether ``token`` is the link's; the first right answer uses it up."""
        if self._token is None or not hmac.compare_digest(token.encode(), self._token.encode()):
            return False
        self._token = None
        return True
