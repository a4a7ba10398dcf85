"""`domino play` for every family: choosing one and its options, the ends of All Fives,
Goat's accounts and goat, Sports' per-move timer — pure parsing and screens."""

from __future__ import annotations

import re

import click
import pytest

from domino.match.v1 import match_service_pb2 as pb
from domino.matchmaking.v1 import matchmaking_service_pb2 as mm
from services.cli.play import _choices
from services.common.rule_options import settings_pb
from services.client import commands, families, lobby_screens, menu, render, rounds, view_reading
from services.client.commands import ChooseEnd, Draw, Invalid, Play, Refresh
from services.client.families import Setup
from services.client.view_reading import ANY, DOWN, LEFT, RIGHT, UP
from tests.support.families import params, sample_tables
from tests.support.rules_description import preset

from .test_play_core import NOW, view
from tests.support.rules_description import served_rules  # noqa: F401  (the fixture, by name)

pytestmark = pytest.mark.usefixtures("served_rules")


def screen(v: pb.MatchView, **kw) -> str:
    return render.to_text(render.game_screen(v, NOW, **kw), width=110)


def all_fives(line=((4, 6), (6, 6), (6, 2)), spinner=1, up=3, down=6, up_line=((6, 3),), down_line=(), total=9,
              hand=((6, 4), (4, 4), (3, 2)), legal=(("play", (3, 2), RIGHT), ("play", (3, 2), UP),
                                                   ("play", (6, 4), LEFT), ("play", (6, 4), DOWN),
                                                   ("play", (4, 4), LEFT)),
              end_counts=((LEFT, 4), (RIGHT, 2), (UP, 3)), points=(((3, 2), RIGHT, 10),), **kw) -> pb.MatchView:
    """Default: the spinner 6|6 is open; left 4, right 2, up 3 (6|3 on it), down 6 (empty); the
    ends add up to 9. Hand 6|4 (left or down), 4|4 (left), 3|2 (right or up). What each end
    counts and what each play would score are the server's (``end_counts``, Move.points:
    3|2 on the right makes 10); None leaves a spinner or an end unset."""
    v = view(hand=hand, line=line, legal=list(legal), variant="", **kw)
    v.rules, v.target, v.ends_total = "all-fives", 100, total
    for name, value in (("spinner_index", spinner), ("up_end", up), ("down_end", down)):
        if value is not None:
            setattr(v, name, value)
    for a, b in up_line:
        v.up_line.add(left=a, right=b)
    for a, b in down_line:
        v.down_line.add(left=a, right=b)
    for end, count in end_counts:
        v.end_counts.add(end=end, count=count)
    for tile, end, scored in points:
        for move in v.legal_moves:
            if view_reading.tile_of(move.tile) == tile and move.end == end:
                move.points = scored
    return v


def closed_spinner(**kw) -> pb.MatchView:
    """The spinner 6|6 opened the round: up and down stay closed; 6|1 fits left and right."""
    return all_fives(line=((6, 6),), spinner=0, up=None, down=None, up_line=(), total=12, hand=((6, 1), (2, 0)),
                     legal=(("play", (6, 1), LEFT), ("play", (6, 1), RIGHT)), end_counts=((LEFT, 6), (RIGHT, 6)),
                     points=(), **kw)


def goat(seats=("ann", "bot:random:1", "bot:random:2"), remembered=(5, 0, 12), opened=(False, True, False), pot=0,
         options=None, **kw) -> pb.MatchView:
    v = view(seats=seats, variant="koza", **kw)
    v.rules, v.target = "goat", 101
    v.rule_options.extend(settings_pb(options or preset("goat", "koza")))
    v.remembered.extend(remembered)
    v.accounts_open.extend(opened)
    v.pot = pot
    return v


# ---- choosing a family ------------------------------------------------------------------


def test_a_variant_names_its_family():
    assert families.rules_of("koza") == "goat"
    assert families.rules_of("block-3") == "egyptian"
    assert families.rules_of(None) is None


