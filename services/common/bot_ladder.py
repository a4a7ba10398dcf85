"""The bots' ladder as the services read it: each bot strength's OpenSkill rating in each
rule family and team setting ("egyptian/teams", "goat/solo"), measured by `domino bots
ladder` (services/bots/ladder.py) in arena play between the strengths and committed as
``bot_ladder.json`` beside this module (docs/bots.md, "Ladder").

It also says which strengths players are offered in each family and team setting
(``Ladder.offered``, docs/bots.md "Offered strengths"): a name is offered only where the
ladder shows it clearly stronger than every weaker one there, so no two offered names are
levels a player cannot tell apart. "Clearly" is more than one sigma above: the weaker's mu
lies below the stronger's by more than the larger of their sigmas, the negation of "within
one sigma", which is how the expert stood against strong. The ladder's sigmas are
OpenSkill's, which stop shrinking near 1.5 however many rounds are played (its ``tau``
keeps a rating able to move), so this asks for about 1.6 points of mu, a round won about
56 times in 100 in a two-sided setting, an edge a match of many rounds makes plain. A
stricter test fails what the arena measures plainly: Goat teams' strong is 2.0 points
above greedy on the ladder and wins 77-80% of decided rounds against it in the arena, yet
its one-sigma intervals overlap greedy's, and the gap is below the noise of the difference
(hypot of the sigmas). The expert, 48-55% of rounds against strong in the arena, is within
0.9 points of it everywhere.
"""

from __future__ import annotations

import functools
import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from .bot_ids import PREFIX
from .bot_strengths import DEFAULT, NAMES, OFFERED

PATH = Path(__file__).with_name("bot_ladder.json")
log = logging.getLogger("domino.bot_ladder")


@dataclass(frozen=True)
class LadderRating:
    mu: float
    sigma: float
    rating: float  # the rating shown (OpenSkill ordinal, mu - 3 sigma), as for a player
    matches: int


def clearly_stronger(a: LadderRating, b: LadderRating) -> bool:
    """Whether ``a`` is more than one sigma above ``b`` (module docstring)."""
    return a.mu - b.mu > max(a.sigma, b.sigma)


class Ladder:
    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data

    def rating(self, key: str, strength: str) -> LadderRating | None:
        """The strength's rating in a family and team setting (``summary.rating_key``);
        None where the ladder has none."""
        entry = self.data.get(key)
        found = entry.get(strength) if isinstance(entry, dict) else None
        if not isinstance(found, dict):
            return None
        return LadderRating(float(found["mu"]), float(found["sigma"]), float(found["rating"]), int(found["matches"]))

    def offered(self, key: str, among: Iterable[str] = OFFERED) -> tuple[str, ...]:
        """The strengths of ``among`` players are offered in ``key``, weakest first. Walking
        up from the weakest rated one, a strength starts a level of its own when it is clearly
        stronger than every rated strength below it; otherwise it plays at the level below
        and is not offered. Each level keeps one name: its weakest (it promises least and
        costs least: ``expert`` at ``strong``'s level is offered as ``strong``), or
        ``DEFAULT`` where the level holds it, so the strength clients start from is offered
        wherever it is rated. A strength the key does not rate is not offered; a key the
        ladder does not rate at all (a family registered since it was run) offers every one
        of ``among``, as before there was a ladder."""
        names = [s for s in NAMES if s in set(among)]
        rated = [(s, r) for s in names if (r := self.rating(key, s)) is not None]
        if not rated:
            return tuple(names)
        levels: list[str] = []
        for n, (strength, r) in enumerate(rated):
            if not levels or all(clearly_stronger(r, weaker) for _, weaker in rated[:n]):
                levels.append(strength)
            elif strength == DEFAULT:
                levels[-1] = strength
        return tuple(levels)

    def standing_for(self, key: str, strength: str, among: Iterable[str] = OFFERED) -> str:
        """The offered strength that plays at ``strength``'s level in ``key``: itself when
        offered, else the strongest offered one not above it in the registry's order (or the
        weakest offered, where every offered one is above it)."""
        offered = self.offered(key, among)
        if strength in offered or not offered:
            return strength
        below = [s for s in offered if strength in NAMES and NAMES.index(s) <= NAMES.index(strength)]
        return below[-1] if below else offered[0]

    def nearest(self, key: str, rating: float, among: Iterable[str] = OFFERED) -> str | None:
        """The strength of ``among`` whose rating in ``key`` is nearest ``rating`` (equally
        near: the weaker, so a tie never makes a table harder); None where none is rated."""
        rated = [(abs(r.rating - rating), NAMES.index(s), s) for s in among
                 if s in NAMES and (r := self.rating(key, s)) is not None]
        return min(rated)[2] if rated else None


@functools.cache
def ladder() -> Ladder:
    """The committed ladder, read once. A missing or unreadable file is logged and read as
    an empty ladder: no bot has a rating, and public tables keep their configured bots."""
    try:
        return Ladder(json.loads(PATH.read_text(encoding="utf-8")))
    except (OSError, ValueError) as e:
        log.warning("no bot ladder; bots have no ratings", extra={"path": str(PATH), "error": str(e)})
        return Ladder({})


def named_strength(player_id: str) -> str | None:
    """The strength a bot's id names, registered or not (``bot:strong`` or a seat's
    ``bot:strong:2``: "strong"); None for anyone who is not a bot."""
    if not player_id.startswith(PREFIX):
        return None
    return player_id[len(PREFIX):].split(":")[0]
