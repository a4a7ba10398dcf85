"""A real OpenID Connect issuer for tests: an HTTPS server on 127.0.0.1 whose certificate a
private CA signed (tests/support/tls.py), serving its discovery document and JWKS, and
signing ID tokens with its RSA (RS256) and EC (ES256) keys.

    with OidcIssuer() as issuer:
        verifier = IdTokenVerifier([issuer.provider()], ca_file=str(issuer.ca_file))
        verifier.verify("test", issuer.sign("user-1", "domino-app", "n-1"), "n-1")

Services started as processes get the same issuer with ``issuer.env()``
(DOMINO_OIDC_PROVIDERS and DOMINO_OIDC_CA_FILE).

It also signs staff in to the console by the authorization code flow: ``register_client``
the console, ``sign_in_as`` the member of staff the next /authorize signs in (it answers at
once with a redirect carrying a code: no login form), and /token exchanges the code once,
checking the client, the redirect URI and the PKCE verifier, for an ID token with the nonce.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import itertools
import json
import secrets
import shutil
import ssl
import tempfile
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from jwt.algorithms import ECAlgorithm, RSAAlgorithm

from services.common.oidc import Provider
from tests.support.tls import make_pki

PrivateKey = rsa.RSAPrivateKey | ec.EllipticCurvePrivateKey
_KIDS = itertools.count(1)


def new_key(alg: str = "RS256") -> PrivateKey:
    """A fresh private key for ``alg`` (RS256 or ES256), e.g. to sign with a key the JWKS lacks."""
    if alg == "RS256":
        return rsa.generate_private_key(public_exponent=65537, key_size=2048)
    if alg == "ES256":
        return ec.generate_private_key(ec.SECP256R1())
    raise ValueError(f"no keys for {alg}")


def sha256_nonce(raw: str) -> str:
    """What an Apple-style token carries for the raw nonce the app keeps."""
    return hashlib.sha256(raw.encode()).hexdigest()


@dataclass
class _SigningKey:
    kid: str
    alg: str
    private: PrivateKey

    def jwk(self) -> dict[str, Any]:
        public = self.private.public_key()
        jwk = (RSAAlgorithm.to_jwk(public, as_dict=True) if isinstance(public, rsa.RSAPublicKey)
               else ECAlgorithm.to_jwk(public, as_dict=True))
        return {**jwk, "kid": self.kid, "alg": self.alg, "use": "sig"}

    def public_pem(self) -> bytes:
        return self.private.public_key().public_bytes(serialization.Encoding.PEM,
                                                      serialization.PublicFormat.SubjectPublicKeyInfo)


@dataclass(frozen=True)
class _StaffUser:
    subject: str
    name: str
    groups: tuple[str, ...]
    claim: str
    extra: dict[str, Any]


@dataclass(frozen=True)
class _Code:
    user: _StaffUser
    client_id: str
    redirect_uri: str
    challenge: str
    nonce: str


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class OidcIssuer:
    """Start with ``start()`` or ``with``; ``fetches`` counts the JWKS downloads."""

    def __init__(self, directory: Path | None = None) -> None:
        self._own_directory = directory is None
        self._directory = Path(tempfile.mkdtemp(prefix="oidc-issuer-")) if directory is None else directory
        self._pki = make_pki(self._directory, f"oidc-{next(_KIDS)}")  # one CA name per issuer: bundles tell them apart
        self._lock = threading.Lock()
        self._keys = {alg: _SigningKey(f"key-{next(_KIDS)}", alg, new_key(alg)) for alg in ("RS256", "ES256")}
        self._fetches = 0
        # A slow issuer: while ``answering`` is clear, key requests wait (``asked`` tells a
        # test one has arrived); set by default.
        self.answering = threading.Event()
        self.answering.set()
        self.asked = threading.Event()
        self._clients: dict[str, str] = {}  # client id -> secret ("" for a public client)
        self._user: _StaffUser | None = None
        self._codes: dict[str, _Code] = {}
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.port = 0

    # ---- the server ------------------------------------------------------------------
    def start(self) -> OidcIssuer:
        issuer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                if self.path == "/.well-known/openid-configuration":
                    issuer._send(self, {"issuer": issuer.issuer, "jwks_uri": issuer.jwks_uri,
                                        "authorization_endpoint": f"{issuer.issuer}/authorize",
                                        "token_endpoint": f"{issuer.issuer}/token",
                                        "id_token_signing_alg_values_supported": ["RS256", "ES256"]})
                elif self.path.startswith("/authorize?"):
                    issuer._authorize(self)
                elif self.path == "/jwks.json":
                    with issuer._lock:
                        issuer._fetches += 1
                    issuer.asked.set()
                    issuer.answering.wait(30)
                    issuer._send(self, issuer.jwks())
                else:
                    self.send_error(404)

            def do_POST(self) -> None:  # noqa: N802
                if self.path == "/token":
                    issuer._token(self)
                else:
                    self.send_error(404)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        server.daemon_threads = True
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(self._pki.cert, self._pki.key)
        # The handshake then happens in each request's own thread, not in the accept loop.
        server.socket = context.wrap_socket(server.socket, server_side=True, do_handshake_on_connect=False)
        self.port = server.server_address[1]
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, args=(0.05,), name="oidc-issuer", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stops serving (the port refuses connections); the keys stay, ``start()`` again
        serves them on the same port."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def close(self) -> None:
        self.stop()
        if self._own_directory:
            shutil.rmtree(self._directory, ignore_errors=True)

    def __enter__(self) -> OidcIssuer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    @staticmethod
    def _send(handler: BaseHTTPRequestHandler, document: dict[str, Any], status: int = 200) -> None:
        body = json.dumps(document).encode()
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)

    # ---- what it publishes ---------------------------------------------------------------
    @property
    def issuer(self) -> str:
        return f"https://127.0.0.1:{self.port}"

    @property
    def jwks_uri(self) -> str:
        return f"{self.issuer}/jwks.json"

    @property
    def ca_file(self) -> Path:
        return self._pki.ca

    @property
    def fetches(self) -> int:
        with self._lock:
            return self._fetches

    def kid(self, alg: str = "RS256") -> str:
        """The kid the current ``alg`` key signs with."""
        return self._keys[alg].kid

    def public_pem(self, alg: str = "RS256") -> bytes:
        return self._keys[alg].public_pem()

    def jwks(self) -> dict[str, Any]:
        with self._lock:
            return {"keys": [key.jwk() for key in self._keys.values()]}

    def rotate(self, alg: str = "RS256") -> str:
        """A new ``alg`` key with a new kid signs from now on; the old one leaves the JWKS."""
        key = _SigningKey(f"key-{next(_KIDS)}", alg, new_key(alg))
        with self._lock:
            self._keys[alg] = key
        return key.kid

    # ---- tokens ---------------------------------------------------------------------------
    def sign(self, subject: str, audience: str | list[str], nonce: str | None, *, kid: str | None = None,
             alg: str = "RS256", issued_at: float | None = None, expires_in: float = 600,
             extra: dict[str, Any] | None = None, key: PrivateKey | None = None, issuer: str | None = None,
             headers: dict[str, Any] | None = None) -> str:
        """An ID token as the provider would give the app. ``extra`` adds claims (a None
        value removes one); ``headers`` likewise for the JOSE header. ``key`` signs instead
        of this issuer's key (still under its kid unless ``kid`` says otherwise).
        ``alg="none"`` makes an unsigned token, ``alg="HS256"`` one whose HMAC secret is the
        RSA public key's PEM: the two classic forgeries."""
        now = time.time() if issued_at is None else issued_at
        claims: dict[str, Any] = {"iss": self.issuer if issuer is None else issuer, "sub": subject,
                                  "aud": audience, "iat": int(now), "exp": int(now + expires_in),
                                  "jti": secrets.token_hex(8)}  # as Google's: each token is new
        if nonce is not None:
            claims["nonce"] = nonce
        header: dict[str, Any] = {"kid": kid if kid is not None else self._keys.get(alg, self._keys["RS256"]).kid}
        for source, target in ((extra, claims), (headers, header)):
            for name, value in (source or {}).items():
                if value is None:
                    target.pop(name, None)
                else:
                    target[name] = value
        if alg in ("none", "HS256"):
            header = {"alg": alg, "typ": "JWT", **header}
            signing_input = f"{_b64(json.dumps(header).encode())}.{_b64(json.dumps(claims).encode())}"
            signature = b"" if alg == "none" else hmac.new(self.public_pem(), signing_input.encode(),
                                                           hashlib.sha256).digest()
            return f"{signing_input}.{_b64(signature)}"
        private = key if key is not None else self._keys[alg].private
        return jwt.encode(claims, private, algorithm=alg, headers=header)

    # ---- the console's sign-in (authorization code flow) ---------------------------------
    def register_client(self, client_id: str, secret: str = "") -> None:
        """A client that may sign staff in; with a secret it must authenticate (HTTP Basic)."""
        with self._lock:
            self._clients[client_id] = secret

    def sign_in_as(self, subject: str, name: str = "", groups: Iterable[str] = (), *, claim: str = "roles",
                   extra: dict[str, Any] | None = None) -> None:
        """Who the next /authorize signs in: ``groups`` become the ``claim`` of the ID token,
        ``extra`` adds (or, as None, removes) claims, as in ``sign``."""
        with self._lock:
            self._user = _StaffUser(subject, name, tuple(groups), claim, dict(extra or {}))

    def sign_nobody_in(self) -> None:
        """/authorize answers access_denied, as a provider whose user cancelled."""
        with self._lock:
            self._user = None

    def _authorize(self, handler: BaseHTTPRequestHandler) -> None:
        query = {k: v[0] for k, v in parse_qs(urlsplit(handler.path).query).items()}
        redirect_uri = query.get("redirect_uri", "")
        with self._lock:
            known = query.get("client_id") in self._clients
            user = self._user
        if not known or not redirect_uri.startswith(("http://", "https://")):
            self._send(handler, {"error": "invalid_request"}, 400)
            return
        answer: dict[str, str] = {"state": query.get("state", "")}
        if user is None or query.get("response_type") != "code" or query.get("code_challenge_method") != "S256":
            answer["error"] = "access_denied"
        else:
            code = secrets.token_urlsafe(16)
            with self._lock:
                self._codes[code] = _Code(user, query["client_id"], redirect_uri, query.get("code_challenge", ""),
                                          query.get("nonce", ""))
            answer["code"] = code
        handler.send_response(302)
        handler.send_header("Location", f"{redirect_uri}{'&' if '?' in redirect_uri else '?'}{urlencode(answer)}")
        handler.send_header("Content-Length", "0")
        handler.end_headers()

    def _token(self, handler: BaseHTTPRequestHandler) -> None:
        length = int(handler.headers.get("Content-Length") or 0)
        form = {k: v[0] for k, v in parse_qs(handler.rfile.read(length).decode()).items()}
        client_id, secret = form.get("client_id", ""), ""
        authorization = handler.headers.get("Authorization", "")
        if authorization.startswith("Basic "):
            client_id, _, secret = base64.b64decode(authorization[6:]).decode().partition(":")
        with self._lock:
            expected_secret = self._clients.get(client_id)
            code = self._codes.pop(form.get("code", ""), None)
        if expected_secret is None or not hmac.compare_digest(secret, expected_secret):
            self._send(handler, {"error": "invalid_client"}, 401)
            return
        verifier = form.get("code_verifier", "")
        challenge = _b64(hashlib.sha256(verifier.encode()).digest())
        if (code is None or form.get("grant_type") != "authorization_code" or code.client_id != client_id
                or code.redirect_uri != form.get("redirect_uri") or not verifier
                or not hmac.compare_digest(challenge, code.challenge)):
            self._send(handler, {"error": "invalid_grant"}, 400)
            return
        user = code.user
        claims: dict[str, Any] = {user.claim: list(user.groups)}
        if user.name:
            claims["name"] = user.name
        claims.update(user.extra)
        id_token = self.sign(user.subject, client_id, code.nonce or None, extra=claims)
        self._send(handler, {"access_token": secrets.token_urlsafe(16), "token_type": "Bearer", "expires_in": 300,
                             "id_token": id_token})

    # ---- configuration for the verifier -------------------------------------------------
    def provider(self, name: str = "test", client_ids: Iterable[str] = ("domino-app",),
                 nonce: str = "plain") -> Provider:
        return Provider(name, self.issuer, self.jwks_uri, tuple(client_ids), nonce=nonce)

    def provider_entry(self, name: str = "test", client_ids: Iterable[str] = ("domino-app",),
                       nonce: str = "plain") -> dict[str, Any]:
        """One entry of DOMINO_OIDC_PROVIDERS; "apple" or "google" as ``name`` stands in for
        the real one (the explicit issuer and jwks_uri win over the well-known ones)."""
        return {"name": name, "issuer": self.issuer, "jwks_uri": self.jwks_uri,
                "client_ids": list(client_ids), "nonce": nonce}

    def providers_json(self, name: str = "test", client_ids: Iterable[str] = ("domino-app",),
                       nonce: str = "plain") -> str:
        """DOMINO_OIDC_PROVIDERS naming this issuer alone."""
        return json.dumps([self.provider_entry(name, client_ids, nonce)])

    def env(self, name: str = "test", client_ids: Iterable[str] = ("domino-app",),
            nonce: str = "plain") -> dict[str, str]:
        """The environment a service process needs to trust this issuer."""
        return {"DOMINO_OIDC_PROVIDERS": self.providers_json(name, client_ids, nonce),
                "DOMINO_OIDC_CA_FILE": str(self.ca_file)}
