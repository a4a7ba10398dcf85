"""The Now page (viewer and up): what the system is doing this minute, from the services' own
metrics (metrics_watch).

``GET /now`` is the page; ``GET /now/figures`` its figures alone, which the page's htmx asks
for every five seconds. Figures are computed from the last two rounds of scrapes; a target
that does not answer shows as down, and its figures as unknown, never as an error page.
The tables by family and variant, and the people seated at them, are the relay's gauges
(domino_tables_in_play, domino_people_in_play), counted from the history's match index.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from ..metrics_chart import sparkline
from ..metrics_settings import NowSettings
from ..metrics_watch import MetricsWatch, Reading
from ..staff import signed_in


class NowState:
    """Per app: the metrics watcher, shared by every viewer."""

    def __init__(self, settings: NowSettings | None = None, watch: MetricsWatch | None = None) -> None:
        self.settings = settings or NowSettings()
        self.watch = watch or MetricsWatch(self.settings)


def now_state(request: Request) -> NowState:
    state = getattr(request.app.state, "now", None)
    if state is None:
        state = request.app.state.now = NowState()
    return state


def seconds(value: float | None) -> str:
    if value is None:
        return "unknown"
    return f"{value * 1000:.0f} ms" if value < 1 else f"{value:.2f} s"


def number(value: float | None, digits: int = 0) -> str:
    if value is None:
        return "unknown"
    return f"{value:,.{digits}f}"


def _figure(reading: Reading, attribute: str, label: str, shown: str) -> dict[str, object]:
    return {"label": label, "value": shown, "chart": sparkline(reading.ring.history(attribute), label)}


def _view(reading: Reading, scraped: set[str]) -> dict[str, object]:
    """``scraped``: the services the console has a target of (the others' rows are left out)."""
    f = reading.figures
    errors = []
    for service, value in sorted(f.errors_per_second.items()):
        if service not in scraped:
            continue
        history = [(x.at, x.errors_per_second.get(service)) for x in reading.ring.figures]
        errors.append({"service": service, "value": number(value, 2),
                       "bad": bool(value), "chart": sparkline(history, f"{service} errors per second")})
    return {
        "figures": [
            _figure(reading, "tables_in_play", "Tables in play", number(f.tables_in_play)),
            _figure(reading, "seated_streams", "Seated streams (players, bots, services)", number(f.seated_streams)),
            _figure(reading, "spectator_streams", "Spectator streams", number(f.spectator_streams)),
            _figure(reading, "edge_streams", "Browser streams through the edge", number(f.edge_streams)),
            _figure(reading, "moves_per_second", "Moves per second (PlayTile, DrawTile)", number(f.moves_per_second, 1)),
            _figure(reading, "move_p99_seconds", "Move p99", seconds(f.move_p99_seconds)),
            _figure(reading, "rpc_p99_seconds", "Match service unary RPC p99", seconds(f.rpc_p99_seconds)),
            _figure(reading, "relay_lag_seconds", "Relay lag", seconds(f.relay_lag_seconds)),
            _figure(reading, "relay_lag_events", "Events waiting for the relay", number(f.relay_lag_events)),
            _figure(reading, "bot_decision_p99_seconds", "Bot decision p99", seconds(f.bot_decision_p99_seconds)),
        ],
        "errors": errors,
        "targets": [{"name": name, "up": up} for name, up in f.up.items()],
        "alerts": reading.alerts,
        "alerts_from": reading.alerts_from,
        "in_play": f.in_play,
        "people_in_play": None if f.in_play is None else sum(row[3] for row in f.in_play),
    }


async def _context(request: Request, refresh: bool = False) -> dict[str, object]:
    await signed_in(request, "viewer", refresh=refresh)
    state = now_state(request)
    reading = await state.watch.reading()
    return _view(reading, {t.service for t in state.settings.targets})


async def page(request: Request) -> Response:
    context = await _context(request)
    return request.app.state.templates.TemplateResponse(request, "now.html", context)


async def figures(request: Request) -> Response:
    context = await _context(request, refresh=True)
    return request.app.state.templates.TemplateResponse(request, "now_figures.html", context)


routes: list[BaseRoute] = [Route("/now", page, methods=["GET"], name="now"),
                           Route("/now/figures", figures, methods=["GET"], name="now_figures")]
