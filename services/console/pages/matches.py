"""The Matches page (not written yet)."""

from __future__ import annotations

from starlette.routing import BaseRoute

from .coming import coming

routes: list[BaseRoute] = coming("/matches", "Matches")
