"""The secrets a phone holds, and the hashes the server keeps instead of them.

A device secret and a refresh token are 256 random bits: no one guesses or brute-forces
them, so a plain SHA-256 is the right hash (a slow password hash protects what people
choose, and would only cost CPU here). Comparisons are constant-time.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import re
import secrets

from .errors import InvalidRequest

_DEVICE_ID = re.compile(r"[A-Za-z0-9_-]{16,128}")
_REFRESH = re.compile(r"rt1\.[A-Za-z0-9_-]{43}")
REFRESH_PREFIX = "rt1."


def device_id_of(text: str, field: str = "device_id") -> str:
    if not text:
        raise InvalidRequest("device_id is required", field)
    if not _DEVICE_ID.fullmatch(text):
        raise InvalidRequest("device_id must be 16-128 characters of A-Z, a-z, 0-9, '_' and '-'", field)
    return text


def device_secret_of(text: str, field: str = "device_secret") -> bytes:
    """The 32 bytes of a secret given as 64 hex digits or 43 base64url characters."""
    if not text:
        raise InvalidRequest(f"{field} is required", field)
    raw: bytes | None = None
    if len(text) == 64:
        try:
            raw = bytes.fromhex(text)
        except ValueError:
            raw = None
    elif len(text) == 43 and re.fullmatch(r"[A-Za-z0-9_-]{43}", text):
        try:
            raw = base64.urlsafe_b64decode(text + "=")
        except (binascii.Error, ValueError):
            raw = None
    if raw is None or len(raw) != 32:
        raise InvalidRequest(f"{field} must be 256 bits: 64 hex digits or 43 base64url characters", field)
    return raw


def hashed(secret: bytes | str) -> str:
    data = secret.encode() if isinstance(secret, str) else secret
    return hashlib.sha256(data).hexdigest()


def same(hash_a: str, hash_b: str) -> bool:
    return hmac.compare_digest(hash_a, hash_b)


def new_refresh_token() -> str:
    return REFRESH_PREFIX + secrets.token_urlsafe(32)


def refresh_token_of(text: str) -> str:
    if not text:
        raise InvalidRequest("refresh_token is required", "refresh_token")
    if not _REFRESH.fullmatch(text):
        raise InvalidRequest("refresh_token is malformed (it is the opaque string a sign-in returned)", "refresh_token")
    return text


def device_key(device_id: str) -> str:
    """What a ban keeps of a device: a hash, which leads back to nothing without the id."""
    return "device:" + hashed("domino-ban-device\0" + device_id)


def identity_key(issuer: str, subject: str) -> str:
    return "identity:" + hashed(f"domino-ban-identity\0{issuer}\0{subject}")


def new_id() -> str:
    """An account or session id: opaque, random, never a name."""
    return secrets.token_hex(16)
