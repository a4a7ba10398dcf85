"""The Now page (viewer and up): what the system is doing this minute, from the services' own
metrics (metrics_watch) and the match service's list of tables in play.

``GET /now`` is the page; ``GET /now/figures`` its figures alone, which the page's htmx asks
for every five seconds. Figures are computed from the last two rounds of scrapes; a target
that does not answer shows as down, and its figures as unknown, never as an error page.
The tables by family and variant, and the people seated at them, come from
MatchAdminService.ListMatches (state IN_PLAY), read ``LISTED_AT_MOST`` at most and at most
once per scrape interval for every viewer.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field

import grpc
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from domino.admin.v1 import match_admin_service_pb2 as admin_pb
from services.common.bot_ids import is_bot

from ..metrics_chart import sparkline
from ..metrics_settings import NowSettings
from ..metrics_watch import MetricsWatch, Reading
from ..staff import Staff, signed_in

LISTED_AT_MOST = 1000
PAGE_SIZE = 100


@dataclass
class Census:
    """The tables in play as ListMatches gives them."""

    by_family: list[tuple[str, str, int]] = field(default_factory=list)  # (rules, variant, tables)
    people: int = 0
    listed: int = 0
    more: bool = False  # more than LISTED_AT_MOST are in play
    failed: str = ""  # why it is unknown


class NowState:
    """Per app: the metrics watcher and the census, each shared by every viewer."""

    def __init__(self, settings: NowSettings | None = None, watch: MetricsWatch | None = None) -> None:
        self.settings = settings or NowSettings()
        self.watch = watch or MetricsWatch(self.settings)
        self.census: Census | None = None
        self.census_at = float("-inf")

    async def take_census(self, request: Request, staff: Staff) -> Census:
        now = time.monotonic()
        if self.census is None or now - self.census_at >= self.settings.scrape_every_seconds:
            self.census, self.census_at = await _census(request, staff), now
        return self.census


def now_state(request: Request) -> NowState:
    state = getattr(request.app.state, "now", None)
    if state is None:
        state = request.app.state.now = NowState()
    return state


async def _census(request: Request, staff: Staff) -> Census:
    clients = request.app.state.clients
    tables: Counter[tuple[str, str]] = Counter()
    people: set[str] = set()
    token, listed = "", 0
    try:
        while listed < LISTED_AT_MOST:
            answer = await clients.match_admin.ListMatches(
                admin_pb.ListMatchesRequest(state=admin_pb.MATCH_STATE_IN_PLAY, page_size=PAGE_SIZE, page_token=token),
                **clients.call_options(staff))
            for listing in answer.matches:
                tables[(listing.rules, listing.variant)] += 1
                people.update(p for p in listing.player_ids if p and not is_bot(p))
            listed += len(answer.matches)
            token = answer.next_page_token
            if not token:
                break
    except grpc.aio.AioRpcError as error:
        return Census(failed=f"the match service answered {error.code().name}")
    return Census(by_family=[(rules, variant, n) for (rules, variant), n in sorted(tables.items())],
                  people=len(people), listed=listed, more=bool(token))


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


def _view(reading: Reading, census: Census, scraped: set[str]) -> dict[str, object]:
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
        "census": census,
    }


async def _context(request: Request) -> dict[str, object]:
    staff = await signed_in(request, "viewer")
    state = now_state(request)
    reading = await state.watch.reading()
    census = await state.take_census(request, staff)
    return _view(reading, census, {t.service for t in state.settings.targets})


async def page(request: Request) -> Response:
    context = await _context(request)
    return request.app.state.templates.TemplateResponse(request, "now.html", context)


async def figures(request: Request) -> Response:
    context = await _context(request)
    return request.app.state.templates.TemplateResponse(request, "now_figures.html", context)


routes: list[BaseRoute] = [Route("/now", page, methods=["GET"], name="now"),
                           Route("/now/figures", figures, methods=["GET"], name="now_figures")]
