"""Goat, the game where points are bad (docs/rules.md §3): the ``gamezz`` and ``koza`` rule
sets and their options, round scores written or remembered, the fish and its pot, and the
goat who reaches 101.

A round's scores are the pips each seat still holds, except that the seat that went out
or made the block (the fisherman) writes 0. What a side then writes depends on the
options, which is all of ``tally``; the ranking and the 101 limit use written totals only.
"""

from __future__ import annotations

from typing import NamedTuple, Sequence

from ..errors import BadOptions, shown
from ..leading import BY_SUM_THEN_HIGH, first_held
from ..scoring import lowest_side
from ..state import Accounts, Deal, Round, RoundResult
from ..tiles import DOUBLES, MATCHES, pip_total
from ..facets import BotTuning, HostOption, LeadWords, Phrases, RecordShape, RoundColumn, Shape
from ..family import Family, RuleSet, check_teams

NAME = "goat"
LIMIT = 101  # a side whose written total reaches this loses: the goat
REMEMBERED_UP_TO = 12  # a round score this small is remembered, not written, while an account is closed
ZERO_ZERO_VALUES = (0, 10, 25)
FISH_RULES = ("all", "one")
_DOUBLES_MASK = sum(1 << t for t in DOUBLES)
_ZERO_ZERO = 1 << DOUBLES[0]


class GoatRound(NamedTuple):
    """Goat's part of a round's result (``RoundResult.extras``)."""

    written: tuple[int, ...]  # what each side wrote this round
    remembered: tuple[int, ...]  # each side's remembered points after it
    pot: int = 0  # fish "one": the pot carried to the next round


class GoatOptions(NamedTuple):
    zero_zero: int  # what a hand holding only 0-0 counts
    redeal: bool  # a hand of 5+ doubles, or 6+ tiles showing one number, is dealt again
    remembered: bool  # small round scores are remembered until the side's account opens
    fish: str  # "all": every side writes; "one": the highest round score writes the whole sum


PRESETS = {
    "gamezz": GoatOptions(zero_zero=0, redeal=False, remembered=False, fish="all"),
    "koza": GoatOptions(zero_zero=10, redeal=True, remembered=True, fish="all"),
}

# Round 1 leads, best first. gamezz: 0-0, then the doubles 6-6 down to 1-1, then the
# heaviest tile. koza: the doubles 1-1 up to 6-6, then 0-0, then the heaviest tile.
ROUND_ONE_ORDER = {
    "gamezz": (DOUBLES[0],) + tuple(reversed(DOUBLES[1:])) + BY_SUM_THEN_HIGH,
    "koza": DOUBLES[1:] + (DOUBLES[0],) + BY_SUM_THEN_HIGH,
}


def calls_for_redeal(hands: Sequence[int]) -> bool:
    """A hand with five or more doubles, or six or more tiles showing one number (a double
    counts once)."""
    c0, c1, c2, c3 = _NUMBER_COUNTS
    for hand in hands:
        if (hand & _DOUBLES_MASK).bit_count() >= 5:
            return True
        counts = c0[hand & 127] + c1[hand >> 7 & 127] + c2[hand >> 14 & 127] + c3[hand >> 21 & 127]
        if (counts + _ADD_TWO) & _HIGH_BITS:  # some number's count reached 6
            return True
    return False


# How many tiles of a mask show each number, packed 4 bits a number (at most 7 each) and
# tabulated 7 tiles at a time, so a hand's seven counts are four lookups and three adds.
_NUMBER_COUNTS = tuple(
    tuple(sum(((v >> i & 1) and (MATCHES[n] >> (c * 7 + i) & 1)) << 4 * n for n in range(7) for i in range(7))
          for v in range(128))
    for c in range(4)
)
_ADD_TWO = sum(2 << 4 * n for n in range(7))
_HIGH_BITS = sum(8 << 4 * n for n in range(7))


def hand_value(rules: RuleSet, hand: int) -> int:
    return rules.options.zero_zero if hand == _ZERO_ZERO else pip_total(hand)


def round_scores(rules: RuleSet, last_seat: int, hands: Sequence[int]) -> list[int]:
    """Each side's round score: its seats' hands, the seat that ended the round writing 0."""
    scores = [0] * rules.sides
    for seat, hand in enumerate(hands):
        if seat != last_seat:
            scores[rules.side_of(seat)] += hand_value(rules, hand)
    return scores


