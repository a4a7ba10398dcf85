"""The console's front door: straight to Now."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from ..staff import signed_in


async def home(request: Request) -> Response:
    await signed_in(request)
    return RedirectResponse("/now", 303)


routes: list[BaseRoute] = [Route("/", home, methods=["GET"], name="home")]
