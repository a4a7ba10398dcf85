"""`domino play`'s pure core: what a view looks like on screen, and what a typed line means."""

from __future__ import annotations

import re

import pytest

from domino.match.v1 import match_service_pb2 as pb
from domino.matchmaking.v1 import matchmaking_service_pb2 as mm
from services.client import commands, families, lobby_screens, menu, render, rounds, view_reading
from services.client.commands import ChooseEnd, Draw, Help, Invalid, Play, Quit, Refresh
from services.client.store import LastMatch
from services.client.view_reading import ANY, LEFT, RIGHT
from tests.support.families import usual_tables
from tests.support.rules_description import family as described_family
from tests.support.rules_description import served_rules  # noqa: F401  (the fixture, by name)

pytestmark = pytest.mark.usefixtures("served_rules")

NOW = 1_800_000_000.0


def view(hand=((6, 4), (3, 3), (5, 1)), line=((6, 6),), legal=None, turn=0, seats=("ann", "bot:greedy:1"),
         your_seat=0, scores=None, teams=False, deadline_in=30.0, variant="draw-2", counts=None, away=(),
         status=pb.MATCH_STATUS_IN_PROGRESS, winner=None, rounds=(), actions=(), timer=45, version=7,
         lead=None) -> pb.MatchView:
    """A player's view; ``legal`` lists ("play", (a, b), end) / ("draw",) moves (default: none);
    None for ``turn``, ``winner`` or ``your_seat`` leaves it unset, as the server says "none";
    ``lead``: (seat, LeadReason) of the round in play (default: the seat to act, by round 1's
    rule before any round ended, by the last round's taker after one)."""
    v = pb.MatchView(match_id="0f0e0d0c-0000-4000-8000-000000000001", version=version, status=status,
                     rules="egyptian", variant=variant, teams=teams, target=51, turn_timer_seconds=timer,
                     round_number=len(rounds) + 1, boneyard_count=4)
    for name, value in (("your_seat", your_seat), ("turn", turn), ("winner", winner)):
        if value is not None:
            setattr(v, name, value)
    for i, player in enumerate(seats):
        v.seats.add(player_id=player, tile_count=(counts or {}).get(i, 7 if i != your_seat else len(hand)),
                    away=i in away)
    for a, b in hand:
        v.hand.add(low=b, high=a)
    for a, b in line:
        v.line.add(left=a, right=b)
    if line:
        v.left_end, v.right_end = line[0][0], line[-1][1]
    n_sides = 2 if teams else len(seats)
    v.scores.extend(scores or [0] * n_sides)
    for move in legal or ():
        if move[0] == "draw":
            v.legal_moves.add(kind=pb.MOVE_KIND_DRAW)
        else:
            a, b = move[1]
            v.legal_moves.add(kind=pb.MOVE_KIND_PLAY, tile=pb.Tile(low=b, high=a), end=move[2])
    for r in rounds:
        v.rounds.add(**r)
    for a in actions:
        v.round_actions.add(**a)
    set_lead(v, lead)
    if deadline_in is not None and turn is not None and timer:
        v.turn_deadline.FromNanoseconds(int((NOW + deadline_in) * 1e9))
    return v


def set_lead(v: pb.MatchView, lead=None) -> None:
    """The view's round_lead: ``lead`` (seat, LeadReason), else what the server would say of a
    round without leader_by_chance: round 1's rule, again after a tie, or the last round's taker."""
    if lead is None:
        if v.status == pb.MATCH_STATUS_WAITING_FOR_SEEDS:
            return
        seat = v.round_actions[0].seat if v.round_actions else (v.turn if v.HasField("turn") else 0)
        played = [r for r in v.rounds if r.reason != pb.ROUND_END_REASON_REDEAL]
        reason = (pb.LEAD_REASON_ROUND_ONE_RULE if not played else
                  pb.LEAD_REASON_AFTER_A_TIE if not played[-1].HasField("winner") else pb.LEAD_REASON_TOOK_THE_LAST_ROUND)
        lead = (seat, reason)
    v.round_lead.seat, v.round_lead.reason = lead


# ---- tiles --------------------------------------------------------------------------


def test_the_hand_is_numbered_highest_first_whatever_order_the_server_sends():
    v = view(hand=((1, 0), (6, 4), (3, 3), (6, 6)))
    assert view_reading.hand(v) == [(6, 6), (6, 4), (3, 3), (1, 0)]


