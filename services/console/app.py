"""The console's ASGI application: its pages, sign-in, static files and the guards around them.

`create_app(settings, clients)` is all a process or a test needs; `request.app.state` holds
what handlers use: `clients` (gRPC stubs and per-staff metadata), `templates` (Jinja2),
`sessions`, `staff_limit` (the per-staff rate limit), `metrics` and `settings`.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path

import grpc
from jinja2 import pass_context
from markupsafe import Markup, escape
from prometheus_client import CollectorRegistry
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.sessions import SessionMiddleware
from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from services.common.client_address import trusted_networks
from services.common.limits import RateLimit, TooMany

from .clients import Clients
from .guards import CSRF_FIELD, CSRF_HEADER, ClientRateLimit, CsrfCheck, SecurityHeaders
from .identity_provider import IdentityProvider
from .local_link import LocalSignIn
from .metrics import ConsoleMetrics, PageTimer
from .pages import home, log, matches, now, players, tables
from .sessions import SessionBook, current_staff, session_id
from .settings import ConsoleSettings
from .sign_in import PendingSignIns, routes as sign_in_routes
from .staff import RoleTooLow, SignInNeeded

HERE = Path(__file__).parent
NAV = (("Now", "/now"), ("Tables", "/tables"), ("Players", "/players"), ("Matches", "/matches"),
       ("Operator log", "/log"))


def create_app(settings: ConsoleSettings, clients: Clients, *, clock: Callable[[], float] = time.monotonic,
               metrics: ConsoleMetrics | None = None, session_secret: str | None = None,
               identity_provider: IdentityProvider | None = None, local_sign_in: LocalSignIn | None = None
               ) -> Starlette:
    """``clock`` times sessions and sign-ins out (monotonic seconds); ``metrics``: a fresh
    registry's unless given; ``identity_provider``: the settings' unless given;
    ``local_sign_in``: the one-time local link, if the process wrote one."""
    metrics = metrics or ConsoleMetrics(CollectorRegistry())
    sessions = SessionBook(settings.idle_timeout_seconds, settings.absolute_timeout_seconds, clock)
    per_second = settings.actions_per_minute / 60
    middleware = [
        Middleware(PageTimer, metrics=metrics),
        Middleware(SecurityHeaders),
        Middleware(ClientRateLimit, limit=RateLimit(per_second, 2 * settings.actions_per_minute, clock=clock),
                   trusted=trusted_networks(settings.trusted_proxies), metrics=metrics),
        Middleware(SessionMiddleware, secret_key=session_secret or _session_secret(settings),
                   session_cookie="__Host-console" if settings.https else "console",
                   max_age=int(settings.absolute_timeout_seconds), same_site="strict", https_only=settings.https),
        Middleware(CsrfCheck, sessions=sessions, metrics=metrics),
    ]
    routes = [Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
              Route("/healthz", _healthz, methods=["GET"], name="healthz"), *sign_in_routes,
              *home.routes, *now.routes, *tables.routes, *players.routes, *matches.routes, *log.routes]
    app = Starlette(routes=routes, middleware=middleware, exception_handlers={
        SignInNeeded: _to_sign_in, RoleTooLow: _role_too_low, TooMany: _too_many,
        grpc.aio.AioRpcError: _service_failed})
    app.state.settings, app.state.clients, app.state.metrics = settings, clients, metrics
    app.state.sessions = sessions
    app.state.staff_limit = RateLimit(per_second, 2 * settings.actions_per_minute, clock=clock)
    app.state.templates = _templates()
    app.state.identity_provider = identity_provider if identity_provider is not None else _identity_provider(settings)
    app.state.pending_sign_ins = PendingSignIns(clock)
    app.state.local_sign_in = local_sign_in
    return app


def _identity_provider(settings: ConsoleSettings) -> IdentityProvider | None:
    if not settings.oidc_issuer:
        return None
    secret = Path(settings.oidc_client_secret_file).read_text().strip() if settings.oidc_client_secret_file else ""
    return IdentityProvider(settings.oidc_issuer, settings.oidc_client_id, secret, settings.redirect_uri,
                            ca_file=settings.oidc_ca_file or None, timeout_seconds=settings.call_deadline_seconds)


async def _healthz(request: Request) -> Response:
    """For `domino up` and Kubernetes' probes: the process answers HTTP."""
    return PlainTextResponse("ok")


def _session_secret(settings: ConsoleSettings) -> str:
    if settings.session_secret_file:
        return Path(settings.session_secret_file).read_text().strip()
    return secrets.token_urlsafe(32)


def _templates() -> Jinja2Templates:
    templates = Jinja2Templates(directory=HERE / "templates", context_processors=[_page_context])
    templates.env.globals["csrf_field"] = _csrf_field
    templates.env.globals["csrf_token"] = _csrf_token
    templates.env.globals["csrf_header"] = CSRF_HEADER
    templates.env.globals["nav"] = NAV
    templates.env.filters["when"] = when
    return templates


def when(value: object) -> str:
    """A protobuf Timestamp or epoch seconds as UTC text; "" for an unset one."""
    raw = getattr(value, "seconds", value)
    seconds = float(raw) if isinstance(raw, (int, float)) else 0.0
    if not seconds:
        return ""
    return datetime.fromtimestamp(seconds, timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


def _page_context(request: Request) -> dict[str, object]:
    return {"signed_in_staff": current_staff(request, use=False)}  # the handler counted the use, or not


@pass_context
def _csrf_token(context: dict) -> str:
    request: Request = context["request"]
    return request.app.state.sessions.csrf_token(session_id(request))


@pass_context
def _csrf_field(context: dict) -> Markup:
    return Markup('<input type="hidden" name="{}" value="{}">').format(CSRF_FIELD, escape(_csrf_token(context)))


async def _to_sign_in(request: Request, exc: Exception) -> Response:
    target = "/sign-in"
    if request.method == "GET" and request.url.path != "/":
        target += "?next=" + request.url.path
    if request.headers.get("hx-request"):
        return Response(status_code=204, headers={"HX-Redirect": target})
    return RedirectResponse(target, 303)


async def _role_too_low(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RoleTooLow)
    return request.app.state.templates.TemplateResponse(request, "refused.html", {"needed": exc.needed},
                                                         status_code=403)


async def _too_many(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, TooMany)
    request.app.state.metrics.refusals.labels(reason="rate").inc()
    return request.app.state.templates.TemplateResponse(
        request, "error.html", {"title": "Too many requests", "message": str(exc)}, status_code=429,
        headers={"Retry-After": str(max(1, round(exc.retry_after or 1)))})


async def _service_failed(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, grpc.aio.AioRpcError)
    status = {grpc.StatusCode.NOT_FOUND: 404, grpc.StatusCode.PERMISSION_DENIED: 403,
              grpc.StatusCode.INVALID_ARGUMENT: 400, grpc.StatusCode.FAILED_PRECONDITION: 409,
              grpc.StatusCode.RESOURCE_EXHAUSTED: 429}.get(exc.code(), 502)
    return request.app.state.templates.TemplateResponse(
        request, "error.html", {"title": "The service refused" if status < 500 else "A service did not answer",
                                "message": f"{exc.code().name}: {exc.details() or ''}"}, status_code=status)