def test_an_egyptian_seat_count_picks_its_variant_and_goat_defaults_to_koza():
    assert families.settled(Setup("egyptian", seats=3)).variant == "block-3"
    assert families.settled(Setup("egyptian")).variant == "draw-2"
    assert families.settled(Setup("goat")).variant == "koza"
    assert families.settled(Setup("all-fives")).variant == ""


@pytest.mark.parametrize("setup,says", [
    (Setup("all-fives", seats=2, teams=True), "teams need four seats"),
    (Setup("classic", seats=4, teams=True), "Classic is played solo"),
    (Setup("sports", teams=False), "Sports is played by two pairs"),
    (Setup("all-fives", target=51), "All Fives plays to 100, 150, 200, 250, not 51"),
    (Setup("goat", "koza", target=150), "Goat plays to 101, not 150"),
    (Setup("egyptian", "koza"), "Egyptian variants are draw-2, block-3, block-4, not koza"),
    (Setup("egyptian", "draw-2", seats=3), "Egyptian draw-2 is played by 2 players, not 3"),
    (Setup("sports", seats=3), "Sports is played by 4 players, not 3"),
    (Setup("classic", host_options={"fish": "one"}), "--option sets Goat's options"),
])
def test_a_setup_that_does_not_fit_its_family_says_why(setup, says):
    assert says in families.problem(setup)


def test_every_family_with_its_own_options_is_a_fitting_setup():
    for setup in (Setup("egyptian", "block-4", teams=False, target=151), Setup("all-fives", seats=4, teams=True,
                  target=100), Setup("goat", "gamezz", seats=2, host_options={"zero_zero": 25}),
                  Setup("classic", seats=3, target=500), Setup("sports", target=250)):
        assert families.problem(setup) is None, setup


@pytest.mark.parametrize("text,expected", [
    ("zero_zero=25", ("zero_zero", 25)), ("zero-zero=0", ("zero_zero", 0)), ("redeal=off", ("redeal", False)),
    ("remembered=on", ("remembered", True)), ("fish=one", ("fish", "one")), ("FISH=All", ("fish", "all")),
])
def test_goat_options_are_read_as_name_equals_value(text, expected):
    assert families.parse_option(text) == expected


@pytest.mark.parametrize("text,says", [
    ("zero_zero=5", "zero_zero is 0, 10 or 25"), ("fish=two", "fish is all or one"), ("redeal=maybe", "on or off"),
    ("speed=3", "NAME one of zero_zero"), ("fish", "NAME one of"),
])
def test_bad_goat_options_say_what_is_allowed(text, says):
    with pytest.raises(ValueError, match=says):
        families.parse_option(text)


def test_the_command_line_names_a_family_by_its_variant_or_its_options():
    assert _choices(None, "koza", 3, None, None, ("fish=one",), scripted=True) == \
        Setup("goat", "koza", 3, host_options={"fish": "one"})
    assert _choices(None, None, None, None, None, ("redeal=on",), scripted=False).rules == "goat"
    assert _choices("all-fives", None, 2, None, 100, (), scripted=True) == Setup("all-fives", "", 2, target=100)


def test_the_command_line_leaves_the_family_to_the_menu_when_it_names_none():
    assert _choices(None, None, 3, None, None, (), scripted=False) == Setup("", "", 3)
    assert _choices(None, None, None, None, None, (), scripted=True) == Setup("egyptian", "draw-2")


@pytest.mark.parametrize("args,says", [
    (("egyptian", "koza", None, None, None, ()), "--variant koza is not a variant of egyptian"),
    (("classic", None, 3, True, None, ()), "teams need four seats"),
    (("all-fives", None, None, None, 71, ()), "All Fives plays to 100, 150, 200, 250, not 71"),
    (("all-fives", None, None, None, None, ("fish=one",)), "--option sets Goat's options"),
])
def test_the_command_line_refuses_options_that_do_not_fit_the_family(args, says):
    with pytest.raises(click.UsageError, match=re.escape(says)):
        _choices(*args, scripted=True)


