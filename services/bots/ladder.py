"""The bots' ladder: every registered strength rated against the others, per rule family
and team setting, on the scale players are rated on, so a player can see where each bot
stands beside them (docs/bots.md, "Ladder").

Every pair of strengths (``bot_strengths.NAMES``: a new strength joins by re-running
``domino bots ladder``) plays the arena's duplicate deals (arena.py) in every setting the
registry offers: each family's variants and each variant's shapes (seat count and teams).
Each play is one round from a seeded deal, with the arena's seatings and its notion of who
took the round, and is rated as a match of bots is rated in the history
(services/history/summary.py ``rerated``): the same OpenSkill model, the sides ranked by
what each scored in the round (Goat: lowest first), a strength in several seats taking the
mean of its seats, per family and team setting (``rating_key``), so Egyptian's draw-2,
block-3 and block-4 solo all move "egyptian/solo". The deals go round the settings and
pairs in turn (deal 0 of every setting and pair, then deal 1...), so no pairing is rated
all at once before the others. A strength with a wall-clock cap on its search (strong's
``deadline``, a safety net for a loaded machine; expert's time budget) plays without it,
so everything follows from the seed, however busy the machine: expert then searches a
fixed number of deals (``LADDER_OPTIONS``).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Callable, Iterable

from services.common.bot_ids import bot_id
from services.common.bot_strengths import NAMES
from services.history.summary import Ended, Rating, Started, rating_key, rerated
from services.rules.registry import families

from .arena import arena_rules, first_round, play_round, play_rngs, resolve, round_outcome, seatings


@dataclass(frozen=True)
class Setting:
    """One way a family is played: a variant ("" for none) and a shape."""

    rules: str
    variant: str
    seats: int
    teams: bool

    @property
    def key(self) -> str:
        return rating_key(self.rules, self.teams)

    def __str__(self) -> str:
        return " ".join(x for x in (self.rules, self.variant, f"{self.seats}", "teams" if self.teams else "solo") if x)


def settings() -> list[Setting]:
    """Every variant and shape of every registered family, in the registry's order."""
    return [Setting(f.name, variant, shape.seats, shape.teams)
            for f in families() for variant in (f.variants or ("",)) for shape in f.shapes(variant)]


def pairs(strengths: Iterable[str]) -> list[tuple[str, str]]:
    return list(itertools.combinations(strengths, 2))


#: What a strength plays with in the ladder beyond ``deadline=none``: expert's search is
#: bounded by deals instead of its clock (deterministic), here at 256 deals per decision with
#: its early stop, about strong's count without strong's caps: at the 2,048 deals it can
#: search in a person's think time the full ladder would take hours on two cores. So the
#: ladder rates a short-budget expert; docs/bots.md, "expert", has it at full budget.
LADDER_OPTIONS: dict[str, str] = {"expert": "deals=256"}


def untimed(strength: str, options: dict[str, str] | None = None):
    """The strength's strategy without its wall-clock cap, where it has one, with its
    ladder options (``LADDER_OPTIONS`` unless given)."""
    extra = (LADDER_OPTIONS if options is None else options).get(strength)
    try:
        return resolve(f"{strength}:deadline=none" + (f",{extra}" if extra else ""))
    except ValueError:  # a strength that takes no options, or no deadline: it has no clock
        return resolve(strength)


Ratings = dict[str, dict[str, Rating]]  # rating key -> "bot:<strength>" -> rating


def run(deals: int, seed: int, strengths: tuple[str, ...] = NAMES, chosen: list[Setting] | None = None,
        progress: Callable[[int, int], None] | None = None, options: dict[str, str] | None = None,
        team_deals: int | None = None) -> Ratings:
    """Play ``deals`` deals per solo setting and ``team_deals`` (``deals`` unless given) per
    team setting, each by every pair of ``strengths``; the ratings after them. A team deal is
    played in two seatings where a solo one of three or four seats is played in six or eight,
    so without more deals a team key is rated on a fraction of a solo key's rounds and its
    sigmas stay too wide to tell strengths apart (matchmaking offers a strength only where
    the ladder does: services/common/bot_ladder.py). A setting's plays do not depend on
    another's, so more team deals leave the solo ratings as they were.
    ``progress(done, total)`` is told after each deal of each setting; ``options``: each
    strength's arena options in place of ``LADDER_OPTIONS`` (``{"expert": "deals=2048"}``)."""
    chosen = settings() if chosen is None else chosen
    strategies = {s: untimed(s, options) for s in strengths}
    rulesets = {s: arena_rules(s.rules, s.variant or None, s.teams, s.seats) for s in chosen}
    ratings: Ratings = {s.key: {} for s in chosen}
    dealt = {s: (deals if team_deals is None or not s.teams else team_deals) for s in chosen}
    total, done = sum(dealt.values()), 0
    for deal in range(max(dealt.values(), default=0)):
        for setting in (s for s in chosen if deal < dealt[s]):
            rules = rulesets[setting]
            start = first_round(rules, seed, deal)
            current = ratings[setting.key]
            for a, b in pairs(strengths):
                for p, a_seats in enumerate(seatings(rules)):
                    names = [a if s in a_seats else b for s in range(rules.seats)]
                    rngs = play_rngs(seed, deal, f"{a}-{b}:{p}", rules.seats)
                    m = play_round(start, [strategies[n] for n in names], rngs, names,
                                   {n: [] for n in strengths})
                    current.update(_rated(setting, names, rules, m, current))
            done += 1
            if progress is not None:
                progress(done, total)
    return ratings


def _rated(setting: Setting, names: list[str], rules, m, current: dict[str, Rating]) -> dict[str, Rating]:
    """One play rated as the history rates a finished match of these bots."""
    winner, points = round_outcome(rules, m.results[-1])
    started = Started("ladder", setting.rules, setting.variant, setting.teams,
                      tuple(bot_id(n, seat) for seat, n in enumerate(names)), 0.0)
    return rerated(started, Ended("ladder", winner, tuple(points), False, 0.0), current)


def as_data(ratings: Ratings, strengths: tuple[str, ...] = NAMES) -> dict:
    """The ladder as bot_ladder.json holds it (services/common/bot_ladder.py reads it): per
    rating key, each strength's mu, sigma, the rating shown (the ordinal) and its plays."""
    out: dict = {}
    for key, rated in ratings.items():
        out[key] = {}
        for strength in strengths:
            r = rated.get(f"bot:{strength}")
            if r is not None:
                out[key][strength] = {"mu": round(r.mu, 4), "sigma": round(r.sigma, 4),
                                      "rating": round(r.ordinal, 4), "matches": r.matches}
    return out
