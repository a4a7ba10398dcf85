"""A model of how a seat chooses among its fitting tiles, for weighing sampled deals by the
plays the other seats chose (docs/bots.md, "A model of play").

A seat's free play says something about the hand it was played from: a player who searches
keeps the tiles that let it follow its own end and block the others, and sheds a number it
is short of. ``strong`` draws deals consistent with the hard facts (voids, counts) and then
weighs each by how likely it makes every free play seen so far; this module says how likely,
as a conditional logit over the candidate plays: ``P(play | hand) ∝ exp(w · features)``,
its weights fitted offline to recorded decisions (``scripts/fit_play_model.py``) and kept
here as constants.

Fitted to and used in Egyptian (its ``bot_tuning``). Two-ended lines only: All Fives'
four ends and scoring plays would need features of their own, and Goat's and Classic's
players aim at other scores, so the model would need fitting to their plays first.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from services.rules.moves import RIGHT
from services.rules.tiles import HIGH, LOW, MATCHES, OTHER_END, PIPS

FEATURES = (
    "pips",  # the tile's pips / 12
    "double",
    "follow",  # own tiles left that show the new end's number / 7
    "keep_covered",  # own tiles left that show the covered end's number / 7
    "keep_other",  # own tiles left that show the other end's number / 7
    "same_ends",  # the play leaves both ends the same number
    "new_end_out",  # tiles of the new end's number no longer hidden (the line, own hand) / 7
    "suit_length",  # own tiles (this one too) sharing a number with it / 7, for a lead
    "blocks_next",  # the next seat has shown it lacks the new end's number (a pass)
    "starves_partner",  # the partner has shown it lacks the new end's number
)

# Fitted to recorded free plays of Egyptian block-4 teams (scripts/fit_play_model.py says
# how, docs/bots.md, "A model of play", with which data): PARTNER to strong's own plays (a
# partner is a bot of ours), OTHERS to every seat's.
PARTNER: tuple[float, ...] = (0.4875, 1.0532, 0.7587, -0.6806, 0.6824, 0.5498, 2.1955, 0.0, 0.2584, -0.4968)
OTHERS: tuple[float, ...] = (1.9616, 0.8312, 0.587, -1.0104, 0.7641, 0.6281, 2.0173, 0.0, 0.301, -0.5108)


class Seen(NamedTuple):
    """One free play a seat made, with what was public when it made it."""

    seat: int
    tile: int
    covered: int  # the end's number it was laid on; -1 for a lead
    left: int  # the open ends then; -1 before the first tile
    right: int
    on_line: int  # tiles on the line then
    next_voids: int  # numbers (a mask of 0-6) the next seat had shown it lacked
    partner_voids: int  # and the partner (0 without one)


def seen_plays(actions, seats: int, partner_of, forced_lead: bool = False,
               four_ends: bool = False) -> list[tuple[Seen, int]]:
    """Every play in ``actions`` (each with ``seat``, ``kind``, ``tile``, ``end``) as a
    ``Seen``, with the tiles its seat played from then on (this one included): its hand then
    is its later hand plus those, while it draws nothing. A seat's void (both ends at a pass)
    holds until it draws. ``partner_of(seat)`` is its partner's seat or -1; with
    ``forced_lead`` the round's first play is left out (a rule chose it, not the seat)."""
    from .knowledge import Line

    line = Line(four_ends)
    voids = [0] * seats
    out: list[list] = []
    on_line = 0
    for a in actions:
        if a.kind == "draw":
            voids[a.seat] = 0
            out = [e for e in out if e[0].seat != a.seat]
            continue
        if a.kind == "pass":
            if line.left >= 0:
                voids[a.seat] |= (1 << line.left) | (1 << line.right)
            continue
        if a.kind != "play":
            continue
        left, right = line.left, (line.right if line.left >= 0 else -1)
        if not (left < 0 and forced_lead):
            covered = -1 if left < 0 else right if a.end == RIGHT and left != right else left
            p = partner_of(a.seat)
            out.append([Seen(a.seat, a.tile, covered, left, right, on_line, voids[(a.seat + 1) % seats],
                             voids[p] if p >= 0 else 0), 0])
        for e in out:
            if e[0].seat == a.seat:
                e[1] |= 1 << a.tile
        line.play(a.tile, a.end)
        on_line |= 1 << a.tile
    return [(e, later) for e, later in out]


def seen_choices(view) -> list[tuple[Seen, int]]:
    """The other seats' free plays in ``view`` whose hand then is known given its current
    one: ``seen_plays`` of the view's actions, less its own."""
    from .knowledge import led_by_rule

    rules = view.rules
    n = rules.seats

    def partner_of(seat: int) -> int:
        side = rules.side_of(seat)
        return next((s for s in range(n) if s != seat and rules.side_of(s) == side), -1)

    plays = seen_plays(view.actions, n, partner_of, led_by_rule(view), rules.four_ends)
    return [(e, later) for e, later in plays if e.seat != view.seat]