def test_names_sides_and_the_winner_from_the_callers_seat():
    v = view(seats=("ann", "bot:greedy:1", "bob", "bot:strong:2"), teams=True, your_seat=2, winner=0,
             status=pb.MATCH_STATUS_ENDED, turn=None)
    assert view_reading.seat_name(v, 2) == "you"
    assert view_reading.seat_name(v, 0) == "ann (partner)"
    assert view_reading.seat_name(v, 1) == "bot greedy 1"
    assert view_reading.side_name(v, 0) == "your team" and view_reading.side_name(v, 1) == "team B"
    assert view_reading.winner_text(v) == "your team won!"
    solo = view(winner=1, status=pb.MATCH_STATUS_ENDED, turn=None)
    assert view_reading.winner_text(solo) == "bot greedy 1 won"


def test_time_left_counts_down_to_the_deadline_and_knows_unlimited_turns():
    assert view_reading.time_left(view(deadline_in=12.2), NOW).seconds == 13
    assert view_reading.time_left(view(deadline_in=-3), NOW).seconds == 0
    assert str(view_reading.time_left(view(timer=0, deadline_in=None), NOW)) == "no time limit"
    assert str(view_reading.time_left(view(deadline_in=5), NOW)) == "5 s left"


def test_only_a_tile_fitting_two_different_ends_needs_an_end():
    v = view(line=((6, 4),), legal=[("play", (6, 4), LEFT), ("play", (6, 4), RIGHT)], hand=((6, 4),))
    assert view_reading.end_choice_matters(v, {LEFT, RIGHT})
    same = view(line=((5, 5),), legal=[("play", (5, 2), LEFT), ("play", (5, 2), RIGHT)], hand=((5, 2),))
    assert not view_reading.end_choice_matters(same, {LEFT, RIGHT})
    assert view_reading.default_end(same, {LEFT, RIGHT}) == RIGHT
    assert view_reading.default_end(same, {LEFT}) == LEFT


# ---- parsing a move -------------------------------------------------------------------


def my_turn(**kw) -> pb.MatchView:
    """Line 6|4 (open 6 left, 4 right); hand 6|6 (left), 4|2 (right), 6|4 (both), 3|1 (none)."""
    return view(line=((6, 4),), hand=((6, 6), (4, 2), (6, 4), (3, 1)),
                legal=[("play", (6, 6), LEFT), ("play", (6, 4), LEFT), ("play", (6, 4), RIGHT),
                       ("play", (4, 2), RIGHT)], **kw)


@pytest.mark.parametrize("line,expected", [
    ("1", Play((6, 6), LEFT)),
    ("3", Play((4, 2), RIGHT)),
    ("  3 r ", Play((4, 2), RIGHT)),
    ("2", ChooseEnd((6, 4))),
    ("2 l", Play((6, 4), LEFT)),
    ("2r", Play((6, 4), RIGHT)),
    ("2 right", Play((6, 4), RIGHT)),
    ("6-4 <", Play((6, 4), LEFT)),
    ("2|4", Play((4, 2), RIGHT)),
    ("", Refresh()),
    ("?", Help()),
    ("Q", Quit()),
])
def test_a_line_on_your_turn_becomes_a_legal_move_or_a_question(line, expected):
    assert commands.parse_move(line, my_turn()) == expected


@pytest.mark.parametrize("line,says", [
    ("4", "3|1 does not fit the line (open ends: 6 left, 4 right)"),
    ("1 r", "6|6 does not fit the right end"),
    ("9", "Pick a tile number from 1 to 4"),
    ("0", "Pick a tile number from 1 to 4"),
    ("5-5", "You do not hold 5|5"),
    ("d", "You cannot draw while a tile of yours fits: 6|6, 6|4, 4|2"),
    ("play it", "is not a move"),
    ("2 x", "Unknown end 'x'"),
])
def test_the_client_refuses_what_it_can_tell_is_illegal_and_says_why(line, says):
    command = commands.parse_move(line, my_turn())
    assert isinstance(command, Invalid) and says in command.message


def test_drawing_is_the_move_when_nothing_fits_and_the_first_tile_needs_no_end():
    stuck = view(hand=((3, 1),), line=((6, 4),), legal=[("draw",)])
    assert commands.parse_move("d", stuck) == Draw()
    assert "draw with d" in commands.parse_move("1", stuck).message
    opening = view(hand=((6, 6), (2, 1)), line=(), legal=[("play", (6, 6), ANY)])
    assert commands.parse_move("1", opening) == Play((6, 6), ANY)
    assert commands.parse_move("1 l", opening) == Play((6, 6), ANY)


