"""What one seat can infer about the hidden tiles from its view, and deals consistent with it.

A bot sees its own hand, the line, every seat's tile count, the boneyard's size and the
round's public actions (``PlayerView``). From those alone this module derives hard
constraints on where each unseen tile may be:

- a tile on the line, or in the bot's own hand, is in nobody else's hand;
- a **pass** shows that the seat then held no tile showing either open-end number;
- a **draw** (draw-2) shows the same about the drawer's hand just before it drew; the
  drawn tile is unknown, but if the seat draws again at the same ends it did not fit
  either; the tile a seat plays straight after drawing is the tile it drew last;
- in round 1 the opening tile is forced (docs/rules.md §1.4): a double lead shows no hand was
  dealt a higher double; a non-double lead shows no hand was dealt any double or a tile
  ranked above it; those were in the boneyard (and may have been drawn since) or are the
  set-aside tile;
- the sizes: each seat's tile count, the boneyard's size (draw-2, order unknown) and the
  one set-aside tile (block-3).

Hidden tiles are held in *slots*, each with the mask of tiles it may be. In block games a
seat's slots are all alike (dealt, and cut by its passes). In draw-2 a tile drawn later was
neither dealt nor in the hand at earlier passes and draws, so an opponent's hand is a few
slot groups with nested masks (older slots are never less constrained); when it plays a
tile whose slot is ambiguous we assume the most constrained slot that allows it went, which
leaves weaker (never stronger) constraints than the truth, so no consistent deal is ruled
out.

``Knowledge.sample`` draws a deal uniformly among all assignments of the unseen tiles to
the slot groups that satisfy these constraints (exact: a counting table is built once per
decision, then each sample is a walk through it).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from services.match.rules.moves import LEFT
from services.match.rules.state import Deal, Round
from services.match.rules.tiles import (
    ALL_TILES,
    HIGH,
    LOW,
    MATCHES,
    OTHER_END,
    PIPS,
    TILE_COUNT,
    tiles_in,
)

# The round-1 lead order: doubles high to low, then tiles by pip sum, then the higher pip.
_RANK = {t: (1, LOW[t]) if LOW[t] == HIGH[t] else (0, PIPS[t] * 8 + HIGH[t]) for t in range(TILE_COUNT)}


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

    def __init__(self, seats: int, seat: int, own: int, played: int, groups: list[Group], draws: bool) -> None:
        self.seats = seats
        self.seat = seat
        self.own = own
        self.played = played
        self.unknown = ALL_TILES & ~own & ~played
        self.draws = draws
        self.groups = groups
        self._prepare()

    # --- building from a view -----------------------------------------------------------

    @classmethod
    def from_view(cls, view, use_lead: bool = True) -> "Knowledge":
        rules = view.rules
        n = rules.seats
        me = view.seat
        own = 0
        for t in view.hand:
            own |= 1 << t
        # Tiles no dealt hand held, from the forced opening lead of round 1.
        not_dealt = 0
        first = next((a for a in view.actions if a.kind == "play"), None)
        if use_lead and first is not None and getattr(view, "round_number", 0) == 1 and rules.undealt:
            rank = _RANK[first.tile]
            for t in range(TILE_COUNT):
                if _RANK[t] > rank:
                    not_dealt |= 1 << t
        # Replay the public actions: ends at each moment, played tiles, each seat's slots.
        # slots[s] lists the tiles that seat holds as masks of what each may be, oldest
        # (dealt) first; later slots are drawn tiles, never more constrained than older ones.
        dealt_slot = ALL_TILES & ~not_dealt
        slots: list[list[int]] = [[dealt_slot] * rules.hand_size for _ in range(n)]
        played = 0
        left = right = -1
        prev = None
        for a in view.actions:
            s = a.seat
            if a.kind == "play":
                t = a.tile
                played |= 1 << t
                if left < 0:
                    left, right = LOW[t], HIGH[t]
                elif a.end == LEFT:
                    left = OTHER_END[t][left]
                else:
                    right = OTHER_END[t][right]
                if s != me:
                    _remove_slot(slots[s], t, prev is not None and prev.seat == s and prev.kind == "draw")
            else:
                if left >= 0:
                    keep = ~(MATCHES[left] | MATCHES[right])
                    sl = slots[s]
                    for i in range(len(sl)):
                        sl[i] &= keep
                if a.kind == "draw" and s != me:
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
        know = cls(n, me, own, played, groups, rules.draws)
        if know.total == 0:
            if use_lead:
                return cls.from_view(view, use_lead=False)
            # Drop every void: sizes alone are always satisfiable.
            for g in groups:
                g.allowed = ALL_TILES
            know = cls(n, me, own, played, groups, rules.draws)
            if know.total == 0:
                raise Inconsistent("the view's tile counts do not add up")
        return know

    # --- exact uniform sampling -------------------------------------------------------

    def _prepare(self) -> None:
        tiles = tiles_in(self.unknown)
        groups = self.groups
        # Most constrained tiles first keeps the table small and the walk short.
        options = []
        for t in tiles:
            opts = tuple(i for i, g in enumerate(groups) if g.allowed >> t & 1)
            options.append((len(opts), t, opts))
        options.sort()
        self.tiles = [t for _, t, _ in options]
        self.options = [o for _, _, o in options]
        caps = tuple(g.size for g in groups)
        if sum(caps) != len(tiles):
            self.total = 0
            self._steps = []
            return
        # ways(i, caps) = the number of ways to place tiles i.. into groups with capacities caps.
        table: dict[tuple, int] = {}
        m = len(tiles)
        opts_list = self.options

        def ways(i: int, cap: tuple) -> int:
            key = (i, cap)
            got = table.get(key)
            if got is not None:
                return got
            if i == m:
                table[key] = 1
                return 1
            total = 0
            for g in opts_list[i]:
                if cap[g]:
                    total += ways(i + 1, cap[:g] + (cap[g] - 1,) + cap[g + 1 :])
            table[key] = total
            return total

        self.total = ways(0, caps)
        # For the walk: each reachable state -> its choices as (cumulative probability, group,
        # next state), states numbered; a sample is then a few float comparisons per tile.
        index: dict[tuple, int] = {}
        steps: list = []

        def build(i: int, cap: tuple) -> int:
            key = (i, cap)
            k = index.get(key)
            if k is not None:
                return k
            k = index[key] = len(steps)
            steps.append(None)
            if i == m:
                return k
            total = table[key]
            choices = []
            acc = 0
            for g in opts_list[i]:
                if cap[g]:
                    nxt = cap[:g] + (cap[g] - 1,) + cap[g + 1 :]
                    w = table.get((i + 1, nxt), 0)
                    if w:
                        acc += w
                        choices.append((acc / total, g, build(i + 1, nxt)))
            steps[k] = tuple(choices)
            return k

        self._steps = steps
        if self.total:
            build(0, caps)

    def sample(self, rng: random.Random) -> list[int]:
        """Masks of unseen tiles, one per group, uniformly among consistent assignments."""
        steps = self._steps
        out = [0] * len(self.groups)
        rand = rng.random
        k = 0
        for t in self.tiles:
            choices = steps[k]
            if len(choices) == 1:
                _, g, k = choices[0]
            else:
                r = rand()
                for p, g, k in choices:
                    if r < p:
                        break
            out[g] |= 1 << t
        return out

    def sample_deal(self, rng: random.Random) -> tuple[list[int], list[int], int]:
        """(every seat's current hand, boneyard tiles in a random order, set-aside tile or -1)."""
        masks = self.sample(rng)
        hands = [0] * self.seats
        hands[self.seat] = self.own
        boneyard: list[int] = []
        aside = -1
        for g, mask in zip(self.groups, masks):
            if g.seat >= 0:
                hands[g.seat] |= mask
            elif g.seat == -1:
                boneyard = tiles_in(mask)
                rng.shuffle(boneyard)
            else:
                aside = tiles_in(mask)[0]
        return hands, boneyard, aside


def _remove_slot(slots: list[int], tile: int, just_drew: bool) -> None:
    """A seat played ``tile``: drop the slot it came from (see the module's note)."""
    if not slots:
        return
    if just_drew:
        slots.pop()  # the tile drawn last is the only one that fits
        return
    bit = 1 << tile
    for i, allowed in enumerate(slots):  # oldest first: the most constrained
        if allowed & bit:
            slots.pop(i)
            return
    slots.pop()


def _fit_length(slots: list[int], n: int) -> list[int]:
    slots = slots[-n:] if n else []
    return [ALL_TILES] * (n - len(slots)) + slots


def round_from_view(view, hands: list[int], boneyard: list[int], aside: int) -> Round:
    """A Round at the view's position with the sampled hidden tiles, ready to ``step``."""
    rnd = Round(Deal(tuple(hands), tuple(boneyard), aside), view.turn, -1)
    if view.left_end is not None:
        rnd.left = view.left_end
        rnd.right = view.right_end
    elif view.legal_moves and len(view.legal_moves) == 1 and view.legal_moves[0].end is None:
        rnd.lead = view.legal_moves[0].tile
    return rnd


def play_evidence(view) -> list[tuple[int, int, int, int]]:
    """The other seats' past free choices, for weighing sampled deals by a model of play.

    One entry per play by another seat whose hand at that moment is known given its
    current hand: (seat, tile played, mask of tiles that fitted the ends then, tiles that
    seat played from then on, this one included). Plays followed by a draw of the same
    seat are left out (the hand then is not its current hand plus later plays), as is a
    forced round-1 lead.
    """
    me = view.seat
    entries = []
    left = right = -1
    for a in view.actions:
        if a.kind == "play":
            t = a.tile
            if left < 0:
                fits = -1 if getattr(view, "round_number", 0) == 1 else ALL_TILES
                left, right = LOW[t], HIGH[t]
            else:
                fits = MATCHES[left] | MATCHES[right]
                if a.end == LEFT:
                    left = OTHER_END[t][left]
                else:
                    right = OTHER_END[t][right]
            if a.seat != me and fits != -1:
                entries.append([a.seat, t, fits, 0, True])
        elif a.kind == "draw":
            for e in entries:
                if e[0] == a.seat:
                    e[4] = False
        if a.kind == "play":
            for e in entries:
                if e[0] == a.seat:
                    e[3] |= 1 << a.tile
    return [(s, t, fits, later) for s, t, fits, later, ok in entries if ok]
