"""What one seat can infer about the hidden tiles from its view, and deals consistent with it.

A bot sees its own hand, the line, every seat's tile count, the boneyard's size and the
round's public actions (``PlayerView``). From those alone this module derives hard
constraints on where each unseen tile may be, in every rule family of docs/rules.md:

- a tile on the line, or in the bot's own hand, is in nobody else's hand;
- a **pass** shows that the seat then held no tile showing any open end's number: ``left``
  and ``right``, and in All Fives ``up`` and ``down`` too once the spinner's sides are open;
- a **draw** (any game with a boneyard or bazaar, of any size) shows the same about the
  drawer's hand just before it drew; the drawn tile is unknown, but if the seat draws again
  at the same ends it did not fit either; the tile a seat plays straight after drawing is
  the tile it drew last;
- a **forced lead**: where the family's round-1 rule names the tile to lead with (Egyptian:
  the highest double, else the heaviest tile; Goat: gamezz's or koza's order; Classic: the
  highest double but never 0-0, else the heaviest tile), a lead shows that no hand was dealt
  a tile the rule ranks above it; those were in the boneyard (and may have been drawn since)
  or are the set-aside tile. Only a round led by that rule says so: round 1, or in Goat a
  deal after redeals while no round has been played (``led_by_rule``). All Fives and Sports
  draw round 1's leader by chance, who leads any tile, and a round's winner leads any tile:
  no inference then;
- Goat with ``redeal``: the deal in play was not thrown in, so no hand was dealt five doubles
  or six tiles of a number (checked for the seats whose dealt hand is known: those that
  never drew; a sampled deal that breaks it is drawn again);
- the sizes: each seat's tile count, the boneyard's size (order unknown) and the one
  set-aside tile (block-3).

Hidden tiles are held in *slots*, each with the mask of tiles it may be. In block games a
seat's slots are all alike (dealt, and cut by its passes). In draw games a tile drawn later
was neither dealt nor in the hand at earlier passes and draws, so an opponent's hand is a few
slot groups with nested masks (older slots are never less constrained); when it plays a
tile whose slot is ambiguous we assume the most constrained slot that allows it went, which
leaves weaker (never stronger) constraints than the truth, so no consistent deal is ruled
out.

``Knowledge.sample`` draws a deal uniformly among all assignments of the unseen tiles to
the slot groups that satisfy these constraints (exact: a counting table is built once per
decision, then each sample is a walk through it).

``Line`` replays the public plays into the open ends (and All Fives' spinner, with what
each end counts), which is also what ``round_from_view`` needs to rebuild the engine's
round, and ``play_evidence`` what a model of the other seats' play needs.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from services.rules.leading import BY_SUM_THEN_HIGH
from services.rules.moves import DRAW, LEFT, OPEN, PASS, PLAY_ON
from services.rules import step
from services.rules.spinner import SpinnerRound
from services.rules.state import Deal, Round
from services.rules.tiles import (
    ALL_TILES,
    DOUBLES,
    HIGH,
    LOW,
    MATCHES,
    OTHER_END,
    PIPS,
    TILE_COUNT,
    tiles_in,
)

# Egyptian round 1 (docs/rules.md §1.4): the highest double, else the heaviest tile (6-3 before 5-4).
EGYPTIAN_ORDER = tuple(reversed(DOUBLES)) + BY_SUM_THEN_HIGH
# HEAVIER[t]: the tiles the §1.6 order (pip sum, then the higher pip) puts before t.
HEAVIER = tuple(sum(1 << u for u in range(TILE_COUNT) if (PIPS[u], HIGH[u]) > (PIPS[t], HIGH[t]))
                for t in range(TILE_COUNT))


# --- the line -----------------------------------------------------------------------------


class Line(step.Line):
    """The open ends the public plays leave: ``left``/``right`` (-1 before the first play)
    and, on a line with a spinner (All Fives, docs/rules.md §2), the spinner's number, its
    sides still waiting for a tile, ``up``/``down`` (-1 while closed) and what each of the
    four ends counts: the engine's own ``step.Line``, moved by its one step of a play, so
    ``play_points_of`` reads a ``Line`` or a ``SpinnerRound`` alike."""

    __slots__ = ()

    @classmethod
    def of(cls, view) -> "Line":
        line = cls(view.rules.four_ends)
        for a in view.actions:
            if a.kind == "play":
                line.play(a.tile, a.end)
        return line

    def play(self, t: int, end: int | None) -> None:
        step.lay(self, t, -1 if self.left < 0 else LEFT if end is None else end)


def play_points_of(line, t: int, end: int | None) -> int:
    """What laying ``t`` on ``end`` scores at once in All Fives: the open ends' new sum when it
    is a positive multiple of five, else 0 (docs/rules.md §2, "Counting the ends"). ``line``
    is a ``Line`` or a ``SpinnerRound``; ``end`` is None for the round's first tile."""
    if line.left < 0:
        total = LOW[t] + HIGH[t]  # the lone first tile counts once
    else:
        assert end is not None  # only the round's first tile has no end
        number = (line.left, line.right, line.up, line.down)[end]
        outer = OTHER_END[t][number]
        v = line.values
        total = v[0] + v[1] + v[2] + v[3] - v[end] + (outer * 2 if LOW[t] == HIGH[t] else outer)
    return total if total % 5 == 0 else 0


