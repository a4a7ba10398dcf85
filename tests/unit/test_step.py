"""The one step of a move (services/rules/step.py, compiled with mypyc) makes every
family's moves as the rules of docs/rules.md say: held to a plain, move-by-move model of the
line (two ends, or All Fives' spinner with its counted ends), and to what the public line
tells a seat (``bots.knowledge.Line``)."""

import random

from hypothesis import given, settings, strategies as st

from services.bots.knowledge import Line
from services.rules import step as kernel
from services.rules.fairness import deal
from services.rules.match import new_match, start_round
from services.rules.moves import DRAW, PASS, legal_moves
from services.rules.spinner import end_count, points_scored
from services.rules.tiles import HIGH, LOW, MATCHES, OTHER_END
from services.rules.turns import step
from tests.support.families import sample_tables


class Model:
    """The line and the hands as docs/rules.md tells them, one move at a time, with nothing
    shared with the engine but the tile tables."""

    def __init__(self, rnd):
        self.hands = list(rnd.hands)
        self.boneyard = list(rnd.boneyard)
        self.four = rnd.four_ends
        self.ends = [-1, -1, -1, -1]  # left, right, up, down
        self.counts = [0, 0, 0, 0]
        self.spinner = -1
        self.waiting = set()  # the spinner's sides (LEFT, RIGHT) still without a tile
        self.turn = rnd.turn
        self.side = rnd.seat_side
        self.total = 0
        self.outcome = None
        self.points = []  # (action index, seat, points)
        self.actions = 0

    def fitting(self):
        fit = 0
        for n in self.ends:
            if n >= 0:
                fit |= MATCHES[n]
        return fit

    def apply(self, move):
        seat = self.turn
        if move == DRAW:
            self.hands[seat] |= 1 << self.boneyard.pop(0)
        elif move == PASS:
            self.turn = (seat + 1) % len(self.hands)
        else:
            t, end = move.tile, move.end
            double = LOW[t] == HIGH[t]
            if end is None:
                self.ends[:2] = [LOW[t], HIGH[t]]
                self.counts[:2] = [end_count(LOW[t], double), end_count(HIGH[t], double)]
                if double and self.four:
                    self.spinner, self.waiting = LOW[t], {0, 1}
                total = LOW[t] + HIGH[t]
            else:
                number = self.ends[end]
                self.ends[end] = OTHER_END[t][number]
                self.counts[end] = end_count(self.ends[end], double)
                if not self.four:
                    pass
                elif end < 2 and double and self.spinner < 0:
                    self.spinner, self.waiting = number, {end}
                elif end in self.waiting:
                    self.waiting.discard(end)
                    if not self.waiting:
                        self.ends[2] = self.ends[3] = self.spinner
                total = sum(self.counts)
            self.total = total
            if self.four and points_scored(total):
                self.points.append((self.actions, self.side[seat], total))
            self.hands[seat] &= ~(1 << t)
            if not self.hands[seat]:
                self.outcome = "domino"
            self.turn = (seat + 1) % len(self.hands)
        self.actions += 1
        held = 0
        for hand in self.hands:
            held |= hand
        if self.outcome is None and move != PASS and not self.boneyard and not held & self.fitting():
            self.outcome = "blocked"


def line_of(rnd):
    if rnd.four_ends:
        return (rnd.left, rnd.right, rnd.up, rnd.down, rnd.values, rnd.spinner, rnd.pending)
    return (rnd.left, rnd.right)


@settings(max_examples=300, derandomize=True, deadline=None)
@given(table=st.sampled_from(sample_tables()), seed=st.integers(0, 2**32))
def test_every_move_of_a_random_round_steps_the_line_as_the_rules_say(table, seed):
    rules = table.build()
    rnd = start_round(new_match(rules), deal(rules, seed.to_bytes(8, "big"))).round
    model = Model(rnd)
    seen = Line(rules.four_ends)
    pick = random.Random(seed)
    while rnd.outcome is None:
        moves = legal_moves(rnd)
        move = moves[pick.randrange(len(moves))]
        seat = rnd.turn
        step(rnd, move)
        model.apply(move)
        if move.kind == "play":
            seen.play(move.tile, move.end)
        ends = model.ends if rnd.four_ends else model.ends[:2]
        assert list(line_of(rnd)[:len(ends)]) == ends
        if rnd.four_ends:
            assert (rnd.values, rnd.total, rnd.spinner) == (tuple(model.counts), model.total, model.spinner)
            assert rnd.play_points == tuple(model.points)
        assert line_of(seen) == line_of(rnd)
        assert rnd.hands == model.hands and rnd.outcome == model.outcome and rnd.turn == model.turn
        assert rnd.history[1] == seat and rnd.history[2] == move and rnd.made == model.actions
        if rnd.outcome != "domino":
            assert kernel.blocked(rnd) == (rnd.outcome == "blocked")
