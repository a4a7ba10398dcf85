"""`domino play` counts a turn down by the server's clock, over real gRPC: on a device whose
clock is 4 s ahead a 30 s turn's first screen said 26 s left (issue 34, finding 13). Every
view says the server's time when it was sent; the client counts from it and from how long
ago the view arrived on its own monotonic clock."""

from __future__ import annotations

import io
import re
import time

import pytest
from rich.console import Console

from services.client.api import MatchApi
from services.client.game import Game, GameOptions
from services.client.inbox import Inbox
from services.client.terminal import Output
from services.match.application import MatchApplication
from tests.support.keys import token

from .harness import running_service


@pytest.fixture
def svc():
    app = MatchApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    with running_service(app) as service:
        yield service


def first_countdown(svc, request_id: str, skew: float) -> int:
    """The seconds the first screen of a fresh 30 s turn shows on a device ``skew`` s off."""
    match_id = svc.create(variant="draw-2", players=("ann", "bob"), request_id=request_id,
                          turn_timer_seconds=30).match_id
    api = MatchApi(f"127.0.0.1:{svc.port}", token("ann"))
    file = io.StringIO()
    inbox = Inbox()
    inbox.put("line", "q")
    try:
        Game(api, inbox, Output(Console(file=file, width=100, color_system=None), redraw=False),
             GameOptions(tick=0), clock=lambda: time.time() + skew).run(match_id)
    finally:
        api.close()
    return int(re.search(r"(\d+) s left", file.getvalue()).group(1))


@pytest.mark.parametrize("skew", [4.0, -4.0, 3600.0], ids=["4s-ahead", "4s-behind", "an-hour-ahead"])
def test_a_device_whose_clock_is_off_shows_the_whole_turn(svc, skew):
    assert first_countdown(svc, f"skew-{skew}", skew) == 30