def best_play_points(line, t: int) -> int:
    """The most ``t`` can score at once on any open end it fits (All Fives)."""
    if line.left < 0:
        return play_points_of(line, t, None)
    best = 0
    bit = 1 << t
    for end, number in enumerate((line.left, line.right, line.up, line.down)):
        if number >= 0 and MATCHES[number] & bit:
            best = max(best, play_points_of(line, t, end))
    return best


def preferred_over(line, fits: int, t: int) -> int:
    """The tiles of ``fits`` that greedy play (``strategies``: in All Fives the most points
    now, then the heaviest tile; elsewhere the heaviest tile) takes before ``t``."""
    if not line.four_ends:
        return fits & HEAVIER[t]
    key = (best_play_points(line, t), PIPS[t], HIGH[t])
    better = 0
    for u in tiles_in(fits):
        if (best_play_points(line, u), PIPS[u], HIGH[u]) > key:
            better |= 1 << u
    return better


# --- forced leads ---------------------------------------------------------------------------


def round_one_order(rules) -> tuple[int, ...] | None:
    """The order of tiles whose first one dealt must lead a round led by the family's
    round-1 rule; None where that leader leads any tile (drawn by chance)."""
    return rules.kind.forced_lead_order(rules)


def led_by_rule(view) -> bool:
    """Whether the round in view was led by its family's round-1 rule, with a forced tile:
    round 1, and whatever else the family can tell from the view (Goat: the deal after a
    redeal while no round has been played). Rounds after a tie are led by the rule too, but
    a view cannot tell a tie from a win, so they are not used."""
    rules = view.rules
    return rules.kind.led_by_round_one_rule(rules, view)


def not_dealt_by_lead(view) -> int:
    """Tiles no hand was dealt, as the forced lead of a round led by the rule shows."""
    first = next((a for a in view.actions if a.kind == "play"), None)
    if first is None or not led_by_rule(view):
        return 0
    order = round_one_order(view.rules)
    if order is None:
        return 0
    before = 0
    for t in order:
        if t == first.tile:
            return before
        before |= 1 << t
    return 0


# --- the constraints and the sampler ------------------------------------------------------


@dataclass
class Group:
    """``size`` unseen tiles held together: by ``seat`` (or -1 for the boneyard, -2 for the
    set-aside tile), each one of the tiles in ``allowed``."""

    seat: int
    size: int
    allowed: int


class Inconsistent(ValueError):
    """No deal satisfies the constraints (only if the view itself is contradictory)."""


