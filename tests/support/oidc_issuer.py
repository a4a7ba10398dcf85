"""A real OpenID Connect issuer for tests: an HTTPS server on 127.0.0.1 whose certificate a
private CA signed (tests/support/tls.py), serving its discovery document and JWKS, and
signing ID tokens with its RSA (RS256) and EC (ES256) keys.

    with OidcIssuer() as issuer:
        verifier = IdTokenVerifier([issuer.provider()], ca_file=str(issuer.ca_file))
        verifier.verify("test", issuer.sign("user-1", "domino-app", "n-1"), "n-1")

Services started as processes get the same issuer with ``issuer.env()``
(DOMINO_OIDC_PROVIDERS and DOMINO_OIDC_CA_FILE).
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
                                        "id_token_signing_alg_values_supported": ["RS256", "ES256"]})
                elif self.path == "/jwks.json":
                    with issuer._lock:
                        issuer._fetches += 1
                    issuer.asked.set()
                    issuer.answering.wait(30)
                    issuer._send(self, issuer.jwks())
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
    def _send(handler: BaseHTTPRequestHandler, document: dict[str, Any]) -> None:
        body = json.dumps(document).encode()
        handler.send_response(200)
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
