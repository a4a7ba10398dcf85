"""What a seat may see (DESIGN.md "Who may see and do what")."""

from services.match.rules.match import apply, new_match, start_round
from services.match.rules.moves import DRAW, legal_moves
from services.match.rules.rulesets import egyptian
from services.match.rules.tiles import tiles_in
from services.match.rules.view import player_view

from .test_rules_leading import BLOCK4_SEAT2_HOLDS_66, DRAW2_NO_DOUBLES


def test_a_seat_sees_its_own_hand_and_only_the_counts_of_the_others():
    m = start_round(new_match(egyptian("block-4")), BLOCK4_SEAT2_HOLDS_66)
    view = player_view(m, 0)
    assert view.hand == tuple(tiles_in(BLOCK4_SEAT2_HOLDS_66.hands[0]))
    assert view.tile_counts == (7, 7, 7, 7)
    text = repr(view)
    for other in (1, 2, 3):
        assert str(tiles_in(BLOCK4_SEAT2_HOLDS_66.hands[other])) not in text


def test_a_seat_sees_its_legal_moves_only_on_its_turn():
    m = start_round(new_match(egyptian("block-4")), BLOCK4_SEAT2_HOLDS_66)
    assert player_view(m, 2).legal_moves == legal_moves(m.round)
    assert player_view(m, 0).legal_moves == ()


def test_others_see_that_a_seat_drew_but_not_what():
    m = start_round(new_match(egyptian("draw-2")), DRAW2_NO_DOUBLES)
    m = apply(m, legal_moves(m.round)[0])  # seat 1 leads 3-6
    while legal_moves(m.round) != (DRAW,):
        m = apply(m, legal_moves(m.round)[0])
    drawer = m.round.turn
    m = apply(m, DRAW)
    other = player_view(m, 1 - drawer)
    assert other.actions[-1].kind == "draw" and other.actions[-1].tile == -1
    assert other.boneyard_count == m.round.boneyard_left


def test_the_line_is_shown_left_to_right_with_touching_halves_matching():
    m = start_round(new_match(egyptian("block-4")), BLOCK4_SEAT2_HOLDS_66)
    for _ in range(8):
        if m.round.outcome:
            break
        m = apply(m, legal_moves(m.round)[-1])
    line = player_view(m, 0).line
    assert all(a[1] == b[0] for a, b in zip(line, line[1:]))
    assert (line[0][0], line[-1][1]) == (m.round.left, m.round.right)