class Knowledge:
    """The constraints one view puts on the unseen tiles, and a uniform sampler over them."""

    def __init__(self, seats: int, seat: int, own: int, played: int, groups: list[Group], draws: bool,
                 redeal=None, dealt_known: dict[int, int] | None = None) -> None:
        self.seats = seats
        self.seat = seat
        self.own = own
        self.played = played
        self.unknown = ALL_TILES & ~own & ~played
        self.draws = draws
        self.groups = groups
        # Goat's redeal test, and for seats that never drew the tiles they played (their
        # dealt hand is then their current hand plus those).
        self.redeal = redeal
        self.dealt_known = dealt_known or {}
        self._prepare()

    # --- building from a view -----------------------------------------------------------

    @classmethod
    def from_view(cls, view, use_lead: bool = True) -> "Knowledge":
        """The constraints the rules put on the unseen tiles (see the module's docstring)."""
        know = cls._replay(view, use_lead, 0)
        assert know is not None  # only a model of play can be contradicted
        if know.total == 0:
            if use_lead:
                return cls.from_view(view, use_lead=False)
            # Drop every void: sizes alone are always satisfiable.
            for g in know.groups:
                g.allowed = ALL_TILES
            know = cls(know.seats, know.seat, know.own, know.played, know.groups, know.draws, know.redeal,
                       know.dealt_known)
            if know.total == 0:
                raise Inconsistent("the view's tile counts do not add up")
        return know

    @classmethod
    def assuming_greedy(cls, view, seats: tuple[int, ...]) -> "Knowledge | None":
        """``from_view`` plus a model of play: each of ``seats`` plays greedily (the tile
        ``strategies``' greedy rule takes), so at each of its free plays it held none of the
        fitting tiles greedy takes before the one it played (``preferred_over``), a void
        like a pass's for the slots it had then. A seat whose plays contradict that is left
        out (the first one that makes the rest consistent); None when no seat is left."""
        tries = [seats] + [tuple(x for x in seats if x != s) for s in seats] if len(seats) > 1 else [seats]
        for chosen in tries:
            if not chosen:
                continue
            know = cls._replay(view, True, sum(1 << s for s in chosen))
            if know is not None and know.total:
                return know
        return None

    def greedy_likelihood(self, view, seat: int) -> float:
        """How likely a deal of these constraints is to agree with ``seat`` playing greedily
        at every free play (``assuming_greedy``'s constraints for that seat alone): the
        exact share of consistent deals, 0 when its plays contradict the model."""
        know = Knowledge._replay(view, True, 1 << seat)
        if know is None or not self.total:
            return 0.0
        return min(1.0, know.total / self.total)

    @classmethod
    def _replay(cls, view, use_lead: bool, greedy: int) -> "Knowledge | None":
        """The constraints of the view's actions (and with ``greedy``, a mask of seats, the
        greedy model's); None when a modelled seat played a tile the model said it lacked."""
        rules = view.rules
        n = rules.seats
        me = view.seat
        own = 0
        for t in view.hand:
            own |= 1 << t
        # Tiles no dealt hand held, from a forced lead.
        not_dealt = not_dealt_by_lead(view) if use_lead else 0
        forced = greedy and led_by_rule(view)
        # Replay the public actions: ends at each moment, played tiles, each seat's slots.
        # slots[s] lists the tiles that seat holds as masks of what each may be, oldest
        # (dealt) first; later slots are drawn tiles, never more constrained than older ones.
        dealt_slot = ALL_TILES & ~not_dealt
        slots: list[list[int]] = [[dealt_slot] * rules.hand_size for _ in range(n)]
        played = 0
        played_by = [0] * n
        drew = [False] * n
        line = Line(rules.four_ends)
        prev = None
        contradicted = False
        for a in view.actions:
            s = a.seat
            if a.kind == "play":
                t = a.tile
                if greedy >> s & 1 and not (forced and line.left < 0):
                    fits = line.fitting() if line.left >= 0 else ALL_TILES & ~rules.barred
                    keep = ~preferred_over(line, fits, t)
                    sl = slots[s]
                    for i in range(len(sl)):
                        sl[i] &= keep
                played |= 1 << t
                played_by[s] |= 1 << t
                line.play(t, a.end)
                if s != me:
                    if not _remove_slot(slots[s], t, prev is not None and prev.seat == s and prev.kind == "draw"):
                        contradicted = True
            else:
                fit = line.fitting()
                if fit:
                    keep = ~fit
                    sl = slots[s]
                    for i in range(len(sl)):
                        sl[i] &= keep
                if a.kind == "draw":
                    drew[s] = True
                    if s != me:
                        slots[s].append(ALL_TILES)
            prev = a
        groups: list[Group] = []
        for s in range(n):
            if s == me:
                continue
            sl = slots[s]
            if len(sl) != view.tile_counts[s]:  # cannot happen for a consistent view
                sl = _fit_length(sl, view.tile_counts[s])
            by_allowed: dict[int, int] = {}
            for v in sl:
                by_allowed[v] = by_allowed.get(v, 0) + 1
            for v, k in sorted(by_allowed.items()):
                groups.append(Group(s, k, v))
        if rules.draws:
            if view.boneyard_count:
                groups.append(Group(-1, view.boneyard_count, ALL_TILES))
        elif rules.undealt:
            groups.append(Group(-2, rules.undealt, ALL_TILES))
        redeal = rules.redeal
        known = {s: played_by[s] for s in range(n) if not drew[s]} if redeal is not None else None
        if contradicted and greedy:  # a modelled seat played a tile the model said it lacked
            return None
        return cls(n, me, own, played, groups, rules.draws, redeal, known)

    # --- exact uniform sampling -------------------------------------------------------
    # Tiles allowed in exactly the same groups are interchangeable, so they are counted as
    # one *class*: placing a class of m tiles as n_1, n_2, ... into its groups can be done in
    # m! / (n_1! n_2! ...) ways. ways(class i, capacities) sums that over the splits of
    # class i times the ways for the classes after it; a sample picks each class's split
    # with probability proportional to its ways, then deals the class's tiles, shuffled,
    # into that split: every consistent assignment is equally likely.

    def _prepare(self) -> None:
        tiles = tiles_in(self.unknown)
        groups = self.groups
        by_options: dict[tuple[int, ...], list[int]] = {}
        for t in tiles:
            opts = tuple(i for i, g in enumerate(groups) if g.allowed >> t & 1)
            by_options.setdefault(opts, []).append(t)
        # Most constrained classes first keeps the table small.
        classes = sorted(by_options.items(), key=lambda item: (len(item[0]), item[0]))
        self.classes = [(opts, members) for opts, members in classes]
        caps = tuple(g.size for g in groups)
        self._steps: dict = {}
        if sum(caps) != len(tiles) or any(not opts for opts, _ in classes):
            self.total = 0
            return
        table: dict[tuple, int] = {}
        m = len(classes)

        def ways(i: int, cap: tuple) -> int:
            key = (i, cap)
            got = table.get(key)
            if got is not None:
                return got
            if i == m:
                return 1
            opts, members = classes[i]
            total = 0
            for split, count in _splits(len(members), tuple(cap[g] for g in opts)):
                nxt = list(cap)
                for g, k in zip(opts, split):
                    nxt[g] -= k
                total += count * ways(i + 1, tuple(nxt))
            table[key] = total
            return total

        self.total = ways(0, caps)
        self._table = table
        self._caps = caps

    def _choices(self, i: int, cap: tuple) -> tuple:
        """Class ``i``'s splits at capacities ``cap``: (cumulative probability, split, next)."""
        key = (i, cap)
        got = self._steps.get(key)
        if got is not None:
            return got
        opts, members = self.classes[i]
        last = i + 1 == len(self.classes)
        total = self._table[key]
        acc = 0
        out = []
        for split, count in _splits(len(members), tuple(cap[g] for g in opts)):
            nxt = list(cap)
            for g, k in zip(opts, split):
                nxt[g] -= k
            nxt_cap = tuple(nxt)
            w = count * (1 if last else self._table.get((i + 1, nxt_cap), 0))
            if w:
                acc += w
                out.append((acc / total, split, nxt_cap))
        got = self._steps[key] = tuple(out)
        return got

    def sample(self, rng: random.Random) -> list[int]:
        """Masks of unseen tiles, one per group, uniformly among consistent assignments."""
        out = [0] * len(self.groups)
        cap = self._caps
        rand = rng.random
        for i, (opts, members) in enumerate(self.classes):
            choices = self._choices(i, cap)
            if len(choices) == 1:
                _, split, cap = choices[0]
            else:
                r = rand()
                for p, split, cap in choices:
                    if r < p:
                        break
            if len(opts) == 1:
                g = opts[0]
                for t in members:
                    out[g] |= 1 << t
                continue
            # each tile to a group with probability (its places left) / (places left);
            # the float draw cannot pass the last group with places left, since r < places
            left = list(split)
            places = len(members)
            for t in members:
                r = rand() * places
                j = 0
                acc = left[0]
                while r >= acc:
                    j += 1
                    acc += left[j]
                left[j] -= 1
                places -= 1
                out[opts[j]] |= 1 << t
        return out

    def sample_deal(self, rng: random.Random, shuffled: bool = True) -> tuple[list[int], list[int], int]:
        """(every seat's current hand, boneyard tiles in a random order, set-aside tile or -1);
        with ``shuffled`` False the boneyard is in ascending order, for the caller to shuffle
        if it keeps the deal."""
        for _ in range(_REDEAL_TRIES):
            masks = self.sample(rng)
            hands = [0] * self.seats
            hands[self.seat] = self.own
            boneyard: list[int] = []
            aside = -1
            for g, mask in zip(self.groups, masks):
                if g.seat >= 0:
                    hands[g.seat] |= mask
                elif g.seat == -1:
                    boneyard = shuffled_tiles(mask, rng) if shuffled else tiles_in(mask)
                else:
                    aside = tiles_in(mask)[0]
            if self.redeal is None or not self._thrown_in(hands):
                break
        return hands, boneyard, aside

    def _thrown_in(self, hands: list[int]) -> bool:
        """Whether the sampled deal's known dealt hands call for a redeal (Goat)."""
        known = self.dealt_known
        return self.redeal(tuple(hands[s] | known[s] for s in known))