def test_a_bad_goat_option_on_the_command_line_is_a_bad_parameter():
    with pytest.raises(click.BadParameter, match="zero_zero is 0, 10 or 25"):
        _choices("goat", None, None, None, None, ("zero_zero=7",), scripted=True)


# ---- All Fives: parsing the ends --------------------------------------------------------


@pytest.mark.parametrize("line,expected", [
    ("1 u", Invalid), ("1 d", Play((6, 4), DOWN)), ("1d", Play((6, 4), DOWN)), ("1 down", Play((6, 4), DOWN)),
    ("3 u", Play((3, 2), UP)), ("3 ^", Play((3, 2), UP)), ("3 r", Play((3, 2), RIGHT)), ("6-4 l", Play((6, 4), LEFT)),
])
def test_in_all_fives_a_tile_number_takes_any_of_the_four_ends(line, expected):
    command = commands.parse_move(line, all_fives())
    assert command == expected or isinstance(command, expected)


def test_in_all_fives_d_alone_still_draws():
    stuck = all_fives(hand=((5, 5),), legal=(("draw",),))
    assert commands.parse_move("d", stuck) == Draw()


def test_in_all_fives_a_tile_fitting_more_than_one_end_is_asked_about():
    assert commands.parse_move("1", all_fives()) == ChooseEnd((6, 4))
    assert commands.parse_move("3", all_fives()) == ChooseEnd((3, 2))


def test_in_all_fives_two_ends_of_the_same_number_still_need_an_answer():
    assert commands.parse_move("1", closed_spinner()) == ChooseEnd((6, 1))


def test_in_all_fives_a_tile_fitting_one_end_goes_there():
    assert commands.parse_move("2", all_fives()) == Play((4, 4), LEFT)


def test_a_closed_up_end_is_refused_with_the_reason():
    command = commands.parse_move("1 u", closed_spinner())
    assert isinstance(command, Invalid) and "The up end is closed" in command.message


def test_an_end_the_tile_does_not_fit_names_the_open_ends():
    command = commands.parse_move("1 u", all_fives())
    assert command.message == "6|4 does not fit the up end (open ends: 4 left, 2 right, 3 up, 6 down)."


def test_up_and_down_are_unknown_ends_outside_all_fives():
    egyptian = view(line=((6, 4),), hand=((6, 6),), legal=[("play", (6, 6), LEFT)])
    command = commands.parse_move("1 u", egyptian)
    assert isinstance(command, Invalid) and "use l (left) or r (right)" in command.message


def test_an_end_answer_is_played_only_on_an_end_the_tile_fits():
    assert commands.parse_end_answer("d", all_fives(), (6, 4)) == Play((6, 4), DOWN)
    refused = commands.parse_end_answer("u", all_fives(), (6, 4))
    assert isinstance(refused, Invalid) and "does not fit the up end" in refused.message


def test_enter_or_c_cancels_the_end_question_and_anything_else_asks_again():
    assert commands.parse_end_answer("", all_fives(), (6, 4)) == Refresh()
    assert commands.parse_end_answer("c", all_fives(), (6, 4)) == Refresh()
    again = commands.parse_end_answer("2", all_fives(), (6, 4))
    assert isinstance(again, Invalid) and "'2' is not an end: for 6|4 type l (left), r (right)" in again.message


def test_outside_all_fives_the_end_answer_knows_only_left_and_right():
    egyptian = view(line=((6, 4),), hand=((6, 4),), legal=[("play", (6, 4), LEFT), ("play", (6, 4), RIGHT)])
    assert isinstance(commands.parse_end_answer("d", egyptian, (6, 4)), Invalid)
    assert commands.parse_end_answer("r", egyptian, (6, 4)) == Play((6, 4), RIGHT)


# ---- All Fives: counting the ends ------------------------------------------------------------


