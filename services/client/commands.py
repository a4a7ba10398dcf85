"""Typed lines to commands, checked against the view the player was looking at.

The client never sends a move it can tell is illegal: every Play or Draw that comes out of
here is one of the view's legal moves.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from domino.match.v1 import match_service_pb2 as pb

from . import families, lead_words, view_reading
from .view_reading import DOWN, LEFT, RIGHT, UP, Tile


@dataclass(frozen=True)
class Play:
    tile: Tile
    end: int  # view_reading.LEFT, RIGHT, UP, DOWN, or view_reading.ANY (the round's first tile)


@dataclass(frozen=True)
class Draw:
    pass


@dataclass(frozen=True)
class ChooseEnd:
    """The tile fits more than one end and the choice matters: ask which one."""
    tile: Tile


@dataclass(frozen=True)
class Quit:
    pass


@dataclass(frozen=True)
class Leave:
    """Leave the match for good: the server plays the seat to the end."""


@dataclass(frozen=True)
class Help:
    pass


@dataclass(frozen=True)
class Refresh:
    pass


@dataclass(frozen=True)
class Back:
    """Take the seat back after being marked away (any move does it too)."""


@dataclass(frozen=True)
class Invalid:
    message: str


Command = Play | Draw | ChooseEnd | Quit | Leave | Help | Refresh | Back | Invalid

TILES = 28  # the double-six set
_ENDS = {"l": LEFT, "left": LEFT, "<": LEFT, "r": RIGHT, "right": RIGHT, ">": RIGHT,
         "u": UP, "up": UP, "^": UP, "d": DOWN, "down": DOWN, "v": DOWN}
_NUMBER = re.compile(r"^(\d+)\s*([a-z<>^]*)$")
_PIPS = re.compile(r"^([0-6])\s*[-|/:]\s*([0-6])\s*([a-z<>^]*)$")

HELP = """\
On your turn type the number of a tile in your hand, e.g. 3.
  When the tile fits both ends, add the end: 3 l (left) or 3 r (right);
  without it you will be asked. You may also name the tile itself: 6-4 r.
  All Fives: once the spinner opens, a tile may also go up or down: 3 u, 3 d
  (d alone still draws). A tile that fits more than one end is asked about,
  with what each end would score.
  d draws from the boneyard (only when no tile of yours fits; games without
  a boneyard never draw).