def test_moves_out_of_turn_are_refused_but_quit_and_help_still_work():
    waiting = view(turn=1)
    assert "waiting for bot greedy 1" in commands.parse_move("1", waiting).message
    assert commands.parse_move("q", waiting) == Quit()
    assert commands.parse_end("L") == LEFT and commands.parse_end(" r ") == RIGHT and commands.parse_end("x") is None


def test_auto_plays_the_first_legal_move_and_nothing_out_of_turn():
    assert commands.auto_move(my_turn()) == Play((6, 6), LEFT)
    assert commands.auto_move(view(legal=[("draw",)])) == Draw()
    assert commands.auto_move(view(turn=1)) is None


# ---- the game screen ----------------------------------------------------------------


def test_the_screen_shows_hand_line_ends_seats_scores_turn_and_time():
    v = my_turn(seats=("ann", "bot:greedy:1"), scores=[12, 30], counts={1: 5}, away=(1,),
                actions=[{"seat": 1, "kind": pb.MOVE_KIND_PLAY, "tile": pb.Tile(low=4, high=6), "end": RIGHT},
                         {"seat": 0, "kind": pb.MOVE_KIND_DRAW, "cause": pb.MOVE_CAUSE_TIMEOUT}])
    text = render.to_text(render.game_screen(v, NOW), width=100)
    assert "Egyptian draw-2 · 2 seats · solo · to 51 · round 1 · 45 s turns" in text
    assert re.search(r"open\s+6\s+◀ 6\|4 ▶\s+4\s+open", text)
    assert "boneyard 4" in text
    assert re.search(r"▶\s+0\s+you\s+4\s+12\s+to play, 30 s left", text)
    assert re.search(r"1\s+bot greedy 1\s+5\s+30\s+away", text)
    assert "1)[6|6]←  2)[6|4]↔  3)[4|2]→  4)[3|1]" in text
    assert "Last moves  bot greedy 1  played [6|4] on the right end" in text
    assert "            you           drew a tile  (time ran out: played for you)" in text
    assert "Your turn — 30 s left." in text
    assert "Tile number (add l/r if it fits both ends)" in text


def test_while_others_play_the_screen_says_whom_we_wait_for():
    text = render.to_text(render.game_screen(view(turn=1, deadline_in=9), NOW))
    assert "Waiting for bot greedy 1 — 9 s left." in text
    assert "Tile number" not in text and "←" not in text


def test_the_prompt_asks_for_an_end_or_a_draw_when_that_is_all_there_is():
    v = my_turn()
    assert "6|4 fits both ends: l (left, 6) or r (right, 4)?" in render.to_text(render.game_screen(v, NOW,
                                                                                                   pending=(6, 4)))
    stuck = view(hand=((3, 1),), line=((6, 4),), legal=[("draw",)])
    assert "Nothing fits: d to draw." in render.to_text(render.game_screen(stuck, NOW))


def test_teams_show_partners_and_team_scores():
    v = view(seats=("ann", "bot:greedy:1", "bot:greedy:2", "bot:greedy:3"), teams=True, scores=[20, 35],
             variant="block-4")
    text = render.to_text(render.game_screen(v, NOW))
    assert re.search(r"2\s+bot greedy 2 \(partner\)\s+A\s+7\s+20", text)
    assert re.search(r"3\s+bot greedy 3\s+B\s+7\s+35", text)
    assert "boneyard" not in text


def test_the_end_of_the_match_shows_the_result_and_every_round():
    v = view(status=pb.MATCH_STATUS_ENDED, turn=None, winner=0, scores=[53, 20],
             rounds=[{"reason": pb.ROUND_END_REASON_DOMINO, "winner": 0, "points": 30, "scores": [30, 0]},
                     {"reason": pb.ROUND_END_REASON_BLOCKED, "points": 0, "scores": [30, 0]},
                     {"reason": pb.ROUND_END_REASON_BLOCKED, "winner": 1, "points": 20, "scores": [30, 20]},
                     {"reason": pb.ROUND_END_REASON_DOMINO, "winner": 0, "points": 23, "scores": [53, 20]}])
    text = render.to_text(render.game_screen(v, NOW))
    assert "Match over — you won!" in text
    assert "Final scores: you 53 · bot greedy 1 20" in text
    assert "Round 1: you dominoed, +30" in text
    assert "Round 2: blocked, a tie — no points" in text
    assert "Round 3: bot greedy 1 won the blocked round, +20" in text
    assert "Your hand" not in text
    assert rounds.result_line(v) == ("match 0f0e0d0c-0000-4000-8000-000000000001 ended: you won! "
                                     "(you 53, bot greedy 1 20)")