def test_the_points_a_play_would_score_are_the_ones_its_legal_move_carries():
    """The server's engine counts the ends (Move.points): the client works out no rule, so a
    play it is not offered scores nothing here."""
    assert [view_reading.points_if(all_fives(), tile, end) for tile, end in
            (((3, 2), RIGHT), ((3, 2), UP), ((6, 4), DOWN), ((4, 4), LEFT))] == [10, 0, 0, 0]
    assert view_reading.points_if(all_fives(points=(((6, 4), DOWN, 15),)), (6, 4), DOWN) == 15
    assert view_reading.points_if(all_fives(), (4, 4), RIGHT) == 0  # not a legal move


def test_what_each_end_counts_is_the_views_own():
    v = all_fives(end_counts=((LEFT, 4), (RIGHT, 2), (UP, 3), (DOWN, 0)))
    counts = {end: count for end, (_, count) in view_reading.end_counts(v).items()}
    assert counts == {LEFT: 4, RIGHT: 2, UP: 3}  # down has no tile on it yet: nothing shown for it


def test_other_families_score_no_points_in_play():
    assert view_reading.points_if(view(line=((5, 5),)), (5, 0), LEFT) == 0


# ---- All Fives: the screen ---------------------------------------------------------------------


def test_the_spinner_shows_what_each_end_counts_and_their_total():
    text = screen(all_fives())
    assert re.search(r"open\s+4\s+◀ 4\|6 6\|6 6\|2 ▶\s+2\s+open", text)
    assert "spinner 6|6 · counting: left 4 · right 2 · up 3 · total 9 " in text  # down has no tile yet


def test_an_open_spinner_side_with_no_tile_is_not_counted_and_an_outer_double_counts_both_halves():
    """Reported: "left 3 · right 2 · up 5 · down 5 · they add up to 8" listed up and down,
    which count nothing until a tile lies on them, and showed the outer 3|3 as 3 though it
    counts 6."""
    v = all_fives(line=((3, 3), (3, 5), (5, 5), (5, 2)), spinner=2, up=5, down=5, up_line=(), total=8, legal=(),
                  end_counts=((LEFT, 6), (RIGHT, 2)), points=())
    text = screen(v)
    assert "spinner 5|5 · counting: left 3|3 counts 6 · right 2 · total 8 " in text
    assert re.search(r"▲ up\s+▶\s+5\s+open, nothing on it yet \(not counted\)", text)
    assert "up 5" not in text and "down 5" not in text
    assert {end: count for end, (_, count) in view_reading.end_counts(v).items()} == {LEFT: 6, RIGHT: 2}
    assert sum(count for _, count in view_reading.end_counts(v).values()) == v.ends_total


def test_the_tiles_on_up_and_down_are_drawn_under_the_spinner():
    lines = screen(all_fives()).splitlines()
    main = next(line for line in lines if "◀" in line)
    up = next(line for line in lines if "▲ up" in line)
    down = next(line for line in lines if "▼ down" in line)
    assert up.index("▲") == down.index("▼") == main.index("6|6")
    assert re.search(r"▲ up\s+6\|3 ▶\s+3", up)
    assert re.search(r"▼ down\s+▶\s+6\s+open, nothing on it yet", down)


def test_up_and_down_are_closed_until_the_spinner_opens():
    text = screen(closed_spinner())
    assert "▲ up   closed (opens once the spinner has a tile on both sides)" in text
    assert "counting: the first tile alone, once: 6|6 counts 12 · total 12" in text
    assert "up closed" not in text.split("counting:")[1]  # a closed side is left out of the count


def test_before_any_double_the_screen_says_no_spinner_yet():
    text = screen(all_fives(line=((6, 4),), spinner=None, up=None, down=None, up_line=(), total=10, legal=(),
                            end_counts=((LEFT, 6), (RIGHT, 4)), points=()))
    assert "no spinner yet: the first double becomes it" in text and "▲" not in text


def test_the_hand_marks_every_end_a_tile_fits():
    assert "1)[6|4]←↓  2)[4|4]←  3)[3|2]→↑" in screen(all_fives())