# Rejection sampling for Goat's redeal condition gives up (keeping the last sample) after
# this many tries; a thrown-in hand is rare, so this never happens with a consistent view.
_REDEAL_TRIES = 64


def shuffled_tiles(mask: int, rng: random.Random) -> list[int]:
    """The tiles of ``mask`` in a uniformly random order (sorted by random keys: one float
    a tile, cheaper than ``random.shuffle``'s integer draws)."""
    rand = rng.random
    return [t for _, t in sorted([(rand(), t) for t in tiles_in(mask)])]


_FACTORIAL = [1]
for _k in range(1, TILE_COUNT + 1):
    _FACTORIAL.append(_FACTORIAL[-1] * _k)
_splits_cache: dict[tuple[int, tuple[int, ...]], tuple] = {}


def _splits(m: int, caps: tuple[int, ...]) -> tuple:
    """Every way to split m interchangeable tiles among groups with room for ``caps``, with
    its count of tile assignments: ((n_1, ..., n_k), m! / (n_1! ... n_k!))."""
    key = (m, caps)
    got = _splits_cache.get(key)
    if got is None:
        room_after = [sum(caps[j + 1 :]) for j in range(len(caps))]

        def rec(j: int, left: int):
            if j == len(caps) - 1:
                if left <= caps[j]:
                    yield (left,)
                return
            for first in range(max(0, left - room_after[j]), min(left, caps[j]) + 1):
                for rest in rec(j + 1, left - first):
                    yield (first,) + rest

        out = []
        for split in rec(0, m):
            count = _FACTORIAL[m]
            for n in split:
                count //= _FACTORIAL[n]
            out.append((split, count))
        got = tuple(out)
        if len(_splits_cache) < 1 << 14:
            _splits_cache[key] = got
    return got