def test_colours_paint_pips_and_open_ends():
    text = render.to_text(render.game_screen(my_turn(), NOW), color=True)
    assert "\x1b[" in text
    plain = re.sub(r"\x1b\[[0-9;]*m", "", text)
    assert plain == render.to_text(render.game_screen(my_turn(), NOW))


def test_an_away_seat_is_told_how_to_come_back():
    text = render.to_text(render.game_screen(view(away=(0,), turn=1), NOW), width=140)
    assert "You are marked away" in text and "Type back (or a move) to play them again; Enter only refreshes" in text


# ---- menus and rooms --------------------------------------------------------------------


@pytest.mark.parametrize("answer,expected", [
    ("", "draw-2"), ("2", "block-3"), ("block-4", "block-4"), ("BLOCK-4", "block-4"), ("d", "draw-2"),
    ("b", None), ("7", None), ("x", None),
])
def test_a_choice_is_its_number_its_name_or_an_unambiguous_start(answer, expected):
    assert menu.pick(answer, described_family("egyptian").variants, "draw-2") == expected


def test_numbers_that_are_choices_mean_themselves():
    assert menu.pick("1", ["r", "1", "2", "q"]) == "1"
    assert menu.pick("51", ["51", "71", "101", "151", "default"]) == "51"
    assert menu.pick("2", ["51", "71", "101", "151", "default"]) is None  # a number, never the 2nd choice


@pytest.mark.parametrize("line,expected", [
    ("b", menu.RoomCommand("bot")),
    ("b 2 strong", menu.RoomCommand("bot", 2, "strong")),
    ("bot r", menu.RoomCommand("bot", None, "random")),
    ("k 3", menu.RoomCommand("kick", 3)),
    ("m 1", menu.RoomCommand("move", 1)),
    ("s", menu.RoomCommand("start")),
    ("q", menu.RoomCommand("quit")),
    ("", menu.RoomCommand("refresh")),
])
def test_lobby_commands(line, expected):
    assert menu.parse_room_command(line) == expected


def test_bad_lobby_commands_explain_themselves():
    assert menu.parse_room_command("k").action == "invalid"
    offered = families.current().strength_names  # what DescribeRules offers
    assert ", ".join(offered) in menu.parse_room_command("b wizard").message
    assert menu.clean_code(" k7m2-pq4x ") == "K7M2PQ4X"


def test_the_room_screen_shows_the_code_seats_and_what_the_host_may_do():
    room = mm.RoomView(room_id="r1", code="K7M2PQ4X", host_player_id="ann", status=mm.ROOM_STATUS_OPEN, version=3,
                       options=mm.MatchOptions(rules="egyptian", variant="block-4", teams=True, target=101,
                                               turn_timer_seconds=45))
    for seat, player in enumerate(["ann", "bot:strong:1", "", "bob"]):
        room.seats.add(seat=seat, player_id=player, team=seat % 2)
    host = render.to_text(lobby_screens.room_screen(room, "ann"))
    assert "K7M2PQ4X" in host and "domino play --join K7M2PQ4X" in host
    assert "Egyptian block-4 · 4 seats · teams · to 101 · 45 s turns" in host
    assert re.search(r"0\s+you \(host\)\s+A", host) and re.search(r"1\s+bot strong 1\s+B", host)
    assert re.search(r"2\s+\(free\)", host) and "s starts (when full: 1 free)" in host
    guest = render.to_text(lobby_screens.room_screen(room, "bob"))
    assert "Waiting for the host to start" in guest and re.search(r"0\s+ann \(host\)", guest)


# ---- the last match -------------------------------------------------------------------


