"""Who made a move, in words: the seat itself, or the server for it, and why.

A move the server made on a timeout read like the player's own ("you played 6|5", "you went
out"). Each action in a view, and each event on the stream, says why it was made
(``MoveCause``); one that says nothing is read as the seat's own, and a pass as one because
nothing fitted (seats never pass by choice).
"""

from __future__ import annotations

from domino.match.v1 import match_service_pb2 as pb

from . import view_reading

SEAT, TIMEOUT, AWAY, LEFT, FORCED_PASS = (pb.MOVE_CAUSE_SEAT, pb.MOVE_CAUSE_TIMEOUT, pb.MOVE_CAUSE_AWAY,
                                          pb.MOVE_CAUSE_LEFT, pb.MOVE_CAUSE_FORCED_PASS)
BY_SERVER = (TIMEOUT, AWAY, LEFT)

#: why a pass was made, after "passed: "
PASS_REASONS: dict[int, str] = {FORCED_PASS: "nothing fits", TIMEOUT: "time ran out", AWAY: "away, the server passed",
                LEFT: "left the match, the server passed", SEAT: "nothing fits"}


def cause(action: pb.PublicAction | pb.MatchEvent) -> int:
    """The action's MoveCause; an unspecified one is the seat's own (a pass: nothing fitted)."""
    if action.cause != pb.MOVE_CAUSE_UNSPECIFIED:
        return action.cause
    is_pass = (action.kind == pb.MOVE_KIND_PASS if isinstance(action, pb.PublicAction)
               else action.kind == pb.EVENT_KIND_TURN_PASSED)
    return FORCED_PASS if is_pass else SEAT


def by_server(action: pb.PublicAction) -> bool:
    """The server chose this play or draw for the seat (a forced pass chose nothing)."""
    return cause(action) in BY_SERVER


def why_for(view: pb.MatchView, seat: int, why: int) -> str:
    """``time ran out: played for you`` and the like, after a move the server made for ``seat``."""
    whom = "you" if view_reading.is_mine(view, seat) else "them"
    if why == AWAY:
        return f"away: the server plays for {whom}"
    if why == LEFT:
        return f"left the match: the server plays for {whom}"
    return f"time ran out: played for {whom}"


def played_for(view: pb.MatchView, action: pb.PublicAction) -> str | None:
    """``time ran out: 6|5 was played for you`` for a play the server made for a seat; None
    for one the seat made."""
    why = cause(action)
    if why not in BY_SERVER or action.kind != pb.MOVE_KIND_PLAY or not action.HasField("tile"):
        return None
    tile = view_reading.show(view_reading.tile_of(action.tile))
    whom = "you" if view_reading.is_mine(view, action.seat) else view_reading.seat_name(view, action.seat)
    reasons: dict[int, str] = {TIMEOUT: "time ran out", AWAY: f"{whom} {'are' if whom == 'you' else 'is'} away",
                               LEFT: f"{whom} left the match"}
    reason = reasons[why]
    return f"{reason}: {tile} was played for {whom}"


def played_for_you(view: pb.MatchView) -> str | None:
    """``Time ran out: 6|5 was played for you.``: the player's last turn, when the server made
    it for them on a timeout; None when they made it (or it was forced, or they are away and
    know it already)."""
    seat = view_reading.your_seat(view)
    mine = _last_turn(view, seat) if seat is not None else []
    if not any(cause(a) == TIMEOUT for a in mine):
        return None
    draws = sum(1 for a in mine if a.kind == pb.MOVE_KIND_DRAW)
    drew = ("a tile was drawn" if draws == 1 else f"{draws} tiles were drawn") if draws else ""
    final = mine[-1]
    if final.kind == pb.MOVE_KIND_PLAY and final.HasField("tile"):
        did = f"{view_reading.show(view_reading.tile_of(final.tile))} was played"
        done = f"{drew} and {did}" if drew else did
    elif final.kind == pb.MOVE_KIND_PASS:
        done = f"{drew} and you passed" if drew else "you passed"
        return f"Time ran out: {done}."
    else:
        done = drew
    return f"Time ran out: {done} for you."


def _last_turn(view: pb.MatchView, seat: int) -> list[pb.PublicAction]:
    """The seat's last turn of the round: its draws and the play or pass that followed."""
    actions = list(view.round_actions)
    end = next((i for i in range(len(actions) - 1, -1, -1) if actions[i].seat == seat), None)
    if end is None:
        return []
    start = end
    while start > 0 and actions[start - 1].seat == seat and actions[start - 1].kind == pb.MOVE_KIND_DRAW:
        start -= 1
    return actions[start:end + 1]
