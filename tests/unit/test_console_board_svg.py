"""The console's board drawing: a known line of play draws each of its tiles, with its pips,
in order, and says it in words for a screen reader."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from domino.match.v1 import match_service_pb2 as pb
from services.console.board_svg import ROW, Board, board_from_view, draw_board

SVG = "{http://www.w3.org/2000/svg}"


def tiles_of(svg: str) -> list[ET.Element]:
    return ET.fromstring(svg).findall(f"{SVG}g")


def pips_in(tile: ET.Element) -> int:
    return len(tile.findall(f"{SVG}circle"))


def test_a_line_of_play_draws_each_tile_in_order():
    line = ((6, 6), (6, 4), (4, 1), (1, 0))
    tiles = tiles_of(draw_board(Board(line=line)))
    assert [t.get("data-pips") for t in tiles] == ["6-6", "6-4", "4-1", "1-0"]


def test_each_tile_shows_as_many_pips_as_its_halves_add_up_to():
    tiles = tiles_of(draw_board(Board(line=((6, 6), (6, 4), (4, 1), (1, 0)))))
    assert [pips_in(t) for t in tiles] == [12, 10, 5, 1]


def test_the_drawing_says_the_line_in_words():
    root = ET.fromstring(draw_board(Board(line=((5, 3), (3, 3)))))
    assert root.get("role") == "img"
    assert "5-3, 3-3" in root.findtext(f"{SVG}desc")
    assert "5-3, 3-3" in root.get("aria-label")


def test_an_empty_table_says_no_tile_is_played():
    root = ET.fromstring(draw_board(Board()))
    assert tiles_of(draw_board(Board())) == []
    assert "No tile played yet" in root.findtext(f"{SVG}text")


def test_a_long_line_turns_round_so_touching_pips_still_touch():
    line = tuple((i % 7, (i + 1) % 7) for i in range(ROW + 2))  # a second row, right to left
    tiles = tiles_of(draw_board(Board(line=line)))
    second_row = tiles[ROW:]
    assert [t.get("data-pips") for t in second_row] == [f"{b}-{a}" for a, b in line[ROW:]]
    rects = [float(t.find(f"{SVG}rect").get("x")) for t in second_row]
    assert rects[0] > rects[1]  # drawn leftwards


def test_the_spinners_arms_stand_above_and_below_it():
    board = Board(line=((5, 5), (5, 2)), spinner_index=0, up_line=((5, 1),), down_line=((5, 4), (4, 4)))
    tiles = tiles_of(draw_board(board))
    assert len(tiles) == 5
    y = {t.get("data-pips"): float(t.find(f"{SVG}rect").get("y")) for t in tiles}
    assert y["1-5"] < y["5-5"] < y["5-4"] < y["4-4"]  # up arm read outwards from the spinner


def test_no_style_attribute_anywhere_for_the_pages_csp():
    svg = draw_board(Board(line=((6, 6), (6, 4)), spinner_index=0, up_line=((6, 1),)))
    assert "style=" not in svg


def test_a_views_line_and_arms_make_its_board():
    view = pb.MatchView(line=[pb.PlacedTile(left=5, right=5), pb.PlacedTile(left=5, right=0)], spinner_index=0,
                        up_line=[pb.PlacedTile(left=5, right=3)])
    assert board_from_view(view) == Board(line=((5, 5), (5, 0)), spinner_index=0, up_line=((5, 3),), down_line=())


def test_a_view_without_a_spinner_has_none():
    assert board_from_view(pb.MatchView(line=[pb.PlacedTile(left=1, right=2)])).spinner_index is None
