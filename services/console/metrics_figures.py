"""The Now page's figures, each named for what an operator asks at 3 a.m., computed from two
successive scrapes of every target (metrics_arithmetic), and the short memory of them the
page's small charts draw (``FigureRing``: the last ten minutes).

Which series each figure reads is written beside it; docs/operations.md's metrics table says
what each series means.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Mapping

from . import metrics_arithmetic as m
from .metrics_scrape import Scrapes, label_is, label_is_not

# The statuses that are the caller's own (as deploy/monitoring/alerts.yaml splits them):
# everything else a service answers is its own error.
CALLER_CODES = ("OK|CANCELLED|INVALID_ARGUMENT|FAILED_PRECONDITION|NOT_FOUND|PERMISSION_DENIED|UNAUTHENTICATED"
                "|RESOURCE_EXHAUSTED|ALREADY_EXISTS|OUT_OF_RANGE")
MOVES = "PlayTile|DrawTile"  # a player's commands at the table
RPC_SERVICES = ("match", "matchmaking", "account", "social")  # domino_<service>_rpcs_total


@dataclass(frozen=True)
class Figures:
    """One moment's figures; None where unknown (a target down, nothing observed yet)."""

    at: float
    up: Mapping[str, bool]  # target name -> answered
    tables_in_play: float | None
    seated_streams: float | None
    spectator_streams: float | None
    edge_streams: float | None
    moves_per_second: float | None
    move_p99_seconds: float | None
    rpc_p99_seconds: float | None  # the match service's unary RPCs
    relay_lag_seconds: float | None
    relay_lag_events: float | None
    bot_decision_p99_seconds: float | None
    errors_per_second: Mapping[str, float | None] = field(default_factory=dict)  # by service
    # (rules, variant, tables, people) from the relay's match index; None: the relay is down
    in_play: tuple[tuple[str, str, int, int], ...] | None = None


def figures(before: Scrapes, after: Scrapes, at: float) -> Figures:
    """The figures between two rounds of scrapes (the same targets, by name)."""
    moves = label_is(method=MOVES)
    return Figures(
        at=at,
        up={name: s.up for name, s in sorted(after.items())},
        # every match replica's timer follows the whole store: max, not sum
        tables_in_play=m.gauge(after, "domino_match_active_matches", "max"),
        seated_streams=m.gauge(after, "domino_match_open_streams", where=label_is(kind="seated")),
        spectator_streams=m.gauge(after, "domino_match_open_streams", where=label_is(kind="spectator")),
        edge_streams=m.gauge(after, "domino_edge_open_streams"),
        moves_per_second=m.rate(before, after, "domino_match_rpcs_total", moves),
        move_p99_seconds=m.quantile(0.99, before, after, "domino_match_rpc_seconds", moves),
        rpc_p99_seconds=m.quantile(0.99, before, after, "domino_match_rpc_seconds", label_is_not(method="Watch.*")),
        relay_lag_seconds=m.gauge(after, "domino_relay_lag_seconds", "max"),
        relay_lag_events=m.gauge(after, "domino_relay_lag_events", "max"),
        bot_decision_p99_seconds=m.quantile(0.99, before, after, "domino_bots_decision_seconds"),
        errors_per_second=errors_by_service(before, after),
        in_play=in_play_by_family(after),
    )


def in_play_by_family(after: Scrapes) -> tuple[tuple[str, str, int, int], ...] | None:
    """The relay's domino_tables_in_play and domino_people_in_play, by family and variant."""
    relay = next((s for s in after.values() if s.target.service == "relay" and s.up), None)
    if relay is None:
        return None
    people = relay.series("domino_people_in_play")
    rows = []
    for labels, tables in relay.series("domino_tables_in_play").items():
        named = dict(labels)
        rows.append((named.get("rules", ""), named.get("variant", ""), int(tables), int(people.get(labels, 0))))
    return tuple(sorted(rows))


def errors_by_service(before: Scrapes, after: Scrapes) -> dict[str, float | None]:
    """Server-side failures per second: RPCs answered with a status that is not the caller's
    (as DominoRpcServerErrors counts them), the bots' failed turns, the edge's own errors."""
    server_side = label_is_not(code=CALLER_CODES)
    errors = {service: m.rate(before, after, f"domino_{service}_rpcs_total", server_side, service=service)
              for service in RPC_SERVICES}
    errors["bots"] = m.rate(before, after, "domino_bots_errors_total", service="bots")
    errors["edge"] = m.rate(before, after, "domino_edge_requests_total", server_side, service="edge")
    return errors


class FigureRing:
    """The last ``keep`` rounds of scrapes' figures, oldest first, and the scrapes the next
    figures are computed against."""

    def __init__(self, keep: int = 120) -> None:
        self.figures: deque[Figures] = deque(maxlen=keep)
        self.rounds: deque[Scrapes] = deque(maxlen=keep)

    def add(self, scrapes: Scrapes, at: float) -> Figures:
        before = self.rounds[-1] if self.rounds else {}
        self.rounds.append(scrapes)
        latest = figures(before, scrapes, at)
        self.figures.append(latest)
        return latest

    @property
    def latest(self) -> Figures | None:
        return self.figures[-1] if self.figures else None

    def window(self, seconds: float) -> tuple[Scrapes, Scrapes] | None:
        """The oldest round within ``seconds`` of the newest, and the newest: what an alert's
        ``rate(...[5m])`` is computed over here."""
        if len(self.rounds) < 2:
            return None
        newest = self.rounds[-1]
        newest_at = max((s.at for s in newest.values()), default=0.0)
        for round_ in self.rounds:
            if round_ is not newest and newest_at - max((s.at for s in round_.values()), default=0.0) <= seconds:
                return round_, newest
        return self.rounds[-2], newest

    def history(self, attribute: str) -> list[tuple[float, float | None]]:
        """(time, value) of one figure, oldest first."""
        return [(f.at, getattr(f, attribute)) for f in self.figures]