def tally(rules: RuleSet, reason: str, last_seat: int, hands: Sequence[int],
          accounts: Accounts) -> tuple[tuple[int, ...], Accounts]:
    """What each side writes this round, and the accounts after it."""
    opts = rules.options
    scores = round_scores(rules, last_seat, hands)
    sides = len(scores)
    remembered = list(accounts.remembered)
    opened = list(accounts.opened)
    pot = accounts.pot
    ender = rules.side_of(last_seat)
    remembered[ender] = 0  # the side that went out or fished loses what it remembered
    top = max(scores)
    highest = scores.index(top) if scores.count(top) == 1 else None
    written = [0] * sides
    if reason == "blocked" and opts.fish == "one":
        if highest is None:  # the whole sum carries, as the pot, to the next round
            return tuple(written), Accounts(tuple(remembered), tuple(opened), pot + sum(scores))
        written[highest] = sum(scores) + remembered[highest] + pot
        opened[highest] = True
        return tuple(written), Accounts((0,) * sides, tuple(opened), 0)
    for side, score in enumerate(scores):
        if not opts.remembered or opened[side]:
            written[side] = score
        elif score <= REMEMBERED_UP_TO:
            remembered[side] += score
        else:
            written[side] = score + remembered[side]
            remembered[side] = 0
            opened[side] = True
    if pot and highest is not None:  # the pot goes to the highest round score, opening nothing
        written[highest] += pot
        pot = 0
    return tuple(written), Accounts(tuple(remembered), tuple(opened), pot)


def goat_round(rnd: Round, written: tuple[int, ...], accounts: Accounts) -> GoatRound:
    """What the round wrote and the accounts it left, kept in its result."""
    return GoatRound(written, accounts.remembered, accounts.pot)


def of_round(result: RoundResult) -> GoatRound:
    """A Goat round's own part (every Goat result holds one, a redeal's too)."""
    extras = result.extras
    assert isinstance(extras, GoatRound), extras
    return extras


def _choices(values: tuple) -> str:
    """How an error names an option's allowed values ("true or false" for a switch)."""
    if all(type(value) is bool for value in values):
        return "true or false"
    return "one of " + ", ".join(map(str, values))


def _slashed(values) -> str:
    return " / ".join(map(str, values))


