"""Who is calling: bearer JWTs signed with Ed25519, one key pair per kind of token.

There are five kinds (roles): `player` (a person, for their own seat), `bot` (the bot
service, for a bot's seat), `service` (matchmaking, to create and look up matches),
`auditor` (to export whole records), `account` (the account service, to erase a deleted
account's history and social rows, and to read its social rows for its export) and
`operator` (the console, for a signed-in member of staff: `staff_roles` and `staff_name`
claims; the services check the roles on every admin call). Each kind has its own key pair: a process holds the private key only
of the kinds it issues (matchmaking: `service`; bots: `bot`; the account service: `player`
and `account`; the audit desk: `auditor`) and the public keys of
the kinds it accepts, so a compromised bot pod cannot mint an auditor's or a service's
token. A token names its kind (`role` claim, `kid` header), its issuer (`domino-<role>`)
and may not live longer than its kind allows (``MAX_LIFETIME``).

Keys are PEM files in one directory (``DOMINO_KEYS_DIR``): `<role>.key` (private) and
`<role>.pub` (public). `domino up` generates development keys under `var/keys/`; any other
start without the keys it needs refuses to run and says which are missing.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from .private_files import private_directory, write_private

ROLES = ("player", "bot", "service", "auditor", "account", "operator")
# What a member of staff may be, in the console and in an operator token's `staff_roles`
# (one person may hold several; every role may see what a viewer sees).
STAFF_ROLES = ("viewer", "support", "operator", "auditor")
# The one place roles nest: every role may do what a viewer may, and an operator what support
# may; an auditor is not support.
_ROLES_ALLOWING = {"viewer": STAFF_ROLES, "support": ("support", "operator"), "operator": ("operator",),
                   "auditor": ("auditor",)}


def roles_allowing(*needed: str) -> tuple[str, ...]:
    """The staff roles any of which allows what one of ``needed`` allows, in STAFF_ROLES order."""
    allowed = {role for need in needed for role in _ROLES_ALLOWING[need]}
    return tuple(role for role in STAFF_ROLES if role in allowed)
ALGORITHM = "EdDSA"
CLOCK_SKEW_SECONDS = 60  # how far ahead of ours an issuer's clock may run
HOUR = 3600
STREAM_EXPIRED = "the token has expired; reconnect with a fresh one"  # how a stream ends at its token's expiry
# A player's access token lives 15 minutes at most: a ban reaches every service within that,
# and a revoked session stays on the revocation list no longer (docs/security.md).
MAX_LIFETIME = {"player": 15 * 60, "bot": HOUR, "service": HOUR, "auditor": HOUR, "account": HOUR,
                "operator": 5 * 60}


class AuthError(Exception):
    """No usable credentials; the message says why without echoing the token, and
    ``error_reason`` what a client does about it (docs/api.md, "Errors")."""

    error_reason = "TOKEN_INVALID"

    def __init__(self, message: str, error_reason: str | None = None) -> None:
        super().__init__(message)
        if error_reason is not None:
            self.error_reason = error_reason


class MissingKeys(RuntimeError):
    """A process was started without the keys it needs."""


def issuer(role: str) -> str:
    return f"domino-{role}"


@dataclass(frozen=True)
class Identity:
    subject: str
    role: str = "player"
    expires_at: float = float("inf")
    session: str = ""  # the account service's session id (`sid`), for SignOut
    signed_in_at: float = 0.0  # when the session's sign-in happened (`auth_time`): refreshes keep it
    staff_roles: tuple[str, ...] = ()  # an operator token's: some of STAFF_ROLES
    staff_name: str = ""

    @property
    def is_staff(self) -> bool:
        return self.role == "operator"

    @property
    def is_service(self) -> bool:
        return self.role == "service"

    @property
    def is_auditor(self) -> bool:
        return self.role == "auditor"

    @property
    def is_bot(self) -> bool:
        return self.role == "bot"


@dataclass
class KeyRing:
    """The keys one process holds: private keys of the kinds it issues, public keys of the
    kinds it accepts."""

    private: dict[str, Ed25519PrivateKey] = field(default_factory=dict)
    public: dict[str, Ed25519PublicKey] = field(default_factory=dict)

    @classmethod
    def generate(cls, roles=ROLES) -> "KeyRing":
        private = {role: Ed25519PrivateKey.generate() for role in roles}
        return cls(private, {role: key.public_key() for role, key in private.items()})

    def only(self, issues=(), accepts=()) -> "KeyRing":
        """The part of this ring a process with those duties should hold."""
        return KeyRing({r: self.private[r] for r in issues}, {r: self.public[r] for r in accepts})

    def write(self, directory: Path) -> None:
        """Every key as a file of ``directory`` (0700), each 0600: never readable by others."""
        private_directory(directory)
        for role, key in self.private.items():
            write_private(directory / f"{role}.key", key.private_bytes(
                serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
        for role, public in self.public.items():
            write_private(directory / f"{role}.pub", public.public_bytes(
                serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))

    @classmethod
    def load(cls, directory: str | Path, issues=(), accepts=()) -> "KeyRing":
        """The keys a process needs from ``directory``; MissingKeys names what is not there."""
        where = Path(directory) if directory else None
        if where is None or not where.is_dir():
            raise MissingKeys(f"no key directory ({where or 'DOMINO_KEYS_DIR is not set'}); it must hold "
                              + ", ".join([f"{r}.key" for r in issues] + [f"{r}.pub" for r in accepts])
                              + " (`domino up` makes development keys under var/keys)")
        ring = cls()
        for role in issues:
            ring.private[role] = _read(where / f"{role}.key", private=True)
        for role in accepts:
            ring.public[role] = _read(where / f"{role}.pub", private=False)
        return ring


def _read(path: Path, private: bool):
    try:
        data = path.read_bytes()
    except OSError:
        raise MissingKeys(f"missing key {path}") from None
    try:
        key = (serialization.load_pem_private_key(data, None) if private else serialization.load_pem_public_key(data))
    except (ValueError, TypeError):
        raise MissingKeys(f"{path} is not a PEM {'private' if private else 'public'} key") from None
    wanted = Ed25519PrivateKey if private else Ed25519PublicKey
    if not isinstance(key, wanted):
        raise MissingKeys(f"{path} is not an Ed25519 key")
    return key


def mint_token(subject: str, keys: KeyRing, role: str = "player", ttl_seconds: int | None = None,
               now: float | None = None, session: str = "", signed_in_at: float | None = None,
               staff_roles: tuple[str, ...] = (), staff_name: str = "") -> str:
    if role not in ROLES:
        raise ValueError(f"role must be one of {', '.join(ROLES)}")
    if not subject:
        raise ValueError("a token needs a subject")
    if role not in keys.private:
        raise MissingKeys(f"this process holds no key to issue {role} tokens")
    ttl = MAX_LIFETIME[role] if ttl_seconds is None else min(ttl_seconds, MAX_LIFETIME[role])
    issued = int(time.time() if now is None else now)
    claims: dict[str, object] = {"sub": subject, "role": role, "iss": issuer(role), "iat": issued,
                                 "exp": issued + ttl}
    if session:
        claims["sid"] = session
    if signed_in_at is not None:
        claims["auth_time"] = int(signed_in_at)
    if role == "operator":
        if not staff_roles or not set(staff_roles) <= set(STAFF_ROLES):
            raise ValueError(f"staff_roles must be some of {', '.join(STAFF_ROLES)}")
        claims["staff_roles"], claims["staff_name"] = sorted(set(staff_roles)), staff_name[:100]
    return jwt.encode(claims, keys.private[role], algorithm=ALGORITHM, headers={"kid": role})


_verified: dict[tuple[str, int], tuple[Identity, float]] = {}
_VERIFIED_LIMIT = 10_000


def verify_token(token: str, keys: KeyRing) -> Identity:
    """Checks a token once, then remembers it until it expires: a client sends the same
    token with every call, and a signature check plus JSON decoding per call is measurable."""
    known = _verified.get((token, id(keys)))
    if known is not None and known[1] > time.time():
        return known[0]
    identity = _verify(token, keys)
    if len(_verified) >= _VERIFIED_LIMIT:
        _verified.clear()
    _verified[(token, id(keys))] = (identity, identity.expires_at)
    return identity


def _verify(token: str, keys: KeyRing) -> Identity:
    try:
        role = jwt.get_unverified_header(token).get("kid")
    except jwt.PyJWTError:
        raise AuthError("the token is not valid (not a JWT)") from None
    if role not in ROLES:
        raise AuthError("the token names no known kind of token (kid)")
    key = keys.public.get(role)
    if key is None:
        raise AuthError(f"{role} tokens are not accepted here", "WRONG_CALLER")
    try:
        # An `iat` a moment ahead is the issuer's clock running ahead of ours, not a forgery:
        # up to CLOCK_SKEW_SECONDS is taken (below), more would stretch a token's life.
        claims = jwt.decode(token, key, algorithms=[ALGORITHM], issuer=issuer(role),
                            options={"require": ["sub", "exp", "iat", "iss"], "verify_iat": False})
    except jwt.ExpiredSignatureError:
        raise AuthError("the token has expired", "TOKEN_EXPIRED") from None
    except jwt.InvalidSignatureError:
        raise AuthError("the token's signature is not valid") from None
    except jwt.PyJWTError as e:
        raise AuthError(f"the token is not valid: {str(e)[:100]}") from None
    if claims.get("role") != role:
        raise AuthError("the token's role does not match its kind")
    if not isinstance(claims["sub"], str) or not 0 < len(claims["sub"]) <= 200:
        raise AuthError("the token's subject is not valid")
    if claims["iat"] > time.time() + CLOCK_SKEW_SECONDS:
        raise AuthError("the token is stamped in the future (iat)")
    if claims["exp"] - claims["iat"] > MAX_LIFETIME[role]:
        longest = MAX_LIFETIME[role]
        raise AuthError(f"{role} tokens may live at most "
                        + (f"{longest // HOUR} h" if longest % HOUR == 0 else f"{longest // 60} minutes"))
    session, signed_in_at = claims.get("sid", ""), claims.get("auth_time", claims["iat"])
    if not isinstance(session, str) or len(session) > 100 or not isinstance(signed_in_at, int):
        raise AuthError("the token's session claims are not valid")
    staff_roles, staff_name = claims.get("staff_roles", []), claims.get("staff_name", "")
    if role == "operator" and not _staff_claims_valid(staff_roles, staff_name):
        raise AuthError("the operator token's staff claims are not valid")
    if role != "operator":
        staff_roles, staff_name = [], ""
    return Identity(claims["sub"], role, float(claims["exp"]), session, float(signed_in_at),
                    tuple(staff_roles), staff_name)


def _staff_claims_valid(roles: object, name: object) -> bool:
    return (isinstance(roles, list) and 0 < len(roles) <= len(STAFF_ROLES) and set(roles) <= set(STAFF_ROLES)
            and isinstance(name, str) and len(name) <= 100)


def bearer_identity(metadata, keys: KeyRing) -> Identity:
    """The identity in gRPC call metadata (`authorization: Bearer <token>`)."""
    values = [v for k, v in (metadata or ()) if k.lower() == "authorization"]
    if not values:
        raise AuthError("missing 'authorization: Bearer <token>' metadata", "TOKEN_MISSING")
    scheme, _, token = values[0].partition(" ")
    if scheme.lower() != "bearer" or not token:
        raise AuthError("the authorization metadata must be 'Bearer <token>'")
    if len(token) > 4096:
        raise AuthError("the token is too long")
    return verify_token(token.strip(), keys)