def test_the_last_match_is_kept_per_player_and_forgotten_once_over(tmp_path):
    ann, odd = LastMatch(tmp_path, "ann"), LastMatch(tmp_path, "../we ird/ name")
    assert ann.load() is None
    ann.save("m-1")
    odd.save("m-2")
    assert (ann.load(), odd.load()) == ("m-1", "m-2")
    assert odd.path.parent == tmp_path / "players"
    ann.clear("another match")
    assert ann.load() == "m-1"
    ann.clear("m-1")
    assert ann.load() is None and odd.load() == "m-2"
    odd.path.write_text("not json")
    assert odd.load() is None


def test_a_turn_with_nothing_to_play_or_draw_is_never_offered_to_the_player():
    """The server passes for such a seat before it sends the view (issue 35, point 4): a view
    that still named it, with a pass as its only move, is no turn of the player's."""
    passing = view(hand=((2, 2),), line=((6, 3),), legal=[])
    passing.legal_moves.add(kind=pb.MOVE_KIND_PASS)
    assert not view_reading.is_my_turn(passing)
    assert commands.auto_move(passing) is None
    text = render.to_text(render.game_screen(passing, NOW))
    assert "Your turn" not in text and "Tile number" not in text


def test_refusals_for_being_elsewhere_say_how_to_get_back():
    import grpc

    from services.client.api import ApiError
    from services.client.app import explain
    from services.common.error_details import Details

    busy = ApiError(grpc.StatusCode.FAILED_PRECONDITION, "you are already seated at table t-1 until its match ends",
                    details=Details("ALREADY_SEATED"))
    assert "domino play --resume last" in explain(busy)
    worded_alike = ApiError(grpc.StatusCode.FAILED_PRECONDITION, "you are already seated", details=Details("ROOM_FULL"))
    assert "domino play --resume last" not in explain(worded_alike)  # the reason tells, not the words
    down = ApiError(grpc.StatusCode.UNAVAILABLE, "connection refused", "127.0.0.1:1")
    assert explain(down) == "cannot reach 127.0.0.1:1 (is `domino up` running?)"


# ---- opening a round with the wrong tile ------------------------------------------------------


def opening(rules="egyptian", variant="draw-2", hand=((6, 1), (3, 3), (2, 2)), openers=((3, 3),), rounds=(),
            seats=("ann", "bot:greedy:1"), lead=None) -> pb.MatchView:
    """The caller to open an empty line, allowed only ``openers`` and led for ``lead`` (what the server says)."""
    v = view(hand=hand, line=(), legal=[("play", t, ANY) for t in openers], variant=variant, rounds=rounds,
             seats=seats, lead=lead)
    v.rules = rules
    return v


TIED = {"reason": pb.ROUND_END_REASON_BLOCKED, "scores": [0, 0]}
WON = {"reason": pb.ROUND_END_REASON_DOMINO, "winner": 0, "points": 20, "scores": [20, 0]}


@pytest.mark.parametrize("v,typed,says", [
    (opening(), "1", "This round must be opened with 3|3, the highest double dealt."),
    (opening(rounds=[TIED]), "1", "This round must be opened with 3|3, the highest double dealt, as after a tied "
                                  "round."),
    (opening(hand=((6, 3), (5, 4), (2, 1)), openers=((6, 3),)), "2",
     "This round must be opened with 6|3, the heaviest tile dealt, as no double was (equal values: the higher pip)."),
    (opening("classic", "", openers=((3, 3),)), "1",
     "This round must be opened with 3|3, the highest double dealt (0-0 never leads)."),
    (opening("classic", "", hand=((6, 3), (1, 0), (0, 0)), openers=((6, 3),)), "3",
     "This round must be opened with 6|3, the heaviest tile dealt, as no double but perhaps 0-0 was, and 0-0 "
     "never leads."),
    (opening("classic", "", hand=((6, 3), (1, 0), (0, 0)), openers=((6, 3), (1, 0)), rounds=[WON]), "3",
     "0|0 never opens a round in Classic: open it with any other tile."),
    (opening("goat", "gamezz", hand=((6, 6), (2, 1), (0, 0)), openers=((0, 0),)), "1",
     "This round must be opened with 0|0, as Goat gamezz's round 1 is led with 0-0 by whoever holds it."),
    (opening("goat", "koza", hand=((6, 6), (2, 2), (0, 0)), openers=((2, 2),)), "1",
     "This round must be opened with 2|2, the lowest double dealt (Goat koza leads round 1 with the lowest double, "
     "1-1 up to 6-6, then 0-0)."),
])
def test_a_wrong_opening_tile_names_the_tile_that_must_open_and_why(v, typed, says):
    command = commands.parse_move(typed, v)
    assert isinstance(command, Invalid) and command.message == says