def candidates(hand: int, left: int, right: int) -> list[tuple[int, int, int]]:
    """Every distinct play from ``hand``: (tile, covered number, new end's number); ends are
    -1 before the first tile, and a lead's covered number and new end are -1 too. A tile
    fitting two equal ends is one play."""
    out = []
    if left < 0:
        h = hand
        while h:
            b = h & -h
            h ^= b
            out.append((b.bit_length() - 1, -1, -1))
        return out
    ends = (left,) if left == right else (left, right)
    for e in ends:
        h = hand & MATCHES[e]
        while h:
            b = h & -h
            h ^= b
            t = b.bit_length() - 1
            out.append((t, e, OTHER_END[t][e]))
    return out


def features(hand: int, s: Seen, t: int, covered: int, new_end: int) -> tuple[float, ...]:
    """The features of playing ``t`` from ``hand`` (which holds it) where ``s`` was played."""
    rest = hand & ~(1 << t)
    a, b = LOW[t], HIGH[t]
    double = 1.0 if a == b else 0.0
    if covered < 0:
        length = (hand & (MATCHES[a] | MATCHES[b])).bit_count() / 7.0
        return (PIPS[t] / 12.0, double, 0.0, 0.0, 0.0, 0.0, 0.0, length, 0.0, 0.0)
    left, right = s.left, s.right
    other = covered if left == right else right if covered == left else left
    return (
        PIPS[t] / 12.0,
        double,
        (rest & MATCHES[new_end]).bit_count() / 7.0,
        (rest & MATCHES[covered]).bit_count() / 7.0,
        (rest & MATCHES[other]).bit_count() / 7.0,
        1.0 if new_end == other else 0.0,
        ((s.on_line | hand) & MATCHES[new_end]).bit_count() / 7.0,
        0.0,
        float(s.next_voids >> new_end & 1),
        float(s.partner_voids >> new_end & 1),
    )


def choice_probability(hand: int, s: Seen, weights: tuple[float, ...] = OTHERS) -> float:
    """P(the seat played ``s.tile`` on the end showing ``s.covered`` | it held ``hand``), under
    the model; 0 when it could not have."""
    options = candidates(hand, s.left, s.right)
    if len(options) <= 1:
        return 1.0 if options and options[0][0] == s.tile else 0.0
    total = 0.0
    chosen = 0.0
    for t, c, n in options:
        f = features(hand, s, t, c, n)
        e = math.exp(sum(w * x for w, x in zip(weights, f)))
        total += e
        if t == s.tile and c == s.covered:
            chosen = e
    return chosen / total


def likelihood(hand: int, s: Seen, weights: tuple[float, ...], eps: float) -> float:
    """``(1 - eps) * choice_probability + eps / k`` (``k`` the distinct plays): the model with
    a share of plays at random, computed without building feature tuples (it runs for every
    sampled deal and every seen play)."""
    w_pips, w_double, w_follow, w_cov, w_other, w_same, w_out, w_len, w_block, w_starve = weights
    exp = math.exp
    tile = s.tile
    left, right = s.left, s.right
    if left < 0:
        total = chosen = 0.0
        k = 0
        h = hand
        while h:
            b = h & -h
            h ^= b
            t = b.bit_length() - 1
            a, c = LOW[t], HIGH[t]
            x = exp(w_pips * PIPS[t] / 12.0 + (w_double if a == c else 0.0)
                    + w_len * (hand & (MATCHES[a] | MATCHES[c])).bit_count() / 7.0)
            total += x
            k += 1
            if t == tile:
                chosen = x
        return (1.0 - eps) * chosen / total + eps / k if k else 0.0
    counts = [(hand & m).bit_count() for m in MATCHES]
    known = [((s.on_line | hand) & m).bit_count() for m in MATCHES]
    nv, pv = s.next_voids, s.partner_voids
    total = chosen = 0.0
    k = 0
    for e in ((left,) if left == right else (left, right)):
        other = e if left == right else (right if e == left else left)
        h = hand & MATCHES[e]
        while h:
            b = h & -h
            h ^= b
            t = b.bit_length() - 1
            a, c = LOW[t], HIGH[t]
            n = OTHER_END[t][e]
            # counts of the tiles left after this one: it shows a and c
            follow = counts[n] - (1 if n == a or n == c else 0)
            cov = counts[e] - 1
            oth = counts[other] - (1 if other == a or other == c else 0)
            x = exp(w_pips * PIPS[t] / 12.0 + (w_double if a == c else 0.0) + w_follow * follow / 7.0
                    + w_cov * cov / 7.0 + w_other * oth / 7.0 + (w_same if n == other else 0.0)
                    + w_out * known[n] / 7.0 + (w_block if nv >> n & 1 else 0.0)
                    + (w_starve if pv >> n & 1 else 0.0))
            total += x
            k += 1
            if t == tile and e == s.covered:
                chosen = x
    if k == 0:
        return 0.0
    return (1.0 - eps) * chosen / total + eps / k
