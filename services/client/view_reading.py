"""What a player's view says about tiles, seats and turns: pure functions of a MatchView."""

from __future__ import annotations

from dataclasses import dataclass

from domino.match.v1 import match_service_pb2 as pb
from services.match.rules.spinner import end_count, points_scored

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


def four_ends(view: pb.MatchView) -> bool:
    """The line has a spinner with up and down besides left and right (All Fives)."""
    return families.family(view.rules).four_ends


def end_number(view: pb.MatchView, end: int) -> int:
    """The number an end shows; -1 while it is closed (up and down until the spinner opens,
    and always outside All Fives)."""
    if end in (UP, DOWN) and not four_ends(view):
        return -1
    return {LEFT: view.left_end, RIGHT: view.right_end, UP: view.up_end, DOWN: view.down_end}.get(end, -1)


def end_choice_matters(view: pb.MatchView, ends: set[int]) -> bool:
    """Whether the player must say which end. In All Fives every end scores differently,
    so a tile that fits two or more is asked about; elsewhere only a tile that fits both
    ends of different numbers (with equal ends either side leaves the same line)."""
    if four_ends(view):
        return len(ends - {ANY}) > 1
    return ends == {LEFT, RIGHT} and view.left_end != view.right_end


def default_end(view: pb.MatchView, ends: set[int]) -> int | None:
    """The end to play on when the player did not say; None when they must."""
    if end_choice_matters(view, ends):
        return None
    if ANY in ends:
        return ANY
    return RIGHT if RIGHT in ends else min(ends)


def _outer_tiles(view: pb.MatchView) -> dict[int, tuple[int, pb.PlacedTile]]:
    """Each end that counts now, with its outer number and outer tile: left and right once
    the line has a tile, up and down once a tile lies on them (an open side with nothing on
    it yet counts nothing)."""
    out: dict[int, tuple[int, pb.PlacedTile]] = {}
    if view.line:
        out[LEFT] = (view.line[0].left, view.line[0])
        out[RIGHT] = (view.line[-1].right, view.line[-1])
    for end, arm in ((UP, view.up_line), (DOWN, view.down_line)):
        if arm:  # each arm runs from the spinner outwards, as (inner, outer)
            out[end] = (arm[-1].right, arm[-1])
    return out


def lone_first_tile(view: pb.MatchView) -> Tile | None:
    """All Fives: the line's only tile, which counts once, both its numbers (docs/rules.md
    §2); None once a second tile is laid."""
    if four_ends(view) and len(view.line) == 1 and not view.up_line and not view.down_line:
        return placed_tile_of(view.line[0])
    return None


def end_counts(view: pb.MatchView) -> dict[int, tuple[Tile, int]]:
    """All Fives: what each end counts now, with its outer tile, by the engine's own rule
    (``end_count``: the outer number, both halves of a double). An end missing from the
    result counts nothing yet: up and down while closed or with no tile on them. With the
    lone first tile both left and right show it, but it counts once (``lone_first_tile``)."""
    return {end: (placed_tile_of(placed), end_count(number, placed.left == placed.right))
            for end, (number, placed) in _outer_tiles(view).items()}


def ends_total_after(view: pb.MatchView, tile: Tile, end: int) -> int:
    """All Fives: what the open ends add up to once ``tile`` is played on ``end``
    (docs/rules.md §2, "Counting the ends"): left and right always, up and down once a tile
    lies on them; an outer double counts both halves; the lone first tile counts once."""
    if not view.line:
        return tile[0] + tile[1]
    values = {e: count for e, (_, count) in end_counts(view).items()}
    number = end_number(view, end)
    values[end] = end_count(tile[0] if tile[1] == number else tile[1], tile[0] == tile[1])
    return sum(values.values())


def points_if(view: pb.MatchView, tile: Tile, end: int) -> int:
    """All Fives: what playing ``tile`` on ``end`` would score (the engine's
    ``points_scored``: the ends' total after it, when that is a positive multiple of 5);
    0 in every other family."""
    if not four_ends(view):
        return 0
    return points_scored(ends_total_after(view, tile, end))


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


def sides_text(view: pb.MatchView, sides) -> str:
    return " and ".join(side_name(view, s) for s in sides)


def is_goat(view: pb.MatchView) -> bool:
    """Points are bad: the lowest total wins and the highest past the target is the goat."""
    return families.family(view.rules).lower_is_better


def winner_text(view: pb.MatchView) -> str:
    if view.winner < 0:
        return "no single winner (the lowest totals tie)" if is_goat(view) else "nobody won"
    if view.your_seat >= 0 and side_of(view, view.your_seat) == view.winner:
        return "your team won!" if view.teams else "you won!"
    return f"{side_name(view, view.winner)} won"


def goat_text(view: pb.MatchView) -> str:
    """Goat, at the match's end: who is the goat (the highest total, 101 or more)."""
    if not view.goats:
        return ""
    mine = view.your_seat >= 0 and side_of(view, view.your_seat) in view.goats
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
    if view.turn < 0 or not view.HasField("turn_deadline"):
        return Countdown(None)
    deadline = view.turn_deadline.ToNanoseconds() / 1e9
    seconds = max(0, int(deadline - now + 0.999))
    given = view.turn_seconds or (view.turn_timer_seconds if not families.family(view.rules).per_move_timer else 0)
    return Countdown(min(seconds, given) if given else seconds)