class Goat(Family):
    name = NAME
    phrases = Phrases(title="Goat", target="{target} makes the goat", ended_by="ended by",
                      lead_rule="the holder of the variant's first tile (gamezz: 0-0, else the highest double; "
                                "koza: the lowest double, 1-1 up to 6-6, then 0-0) leads",
                      scoring="points are bad: each side writes the pips it still holds; 101 makes the goat")
    variants = ("koza", "gamezz")  # as a screen lists them
    targets = (LIMIT,)
    options = (
        HostOption("zero_zero", ZERO_ZERO_VALUES, "what a hand holding only 0-0 counts"),
        HostOption("redeal", (True, False), "a hand of 5+ doubles, or 6+ tiles showing one number, is dealt again"),
        HostOption("remembered", (True, False), "round scores of 12 or less are remembered until the side's account opens"),
        HostOption("fish", FISH_RULES, "a blocked round: all sides write, or the highest round score writes the sum"),
    )
    record = RecordShape(variant=True, options=True)
    round_columns = (
        RoundColumn("written", "written", 14, lambda r: list(of_round(r).written),
                    lambda r: _slashed(of_round(r).written)),
        RoundColumn("remembered", "remembered", 14, lambda r: list(of_round(r).remembered),
                    lambda r: _slashed(of_round(r).remembered)),
        RoundColumn("pot", "pot", 4, lambda r: of_round(r).pot, lambda r: str(of_round(r).pot), right=True),
    )
    lower_is_better = True
    offered_shapes = (Shape(2, False), Shape(3, False), Shape(4, False), Shape(4, True))
    usual_shape = Shape(4, False)
    usual_target = LIMIT
    round_won_by = "strictly the lowest round score (points are bad)"
    bot_tuning = BotTuning(greedy_share=0.5, max_work=16000)
    lone_zero_zero = "zero_zero"
    option_words = {"zero_zero": "0-0 alone counts {value}"}
    lead_words = {
        "gamezz": LeadWords(
            rule="the holder of 0-0, else of the highest double, leads",
            by_zero_zero="as {name}'s round 1 is led with 0-0 by whoever holds it",
            by_double="the highest double dealt ({name} leads round 1 with 0-0, else the highest double)",
            by_other_tile="the heaviest tile dealt, as no double was ({name} leads round 1 with 0-0, else a double)"),
        "koza": LeadWords(
            rule="the holder of the lowest double (1-1 up to 6-6, then 0-0) leads",
            by_zero_zero="the only double dealt ({name} leads round 1 with the lowest double, 1-1 up to 6-6, then 0-0)",
            by_double="the lowest double dealt ({name} leads round 1 with the lowest double, 1-1 up to 6-6, then 0-0)",
            by_other_tile="the heaviest tile dealt, as no double was ({name} leads round 1 with the lowest double)"),
    }

    def presets(self, variant: str) -> dict:
        return PRESETS[variant]._asdict()

    def read_options(self, variant: str, given: dict | None = None) -> GoatOptions:
        """The variant's preset with the host's changes, each checked against ``options``."""
        if variant not in PRESETS:
            raise BadOptions(f"unknown goat variant {shown(variant)}; choose one of {', '.join(PRESETS)}")
        chosen = PRESETS[variant]._asdict()
        offered = {option.name: option for option in self.options}
        if given is not None and not isinstance(given, dict):
            raise BadOptions(f"goat options are given by name ({', '.join(offered)})")
        for name, value in (given or {}).items():
            option = offered.get(name)
            if option is None:
                raise BadOptions(f"goat has no option {shown(name)}; its options are {', '.join(offered)}")
            if not any(type(value) is type(allowed) and value == allowed for allowed in option.values):
                raise BadOptions(f"{name} must be {_choices(option.values)}, not {shown(value)}")
            chosen[name] = value
        return GoatOptions(**chosen)

    def configure(self, variant: str | None, seats: int | None, teams: bool | None,
                  options: dict | None) -> RuleSet:
        variant = variant or ""
        chosen = self.read_options(variant, options)
        seats = self.seats_chosen(variant, seats)
        return self.rule_set(variant, seats, 7, True, check_teams(NAME, seats, teams), LIMIT, options=chosen)

    def opening_leader(self, rules: RuleSet, deal: Deal) -> tuple[int, int]:
        lead = first_held(deal.hands, ROUND_ONE_ORDER[rules.variant])
        assert lead is not None  # every deal holds some tile of the order
        return lead

    def score_round(self, rules: RuleSet, reason: str, last_seat: int, hands: Sequence[int]) -> tuple[int, int]:
        """(the side that ended the round, what the other sides score against themselves)."""
        return rules.side_of(last_seat), sum(round_scores(rules, last_seat, hands))

    def next_leader(self, rules: RuleSet, reason: str, winner: int | None, last_seat: int,
                    hands: Sequence[int]) -> int:
        """The player who went out, or who made the block, leads the next round with any tile."""
        return last_seat

    def match_end(self, rules: RuleSet, scores: Sequence[int],
                  target: int) -> tuple[int | None, bool, tuple[int, ...]]:
        """Once a side has written ``target`` (101) or more, the match is over: the highest
        total is the goat (equal highest: all of them) and the lowest wins (equal: nobody)."""
        top = max(scores)
        if top < target:
            return None, False, ()
        return lowest_side(list(scores)), True, tuple(s for s, v in enumerate(scores) if v == top)

    def tally(self, rules: RuleSet):
        return tally

    def round_extras(self, rules: RuleSet):
        return goat_round

    def redeal(self, rules: RuleSet):
        return calls_for_redeal if rules.options.redeal else None

    def played_options(self, rules: RuleSet) -> dict:
        return rules.options._asdict()

    def forced_lead_order(self, rules: RuleSet) -> tuple[int, ...]:
        return ROUND_ONE_ORDER[rules.variant]

    def led_by_round_one_rule(self, rules: RuleSet, view) -> bool:
        """With ``redeal`` a thrown-in deal counts as a round and the deal after it is led by
        the rule while no round has been played; the view shows played rounds only by their
        traces (a written or remembered score, an opened account, a pot), except the freak
        round whose only counted hand is a lone 0-0 worth 0, which we accept to misread."""
        number = view.round_number
        if number == 1:
            return True
        if number > 1 and rules.redeal is not None and view.remembered:
            return not (any(view.scores) or any(view.remembered) or any(view.opened) or view.pot)
        return False

    def side_round_scores(self, rules: RuleSet, last_seat: int, hands: Sequence[int]) -> list[int]:
        return round_scores(rules, last_seat, hands)

    def match_json(self, goats: Sequence[int]) -> dict:
        return {"goats": list(goats)}

    def match_end_line(self, winner: str | None, goats: Sequence[str]) -> str:
        return f"match winner: {winner or 'none (tied for lowest)'}; goat: " + ", ".join(goats)


FAMILY = Goat()
