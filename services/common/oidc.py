"""Verifies OpenID Connect ID tokens: those players sign in with (Sign in with Apple, Google,
and the issuers the operator lists in DOMINO_OIDC_PROVIDERS; the account service), and those
staff sign in to the console with (its identity provider; services/console/sign_in.py).

A token is believed only when every check passes: an asymmetric algorithm the provider
allows (decided before any key is looked up, so `none` and HS256-with-the-public-key
never reach a key), a key from the issuer's own JWKS fetched over verified HTTPS, the
signature, the issuer, the audience, the times, the subject and the nonce that binds the
token to this sign-in. Every refusal is an `IdTokenRefused` whose message is safe to send
back: it never repeats the token or its claims. Nothing here logs: the caller counts
outcomes (`on_fetch`) and decides what to log.
"""

from __future__ import annotations

import hashlib
import hmac
import http.client
import json
import math
import re
import ssl
import threading
import time
import urllib.request
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any
from urllib.parse import urlparse

import jwt
from jwt import PyJWK, PyJWKSet

MAX_TOKEN_CHARS = 8 * 1024
MAX_NONCE_CHARS = 512
MAX_SUBJECT_CHARS = 255
_MAX_JWKS_BYTES = 512 * 1024
# A failed fetch is retried sooner than a successful one is refreshed: an issuer's
# blip should not keep sign-ins away for a whole `min_refetch_seconds`.
_RETRY_AFTER_FAILURE_SECONDS = 5.0
ASYMMETRIC_ALGORITHMS = frozenset({"RS256", "RS384", "RS512", "PS256", "PS384", "PS512",
                                   "ES256", "ES384", "ES512", "EdDSA"})
_NAME = re.compile(r"[a-z0-9_-]{1,32}")
_COMPACT_JWS = re.compile(r"[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*")
_SHOWABLE_ALG = re.compile(r"[A-Za-z0-9]{1,10}")


class IdTokenRefused(Exception):
    """The token is not accepted; the message says why (never echoes the token) and is
    safe to send to the caller."""


class KeysUnavailable(IdTokenRefused):
    """The issuer's keys could not be fetched, or are being fetched by another sign-in: the
    token may well be good, so the caller should try again (the adapter answers UNAVAILABLE,
    not UNAUTHENTICATED)."""

    def __init__(self, message: str = "cannot fetch the issuer's keys; try again") -> None:
        super().__init__(message)


class UnknownProvider(Exception):
    """The provider name is not configured (the adapter answers INVALID_ARGUMENT)."""


def is_compact_jws(text: str) -> bool:
    """Whether ``text`` has the form of an ID token at all (checked before it counts against
    any limit)."""
    return len(text) <= MAX_TOKEN_CHARS and bool(_COMPACT_JWS.fullmatch(text))


