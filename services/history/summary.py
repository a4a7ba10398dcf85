"""What the history and the ratings keep of a match, folded from its events alone (no
clock, no I/O): who sat where, how it ended, and how a finished match moves the players'
OpenSkill ratings (docs/design.md, "History and ratings").

Ratings are per rule family and team setting ("egyptian/teams", "goat/solo"). A bot's seat
id names its seat (`bot:greedy:2`), but its skill is its strength's: bots are rated as
`bot:<strength>`, so a new player can see how strong `strong` is. Sides are ranked by
their final totals (highest first; lowest first where the family's points are bad, as in
Goat: ``Family.lower_is_better``); an abandoned match moves no rating.
"""

from __future__ import annotations

from dataclasses import dataclass

from openskill.models import PlackettLuce

from services.common.bot_ids import bot_strength
from services.match.rules.families.registry import find

MODEL = PlackettLuce()


def rating_key(rules: str, teams: bool) -> str:
    return f"{rules}/{'teams' if teams else 'solo'}"


def rated_id(player_id: str) -> str:
    strength = bot_strength(player_id)
    return f"bot:{strength}" if strength else player_id


@dataclass(frozen=True)
class Started:
    match_id: str
    rules: str
    variant: str
    teams: bool
    seats: tuple[str, ...]
    started_at: float


@dataclass(frozen=True)
class Ended:
    match_id: str
    winner: int | None
    scores: tuple[int, ...]
    abandoned: bool
    ended_at: float


@dataclass(frozen=True)
class Rating:
    mu: float
    sigma: float
    matches: int = 0

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma


def fresh() -> Rating:
    r = MODEL.rating()
    return Rating(r.mu, r.sigma)


def side_of(seat: int, teams: bool) -> int:
    return seat % 2 if teams else seat


def result_of(seat: int, started: Started, ended: Ended | None) -> str:
    if ended is None:
        return "in_play"
    if ended.abandoned:
        return "abandoned"
    if ended.winner is None:
        return "tied"
    return "won" if side_of(seat, started.teams) == ended.winner else "lost"


def ranks(started: Started, ended: Ended) -> list[int]:
    """Each side's place (1 = best; equal totals share a place)."""
    scores = list(ended.scores)
    named = find(started.rules)
    better = (lambda a, b: a < b) if named is not None and named.lower_is_better else (lambda a, b: a > b)
    return [1 + sum(1 for other in scores if better(other, mine)) for mine in scores]


def rerated(started: Started, ended: Ended, current: dict[str, Rating]) -> dict[str, Rating]:
    """The ratings of the match's players after it (``current``: theirs before, by rated id)."""
    if ended.abandoned or len(ended.scores) < 2:
        return {}
    sides = len(ended.scores)
    teams: list[list] = [[] for _ in range(sides)]
    members: list[list[str]] = [[] for _ in range(sides)]
    for seat, player in enumerate(started.seats):
        who = rated_id(player)
        before = current.get(who) or fresh()
        side = side_of(seat, started.teams)
        teams[side].append(MODEL.rating(mu=before.mu, sigma=before.sigma))
        members[side].append(who)
    after = MODEL.rate(teams, ranks=[float(r) for r in ranks(started, ended)])
    collected: dict[str, list] = {}
    for side, team in enumerate(after):
        for who, rating in zip(members[side], team):
            collected.setdefault(who, []).append(rating)
    out = {}
    for who, ratings in collected.items():  # one bot strength in several seats: the mean of its seats
        before = current.get(who) or fresh()
        out[who] = Rating(sum(r.mu for r in ratings) / len(ratings), sum(r.sigma for r in ratings) / len(ratings),
                          before.matches + 1)
    return out
