"""What a player's view says about tiles, seats and turns: pure functions of a MatchView.

Where the view may hold "none" (no seat, nobody to act, no winner, an end not open yet) the
field is optional, and an unset one reads 0 (seat 0!): every such field is read here, with
HasField, as an int or None, and the rest of the client asks these functions. What an All
Fives end counts and what a play would score come in the view (``end_counts``,
``Move.points``), worked out by the server's engine, so the client computes no rule."""

from __future__ import annotations

from dataclasses import dataclass

from domino.match.v1 import match_service_pb2 as pb

from . import families, names

# The wire's End values, used as plain ints throughout the client.
LEFT: int = pb.END_LEFT
RIGHT: int = pb.END_RIGHT
UP: int = pb.END_UP
DOWN: int = pb.END_DOWN
ANY: int = pb.END_UNSPECIFIED
END_NAMES = {LEFT: "left", RIGHT: "right", UP: "up", DOWN: "down", ANY: "anywhere"}
END_KEYS = {LEFT: "l", RIGHT: "r", UP: "u", DOWN: "d"}
ENDS = (LEFT, RIGHT, UP, DOWN)  # the order ends are offered in

Tile = tuple[int, int]  # (high, low), as shown: 6|4


def tile_of(msg) -> Tile:
    return (max(msg.low, msg.high), min(msg.low, msg.high))


def placed_tile_of(placed: pb.PlacedTile) -> Tile:
    """A tile laid on the line, whichever way round it lies."""
    return (max(placed.left, placed.right), min(placed.left, placed.right))


def show(tile: Tile) -> str:
    return f"{tile[0]}|{tile[1]}"


def hand(view: pb.MatchView) -> list[Tile]:
    """The caller's tiles in the order they are numbered on screen (1-based there)."""
    return sorted((tile_of(t) for t in view.hand), key=lambda t: (-t[0], -t[1]))


def is_ended(view: pb.MatchView) -> bool:
    return view.status in (pb.MATCH_STATUS_ENDED, pb.MATCH_STATUS_ABANDONED)


def _optional(message, field: str) -> int | None:
    return getattr(message, field) if message.HasField(field) else None


def your_seat(view: pb.MatchView) -> int | None:
    """The caller's seat; None for a spectator (or an auditor, a service)."""
    return _optional(view, "your_seat")


def turn(view: pb.MatchView) -> int | None:
    """The seat to act; None when nobody is (between rounds, before the deal, at the end)."""
    return _optional(view, "turn")


def winner(view: pb.MatchView) -> int | None:
    """The side that won the match; None while it is played, or when it ended with none."""
    return _optional(view, "winner")


def round_winner(summary: pb.RoundSummary) -> int | None:
    """The side that took a round; None for a tie (Goat: and for a redeal)."""
    return _optional(summary, "winner")


def spinner_index(view: pb.MatchView) -> int | None:
    """All Fives: the spinner's place in the line; None before the first double."""
    return _optional(view, "spinner_index")


def is_mine(view: pb.MatchView, seat: int | None) -> bool:
    """``seat`` is the caller's (never for a spectator)."""
    return seat is not None and seat == your_seat(view)