def _is_text(value: str) -> bool:
    """Whether ``value`` is text a store and a log can hold: JSON lets a token carry a lone
    surrogate (`"\\ud800"`), which parses and then cannot be encoded."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return "\x00" not in value


def _is_https_url(value: object) -> bool:
    if not isinstance(value, str):
        return False
    parsed = urlparse(value)
    return parsed.scheme == "https" and bool(parsed.hostname)


@dataclass(frozen=True)
class Provider:
    """One issuer the operator trusts, under the name the app sends as `provider`."""

    name: str
    issuer: str
    jwks_uri: str
    client_ids: tuple[str, ...]
    # "sha256" where the app hands the provider the hash of its nonce (Apple, Firebase's
    # Apple flow); "plain" where the token carries the nonce as sent (Google, most others);
    # "none" for issuers whose tokens carry none (Firebase Auth's own, Cognito's outside its
    # hosted UI): then only the token's short life limits a replay.
    nonce: str = "plain"
    issuer_aliases: tuple[str, ...] = ()
    algorithms: tuple[str, ...] = ("RS256", "ES256")
    # How old a token may be; None: the verifier's (10 minutes). Firebase keeps handing out
    # a token until its hour is up.
    max_age_seconds: float | None = None

    def __post_init__(self) -> None:
        for name in ("client_ids", "issuer_aliases", "algorithms"):
            value = getattr(self, name)
            if isinstance(value, str) or not isinstance(value, Iterable):
                raise ValueError(f"{name} must be a list of strings")
            object.__setattr__(self, name, tuple(value))
        if not isinstance(self.name, str) or not _NAME.fullmatch(self.name):
            raise ValueError("name must be 1-32 characters of [a-z0-9_-]")
        if not _is_https_url(self.issuer):
            raise ValueError("issuer must be an https:// URL")
        if not _is_https_url(self.jwks_uri):
            raise ValueError("jwks_uri must be an https:// URL (keys fetched over plain HTTP could be anyone's)")
        if any(not isinstance(c, str) or not c for c in self.client_ids):
            raise ValueError("client_ids must be non-empty strings")
        if self.nonce not in ("plain", "sha256", "none"):
            raise ValueError('nonce must be "plain", "sha256" or "none"')
        if self.max_age_seconds is not None and not 0 < self.max_age_seconds <= 86400:
            raise ValueError("max_age_seconds must be more than 0 and at most a day")
        if any(not isinstance(a, str) or not a for a in self.issuer_aliases):
            raise ValueError("issuer_aliases must be non-empty strings")
        if not self.algorithms or not set(self.algorithms) <= ASYMMETRIC_ALGORITHMS:
            raise ValueError(f"algorithms must be some of {', '.join(sorted(ASYMMETRIC_ALGORITHMS))}")

    @property
    def issuers(self) -> tuple[str, ...]:
        return (self.issuer, *self.issuer_aliases)


@dataclass(frozen=True)
class VerifiedIdentity:
    provider: str
    issuer: str  # always Provider.issuer, so one identity has one key whatever alias it came with
    subject: str
    # past this the verifier refuses the token anyway (expired or too old)
    usable_until: float = field(default=math.inf, compare=False)
    # every claim of the verified token (the console reads the staff's roles from one)
    claims: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)


APPLE = Provider("apple", "https://appleid.apple.com", "https://appleid.apple.com/auth/keys", (), nonce="sha256")
GOOGLE = Provider("google", "https://accounts.google.com", "https://www.googleapis.com/oauth2/v3/certs", (),
                  nonce="plain", issuer_aliases=("accounts.google.com",))
_WELL_KNOWN = {p.name: p for p in (APPLE, GOOGLE)}


def well_known(name: str, client_ids: Iterable[str]) -> Provider:
    """Apple or Google with the operator's client ids: the rest is the same for everyone."""
    if name not in _WELL_KNOWN:
        raise ValueError(f"no well-known provider is named {name!r} (there are {', '.join(_WELL_KNOWN)})")
    return replace(_WELL_KNOWN[name], client_ids=tuple(client_ids))


_JSON_KEYS = {"name", "issuer", "jwks_uri", "client_ids", "nonce", "issuer_aliases", "algorithms", "max_age_seconds"}


