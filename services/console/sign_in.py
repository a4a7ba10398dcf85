"""Signing staff in and out: OpenID Connect (authorization code with PKCE, state and nonce),
and the one-time local link `domino up` prints.

A sign-in's state, nonce and PKCE verifier stay in this process (`PendingSignIns`); the
browser holds only the state, in a cookie of its own, so the provider's answer is taken only
in the browser that asked, once, within ten minutes. That cookie is SameSite=Lax, where the
session's is Strict: the provider's redirect back is a navigation from another site, which a
Strict cookie does not follow. For the same reason the callback answers a page that moves on
by itself (a navigation from the console's own page carries the Strict session cookie, a
redirect at the end of the provider's chain would not). Roles come from the ID token's roles claim
through the operator's map (DOMINO_CONSOLE_ROLE_MAP); staff with none mapped are refused.
"""

from __future__ import annotations

import hmac
import logging
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from services.common.auth import STAFF_ROLES

from .identity_provider import SignInFailed
from .sessions import current_staff, end_session, start_session
from .staff import Staff
from .staff_actions import acted, record

log = logging.getLogger("domino.console")
PENDING_SECONDS = 600.0
_MAX_PENDING = 1000
LOCAL_OPERATOR = Staff("local|operator", "Local operator", frozenset(STAFF_ROLES))


@dataclass(frozen=True)
class _Pending:
    nonce: str
    verifier: str
    next: str
    started: float


class PendingSignIns:
    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._pending: OrderedDict[str, _Pending] = OrderedDict()

    def add(self, state: str, nonce: str, verifier: str, next_path: str) -> None:
        self._pending[state] = _Pending(nonce, verifier, next_path, self.clock())
        while len(self._pending) > _MAX_PENDING:
            self._pending.popitem(last=False)

    def take(self, state: str) -> _Pending | None:
        pending = self._pending.pop(state, None)
        if pending is None or self.clock() - pending.started > PENDING_SECONDS:
            return None
        return pending


def staff_roles(claims: Mapping[str, Any], claim: str, role_map: Mapping[str, str]) -> frozenset[str]:
    """The staff roles the token's ``claim`` (a string or a list of strings) maps to."""
    values = claims.get(claim)
    if isinstance(values, str):
        values = [values]
    if not isinstance(values, list):
        return frozenset()
    return frozenset(role_map[v] for v in values if isinstance(v, str) and v in role_map)


def staff_name(claims: Mapping[str, Any]) -> str:
    for name in ("name", "preferred_username", "email", "sub"):
        value = claims.get(name)
        if isinstance(value, str) and value.strip():
            return value.strip()[:100]
    return "staff"


def _safe_next(value: str | None) -> str:
    """Only a path of this console: never an open redirect to another site (browsers drop
    tabs and newlines from a URL: "/<tab>/evil.example" would read as "//evil.example")."""
    if (not value or not value.startswith("/") or value.startswith("//") or "\\" in value or len(value) > 512
            or any(ord(c) < 0x21 or ord(c) == 0x7f for c in value)):
        return "/"
    return value


def _page(request: Request, message: str = "", status: int = 200, next_path: str = "/") -> Response:
    return request.app.state.templates.TemplateResponse(
        request, "sign_in.html", {"oidc": request.app.state.identity_provider is not None, "next": next_path,
                                  "message": message}, status_code=status)


def _refused(request: Request, message: str, status: int = 403) -> Response:
    request.app.state.metrics.refusals.labels(reason="sign_in").inc()
    log.warning("sign-in refused", extra={"why": message})
    return _page(request, message, status)


async def sign_in_page(request: Request) -> Response:
    if current_staff(request) is not None:
        return RedirectResponse("/", 303)
    return _page(request, next_path=_safe_next(request.query_params.get("next")))


async def start(request: Request) -> Response:
    provider = request.app.state.identity_provider
    if provider is None:
        return _page(request, "No identity provider is configured.", 404)
    try:
        asked = await provider.authorization_request()
    except SignInFailed as failed:
        return _refused(request, str(failed), 502)
    request.app.state.pending_sign_ins.add(asked.state, asked.nonce, asked.verifier,
                                           _safe_next(request.query_params.get("next")))
    response = RedirectResponse(asked.url, 303)
    https = request.app.state.settings.https
    response.set_cookie(_state_cookie(request), asked.state, max_age=int(PENDING_SECONDS), path="/", secure=https,
                        httponly=True, samesite="lax")
    return response


def _state_cookie(request: Request) -> str:
    return "__Host-console-sign-in" if request.app.state.settings.https else "console-sign-in"


async def callback(request: Request) -> Response:
    provider = request.app.state.identity_provider
    state, code = request.query_params.get("state", ""), request.query_params.get("code", "")
    expected = request.cookies.get(_state_cookie(request), "")
    if provider is None or not state or not hmac.compare_digest(state.encode(), expected.encode()):
        return _refused(request, "This sign-in did not start in this browser, or has already been used. "
                                 "Sign in again.")
    pending = request.app.state.pending_sign_ins.take(state)
    if pending is None:
        return _refused(request, "This sign-in took too long. Sign in again.")
    if request.query_params.get("error") or not code:
        return _refused(request, "The identity provider did not sign you in.")
    try:
        verified = await provider.signed_in(code, pending.verifier, pending.nonce)
    except SignInFailed as failed:
        return _refused(request, f"Sign-in failed: {failed}.")
    settings = request.app.state.settings
    roles = staff_roles(verified.claims, settings.roles_claim, settings.role_map)
    name = staff_name(verified.claims)
    if not roles:
        return _refused(request, f"{name}, your account holds no console role: ask for one of the groups the "
                                 "console maps to a role.")
    staff = Staff(f"oidc|{verified.subject}", name, roles)
    start_session(request, staff)
    acted(request, staff, "sign_in", "ok", how="oidc", roles=sorted(roles))
    await record(request, staff, "console.sign_in", why="OpenID Connect")
    response = request.app.state.templates.TemplateResponse(request, "signed_in.html", {"next": pending.next})
    response.delete_cookie(_state_cookie(request), path="/", secure=request.app.state.settings.https,
                           httponly=True, samesite="lax")
    return response


async def local_link(request: Request) -> Response:
    """The one-time local link: signs in a local operator with every role, once."""
    local = request.app.state.local_sign_in
    if local is None or not local.redeem(request.path_params["token"]):
        return _refused(request, "That sign-in link is not valid (each link signs in once).")
    start_session(request, LOCAL_OPERATOR)
    acted(request, LOCAL_OPERATOR, "sign_in", "ok", how="local link")
    await record(request, LOCAL_OPERATOR, "console.sign_in", why="local one-time link")
    return RedirectResponse("/", 303)


async def sign_out(request: Request) -> Response:
    staff = current_staff(request)
    if staff is not None:
        await record(request, staff, "console.sign_out")
        acted(request, staff, "sign_out", "ok")
    end_session(request)
    return RedirectResponse("/sign-in", 303)


routes: list[BaseRoute] = [
    Route("/sign-in", sign_in_page, methods=["GET"], name="sign_in"),
    Route("/sign-in/start", start, methods=["GET"], name="sign_in_start"),
    Route("/sign-in/callback", callback, methods=["GET"], name="sign_in_callback"),
    Route("/sign-in/local/{token}", local_link, methods=["GET"], name="local_sign_in"),
    Route("/sign-out", sign_out, methods=["POST"], name="sign_out"),
]
