"""The bots' ladder as the services read it: each bot strength's OpenSkill rating in each
rule family and team setting ("egyptian/teams", "goat/solo"), measured by `domino bots
ladder` (services/bots/ladder.py) in arena play between the strengths and committed as
``bot_ladder.json`` beside this module (docs/bots.md, "Ladder").

The data lives in services.common so that the match service (GetRating for
``bot:<strength>``) and matchmaking (which bots fill a public table's empty seats) read it
without importing services.bots: the services stay independent (pyproject.toml's
import-linter contracts). A ladder without a family or a strength (one registered after the
ladder was last run) simply has no rating for it; its readers keep their former behaviour.
"""

from __future__ import annotations

import functools
import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from .bot_ids import PREFIX
from .bot_strengths import NAMES, OFFERED

PATH = Path(__file__).with_name("bot_ladder.json")
log = logging.getLogger("domino.bot_ladder")


@dataclass(frozen=True)
class LadderRating:
    mu: float
    sigma: float
    rating: float  # the rating shown (OpenSkill ordinal, mu - 3 sigma), as for a player
    matches: int


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
