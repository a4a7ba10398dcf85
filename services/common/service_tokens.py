"""A service's own bearer token for calling another service, minted from its key and renewed
a minute before it expires, so a long-running client never sends an expired one."""

from __future__ import annotations

import threading
import time

from .auth import KeyRing, mint_token

RENEW_BEFORE_SECONDS = 60


class ServiceToken:
    def __init__(self, subject: str, keys: KeyRing, ttl_seconds: int) -> None:
        self.subject = subject
        self.keys = keys
        self.ttl_seconds = ttl_seconds
        self._token = (0.0, "")
        self._lock = threading.Lock()

    def metadata(self) -> tuple[tuple[str, str], ...]:
        """The gRPC metadata that carries the token (one lock: calls from many threads mint once)."""
        with self._lock:
            expires, token = self._token
            if expires - time.time() < RENEW_BEFORE_SECONDS:
                token = mint_token(self.subject, self.keys, "service", ttl_seconds=self.ttl_seconds)
                self._token = (time.time() + self.ttl_seconds, token)
        return (("authorization", f"Bearer {token}"),)