def test_the_end_question_says_what_each_end_would_score():
    """Reported: the question showed the ends' numbers, not the points the README promised."""
    text = screen(all_fives(), pending=(3, 2))
    assert "Play 3|2 on right (r, scores 10) or up (u, scores 0)? (Enter cancels)" in text


def test_the_end_question_lists_every_end_a_tile_fits_with_its_points():
    v = all_fives(legal=(("play", (6, 4), LEFT), ("play", (6, 4), RIGHT), ("play", (6, 4), DOWN)))
    assert "Play 6|4 on left (l, scores 0), right (r, scores 0) or down (d, scores 0)?" in screen(v, pending=(6, 4))


def test_outside_all_fives_the_end_question_names_the_ends_without_points():
    egyptian = view(line=((6, 4),), hand=((6, 4),), legal=[("play", (6, 4), LEFT), ("play", (6, 4), RIGHT)])
    text = screen(egyptian, pending=(6, 4))
    assert "6|4 fits both ends: l (left, 6) or r (right, 4)?" in text and "scores" not in text


def test_the_points_each_play_scored_show_in_the_recent_actions():
    v = all_fives(actions=[{"seat": 1, "kind": pb.MOVE_KIND_PLAY, "tile": pb.Tile(low=3, high=6), "end": UP},
                           {"seat": 0, "kind": pb.MOVE_KIND_PLAY, "tile": pb.Tile(low=2, high=6), "end": RIGHT,
                            "points": 10}])
    text = screen(v)
    assert "Last moves  bot greedy 1  played [6|3] on the up end\n" in text
    assert "            you           played [6|2] on the right end  +10" in text


def test_round_summaries_show_the_points_scored_in_play():
    v = all_fives(rounds=[{"reason": pb.ROUND_END_REASON_DOMINO, "winner": 1, "points": 15, "scores": [20, 35],
                           "points_in_play": [20, 20]}])
    assert "Round 1: bot greedy 1 dominoed, +15 · scored in play: you 20, bot greedy 1 20" in screen(v)


@pytest.mark.parametrize("table", params(sample_tables()))
def test_a_boneyard_count_shows_whenever_the_family_draws(table):
    rules = table.build()
    shown = rules.draws and rules.seats * rules.hand_size < 28  # a boneyard is left to draw from
    v = view(seats=[f"p{i}" for i in range(table.seats)], variant=table.variant or "", teams=table.teams)
    v.rules = table.family
    assert ("boneyard 4" in render.to_text(render.line_panel(v))) == shown


def test_the_header_names_the_family_and_seats():
    assert "All Fives · 2 seats · solo · to 100 · round 1 · 45 s turns" in screen(all_fives())


# ---- Goat ------------------------------------------------------------------------------------------


def test_goat_shows_each_sides_remembered_points_and_whether_its_account_is_open():
    text = screen(goat())
    assert re.search(r"score/101\s+remembered\s+account", text)
    assert re.search(r"0\s+you\s+3\s+0\s+5\s+closed", text)
    assert re.search(r"1\s+bot random 1\s+7\s+0\s+0\s+open", text)


def test_goat_without_remembered_points_shows_no_accounts():
    text = screen(goat(options=preset("goat", "gamezz"), remembered=(0, 0, 0), opened=(False,) * 3))
    assert "remembered" not in text.split("match ")[-1] and "account" not in text


def test_goat_names_its_options_and_the_limit_in_the_header():
    text = screen(goat())
    assert "Goat koza · 3 seats · solo · 101 makes the goat" in text
    assert "lowest total wins · 0-0 alone counts 10 · redeal on · remembered on · fish all" in text


def test_a_views_options_are_its_rule_options_as_played():
    v = goat(options={"zero_zero": 25, "redeal": False, "remembered": True, "fish": "one"})
    assert "lowest total wins · 0-0 alone counts 25 · redeal off · remembered on · fish one" in screen(v)