def is_my_turn(view: pb.MatchView) -> bool:
    """The caller has a move to choose. The server never gives a seat a turn with nothing to
    do (it passes for a seat that can only pass before the view is sent), so a turn always
    comes with plays or a draw; one without (an older server's pass) is not a turn."""
    return (not is_ended(view) and turn(view) is not None and is_mine(view, turn(view))
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


def four_ends(view: pb.MatchView) -> bool:
    """The line has a spinner with up and down besides left and right (All Fives)."""
    return families.family(view.rules).four_ends


_END_FIELDS = {LEFT: "left_end", RIGHT: "right_end", UP: "up_end", DOWN: "down_end"}


def end_number(view: pb.MatchView, end: int) -> int | None:
    """The number an end shows; None while it is closed (every end before the round's first
    play; up and down until the spinner opens, and always outside All Fives)."""
    if end in (UP, DOWN) and not four_ends(view):
        return None
    field = _END_FIELDS.get(end)
    return _optional(view, field) if field else None


def end_choice_matters(view: pb.MatchView, ends: set[int]) -> bool:
    """Whether the player must say which end. In All Fives every end scores differently,
    so a tile that fits two or more is asked about; elsewhere only a tile that fits both
    ends of different numbers (with equal ends either side leaves the same line)."""
    if four_ends(view):
        return len(ends - {ANY}) > 1
    return ends == {LEFT, RIGHT} and end_number(view, LEFT) != end_number(view, RIGHT)


def default_end(view: pb.MatchView, ends: set[int]) -> int | None:
    """The end to play on when the player did not say; None when they must."""
    if end_choice_matters(view, ends):
        return None
    if ANY in ends:
        return ANY
    return RIGHT if RIGHT in ends else min(ends)


def _outer_tiles(view: pb.MatchView) -> dict[int, pb.PlacedTile]:
    """Each end's outer tile: left and right once the line has a tile, up and down once a
    tile lies on them."""
    out: dict[int, pb.PlacedTile] = {}
    if view.line:
        out[LEFT] = view.line[0]
        out[RIGHT] = view.line[-1]
    for end, arm in ((UP, view.up_line), (DOWN, view.down_line)):
        if arm:  # each arm runs from the spinner outwards
            out[end] = arm[-1]
    return out


def lone_first_tile(view: pb.MatchView) -> Tile | None:
    """All Fives: the line's only tile, which counts once, both its numbers (docs/rules.md
    §2); None once a second tile is laid."""
    if four_ends(view) and len(view.line) == 1 and not view.up_line and not view.down_line:
        return placed_tile_of(view.line[0])
    return None


def end_counts(view: pb.MatchView) -> dict[int, tuple[Tile, int]]:
    """All Fives: what each end counts now, with its outer tile, as the view says
    (``end_counts``: the server's engine counts the outer number, both halves of a double).
    An end missing from the result counts nothing yet: up and down while closed or with no
    tile on them. With the lone first tile both left and right show it, but it counts once
    (``lone_first_tile``)."""
    outer = _outer_tiles(view)
    return {c.end: (placed_tile_of(outer[c.end]), c.count) for c in view.end_counts if c.end in outer}


def points_if(view: pb.MatchView, tile: Tile, end: int) -> int:
    """All Fives: what playing ``tile`` on ``end`` would score, as the legal move says
    (``Move.points``); 0 for a move the view does not offer, and in every other family."""
    for move in view.legal_moves:
        if move.kind == pb.MOVE_KIND_PLAY and tile_of(move.tile) == tile and move.end == end:
            return move.points
    return 0


def has_boneyard(view: pb.MatchView) -> bool:
    """The undealt tiles form a boneyard to draw from at this table (the family's shape of
    this many seats): Egyptian draw-2, Classic, and All Fives and Goat below four seats."""
    shape = _shape(view)
    return shape is not None and shape.boneyard


def _shape(view: pb.MatchView) -> families.Shape | None:
    return families.variant_of(view.rules, view.variant).shape(len(view.seats), view.teams)


# ---- seats, sides and names ------------------------------------------------------------


def side_of(view: pb.MatchView, seat: int) -> int:
    """The index into view.scores for a seat: its team in teams, itself when solo."""
    return seat % 2 if view.teams else seat


def player_name(player_id: str) -> str:
    """A readable name: bots as "bot greedy 1", players by their display name (names.py)."""
    if player_id.startswith("bot:"):
        parts = player_id.split(":")
        return "bot " + " ".join(parts[1:])
    return names.name(player_id) if player_id else "(free)"


def seat_name(view: pb.MatchView, seat: int | None) -> str:
    if seat is None or seat < 0 or seat >= len(view.seats):
        return "nobody"
    mine = your_seat(view)
    if seat == mine:
        return "you"
    name = player_name(view.seats[seat].player_id)
    if view.teams and mine is not None and seat % 2 == mine % 2:
        return f"{name} (partner)"
    return name


def side_name(view: pb.MatchView, side: int | None) -> str:
    """Who a score belongs to: a seat when solo, a team ("your team", "team B") in teams."""
    if side is None:
        return "nobody"
    if view.teams:
        mine = your_seat(view)
        if mine is not None and mine % 2 == side:
            return "your team"
        return f"team {'AB'[side]}"
    return seat_name(view, side)


def my_side(view: pb.MatchView) -> int | None:
    """The caller's side (index into scores); None for a spectator."""
    mine = your_seat(view)
    return None if mine is None else side_of(view, mine)


def sides_text(view: pb.MatchView, sides) -> str:
    return " and ".join(side_name(view, s) for s in sides)


def is_goat(view: pb.MatchView) -> bool:
    """Points are bad: the lowest total wins and the highest past the target is the goat."""
    return families.family(view.rules).lower_is_better


def winner_text(view: pb.MatchView) -> str:
    won = winner(view)
    if won is None:
        return "no single winner (the lowest totals tie)" if is_goat(view) else "nobody won"
    if my_side(view) == won:
        return "your team won!" if view.teams else "you won!"
    return f"{side_name(view, won)} won"


def goat_text(view: pb.MatchView) -> str:
    """Goat, at the match's end: who is the goat (the highest total, 101 or more)."""
    if not view.goats:
        return ""
    mine = my_side(view) in view.goats
    if len(view.goats) == 1:
        if mine:
            return "your team is the goat" if view.teams else "you are the goat"
        return f"{side_name(view, view.goats[0])} is the goat"
    return f"{sides_text(view, view.goats)} are the goats"


@dataclass(frozen=True)
class Countdown:
    seconds: int | None  # None: no time limit

    def __str__(self) -> str:
        if self.seconds is None:
            return "no time limit"
        return f"{self.seconds} s left"


def time_left(view: pb.MatchView, now: float) -> Countdown:
    """The seconds the seat to act has left. The count never shows more than the turn was
    given (``turn_seconds``: the host's timer, or Sports' 5, 20 or 60 for this move), so a
    clock behind the server's does not add time."""
    if turn(view) is None or not view.HasField("turn_deadline"):
        return Countdown(None)
    deadline = view.turn_deadline.ToNanoseconds() / 1e9
    seconds = max(0, int(deadline - now + 0.999))
    given = view.turn_seconds or (view.turn_timer_seconds if not families.family(view.rules).per_move_timer else 0)
    return Countdown(min(seconds, given) if given else seconds)
