"""Who is calling: bearer JWTs (HS256) carrying a subject and a role.

Players hold `player` tokens for their own id; matchmaking and the bot service hold
`service` tokens; auditors hold `auditor` tokens. The secret comes from the environment
(`DOMINO_JWT_SECRET`, a Kubernetes Secret in production).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import jwt

ROLES = ("player", "service", "auditor")
ISSUER = "domino"
ALGORITHM = "HS256"


class AuthError(Exception):
    """No usable credentials; the message says why without echoing the token."""


@dataclass(frozen=True)
class Identity:
    subject: str
    role: str = "player"

    @property
    def is_service(self) -> bool:
        return self.role == "service"

    @property
    def is_auditor(self) -> bool:
        return self.role == "auditor"


def mint_token(subject: str, secret: str, role: str = "player", ttl_seconds: int = 24 * 3600,
               now: float | None = None) -> str:
    if role not in ROLES:
        raise ValueError(f"role must be one of {', '.join(ROLES)}")
    if not subject:
        raise ValueError("a token needs a subject")
    issued = int(time.time() if now is None else now)
    claims = {"sub": subject, "role": role, "iss": ISSUER, "iat": issued, "exp": issued + ttl_seconds}
    return jwt.encode(claims, secret, algorithm=ALGORITHM)


_verified: dict[tuple[str, str], tuple[Identity, float]] = {}
_VERIFIED_LIMIT = 10_000


def verify_token(token: str, secret: str) -> Identity:
    """Checks a token once, then remembers it until it expires: a client sends the same
    token with every call, and an HMAC check plus JSON decoding per call is measurable."""
    known = _verified.get((token, secret))
    if known is not None and known[1] > time.time():
        return known[0]
    identity, expires = _verify(token, secret)
    if len(_verified) >= _VERIFIED_LIMIT:
        _verified.clear()
    _verified[(token, secret)] = (identity, expires)
    return identity


def _verify(token: str, secret: str) -> tuple[Identity, float]:
    try:
        claims = jwt.decode(token, secret, algorithms=[ALGORITHM], issuer=ISSUER,
                            options={"require": ["sub", "exp", "iss"]})
    except jwt.ExpiredSignatureError:
        raise AuthError("the token has expired") from None
    except jwt.InvalidSignatureError:
        raise AuthError("the token's signature is not valid") from None
    except jwt.PyJWTError as e:
        raise AuthError(f"the token is not valid: {e}") from None
    role = claims.get("role", "player")
    if role not in ROLES:
        raise AuthError(f"unknown role {role!r}")
    return Identity(claims["sub"], role), float(claims["exp"])


def bearer_identity(metadata, secret: str) -> Identity:
    """The identity in gRPC call metadata (`authorization: Bearer <token>`)."""
    values = [v for k, v in (metadata or ()) if k.lower() == "authorization"]
    if not values:
        raise AuthError("missing 'authorization: Bearer <token>' metadata")
    scheme, _, token = values[0].partition(" ")
    if scheme.lower() != "bearer" or not token:
        raise AuthError("the authorization metadata must be 'Bearer <token>'")
    return verify_token(token.strip(), secret)
