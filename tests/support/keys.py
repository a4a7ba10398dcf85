"""The key ring the services under test trust, and tokens minted with it."""

from __future__ import annotations

from services.common.auth import KeyRing, mint_token

KEYS = KeyRing.generate()  # one per test run: every service a test starts trusts it


def token(subject: str, role: str = "player") -> str:
    return mint_token(subject, KEYS, role)


def auth(subject: str, role: str = "player") -> tuple:
    """gRPC metadata carrying a bearer token for ``subject`` in ``role``."""
    return (("authorization", f"Bearer {token(subject, role)}"),)