def test_goat_shows_the_pot_carried_to_this_round():
    assert "pot 14 · boneyard 4" in screen(goat(pot=14))


def test_goat_shows_every_rounds_writes_so_far_and_the_written_totals():
    """Reported: during play Goat showed only the last round's writes."""
    v = goat(rounds=[{"reason": pb.ROUND_END_REASON_DOMINO, "winner": 1, "points": 37, "written": [12, 0, 25], "remembered": [0, 0, 0],
                      "scores": [12, 0, 25]},
                     {"reason": pb.ROUND_END_REASON_REDEAL},
                     {"reason": pb.ROUND_END_REASON_BLOCKED, "winner": 2, "points": 30, "written": [0, 30, 0], "remembered": [5, 0, 0],
                      "pot": 14, "scores": [12, 30, 25]}], scores=[12, 30, 25])
    text = screen(v)
    assert "Written so far (lowest total wins; 101 or more makes the goat)" in text
    assert re.search(r"round\s+you\s+bot random 1\s+bot random 2\s*\n", text)
    assert re.search(r"\s1\s+12\s+0\s+25\s+bot random 1 went out\s*\n", text)
    assert re.search(r"\s2\s+—\s+—\s+—\s+redealt: nothing written", text)
    assert re.search(r"\s3\s+0\s+30\s+0\s+bot random 2 made the fish · pot 14 carried on", text)
    assert re.search(r"total\s+12\s+30\s+25\s*\n", text)


def test_goat_in_teams_writes_per_team():
    v = goat(seats=("ann", "bot:random:1", "bob", "bot:random:2"), teams=True, remembered=(0, 0), opened=(True, True),
             rounds=[{"reason": pb.ROUND_END_REASON_DOMINO, "winner": 0, "points": 20, "written": [0, 20], "remembered": [0, 0],
                      "scores": [0, 20]}], scores=[0, 20])
    text = screen(v)
    assert re.search(r"round\s+your team\s+team B\s*\n", text)
    assert re.search(r"total\s+0\s+20\s*\n", text)


def test_a_redealt_goat_round_says_so():
    v = goat(rounds=[{"reason": pb.ROUND_END_REASON_REDEAL}])
    assert re.search(r"1\s+—\s+—\s+—\s+redealt: nothing written", screen(v))
    assert "Round 1: redealt (a hand called for it) — nothing written" in render.to_text(rounds.final_panel(v))


def test_the_goat_is_named_at_the_end_and_the_lowest_total_wins():
    v = goat(status=pb.MATCH_STATUS_ENDED, turn=None, winner=0, scores=[20, 104, 40])
    v.goats.append(1)
    text = screen(v)
    assert "Match over — you won!" in text and "Bot random 1 is the goat." in text
    assert "Final scores: you 20 · bot random 1 104 · bot random 2 40  (lowest wins)" in text
    assert rounds.result_line(v).endswith("ended: you won!; bot random 1 is the goat (you 20, bot random 1 104, "
                                          "bot random 2 40)")


def test_tied_lowest_goat_totals_leave_no_single_winner():
    v = goat(status=pb.MATCH_STATUS_ENDED, turn=None, winner=None, scores=[40, 104, 40])
    v.goats.append(1)
    assert "Match over — no single winner (the lowest totals tie)" in screen(v)


def test_a_player_who_is_the_goat_is_told_so():
    v = goat(status=pb.MATCH_STATUS_ENDED, turn=None, winner=1, scores=[110, 20, 40])
    v.goats.append(0)
    assert "You are the goat." in screen(v)


# ---- Sports ------------------------------------------------------------------------------------------


def sports(**kw) -> pb.MatchView:
    v = view(seats=("ann", "bot:greedy:1", "bot:greedy:2", "bot:greedy:3"), teams=True, variant="", **kw)
    v.rules, v.target, v.turn_seconds = "sports", 200, 5
    return v


