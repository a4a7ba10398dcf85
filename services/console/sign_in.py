"""Signing staff in and out: OpenID Connect (authorization code with PKCE, state and nonce),
and the one-time local link `domino up` prints."""

from __future__ import annotations

import logging

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from .sessions import end_session, start_session
from .staff import Staff

log = logging.getLogger("domino.console")


def _safe_next(value: str | None) -> str:
    """Only a path of this console: never an open redirect to another site."""
    if not value or not value.startswith("/") or value.startswith("//") or "\\" in value:
        return "/"
    return value


async def sign_in_page(request: Request) -> Response:
    return request.app.state.templates.TemplateResponse(request, "sign_in.html", {
        "oidc": bool(request.app.state.settings.oidc_issuer), "next": _safe_next(request.query_params.get("next")),
        "message": ""})


async def local_link(request: Request) -> Response:
    """The one-time local link: signs in a local operator with every role, once."""
    local = getattr(request.app.state, "local_sign_in", None)
    if local is None or not local.redeem(request.path_params["token"]):
        request.app.state.metrics.refusals.labels(reason="sign_in").inc()
        return request.app.state.templates.TemplateResponse(
            request, "sign_in.html", {"oidc": bool(request.app.state.settings.oidc_issuer), "next": "/",
                                      "message": "That sign-in link is not valid (each link signs in once)."},
            status_code=403)
    staff = Staff("local:operator", "Local operator", frozenset({"viewer", "support", "operator", "auditor"}))
    start_session(request, staff)
    request.app.state.metrics.actions.labels(action="sign_in", outcome="ok").inc()
    log.info("staff signed in", extra={"staff": staff.subject, "how": "local link"})
    return RedirectResponse("/", 303)


async def sign_out(request: Request) -> Response:
    staff = end_session(request)
    if staff is not None:
        request.app.state.metrics.actions.labels(action="sign_out", outcome="ok").inc()
        log.info("staff signed out", extra={"staff": staff.subject})
    return RedirectResponse("/sign-in", 303)


routes: list[BaseRoute] = [
    Route("/sign-in", sign_in_page, methods=["GET"], name="sign_in"),
    Route("/sign-in/local/{token}", local_link, methods=["GET"], name="local_sign_in"),
    Route("/sign-out", sign_out, methods=["POST"], name="sign_out"),
]
