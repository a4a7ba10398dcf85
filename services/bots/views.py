"""A MatchView from the wire, turned into the engine's PlayerView that strategies read.

The bot service only ever has what GetMatch returned to its seat, so a strategy fed from
here cannot see more than a person at that seat. "None" is an unset optional field on the
wire (an unset ``turn`` reads 0, which is seat 0): each is read with HasField.
"""

from __future__ import annotations

from domino.match.v1 import match_service_pb2 as pb
from services.common import rule_options
from services.match.ends import FROM_PB as _END
from services.rules.registry import family
from services.rules.moves import DRAW, PASS, Move, play
from services.rules.tiles import tile
from services.rules.view import PlayerView, PublicAction
_KIND = {pb.MOVE_KIND_PLAY: "play", pb.MOVE_KIND_DRAW: "draw", pb.MOVE_KIND_PASS: "pass"}


def _tile(msg: pb.Tile) -> int:
    return tile(msg.low, msg.high)


def move_from_pb(msg: pb.Move) -> Move:
    if msg.kind == pb.MOVE_KIND_DRAW:
        return DRAW
    if msg.kind == pb.MOVE_KIND_PASS:
        return PASS
    return play(_tile(msg.tile), _END[msg.end])


def _rule_set(view: pb.MatchView):
    named = family(view.rules)
    options = rule_options.given(view)
    return named.build(view.variant, named.seats_to_build(len(view.seats)), view.teams, options)


def _optional(view: pb.MatchView, field: str) -> int | None:
    return getattr(view, field) if view.HasField(field) else None


def your_seat(view: pb.MatchView) -> int | None:
    return _optional(view, "your_seat")


def turn(view: pb.MatchView) -> int | None:
    return _optional(view, "turn")


def view_from_pb(view: pb.MatchView) -> PlayerView:
    actions = tuple(
        PublicAction(a.seat, _KIND[a.kind], _tile(a.tile) if a.kind == pb.MOVE_KIND_PLAY else -1, _END[a.end])
        for a in view.round_actions
    )
    scored = tuple((i, _rules_side(view, a.seat), a.points) for i, a in enumerate(view.round_actions) if a.points)
    return PlayerView(
        rules=_rule_set(view),
        seat=view.your_seat,  # a bot's own view: always set
        hand=tuple(sorted(_tile(t) for t in view.hand)),
        line=tuple((p.left, p.right) for p in view.line),
        left_end=_optional(view, "left_end"),
        right_end=_optional(view, "right_end"),
        tile_counts=tuple(s.tile_count for s in view.seats),
        boneyard_count=view.boneyard_count,
        scores=tuple(view.scores),
        target=view.target,
        round_number=view.round_number,
        turn=turn(view),
        legal_moves=tuple(move_from_pb(m) for m in view.legal_moves),
        actions=actions,
        round_outcome=None,
        winner=_optional(view, "winner"),
        up_end=_optional(view, "up_end"),
        down_end=_optional(view, "down_end"),
        up_line=tuple((p.left, p.right) for p in view.up_line),
        down_line=tuple((p.left, p.right) for p in view.down_line),
        spinner_at=_optional(view, "spinner_index"),
        ends_total=view.ends_total,
        play_points=scored,
        remembered=tuple(view.remembered),
        opened=tuple(view.accounts_open),
        pot=view.pot,
        over=view.status in (pb.MATCH_STATUS_ENDED, pb.MATCH_STATUS_ABANDONED),
        goats=tuple(view.goats),
    )


def _rules_side(view: pb.MatchView, seat: int) -> int:
    return seat % 2 if view.teams else seat
