"""The staff's identity provider, as the console's OpenID Connect client sees it: its
discovery document, the authorization request (code flow, PKCE S256, state and nonce), the
code exchange, and the ID token checked by the same verifier the account service uses.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import secrets
import ssl
from dataclasses import dataclass
from urllib.parse import urlencode

import httpx

from services.common.oidc import ASYMMETRIC_ALGORITHMS, IdTokenRefused, IdTokenVerifier, Provider, VerifiedIdentity

_MAX_DOCUMENT_BYTES = 256 * 1024


class SignInFailed(Exception):
    """The identity provider could not be used or its answer is not believed; the message is
    safe to show (it never repeats a token)."""


@dataclass(frozen=True)
class AuthorizationRequest:
    """What a sign-in keeps until the provider sends the browser back."""

    url: str
    state: str
    nonce: str
    verifier: str


def pkce_challenge(verifier: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()


class IdentityProvider:
    def __init__(self, issuer: str, client_id: str, client_secret: str, redirect_uri: str, *,
                 ca_file: str | None = None, timeout_seconds: float = 5.0) -> None:
        self.issuer, self.client_id, self.client_secret = issuer.rstrip("/"), client_id, client_secret
        self.redirect_uri, self.ca_file, self.timeout = redirect_uri, ca_file, timeout_seconds
        context = ssl.create_default_context()
        if ca_file:
            context.load_verify_locations(cafile=ca_file)
        self._tls = context
        self._endpoints: tuple[str, str] | None = None  # authorization, token
        self._verifier: IdTokenVerifier | None = None
        self._discovery = asyncio.Lock()

    async def authorization_request(self) -> AuthorizationRequest:
        authorize, _ = await self._discover()
        state, nonce, verifier = (secrets.token_urlsafe(32) for _ in range(3))
        query = urlencode({"response_type": "code", "client_id": self.client_id, "redirect_uri": self.redirect_uri,
                           "scope": "openid profile email", "state": state, "nonce": nonce,
                           "code_challenge": pkce_challenge(verifier), "code_challenge_method": "S256"})
        return AuthorizationRequest(f"{authorize}{'&' if '?' in authorize else '?'}{query}", state, nonce, verifier)

    async def signed_in(self, code: str, verifier: str, nonce: str) -> VerifiedIdentity:
        """Exchanges ``code`` (with the PKCE ``verifier``) and checks the ID token it brings."""
        _, token_endpoint = await self._discover()
        form = {"grant_type": "authorization_code", "code": code, "redirect_uri": self.redirect_uri,
                "code_verifier": verifier, "client_id": self.client_id}
        auth = httpx.BasicAuth(self.client_id, self.client_secret) if self.client_secret else None
        answer = await self._post(token_endpoint, form, auth)
        id_token = answer.get("id_token")
        if not isinstance(id_token, str):
            raise SignInFailed("the identity provider answered no ID token")
        assert self._verifier is not None
        try:
            return await asyncio.to_thread(self._verifier.verify, "staff", id_token, nonce)
        except IdTokenRefused as refused:
            raise SignInFailed(f"the ID token is refused: {refused}") from None

    async def _discover(self) -> tuple[str, str]:
        async with self._discovery:
            if self._endpoints is None:
                document = await self._get(f"{self.issuer}/.well-known/openid-configuration")
                if document.get("issuer", "").rstrip("/") != self.issuer:
                    raise SignInFailed("the identity provider's discovery document names another issuer")
                endpoints = [document.get(name) for name in ("authorization_endpoint", "token_endpoint", "jwks_uri")]
                if not all(isinstance(url, str) and url.startswith("https://") for url in endpoints):
                    raise SignInFailed("the identity provider's discovery document lacks an https:// endpoint")
                authorize, token, jwks = (str(url) for url in endpoints)
                offered = document.get("id_token_signing_alg_values_supported") or ["RS256"]
                algorithms = tuple(a for a in offered if a in ASYMMETRIC_ALGORITHMS) or ("RS256",)
                # tokens carry the issuer exactly as the provider writes it ("https://x/" for some)
                named = str(document["issuer"])
                provider = Provider("staff", named, jwks, (self.client_id,), nonce="plain", algorithms=algorithms,
                                    issuer_aliases=tuple({self.issuer, self.issuer + "/"} - {named}))
                self._verifier = IdTokenVerifier([provider], ca_file=self.ca_file, fetch_timeout_seconds=self.timeout)
                self._endpoints = (authorize, token)
            return self._endpoints

    async def _get(self, url: str) -> dict:
        return await self._call("GET", url)

    async def _post(self, url: str, form: dict[str, str], auth: httpx.BasicAuth | None) -> dict:
        return await self._call("POST", url, data=form, auth=auth)

    async def _call(self, method: str, url: str, **kwargs: object) -> dict:
        try:
            async with httpx.AsyncClient(verify=self._tls, timeout=self.timeout, follow_redirects=False) as client:
                response = await client.request(method, url, headers={"Accept": "application/json"},
                                                **kwargs)  # type: ignore[arg-type]
        except httpx.HTTPError:
            raise SignInFailed("the identity provider did not answer; try again") from None
        if response.status_code != 200 or len(response.content) > _MAX_DOCUMENT_BYTES:
            raise SignInFailed(f"the identity provider answered HTTP {response.status_code}")
        try:
            document = response.json()
        except ValueError:
            raise SignInFailed("the identity provider's answer is not JSON") from None
        if not isinstance(document, dict):
            raise SignInFailed("the identity provider's answer is not a JSON object")
        return document