def test_sports_counts_down_the_seconds_this_move_was_given():
    v = sports(turn=1, deadline_in=30)  # a clock behind the server's does not add time
    assert view_reading.time_left(v, NOW).seconds == 5
    assert "Waiting for bot greedy 1 — 5 s left (this move: 5 s)." in screen(v)


def test_sports_counts_down_even_when_the_host_timer_is_off():
    v = sports(turn=1, timer=0)
    v.turn_deadline.FromNanoseconds(int((NOW + 3.5) * 1e9))
    assert view_reading.time_left(v, NOW).seconds == 4


def test_sports_names_its_per_move_timer_in_the_header():
    assert "Sports · 4 seats · teams · to 200 · round 1 · per-move timer 5/20/60 s" in screen(sports(turn=1))


# ---- rooms and tables ----------------------------------------------------------------------------------


def test_the_room_names_the_family_seats_and_goat_options():
    room = mm.RoomView(room_id="r1", code="K7M2PQ4X", host_player_id="ann", status=mm.ROOM_STATUS_OPEN, version=3,
                       options=mm.MatchOptions(rules="goat", variant="gamezz", seat_count=3, target=101,
                                               turn_timer_seconds=60,
                                               rule_options=settings_pb({"zero_zero": 25, "redeal": False,
                                                                         "remembered": True, "fish": "one"})))
    text = render.to_text(lobby_screens.room_screen(room, "ann"))
    assert "Goat gamezz · 3 seats · solo · 101 makes the goat · 60 s turns" in text
    assert "0-0 alone counts 25 · redeal off · remembered on · fish one" in text


def test_the_ticket_names_the_family_and_seat_count():
    ticket = mm.TicketView(ticket_id="t", status=mm.TICKET_STATUS_WAITING, rules="all-fives", seat_count=3)
    assert "public All Fives · 3 seats · solo" in render.to_text(lobby_screens.ticket_screen(ticket, NOW))


@pytest.mark.parametrize("line,options", [
    ("o target=150", (("target", 150),)),
    ("o seats=3 solo", (("seats", 3), ("teams", False))),
    ("o rules=goat variant=gamezz fish=one zero_zero=25", (("rules", "goat"), ("variant", "gamezz"),
                                                          ("fish", "one"), ("zero_zero", 25))),
    ("set timer=60 teams=on", (("timer", 60), ("teams", True))),
])
def test_the_host_changes_room_options_by_name(line, options):
    assert menu.parse_room_command(line) == menu.RoomCommand("options", options=options)


@pytest.mark.parametrize("line,says", [("o", "Say what to change"), ("o seats=many", "'seats=many'?"),
                                       ("o fish=two", "fish is all or one")])
def test_room_options_that_cannot_be_read_say_why(line, says):
    command = menu.parse_room_command(line)
    assert command.action == "invalid" and says in command.message


# ---- the requests ------------------------------------------------------------------------------------------


def sent_request(call: str, *args, **kwargs):
    """The request a MatchmakingApi method would send (nothing leaves the process)."""
    from services.client.api import MatchmakingApi

    api = MatchmakingApi("127.0.0.1:1", "token")
    sent = []

    class Reply:
        room = ticket = None

    api.call = lambda method, request, retry=False: sent.append(request) or Reply()
    try:
        getattr(api, call)(*args, **kwargs)
    finally:
        api.close()
    return sent[0]


def test_practice_passes_the_family_and_every_option_it_was_given():
    setup = Setup("goat", "gamezz", seats=4, teams=True, target=101, host_options={"zero_zero": 25, "fish": "one"})
    request = sent_request("start_practice", setup, "random", 60)
    assert (request.rules, request.variant, request.seat_count, request.teams, request.target, request.bot_strength,
            request.turn_timer_seconds) == ("goat", "gamezz", 4, True, 101, pb.BOT_STRENGTH_RANDOM, 60)
    assert list(request.rule_options) == settings_pb({"zero_zero": 25, "fish": "one"})  # unset: the preset


