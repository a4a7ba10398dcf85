"""The Players page (being written)."""

from __future__ import annotations

from starlette.routing import BaseRoute

from .coming import coming

routes: list[BaseRoute] = coming("/players", "Players", "support")
