"""A page not written yet: signed-in staff see that it is coming."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from ..staff import signed_in


def coming(path: str, title: str, role: str | tuple[str, ...] = "viewer") -> list[BaseRoute]:
    async def page(request: Request) -> Response:
        await signed_in(request, role)
        return request.app.state.templates.TemplateResponse(request, "coming.html", {"title": title})

    return [Route(path, page, methods=["GET"], name=path.strip("/") or "home")]
