"""A MatchView from the wire, turned into the engine's PlayerView that strategies read.

The bot service only ever has what GetMatch returned to its seat, so a strategy fed from
here cannot see more than a person at that seat.
"""

from __future__ import annotations

from domino.match.v1 import match_service_pb2 as pb
from services.match.rules.moves import DRAW, LEFT, PASS, RIGHT, Move, play
from services.match.rules.rulesets import rule_set
from services.match.rules.tiles import tile
from services.match.rules.view import PlayerView, PublicAction

_END = {pb.END_UNSPECIFIED: None, pb.END_LEFT: LEFT, pb.END_RIGHT: RIGHT}
_KIND = {pb.MOVE_KIND_PLAY: "play", pb.MOVE_KIND_DRAW: "draw", pb.MOVE_KIND_PASS: "pass"}


def _tile(msg: pb.Tile) -> int:
    return tile(msg.low, msg.high)


def move_from_pb(msg: pb.Move) -> Move:
    if msg.kind == pb.MOVE_KIND_DRAW:
        return DRAW
    if msg.kind == pb.MOVE_KIND_PASS:
        return PASS
    return play(_tile(msg.tile), _END[msg.end])


def view_from_pb(view: pb.MatchView) -> PlayerView:
    actions = tuple(
        PublicAction(a.seat, _KIND[a.kind], _tile(a.tile) if a.kind == pb.MOVE_KIND_PLAY else -1, _END[a.end])
        for a in view.round_actions
    )
    return PlayerView(
        rules=rule_set(view.rules, view.variant, view.teams),
        seat=view.your_seat,
        hand=tuple(sorted(_tile(t) for t in view.hand)),
        line=tuple((p.left, p.right) for p in view.line),
        left_end=None if view.left_end < 0 else view.left_end,
        right_end=None if view.right_end < 0 else view.right_end,
        tile_counts=tuple(s.tile_count for s in view.seats),
        boneyard_count=view.boneyard_count,
        scores=tuple(view.scores),
        target=view.target,
        round_number=view.round_number,
        turn=None if view.turn < 0 else view.turn,
        legal_moves=tuple(move_from_pb(m) for m in view.legal_moves),
        actions=actions,
        round_outcome=None,
        winner=None if view.winner < 0 else view.winner,
    )