Any time: Enter refreshes the screen, ? shows this help, q leaves the table
(your seat stays; `domino play --resume MATCH_ID` brings you back), and
`leave match` (typed twice: it asks first) leaves for good: the match counts
as your loss (rated, as a loss) whatever the server's play for your seat
scores; the server plays your seat to the end and you are free to play elsewhere.
Quick chat: c lists the phrases, c 3 or c well_played says one to the table
(the last few show under "Table talk", spectators see them too).
Marked away (two turns timed out), the server plays for you until you type
back (or b) or a move; Enter only refreshes, q leaves without coming back."""

_QUIT = ("q", "quit", "exit")
_HELP = ("?", "h", "help")
_CANCEL = ("c", "cancel")


def parse_end(line: str) -> int | None:
    return _ENDS.get(line.strip().lower())


def parse_move(line: str, view: pb.MatchView) -> Command:
    text = line.strip().lower()
    if text in ("", "."):
        return Refresh()
    if text in _QUIT:
        return Quit()
    if text in ("leave match", "leave the match"):
        return Leave()
    if text in _HELP:
        return Help()
    if text in ("b", "back"):
        return Back()
    if not view_reading.is_my_turn(view):
        if view_reading.is_ended(view):
            return Invalid("The match is over.")
        if view_reading.turn(view) is None:
            return Invalid("Nobody is to play just now: wait for the deal.")
        return Invalid(f"It is not your turn: waiting for {view_reading.seat_name(view, view_reading.turn(view))}.")
    legal = view_reading.plays(view)
    if text in ("d", "draw"):
        if view_reading.can_draw(view):
            return Draw()
        if not view_reading.has_boneyard(view):
            return Invalid(f"This game has no boneyard: {_no_boneyard_reason(view)}, so nothing is ever drawn. "
                           "Play a tile that fits.")
        if legal:
            return Invalid("You cannot draw while a tile of yours fits: "
                           + ", ".join(view_reading.show(t) for t in view_reading.hand(view) if t in legal) + ".")
        return Invalid("There is nothing to draw.")
    tile, end_text = _tile_and_end(text, view)
    if isinstance(tile, Invalid):
        return tile
    ends = legal.get(tile)
    if not ends:
        refusal = lead_words.opening_refusal(view, tile)
        if refusal:
            return Invalid(refusal)
        if view_reading.can_draw(view):
            return Invalid(f"{view_reading.show(tile)} does not fit; nothing in your hand does, so draw with d.")
        return Invalid(f"{view_reading.show(tile)} does not fit the line"
                       + _open_ends_text(view) + ".")
    if end_text:
        end = _ENDS.get(end_text)
        if end is None or (end in (UP, DOWN) and not view_reading.four_ends(view)):
            return Invalid(f"Unknown end {end_text!r}: use {_end_keys(view)}.")
        if view_reading.ANY in ends:
            return Play(tile, view_reading.ANY)  # the first tile of a round goes on no end
        return _on_end(view, tile, ends, end)
    end = view_reading.default_end(view, ends)
    if end is None:
        return ChooseEnd(tile)
    return Play(tile, end)


def parse_end_answer(line: str, view: pb.MatchView, tile: Tile) -> Command:
    """The answer to "which end?" for ``tile``: a Play on a legal end; Refresh (cancel) for
    Enter alone or c; Quit and Help as anywhere; Invalid for anything else — an end the tile
    does not fit, or a line that is no end at all (a typo): the question stays, with its tile."""
    text = line.strip().lower()
    if not text or text in _CANCEL:
        return Refresh()
    if text in _QUIT:
        return Quit()
    if text in ("leave match", "leave the match"):
        return Leave()
    if text in _HELP:
        return Help()
    end = parse_end(line)
    if end is None or (end in (UP, DOWN) and not view_reading.four_ends(view)):
        return Invalid(f"{line.strip()!r} is not an end: for {view_reading.show(tile)} type {_end_keys(view)} "
                       "(Enter cancels).")
    ends = view_reading.plays(view).get(tile) if view_reading.is_my_turn(view) else None
    if not ends:
        return Invalid(f"{view_reading.show(tile)} cannot be played now.")
    return _on_end(view, tile, ends, end)


def _on_end(view: pb.MatchView, tile: Tile, ends: set[int], end: int) -> Play | Invalid:
    if end in ends:
        return Play(tile, end)
    if end in (UP, DOWN) and view_reading.end_number(view, end) is None:
        return Invalid(f"The {view_reading.END_NAMES[end]} end is closed: the spinner's up and down open once it has a "
                       "tile on both of its other sides.")
    return Invalid(f"{view_reading.show(tile)} does not fit the {view_reading.END_NAMES[end]} end"
                   + _open_ends_text(view) + ".")


def _no_boneyard_reason(view: pb.MatchView) -> str:
    """Why a rule set has nothing to draw (docs/rules.md's table), from its deal's shape."""
    name = families.title(view.rules, view.variant)
    seats = len(view.seats)
    chosen = families.variant_of(view.rules, view.variant)
    shape = chosen.shape(seats, view.teams)
    hand = shape.hand_size if shape is not None else 0
    aside = TILES - hand * seats if hand else 0
    if aside > 0:
        last = "the last one" if aside == 1 else f"the last {aside}"
        return f"{name} deals {hand} tiles to each of the {seats} seats and sets {last} aside"
    if len(chosen.seat_counts) > 1:
        return f"{name} with {seats} seats deals all {TILES} tiles"
    return f"{name} deals all {TILES} tiles to its {seats} seats"


def _end_keys(view: pb.MatchView) -> str:
    if view_reading.four_ends(view):
        return "l (left), r (right), u (up) or d (down)"
    return "l (left) or r (right)"


def _tile_and_end(text: str, view: pb.MatchView) -> tuple[Tile | Invalid, str]:
    held = view_reading.hand(view)
    match = _PIPS.match(text)
    if match:
        a, b = int(match.group(1)), int(match.group(2))
        tile = (max(a, b), min(a, b))
        if tile not in held:
            return Invalid(f"You do not hold {view_reading.show(tile)}."), ""
        return tile, match.group(3)
    match = _NUMBER.match(text)
    if match:
        number = int(match.group(1))
        if not 1 <= number <= len(held):
            return Invalid(f"Pick a tile number from 1 to {len(held)}."), ""
        return held[number - 1], match.group(2)
    return Invalid(f"{text!r} is not a move. Type a tile number (e.g. 2 or 2 l), d to draw, ? for help."), ""


def _open_ends_text(view: pb.MatchView) -> str:
    if view_reading.end_number(view, LEFT) is None:
        return ""
    named = [f"{view_reading.end_number(view, e)} {view_reading.END_NAMES[e]}" for e in view_reading.ENDS
             if view_reading.end_number(view, e) is not None]
    return f" (open ends: {', '.join(named)})"


def auto_move(view: pb.MatchView) -> Play | Draw | None:
    """The first legal move, as `--auto` plays it; None when the caller has nothing to do."""
    if not view_reading.is_my_turn(view):
        return None
    move = view.legal_moves[0]
    if move.kind == pb.MOVE_KIND_DRAW:
        return Draw()
    if move.kind == pb.MOVE_KIND_PLAY:
        return Play(view_reading.tile_of(move.tile), move.end)
    return None
