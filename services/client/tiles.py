"""What a player's view says about tiles, seats and turns: pure functions of a MatchView."""

from __future__ import annotations

from dataclasses import dataclass

from domino.match.v1 import match_service_pb2 as pb

LEFT, RIGHT, ANY = pb.END_LEFT, pb.END_RIGHT, pb.END_UNSPECIFIED
END_NAMES = {LEFT: "left", RIGHT: "right", ANY: "anywhere"}

Tile = tuple[int, int]  # (high, low), as shown: 6|4


def tile_of(msg) -> Tile:
    return (max(msg.low, msg.high), min(msg.low, msg.high))


def show(tile: Tile) -> str:
    return f"{tile[0]}|{tile[1]}"


def hand(view: pb.MatchView) -> list[Tile]:
    """The caller's tiles in the order they are numbered on screen (1-based there)."""
    return sorted((tile_of(t) for t in view.hand), key=lambda t: (-t[0], -t[1]))


def is_ended(view: pb.MatchView) -> bool:
    return view.status == pb.MATCH_STATUS_ENDED


def is_my_turn(view: pb.MatchView) -> bool:
    """The caller has a move to choose. A seat that can only pass has none: the server
    passes for it (the stream may show that moment before the pass)."""
    return (not is_ended(view) and view.your_seat >= 0 and view.turn == view.your_seat
            and any(m.kind in (pb.MOVE_KIND_PLAY, pb.MOVE_KIND_DRAW) for m in view.legal_moves))


def plays(view: pb.MatchView) -> dict[Tile, set[int]]:
    """Every tile the caller may play now, with the ends it may go on."""
    out: dict[Tile, set[int]] = {}
    for move in view.legal_moves:
        if move.kind == pb.MOVE_KIND_PLAY:
            out.setdefault(tile_of(move.tile), set()).add(move.end)
    return out


def can_draw(view: pb.MatchView) -> bool:
    return any(m.kind == pb.MOVE_KIND_DRAW for m in view.legal_moves)


def end_choice_matters(view: pb.MatchView, ends: set[int]) -> bool:
    """Only a tile that fits both ends of different pips needs the player to say which:
    with equal ends either side leaves the same pair of open ends."""
    return ends == {LEFT, RIGHT} and view.left_end != view.right_end


def default_end(view: pb.MatchView, ends: set[int]) -> int | None:
    """The end to play on when the player did not say; None when they must."""
    if end_choice_matters(view, ends):
        return None
    if ANY in ends:
        return ANY
    return RIGHT if RIGHT in ends else LEFT


def fits(view: pb.MatchView, ends: set[int]) -> str:
    if ANY in ends:
        return "opens the line"
    if ends == {LEFT, RIGHT}:
        return "fits both ends" if view.left_end != view.right_end else "fits"
    return "fits left" if LEFT in ends else "fits right"


# ---- seats, sides and names ------------------------------------------------------------


def seat_count(view: pb.MatchView) -> int:
    return len(view.seats)


def side_of(view: pb.MatchView, seat: int) -> int:
    """The index into view.scores for a seat: its team in teams, itself when solo."""
    return seat % 2 if view.teams else seat


def player_name(player_id: str) -> str:
    """A readable name: bots as "bot greedy 1", players as themselves."""
    if player_id.startswith("bot:"):
        parts = player_id.split(":")
        return "bot " + " ".join(parts[1:])
    return player_id or "(free)"


def seat_name(view: pb.MatchView, seat: int) -> str:
    if seat < 0 or seat >= len(view.seats):
        return "nobody"
    if seat == view.your_seat:
        return "you"
    name = player_name(view.seats[seat].player_id)
    if view.teams and view.your_seat >= 0 and seat % 2 == view.your_seat % 2:
        return f"{name} (partner)"
    return name


def side_name(view: pb.MatchView, side: int) -> str:
    """Who a score belongs to: a seat when solo, a team ("your team", "team B") in teams."""
    if view.teams:
        if view.your_seat >= 0 and view.your_seat % 2 == side:
            return "your team"
        return f"team {'AB'[side]}"
    return seat_name(view, side)


def winner_text(view: pb.MatchView) -> str:
    if view.winner < 0:
        return "nobody won"
    if view.your_seat >= 0 and side_of(view, view.your_seat) == view.winner:
        return "your team won!" if view.teams else "you won!"
    return f"{side_name(view, view.winner)} won"


@dataclass(frozen=True)
class Countdown:
    seconds: int | None  # None: no time limit

    def __str__(self) -> str:
        if self.seconds is None:
            return "no time limit"
        return f"{self.seconds} s left"


def time_left(view: pb.MatchView, now: float) -> Countdown:
    if view.turn < 0 or not view.HasField("turn_deadline") or view.turn_timer_seconds == 0:
        return Countdown(None)
    deadline = view.turn_deadline.ToNanoseconds() / 1e9
    return Countdown(max(0, int(deadline - now + 0.999)))
