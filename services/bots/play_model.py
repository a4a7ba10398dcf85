"""A model of how a seat chooses among its fitting tiles, for weighing sampled deals by the
plays the other seats chose (docs/bots.md, "A model of play").

A seat's free play says something about the hand it was played from: a player who searches
keeps the tiles that let it follow its own end and block the others, and sheds a number it
is short of. ``strong`` draws deals consistent with the hard facts (voids, counts) and then
weighs each by how likely it makes every free play seen so far; this module says how likely,
as a conditional logit over the candidate plays: ``P(play | hand) ∝ exp(w · features)``,
its weights fitted offline to recorded decisions (``scripts/fit_play_model.py``) and kept
here as constants.

Two-ended lines only (Egyptian, Classic, Sports): All Fives' four ends and scoring plays
would need features of their own.
"""

from __future__ import annotations

import math

from services.match.rules.moves import RIGHT
from services.match.rules.tiles import HIGH, LOW, MATCHES, OTHER_END, PIPS

FEATURES = (
    "pips",  # the tile's pips / 12
    "double",
    "follow",  # own tiles left that show the new end's number / 7
    "keep_covered",  # own tiles left that show the covered end's number / 7
    "keep_other",  # own tiles left that show the other end's number / 7
    "same_ends",  # the play leaves both ends the same number
    "new_end_out",  # tiles of the new end's number no longer hidden (the line, own hand) / 7
    "suit_length",  # own tiles (this one too) sharing a number with it / 7, for a lead
)

# Fitted to recorded free plays of Egyptian block-4 teams (scripts/fit_play_model.py says
# how, docs/bots.md, "A model of play", with which data): PARTNER to strong's own plays (a
# partner is a bot of ours), OTHERS to every seat's.
PARTNER: tuple[float, ...] = (0.696, 1.078, 1.1794, -1.5201, -0.2602, 0.3399, 2.6927, 0.0)
OTHERS: tuple[float, ...] = (2.1824, 0.8145, 0.6744, -1.1876, 0.7183, 0.6646, 2.2339, 0.0)
WEIGHTS = OTHERS


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


def features(hand: int, seen: int, left: int, right: int, t: int, covered: int, new_end: int) -> tuple[float, ...]:
    """The features of playing ``t`` from ``hand`` (which holds it); ``seen`` is every tile
    the seat can see not hidden (the line, its hand)."""
    rest = hand & ~(1 << t)
    a, b = LOW[t], HIGH[t]
    double = 1.0 if a == b else 0.0
    if covered < 0:
        length = (hand & (MATCHES[a] | MATCHES[b])).bit_count() / 7.0
        return (PIPS[t] / 12.0, double, 0.0, 0.0, 0.0, 0.0, 0.0, length)
    other = right if covered == left else left
    if left == right:
        other = covered
    return (
        PIPS[t] / 12.0,
        double,
        (rest & MATCHES[new_end]).bit_count() / 7.0,
        (rest & MATCHES[covered]).bit_count() / 7.0,
        (rest & MATCHES[other]).bit_count() / 7.0,
        1.0 if new_end == other else 0.0,
        ((seen | hand) & MATCHES[new_end]).bit_count() / 7.0,
        0.0,
    )


def choice_probability(hand: int, seen: int, left: int, right: int, tile: int, covered: int,
                       weights: tuple[float, ...] = WEIGHTS) -> float:
    """P(the seat played ``tile`` on the end showing ``covered`` | it held ``hand``), under
    the model; 0 when it could not have."""
    options = candidates(hand, left, right)
    if len(options) <= 1:
        return 1.0 if options and options[0][0] == tile else 0.0
    total = 0.0
    chosen = 0.0
    for t, c, n in options:
        f = features(hand, seen, left, right, t, c, n)
        s = math.exp(sum(w * x for w, x in zip(weights, f)))
        total += s
        if t == tile and (c == covered or left == right):
            chosen = s
    return chosen / total


def seen_choices(view) -> list[tuple[int, ...]]:
    """The other seats' free plays whose hand then is known given its current one (no draw
    of its since): (seat, tile, covered number, left, right, tiles on the line before it,
    tiles that seat played from then on, this one included); ends -1 before the first tile."""
    from .knowledge import Line, led_by_rule

    me = view.seat
    forced = led_by_rule(view)
    line = Line(view.rules.four_ends)
    entries: list[list] = []
    played = 0
    for a in view.actions:
        if a.kind == "draw":
            entries = [e for e in entries if e[0] != a.seat]
        if a.kind != "play":
            continue
        left, right = line.left, line.right
        if left < 0:
            right = -1
        if a.seat != me and not (left < 0 and forced):
            covered = -1 if left < 0 else right if a.end == RIGHT and left != right else left
            entries.append([a.seat, a.tile, covered, left, right, played, 0])
        for e in entries:
            if e[0] == a.seat:
                e[6] |= 1 << a.tile
        line.play(a.tile, a.end)
        played |= 1 << a.tile
    return [tuple(e) for e in entries]


def likelihood(hand: int, seen: int, left: int, right: int, tile: int, covered: int,
               weights: tuple[float, ...], eps: float) -> float:
    """``(1 - eps) * choice_probability + eps / k`` (``k`` the distinct plays): the model with
    a share of plays at random, computed without building feature tuples (it runs for every
    sampled deal and every seen play)."""
    w_pips, w_double, w_follow, w_cov, w_other, w_same, w_out, w_len = weights
    exp = math.exp
    if left < 0:
        total = chosen = 0.0
        k = 0
        h = hand
        while h:
            b = h & -h
            h ^= b
            t = b.bit_length() - 1
            a, c = LOW[t], HIGH[t]
            s = exp(w_pips * PIPS[t] / 12.0 + (w_double if a == c else 0.0)
                    + w_len * (hand & (MATCHES[a] | MATCHES[c])).bit_count() / 7.0)
            total += s
            k += 1
            if t == tile:
                chosen = s
        return (1.0 - eps) * chosen / total + eps / k if k else 0.0
    counts = [(hand & m).bit_count() for m in MATCHES]
    known = [((seen | hand) & m).bit_count() for m in MATCHES]
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
            s = exp(w_pips * PIPS[t] / 12.0 + (w_double if a == c else 0.0) + w_follow * follow / 7.0
                    + w_cov * cov / 7.0 + w_other * oth / 7.0 + (w_same if n == other else 0.0)
                    + w_out * known[n] / 7.0)
            total += s
            k += 1
            if t == tile and e == covered:
                chosen = s
    if k == 0:
        return 0.0
    return (1.0 - eps) * chosen / total + eps / k
