"""What the history and the ratings keep of a match, folded from its events alone (no
clock, no I/O): who sat where, how it ended, and how a finished match moves the players'
OpenSkill ratings (docs/design.md, "History, ratings, spectators and table talk").

Ratings are per rule family and team setting ("egyptian/teams", "goat/solo"). A bot's seat
id names its seat (`bot:greedy:2`), but its skill is its strength's: bots are rated as
`bot:<strength>`, the opponents a person's rating is moved against (the leaderboards list
people only; a bot's own figure for players is the ladder's). Sides are ranked by their
final totals (highest first; lowest first where the family's points are bad, as in Goat:
``Family.lower_is_better``), except that a side a player left forfeits: it is ranked below
every side nobody left, whatever the server's play for the leaver scored, so leaving never
earns a win or a rating. The match's own result (the engine's, in its record) stays what
was played; this is the history's ranking of it. An abandoned match and an unrated one
(practice, by default) move no rating.
"""

from __future__ import annotations

from dataclasses import dataclass

from openskill.models import PlackettLuce

from services.common.bot_ids import bot_strength, is_bot
from services.rules.registry import find

MODEL = PlackettLuce()


def rating_key(rules: str, teams: bool) -> str:
    return f"{rules}/{'teams' if teams else 'solo'}"


def rated_id(player_id: str) -> str:
    strength = bot_strength(player_id)
    return f"bot:{strength}" if strength else player_id


def counts_for_ratings(rated: bool | None, request_id: str, seats: tuple[str, ...] | list[str]) -> bool:
    """Whether a match moves ratings: what its creator stored (matchmaking decides,
    services/matchmaking/rated_matches.py), or for a match that does not say (stored before
    it was kept, or made without matchmaking) whether it was more than practice: not a
    practice table's (matchmaking's request id ``practice:<id>``) and with two people or more
    (one person among bots is practice wherever it was made)."""
    if rated is not None:
        return rated
    return not request_id.startswith("practice:") and sum(1 for p in seats if not is_bot(p)) >= 2


@dataclass(frozen=True)
class Started:
    match_id: str
    rules: str
    variant: str
    teams: bool
    seats: tuple[str, ...]
    started_at: float
    rated: bool = True  # moves ratings (counts_for_ratings)


@dataclass(frozen=True)
class Ended:
    match_id: str
    winner: int | None
    scores: tuple[int, ...]
    abandoned: bool
    ended_at: float
    left: tuple[int, ...] = ()  # the seats whose players left the match for good (SeatLeft)


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


def forfeited(started: Started, ended: Ended) -> frozenset[int]:
    """The sides that forfeit: every side a seat of which left (in teams, the leaver's
    partner's too: a bot played half of that side)."""
    return frozenset(side_of(seat, started.teams) for seat in ended.left)


def result_of(seat: int, started: Started, ended: Ended | None) -> str:
    if ended is None:
        return "in_play"
    if ended.abandoned:
        return "abandoned"
    lost = forfeited(started, ended)
    if not lost:
        if ended.winner is None:
            return "tied"
        return "won" if side_of(seat, started.teams) == ended.winner else "lost"
    side = side_of(seat, started.teams)
    places = ranks(started, ended)
    if side in lost or places[side] > 1:
        return "lost"
    return "won" if places.count(1) == 1 else "tied"


def ranks(started: Started, ended: Ended) -> list[int]:
    """Each side's place (1 = best; equal totals share a place). Sides that forfeit share
    the place below every other side, whatever they scored."""
    scores = list(ended.scores)
    named = find(started.rules)
    better = (lambda a, b: a < b) if named is not None and named.lower_is_better else (lambda a, b: a > b)
    lost = forfeited(started, ended)
    kept = [score for side, score in enumerate(scores) if side not in lost]
    last = len(kept) + 1
    return [last if side in lost else 1 + sum(1 for other in kept if better(other, mine))
            for side, mine in enumerate(scores)]


def rerated(started: Started, ended: Ended, current: dict[str, Rating]) -> dict[str, Rating]:
    """The ratings of the match's players after it (``current``: theirs before, by rated id);
    nothing for a match that is not rated or was abandoned."""
    if not started.rated or ended.abandoned or len(ended.scores) < 2:
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