@pytest.mark.parametrize("rules", [t.family for t in usual_tables(lambda rules: rules.chance)])
def test_a_leader_drawn_by_chance_opens_with_any_tile(rules):
    seats = ("ann", "b1", "b2", "b3")
    v = opening(rules, "", openers=((6, 1), (3, 3), (2, 2)), seats=seats, lead=(0, pb.LEAD_REASON_BY_CHANCE))
    assert commands.parse_move("1", v) == Play((6, 1), ANY)
    assert "You open this round (drawn by chance): any tile may open it." in render.to_text(
        render.game_screen(v, NOW), width=120)


def test_the_tile_that_must_open_is_named_before_the_player_types():
    text = render.to_text(render.game_screen(opening(), NOW), width=120)
    assert "You open this round with 3|3, the highest double dealt." in text


# ---- drawing where there is no boneyard -----------------------------------------------------------


@pytest.mark.parametrize("rules,variant,seats,says", [
    ("egyptian", "block-3", 3, "Egyptian block-3 deals 9 tiles to each of the 3 seats and sets the last one aside"),
    ("egyptian", "block-4", 4, "Egyptian block-4 deals all 28 tiles to its 4 seats"),
    ("sports", "", 4, "Sports deals all 28 tiles to its 4 seats"),
    ("all-fives", "", 4, "All Fives with 4 seats deals all 28 tiles"),
    ("goat", "koza", 4, "Goat koza with 4 seats deals all 28 tiles"),
])
def test_d_in_a_game_without_a_boneyard_says_there_is_none(rules, variant, seats, says):
    v = my_turn(seats=[f"p{i}" for i in range(seats)], variant=variant)
    v.rules = rules
    command = commands.parse_move("d", v)
    assert isinstance(command, Invalid)
    assert command.message == f"This game has no boneyard: {says}, so nothing is ever drawn. Play a tile that fits."
    assert "while a tile of yours fits" not in command.message


# ---- the line and the last moves ---------------------------------------------------------------


def test_the_tile_just_played_is_highlighted_on_the_line():
    from rich.console import Console

    v = view(line=((5, 6), (6, 4), (4, 2)), turn=1,
             actions=[{"seat": 1, "kind": pb.MOVE_KIND_PLAY, "tile": pb.Tile(low=5, high=6)},
                      {"seat": 0, "kind": pb.MOVE_KIND_PLAY, "tile": pb.Tile(low=4, high=6), "end": RIGHT},
                      {"seat": 1, "kind": pb.MOVE_KIND_PLAY, "tile": pb.Tile(low=2, high=4), "end": RIGHT},
                      {"seat": 0, "kind": pb.MOVE_KIND_PASS}])
    body = render.line_panel(v).renderable
    console = Console()

    def style_of(tile: str):
        return body.get_style_at_offset(console, body.plain.index(tile))

    assert style_of("4|2").underline and style_of("4|2").bgcolor is not None
    assert not style_of("6|4").underline and not style_of("5|6").underline


def test_the_last_moves_say_who_played_what_where_one_turn_a_line():
    v = view(seats=("ann", "bot:greedy:1", "bob"), turn=1, line=((6, 6), (6, 4)),
             actions=[{"seat": 1, "kind": pb.MOVE_KIND_PLAY, "tile": pb.Tile(low=6, high=6)},
                      {"seat": 2, "kind": pb.MOVE_KIND_DRAW}, {"seat": 2, "kind": pb.MOVE_KIND_DRAW},
                      {"seat": 2, "kind": pb.MOVE_KIND_PLAY, "tile": pb.Tile(low=4, high=6), "end": RIGHT},
                      {"seat": 0, "kind": pb.MOVE_KIND_DRAW, "cause": pb.MOVE_CAUSE_TIMEOUT},
                      {"seat": 0, "kind": pb.MOVE_KIND_PASS, "cause": pb.MOVE_CAUSE_TIMEOUT}])
    text = render.to_text(render.recent_text(v), width=120)
    assert text.splitlines() == [
        "Last moves  bot greedy 1  opened the line with [6|6]",
        "            bob           drew 2 tiles, then played [6|4] on the right end",
        "            you           drew a tile, then passed: time ran out",
    ]
