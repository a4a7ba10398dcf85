"""A bot reads its seat's view from the wire (GetMatch's MatchView) and must get exactly the
engine's PlayerView for that seat, in every family: the adapter cannot drift from the domain."""

from __future__ import annotations

import pytest

from services.bots.views import view_from_pb
from services.match.application import MatchApplication, SeatSpec
from services.match.messages import match_view
from services.rules.moves import legal_moves
from services.rules.view import player_view
from tests.support.clock import Clock
from tests.support.families import option_tables, params, sample_tables
from tests.support.matches import Matches

FIELDS = ("hand", "line", "left_end", "right_end", "tile_counts", "boneyard_count", "scores", "target", "round_number",
          "turn", "legal_moves", "actions", "up_end", "down_end", "up_line", "down_line", "spinner_at", "ends_total",
          "play_points", "remembered", "opened", "pot")


@pytest.mark.parametrize("table", params(sample_tables() + option_tables()))
def test_a_bot_reads_from_the_wire_exactly_the_view_the_engine_gives_its_seat(table):
    app = Matches(MatchApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"}, clock=Clock()))
    match = app.create_match("m", table.family, table.variant or "", table.teams, None, 0,
                             [SeatSpec(p) for p in "abcd"[:table.seats]], table.chosen)
    for n in range(150):
        if match.finished:
            break
        seat = match.state.round.turn
        engine, wire = player_view(match.state, seat), view_from_pb(match_view(match, seat))
        assert wire.rules == engine.rules
        for field in FIELDS:
            assert getattr(wire, field) == getattr(engine, field), f"action {n}: {field}"
        move = legal_moves(match.state.round)[-1]
        if move.kind == "draw":
            match = app.draw_tile(match.id, match.seats[seat], f"q{n}").match
        else:
            match = app.play_tile(match.id, match.seats[seat], move.tile, move.end, f"q{n}").match