def providers_from_json(text: str) -> tuple[Provider, ...]:
    """Parses DOMINO_OIDC_PROVIDERS. Unknown keys are refused, so a misspelt field cannot
    quietly fall back to a default; "apple" and "google" may give only their client ids."""
    if not text.strip():
        return ()
    try:
        entries = json.loads(text)
    except ValueError as error:
        raise ValueError(f"DOMINO_OIDC_PROVIDERS is not valid JSON: {error}") from None
    if not isinstance(entries, list):
        raise ValueError("DOMINO_OIDC_PROVIDERS must be a JSON list of objects")
    providers: list[Provider] = []
    for index, entry in enumerate(entries):
        where = f"DOMINO_OIDC_PROVIDERS entry {index}"
        if not isinstance(entry, dict):
            raise ValueError(f"{where} is not an object")
        name = entry.get("name")
        if not isinstance(name, str):
            raise ValueError(f"{where} has no name")
        where += f" ({name!r})"
        unknown = set(entry) - _JSON_KEYS
        if unknown:
            raise ValueError(f"{where} has unknown fields: {', '.join(sorted(unknown))}")
        client_ids = entry.get("client_ids")
        if not isinstance(client_ids, list) or not client_ids or not all(isinstance(c, str) for c in client_ids):
            raise ValueError(f"{where}: client_ids must be a non-empty list of strings")
        if any(p.name == name for p in providers):
            raise ValueError(f"{where}: the name {name!r} is used twice")
        fields = dict(entry)
        base = _WELL_KNOWN.get(name)
        if base is not None:
            fields.setdefault("jwks_uri", base.jwks_uri)
            fields.setdefault("nonce", base.nonce)
            if "issuer" not in fields:
                fields["issuer"] = base.issuer
                fields.setdefault("issuer_aliases", list(base.issuer_aliases))
        for required in ("issuer", "jwks_uri"):
            if required not in fields:
                raise ValueError(f"{where}: {required} is missing")
        try:
            providers.append(Provider(**fields))
        except (TypeError, ValueError) as error:
            raise ValueError(f"{where}: {error}") from None
    return tuple(providers)


@dataclass
class _KeyCache:
    lock: threading.Lock = field(default_factory=threading.Lock)
    keys: dict[str, PyJWK] | None = None
    fetched_at: float = -math.inf
    next_fetch_at: float = -math.inf


class _FetchFailed(Exception):
    pass


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """A redirect could lead off HTTPS or to another host: the JWKS is where it is said to be."""

    def redirect_request(self, req: Any, fp: Any, code: int, msg: str, headers: Any, newurl: str) -> None:
        return None