def test_options_left_unset_are_left_out_for_the_servers_defaults():
    request = sent_request("create_room", Setup("all-fives"))
    assert request.rules == "all-fives"
    assert not any(request.HasField(name) for name in ("seat_count", "teams", "target", "turn_timer_seconds", "seat"))
    assert not request.rule_options


def test_a_public_table_asks_for_the_family_seats_and_teams_only():
    request = sent_request("request_table", Setup("classic", seats=3, target=300))
    assert (request.rules, request.seat_count, request.HasField("teams")) == ("classic", 3, False)


def test_a_room_update_sends_only_what_changes():
    request = sent_request("update_room_options", "r-1", target=150, host_options={"fish": "one"})
    assert request.target == 150 and list(request.rule_options) == settings_pb({"fish": "one"})
    assert not any(request.HasField(name) for name in ("rules", "variant", "seat_count", "teams",
                                                       "turn_timer_seconds"))


# ---- the end of a round, per family --------------------------------------------------------------


def round_end_text(v: pb.MatchView, record_round: dict, number: int = 1) -> str:
    from services.client import round_end

    shown = round_end.from_record({"rounds": [record_round]}, number, v.rounds[number - 1])
    return render.to_text(round_end.round_end_panel(v, shown), width=120)


def test_an_all_fives_rounds_end_shows_the_points_scored_in_play_and_the_rounded_pips():
    v = all_fives(rounds=[{"reason": pb.ROUND_END_REASON_DOMINO, "winner": 1, "points": 15, "scores": [20, 35],
                           "points_in_play": [20, 20]}])
    text = round_end_text(v, {"hands": [["6-4", "3-2", "1-1", "5-6"], 2],
                              "actions": [{"seat": 1, "play": "5-5"}, {"seat": 0, "play": "5-6", "end": "left"},
                                          {"seat": 1, "play": "6-0", "end": "left"}]})
    assert "bot greedy 1 went out (domino): +15 for bot greedy 1 (pips rounded to the nearest 5)." in text
    assert "Scored in play: you 20, bot greedy 1 20" in text
    assert re.search(r"you\s+\[6\|4\] \[3\|2\] \[1\|1\]\s+17 pips", text)
    assert re.search(r"bot greedy 1\s+out — no tiles left", text)
    assert "Scores: you 20 · bot greedy 1 35  (to 100)" in text


def test_a_goat_rounds_end_shows_what_was_written_remembered_and_the_pot():
    v = goat(rounds=[{"reason": pb.ROUND_END_REASON_BLOCKED, "winner": 2, "points": 0, "written": [0, 0, 0], "remembered": [5, 0, 12],
                      "pot": 14, "scores": [0, 0, 0]}])
    text = round_end_text(v, {"hands": [["0-0"], 2, 3], "actions": [{"seat": 2, "play": "6-6"}]})
    assert "Blocked: nobody could play; bot random 2 made the fish and writes nothing" in text
    assert "Written this round: you 0, bot random 1 0, bot random 2 0" in text
    assert "Remembered (not written): you 5, bot random 1 0, bot random 2 12" in text
    assert "Pot 14 carried to the next round" in text
    assert re.search(r"you\s+\[0\|0\]\s+10 pips", text)  # koza: a hand of only 0-0 counts 10
    assert "(101 makes the goat)" in text


def test_a_teams_rounds_end_names_who_went_out_and_the_team_that_won():
    v = sports(rounds=[{"reason": pb.ROUND_END_REASON_DOMINO, "winner": 0, "points": 40, "scores": [40, 0]}])
    text = round_end_text(v, {"hands": [["6-6", "1-1"], 2, 1, 2],
                              "actions": [{"seat": 0, "play": "6-6"}, {"seat": 1, "play": "6-1", "end": "left"},
                                          {"seat": 2, "play": "1-2", "end": "left"}]})
    assert "bot greedy 2 (partner) went out (domino): your team wins the round: +40 for your team." in text
    assert re.search(r"bot greedy 3\s+2 tiles, not shown", text)