def _remove_slot(slots: list[int], tile: int, just_drew: bool) -> bool:
    """A seat played ``tile``: drop the slot it came from (see the module's note); False
    when no slot allowed it (a contradiction: the constraints were wrong)."""
    if not slots:
        return False
    if just_drew:
        slots.pop()  # the tile drawn last is the only one that fits
        return True
    bit = 1 << tile
    for i, allowed in enumerate(slots):  # oldest first: the most constrained
        if allowed & bit:
            slots.pop(i)
            return True
    slots.pop()
    return False


def _fit_length(slots: list[int], n: int) -> list[int]:
    slots = slots[-n:] if n else []
    return [ALL_TILES] * (n - len(slots)) + slots



def history_of(view):
    """The engine's history chain ``(previous, seat, move)`` for the view's public actions
    (a draw is recorded without its tile, as the engine records it)."""
    history: Any = None
    for a in view.actions:
        if a.kind == "play":
            move = OPEN[a.tile] if a.end is None else PLAY_ON[a.end][a.tile]
        else:
            move = DRAW if a.kind == "draw" else PASS
        history = (history, a.seat, move)
    return history


def round_from_view(view, hands: list[int], boneyard: list[int], aside: int) -> Round:
    """The engine's Round at the view's position with the sampled hidden tiles, ready to
    ``step``: the same line, turn, history and, in All Fives, the same spinner, open-end
    values, total, play points and action count (a ``SpinnerRound``). Its deal is the
    current hands with the undrawn boneyard (nothing drawn yet)."""
    return with_tiles(public_round(view), hands, boneyard, aside)


