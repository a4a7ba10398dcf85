"""What a seat may see (docs/design.md, "Who may see what")."""

from services.rules.match import apply, new_match, start_round
from services.rules.moves import DRAW, legal_moves
from services.rules.rulesets import egyptian
from services.rules.state import round_number
from services.rules.tiles import tiles_in
from services.rules.view import player_view

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


def test_the_round_number_counts_from_one_and_stays_on_a_round_just_ended():
    m = new_match(egyptian("block-4"))
    assert round_number(m) == player_view(m, 0).round_number == 0
    m = start_round(m, BLOCK4_SEAT2_HOLDS_66)
    assert round_number(m) == player_view(m, 0).round_number == 1
    while m.round.outcome is None:
        m = apply(m, legal_moves(m.round)[0])
    assert round_number(m) == player_view(m, 0).round_number == 1
    m = start_round(m, BLOCK4_SEAT2_HOLDS_66)
    assert round_number(m) == player_view(m, 0).round_number == 2


def test_the_line_is_shown_left_to_right_with_touching_halves_matching():
    m = start_round(new_match(egyptian("block-4")), BLOCK4_SEAT2_HOLDS_66)
    for _ in range(8):
        if m.round.outcome:
            break
        m = apply(m, legal_moves(m.round)[-1])
    line = player_view(m, 0).line
    assert all(a[1] == b[0] for a, b in zip(line, line[1:]))
    assert (line[0][0], line[-1][1]) == (m.round.left, m.round.right)


# --- the other families' tables --------------------------------------------------------------

from services.rules.moves import DOWN, LEFT, RIGHT, UP, play  # noqa: E402
from services.rules.rulesets import rule_set  # noqa: E402
from services.rules.state import Deal  # noqa: E402
from services.rules.tiles import parse_tile  # noqa: E402

from .positions import hand  # noqa: E402


def all_fives_after_the_spinner_opens():
    """Seat 0 leads the spinner 5-5 (10), seat 1 lays 5-0 right (10), seat 0 lays 5-6 left
    (6, up and down open), seat 1 lays 5-4 up (6 + 0 + 4 = 10)."""
    hands = (hand("5-5 5-6 1-1 2-2 3-3 1-2 1-3"), hand("0-5 4-5 0-0 0-1 0-2 0-3 0-4"))
    dealt = hands[0] | hands[1]
    boneyard = tuple(t for t in range(28) if not dealt >> t & 1)
    m = start_round(new_match(rule_set("all-fives", seats=2)), Deal(hands, boneyard, -1, chance=0))
    for tile_name, end in (("5-5", None), ("0-5", RIGHT), ("5-6", LEFT), ("4-5", UP)):
        m = apply(m, play(parse_tile(tile_name), end))
    return m


def test_an_all_fives_view_shows_the_four_ends_and_which_are_open():
    view = player_view(all_fives_after_the_spinner_opens(), 0)
    assert (view.left_end, view.right_end, view.up_end, view.down_end) == (6, 0, 4, 5)
    assert view.ends_total == 10


def test_an_all_fives_view_closes_up_and_down_until_the_spinner_has_both_sides():
    m = start_round(new_match(rule_set("all-fives", seats=2)), all_fives_after_the_spinner_opens().round.dealt)
    m = apply(m, play(parse_tile("5-5")))
    view = player_view(m, 1)
    assert view.up_end is None and view.down_end is None
    assert DOWN not in {move.end for move in view.legal_moves}


def test_an_all_fives_view_lists_the_points_each_play_scored():
    view = player_view(all_fives_after_the_spinner_opens(), 1)
    assert view.play_points == ((0, 0, 10), (1, 1, 10), (3, 1, 10))
    assert view.scores == (10, 20)


def test_an_all_fives_view_lays_the_spinner_in_the_line_and_its_arms_outwards():
    view = player_view(all_fives_after_the_spinner_opens(), 0)
    assert view.line == ((6, 5), (5, 5), (5, 0))
    assert view.spinner_at == 1
    assert view.up_line == ((5, 4),) and view.down_line == ()


def test_a_goat_view_shows_remembered_points_open_accounts_and_the_pot():
    rules = rule_set("goat", "koza", seats=2, options={"fish": "one"})
    hands = (hand("0-1 0-2 0-3 1-1 1-2 1-3 1-4"), hand("2-2 2-3 2-4 2-5 2-6 3-3 3-4"))
    boneyard = tuple(t for t in range(28) if not (hands[0] | hands[1]) >> t & 1)
    m = start_round(new_match(rules), Deal(hands, boneyard))
    assert m.round.outcome is None
    view = player_view(m, 0)
    assert (view.remembered, view.opened, view.pot) == ((0, 0), (False, False), 0)
    accounts = m.accounts._replace(remembered=(7, 0), opened=(False, True), pot=12)
    view = player_view(m._replace(accounts=accounts), 1)
    assert (view.remembered, view.opened, view.pot) == ((7, 0), (False, True), 12)