class IdTokenVerifier:
    """Checks ID tokens against the configured providers; `verify` blocks (it may fetch a
    JWKS), so callers run it in a thread. Safe to share between threads.

    Keys are cached per provider. A token naming a key not in the cache makes the JWKS be
    fetched again, at most once per `min_refetch_seconds` of the injected clock: a flood of
    tokens with made-up kids costs the issuer one request a minute, and a genuine rotation
    is picked up at the first token signed with the new key. Cached keys are also
    refreshed once they are `keys_max_age_seconds` old, so a key the issuer withdrew stops
    being trusted; while a refresh fails, the keys already held are still used.
    """

    def __init__(self, providers: Sequence[Provider], *, clock: Callable[[], float] = time.time,
                 leeway_seconds: float = 60.0, max_age_seconds: float = 600.0, ca_file: str | None = None,
                 fetch_timeout_seconds: float = 5.0, min_refetch_seconds: float = 60.0,
                 keys_max_age_seconds: float = 3600.0,
                 on_fetch: Callable[[str, str], None] | None = None) -> None:
        self._providers: dict[str, Provider] = {}
        for provider in providers:
            if provider.name in self._providers:
                raise ValueError(f"provider {provider.name!r} is configured twice")
            if not provider.client_ids:
                raise ValueError(f"provider {provider.name!r} has no client ids")
            self._providers[provider.name] = provider
        self._clock = clock
        self._leeway = leeway_seconds
        self._max_age = max_age_seconds
        self._timeout = fetch_timeout_seconds
        self._min_refetch = min_refetch_seconds
        self._keys_max_age = keys_max_age_seconds
        self._on_fetch = on_fetch
        context = ssl.create_default_context()
        if ca_file:
            context.load_verify_locations(cafile=ca_file)
        self._opener = urllib.request.build_opener(urllib.request.HTTPSHandler(context=context), _NoRedirects())
        self._caches = {name: _KeyCache() for name in self._providers}

    @property
    def providers(self) -> dict[str, Provider]:
        return dict(self._providers)

    def verify(self, provider: str, id_token: str, nonce: str) -> VerifiedIdentity:
        chosen = self._providers.get(provider)
        if chosen is None:
            raise UnknownProvider(f"no provider named {str(provider)[:32]!r} is configured")
        if not isinstance(nonce, str) or (not nonce and chosen.nonce != "none"):
            raise IdTokenRefused("the request has no nonce")
        if len(nonce) > MAX_NONCE_CHARS:
            raise IdTokenRefused(f"the nonce is longer than {MAX_NONCE_CHARS} characters")
        if not isinstance(id_token, str) or not id_token:
            raise IdTokenRefused("the ID token is missing")
        if len(id_token) > MAX_TOKEN_CHARS:
            raise IdTokenRefused("the ID token is longer than 8 KiB")
        if not _COMPACT_JWS.fullmatch(id_token):
            raise IdTokenRefused("the ID token is not a compact JWS")
        try:
            header = jwt.get_unverified_header(id_token)
            unverified = jwt.decode(id_token, options={"verify_signature": False})
        except jwt.PyJWTError:
            raise IdTokenRefused("the ID token is malformed") from None
        alg = header.get("alg")
        if alg not in chosen.algorithms:
            shown = f" {alg}" if isinstance(alg, str) and _SHOWABLE_ALG.fullmatch(alg) else ""
            raise IdTokenRefused(f"the signing algorithm{shown} is not accepted for {chosen.name}")
        kid = header.get("kid")
        if not isinstance(kid, str) or not kid:
            raise IdTokenRefused("the token names no signing key (kid)")
        # Before any key is fetched: a token for another issuer must not make us call ours.
        self._check_issuer(chosen, unverified.get("iss"))
        key = self._key(chosen, kid)
        try:
            # The times are checked below against the injected clock, not PyJWT's.
            claims = jwt.decode(id_token, key, algorithms=[alg], audience=list(chosen.client_ids),
                                issuer=list(chosen.issuers), leeway=self._leeway,
                                options={"require": ["exp", "iat", "iss", "aud", "sub"], "verify_exp": False,
                                         "verify_iat": False, "verify_nbf": False})
        except jwt.InvalidSignatureError:
            raise IdTokenRefused("the token's signature is not valid") from None
        except jwt.InvalidAlgorithmError:
            raise IdTokenRefused("the token's algorithm does not match its key") from None
        except jwt.MissingRequiredClaimError as error:
            raise IdTokenRefused(f"the token has no {error.claim} claim") from None
        except jwt.InvalidAudienceError:
            raise IdTokenRefused("the token is not for this app (aud)") from None
        except jwt.InvalidIssuerError:
            raise IdTokenRefused(f"the token is not from {chosen.name}") from None
        except jwt.PyJWTError:
            raise IdTokenRefused("the ID token is malformed") from None
        self._check_claims(chosen, claims, nonce)
        usable_until = min(float(claims["exp"]), float(claims["iat"]) + (chosen.max_age_seconds or self._max_age))
        return VerifiedIdentity(chosen.name, chosen.issuer, claims["sub"], usable_until + self._leeway,
                                MappingProxyType(claims))

    def _check_issuer(self, provider: Provider, iss: object) -> None:
        if not isinstance(iss, str):
            raise IdTokenRefused("the token has no iss claim")
        if iss in provider.issuers:
            return
        if any(iss in other.issuers for other in self._providers.values()):
            raise IdTokenRefused(f"the token is not from {provider.name}")
        raise IdTokenRefused(f"the token's issuer is not {provider.name}'s")

    def _check_claims(self, provider: Provider, claims: dict[str, Any], nonce: str) -> None:
        now = self._clock()
        times: dict[str, float] = {}
        for name in ("exp", "iat", "nbf"):
            value = claims.get(name)
            if name == "nbf" and value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                raise IdTokenRefused(f"the token's {name} is not a time")
            times[name] = float(value)
        if times["exp"] <= now - self._leeway:
            raise IdTokenRefused("the token has expired")
        if times["iat"] > now + self._leeway:
            raise IdTokenRefused("the token was issued in the future")
        if times.get("nbf", -math.inf) > now + self._leeway:
            raise IdTokenRefused("the token is not valid yet")
        if now - times["iat"] > (provider.max_age_seconds or self._max_age):
            raise IdTokenRefused("the token was issued too long ago; sign in again")
        audiences = claims["aud"]
        azp = claims.get("azp")
        if isinstance(audiences, list) and len(audiences) > 1 and azp is not None and azp not in provider.client_ids:
            raise IdTokenRefused("the token was issued to another app (azp)")
        subject = claims["sub"]
        if not isinstance(subject, str) or not 0 < len(subject) <= MAX_SUBJECT_CHARS or not _is_text(subject):
            raise IdTokenRefused("the token has no valid subject")
        if provider.nonce == "none":
            return
        claimed = claims.get("nonce")
        if not isinstance(claimed, str) or not claimed or not _is_text(claimed) or not _is_text(nonce):
            raise IdTokenRefused("the token has no nonce")
        expected = hashlib.sha256(nonce.encode()).hexdigest() if provider.nonce == "sha256" else nonce
        if not hmac.compare_digest(claimed.encode(), expected.encode()):
            raise IdTokenRefused("the nonce does not match the token")

    def _key(self, provider: Provider, kid: str) -> PyJWK:
        cache = self._caches[provider.name]
        key = self._cached(cache, kid)
        if key is not None:
            return key
        # One fetch at a time per provider, and nobody waits for it: a slow issuer would
        # otherwise hold a thread per sign-in for as long as it takes to answer.
        if not cache.lock.acquire(blocking=False):
            held = cache.keys
            if held is not None and kid in held:
                return held[kid]  # being refreshed: the key held meanwhile is still the issuer's
            raise KeysUnavailable("the issuer's keys are being fetched; try again in a few seconds")
        try:
            key = self._cached(cache, kid)
            if key is not None:
                return key
            now = self._clock()
            failed = False
            if now >= cache.next_fetch_at:
                try:
                    cache.keys = self._fetch(provider)
                    cache.fetched_at = now
                    cache.next_fetch_at = now + self._min_refetch
                except _FetchFailed:
                    failed = True
                    cache.next_fetch_at = now + min(self._min_refetch, _RETRY_AFTER_FAILURE_SECONDS)
            if cache.keys is not None and kid in cache.keys:
                return cache.keys[kid]  # fetched just now, or held keys while a refresh fails
            if failed or cache.keys is None:
                raise KeysUnavailable()
            raise IdTokenRefused("unknown signing key")
        finally:
            cache.lock.release()

    def _cached(self, cache: _KeyCache, kid: str) -> PyJWK | None:
        keys = cache.keys
        if keys is None or self._clock() - cache.fetched_at >= self._keys_max_age:
            return None
        return keys.get(kid)

    def _fetch(self, provider: Provider) -> dict[str, PyJWK]:
        """The provider's signing keys for the algorithms it allows, by kid."""
        request = urllib.request.Request(provider.jwks_uri, headers={"Accept": "application/json"})
        try:
            with self._opener.open(request, timeout=self._timeout) as response:
                body = response.read(_MAX_JWKS_BYTES + 1)
            if len(body) > _MAX_JWKS_BYTES:
                raise ValueError("the JWKS is too large")
            document = json.loads(body)
            if not isinstance(document, dict):
                raise ValueError("the JWKS is not an object")
            keys = {key.key_id: key for key in PyJWKSet.from_dict(document).keys
                    if key.key_id and key.public_key_use in ("sig", None) and key.algorithm_name in provider.algorithms}
            if not keys:
                raise ValueError("the JWKS has no usable signing key")
        except (OSError, ValueError, http.client.HTTPException, jwt.PyJWTError):
            self._count(provider, "error")
            raise _FetchFailed() from None
        self._count(provider, "ok")
        return keys

    def _count(self, provider: Provider, outcome: str) -> None:
        if self._on_fetch is not None:
            self._on_fetch(provider.name, outcome)
