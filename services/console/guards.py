"""What every response and every request passes through: security headers, the CSRF check,
and the per-client-address rate limit (ASGI middleware, so no route can miss them).

The CSRF token is the session's synchronizer token, sent as the `csrf_token` form field or the
`X-CSRF-Token` header (htmx sends the header, set with hx-headers on <body>). A non-GET
request without the right one is answered 403 before any handler runs, so it changes nothing.
"""

from __future__ import annotations

import hmac
from collections.abc import Sequence
from urllib.parse import parse_qs

from starlette.datastructures import Headers, MutableHeaders
from starlette.responses import HTMLResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from services.common.client_address import Network, client_key
from services.common.limits import RateLimit, TooMany

from .metrics import ConsoleMetrics
from .sessions import SessionBook

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
       "frame-ancestors 'none'; form-action 'self'; base-uri 'none'; object-src 'none'")
CSRF_FIELD = "csrf_token"
CSRF_HEADER = "x-csrf-token"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
MAX_FORM_BYTES = 64 * 1024


class SecurityHeaders:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        static = scope["path"].startswith("/static/")

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                headers["Content-Security-Policy"] = CSP
                headers["X-Content-Type-Options"] = "nosniff"
                headers["Referrer-Policy"] = "no-referrer"
                headers["X-Frame-Options"] = "DENY"
                headers["Cross-Origin-Opener-Policy"] = "same-origin"
                if not static:
                    headers["Cache-Control"] = "no-store"
            await send(message)

        await self.app(scope, receive, send_with_headers)


def _refused(status: int, text: str, headers: dict[str, str] | None = None) -> Response:
    return HTMLResponse(f"<!doctype html><html lang=en><title>Refused</title><main><h1>Refused</h1><p>{text}</p>"
                        "<p><a href=\"/\">Back to the console</a></p></main></html>", status, headers=headers)


class CsrfCheck:
    """Runs inside SessionMiddleware (it reads scope["session"])."""

    def __init__(self, app: ASGIApp, sessions: SessionBook, metrics: ConsoleMetrics) -> None:
        self.app, self.sessions, self.metrics = app, sessions, metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in SAFE_METHODS:
            await self.app(scope, receive, send)
            return
        sid = scope.get("session", {}).get("sid", "")
        expected = self.sessions.csrf_token(sid) if isinstance(sid, str) and sid else ""
        headers = Headers(scope=scope)
        sent = headers.get(CSRF_HEADER, "")
        body, complete = await _read_body(receive)  # bounded, whether the token is in it or in the header
        if not complete:
            await _refused(413, "The form is too large.")(scope, receive, send)
            return
        if not sent and headers.get("content-type", "").startswith("application/x-www-form-urlencoded"):
            sent = parse_qs(body.decode("latin-1")).get(CSRF_FIELD, [""])[0]
        if not expected or not hmac.compare_digest(sent.encode(), expected.encode()):
            self.metrics.refusals.labels(reason="csrf").inc()
            await _refused(403, "This form is out of date or did not come from the console (its CSRF token is "
                                "missing or wrong). Reload the page and try again.")(scope, receive, send)
            return
        await self.app(scope, _replay(body, receive), send)


async def _read_body(receive: Receive) -> tuple[bytes, bool]:
    chunks, size = [], 0
    while True:
        message = await receive()
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_FORM_BYTES:
            return b"", False
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks), True


def _replay(body: bytes, receive: Receive) -> Receive:
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


class ClientRateLimit:
    """One token bucket per client address (an IPv6 client's /64; X-Forwarded-For believed only
    from the trusted proxies), over every request but static files."""

    def __init__(self, app: ASGIApp, limit: RateLimit, trusted: Sequence[Network], metrics: ConsoleMetrics) -> None:
        self.app, self.limit, self.trusted, self.metrics = app, limit, trusted, metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"].startswith("/static/"):
            await self.app(scope, receive, send)
            return
        host = (scope.get("client") or ("", 0))[0]
        peer = f"ipv6:[{host}]:0" if ":" in host else f"ipv4:{host}:0"
        try:
            self.limit.take(client_key(peer, Headers(scope=scope).items(), self.trusted))
        except TooMany as too_many:
            self.metrics.refusals.labels(reason="rate").inc()
            retry = str(max(1, round(too_many.retry_after or 1)))
            await _refused(429, "Too many requests from this address; wait a moment.",
                           {"Retry-After": retry})(scope, receive, send)
            return
        await self.app(scope, receive, send)