def public_round(view) -> Round:
    """The public part of ``round_from_view``, built once per decision: no hands yet."""
    rules = view.rules
    actions = view.actions
    deal = Deal((0,) * rules.seats)
    leader = actions[0].seat if actions else view.turn
    lead = -1
    if not any(a.kind == "play" for a in actions):
        moves = view.legal_moves
        if len(moves) == 1 and moves[0].kind == "play" and moves[0].end is None:
            lead = moves[0].tile
    rnd: Round
    if rules.four_ends:
        four = SpinnerRound(deal, leader, lead, rules.barred, tuple(map(rules.side_of, range(rules.seats))))
        line = Line.of(view)
        four.left, four.right, four.up, four.down = line.left, line.right, line.up, line.down
        four.spinner, four.pending, four.values = line.spinner, line.pending, line.values
        four.total = view.ends_total
        four.play_points = tuple(view.play_points)
        four.made = len(actions)
        rnd = four
    else:
        rnd = Round(deal, leader, lead, rules.barred)
        if view.left_end is not None:
            rnd.left = view.left_end
            rnd.right = view.right_end
    rnd.turn = view.turn
    rnd.history = history_of(view)
    return rnd


def with_tiles(public: Round, hands: list[int], boneyard: list[int], aside: int) -> Round:
    """A copy of ``public`` holding these hidden tiles."""
    rnd = public.copy()
    deal = Deal(tuple(hands), tuple(boneyard), aside)
    rnd.hands = list(hands)
    held = 0
    for hand in hands:
        held |= hand
    rnd.held = held
    rnd.boneyard = deal.boneyard
    rnd.drawn = 0
    rnd.set_aside = aside
    rnd.dealt = deal
    return rnd


def greedy_odds(view, know: Knowledge, evidence: list, pool: list, seat: int) -> float:
    """The Bayes factor of "``seat`` plays greedily" against "``seat`` plays any fitting tile
    at random", from its free plays: how many times likelier the first makes them.

    Under greedy play a seat's plays have probability 1 for a deal in which each was greedy's
    choice and 0 otherwise, so their likelihood is the share of consistent deals that agree
    (``Knowledge.greedy_likelihood``, exact); under random play each is ``1 / k`` with ``k``
    the tiles that fitted, averaged over ``pool`` (deals of ``know``). A seat whose hand at
    some play is not known from its current one (it drew since: those plays are not in
    ``evidence``) is judged on ``evidence`` alone, both likelihoods estimated over the pool.
    A greedy player's odds grow with each free play; a player who keeps heavier tiles back
    (a searching one) soon makes greedy play unlikely: docs/bots.md, "Strong against a
    searching peer"."""
    mine = [(fits, later, better) for s, _, fits, later, better in evidence if s == seat]
    if not mine:
        return 1.0
    drew = any(a.seat == seat and a.kind == "draw" for a in view.actions)
    agree = 0
    random_play = 0.0
    for hands, _, _ in pool:
        held = hands[seat]
        p = 1.0
        greedy = True
        for fits, later, better in mine:
            f = (held | later) & fits
            p /= f.bit_count()
            if f & better:
                greedy = False
        random_play += p
        agree += greedy
    if not random_play:
        return 1.0
    g = agree / len(pool) if drew else know.greedy_likelihood(view, seat)
    return g * len(pool) / random_play


def play_evidence(view) -> list[tuple[int, int, int, int, int]]:
    """The other seats' past free choices, for weighing sampled deals by a model of play.

    One entry per play by another seat whose hand at that moment is known given its
    current hand: (seat, tile played, mask of tiles that fitted the ends then, tiles that
    seat played from then on, this one included, the tiles of the fitting ones that greedy
    play would have taken first, ``preferred_over``). Plays followed by a draw of the same
    seat are left out (the hand then is not its current hand plus later plays), as is a
    lead forced by the round-1 rule.
    """
    me = view.seat
    rules = view.rules
    forced = led_by_rule(view)
    entries = []
    line = Line(rules.four_ends)
    for a in view.actions:
        if a.kind == "play":
            t = a.tile
            if line.left < 0:
                fits = -1 if forced else ALL_TILES & ~rules.barred
            else:
                fits = line.fitting()
            if a.seat != me and fits != -1:
                entries.append([a.seat, t, fits, 0, preferred_over(line, fits, t), True])
            line.play(t, a.end)
        elif a.kind == "draw":
            for e in entries:
                if e[0] == a.seat:
                    e[5] = False
        if a.kind == "play":
            for e in entries:
                if e[0] == a.seat:
                    e[3] |= 1 << a.tile
    return [(s, t, fits, later, better) for s, t, fits, later, better, ok in entries if ok]
