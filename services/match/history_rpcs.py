"""History and ratings over the match service's API: ListMyMatches, GetRating,
GetLeaderboard and ForgetPlayer answer from the view the history projection keeps
(services/history; docs/design.md, "History, ratings, spectators and table talk"), read in
a worker thread since it is SQL. A server without the view answers UNAVAILABLE.

ListMyMatches reads its writes: what the view has not applied yet (the projection, in the
relay's process, lags the store) is read from the store (services/match/history_unprojected.py),
so a match's result is listed the moment its MatchEnded is stored, on any replica.
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import time
import uuid

from domino.match.v1 import match_service_pb2 as pb
from services.common.auth import Identity
from services.common.bot_ids import is_bot
from services.common.bot_ladder import ladder, named_strength
from services.common.bot_strengths import NAMES
from services.history.summary import rating_key
from services.history.view import View

from . import history_unprojected as unprojected
from .application import MAX_PLAYER_ID, MatchApplication
from .callers import seated
from .errors import Forbidden, InvalidRequest, StoreUnavailable
from .messages import rating_pb, summary_pb
from services.rules import registry

log = logging.getLogger("domino.match")
MAX_PAGE, DEFAULT_PAGE = 50, 20
MAX_TOP, DEFAULT_TOP = 100, 10


class HistoryRpcs:
    def __init__(self, view: View | None, app: MatchApplication | None = None) -> None:
        self.view = view  # None: not configured
        self.app = app  # the store what the view has not applied yet is read from; None: the view alone

    async def list_my_matches(self, request: pb.ListMyMatchesRequest, who: Identity) -> pb.ListMyMatchesResponse:
        who = seated(who)
        if not 0 <= request.page_size <= MAX_PAGE:
            raise InvalidRequest(f"page_size must be 1 to {MAX_PAGE} (0: {DEFAULT_PAGE})", "page_size")
        size = request.page_size or DEFAULT_PAGE
        after = _page_after(request.page_token) if request.page_token else None
        view = self._view()
        position = await asyncio.to_thread(view.position)  # before the rows: what they lack is after it
        rows = await asyncio.to_thread(view.matches_of, who.subject, size + 1, after)
        if self.app is not None:
            rows = await unprojected.fresher(self.app, rows, who.subject, position, after, size + 1)
        more = len(rows) > size
        rows = rows[:size]
        token = _page_token(rows[-1].started_at, rows[-1].match_id) if more else ""
        return pb.ListMyMatchesResponse(matches=[summary_pb(r) for r in rows], next_page_token=token)

    async def get_rating(self, request: pb.GetRatingRequest, who: Identity) -> pb.GetRatingResponse:
        _rating_family(request.rules)
        player = request.player_id or who.subject
        if len(player) > MAX_PLAYER_ID:
            raise InvalidRequest(f"player_id is longer than {MAX_PLAYER_ID} characters", "player_id")
        strength = named_strength(player)
        if strength is not None:
            return await self._bot_rating(strength, request)
        ranked, total = await asyncio.to_thread(self._view().rating, request.rules, request.teams, player)
        return pb.GetRatingResponse(rating=rating_pb(ranked, player), rated_players=total)

    async def _bot_rating(self, strength: str, request: pb.GetRatingRequest) -> pb.GetRatingResponse:
        """A bot strength is rated by the ladder (docs/bots.md, "Ladder"): against the other
        strengths on the players' scale, not by the matches it happened to play with people.
        Its rank is 0, as its rating is not one of the players' it would be ranked among;
        a strength the ladder has not rated yet is answered as an unrated player is. An id
        naming no strength can belong to nobody, so it is refused like a malformed one."""
        if strength not in NAMES:
            raise InvalidRequest(f"player_id names no bot strength; bots are rated as "
                                 f"{', '.join('bot:' + name for name in NAMES)}", "player_id")
        rated_id = f"bot:{strength}"
        _, total = await asyncio.to_thread(self._view().rating, request.rules, request.teams, rated_id)
        r = ladder().rating(rating_key(request.rules, request.teams), strength)
        rating = pb.Rating(player_id=rated_id) if r is None else pb.Rating(
            player_id=rated_id, mu=r.mu, sigma=r.sigma, ordinal=r.rating, matches=r.matches)
        return pb.GetRatingResponse(rating=rating, rated_players=total)

    async def get_leaderboard(self, request: pb.GetLeaderboardRequest, who: Identity) -> pb.GetLeaderboardResponse:
        _rating_family(request.rules)
        if not 0 <= request.top <= MAX_TOP:
            raise InvalidRequest(f"top must be 1 to {MAX_TOP} (0: {DEFAULT_TOP})", "top")
        view = self._view()
        top = await asyncio.to_thread(view.leaderboard, request.rules, request.teams, request.top or DEFAULT_TOP)
        mine, total = await asyncio.to_thread(view.rating, request.rules, request.teams, who.subject)
        return pb.GetLeaderboardResponse(top=[rating_pb(r, r.player_id) for r in top],
                                         you=rating_pb(mine, who.subject), rated_players=total)

    async def forget_player(self, request: pb.ForgetPlayerRequest, who: Identity) -> pb.ForgetPlayerResponse:
        if who.role != "account":
            raise Forbidden("only the account service erases a deleted account's history")
        if not request.player_id or len(request.player_id) > MAX_PLAYER_ID or is_bot(request.player_id):
            raise InvalidRequest(f"player_id must be a player's id of 1 to {MAX_PLAYER_ID} characters", "player_id")
        rows, ratings = await asyncio.to_thread(self._view().forget, request.player_id, time.time())
        log.info("history erased for a deleted account", extra={"player": request.player_id, "rows": rows,
                                                                "ratings": ratings})
        return pb.ForgetPlayerResponse(history_rows=rows, ratings=ratings)

    def _view(self) -> View:
        if self.view is None:
            raise StoreUnavailable("match history is not available on this server")
        return self.view


def _rating_family(rules: str) -> None:
    if registry.find(rules) is None:
        raise InvalidRequest(f"rules must be one of {', '.join(registry.names())}", "rules")


def _page_token(started_at: float, match_id: str) -> str:
    return base64.urlsafe_b64encode(json.dumps([started_at, match_id]).encode()).decode()


def _page_after(token: str) -> tuple[float, str]:
    """The position a page token names; anything not made by _page_token is refused."""
    try:
        if len(token) > 200:
            raise ValueError
        started_at, match_id = json.loads(base64.urlsafe_b64decode(token.encode()))
        uuid.UUID(match_id)
        return float(started_at), match_id
    except (ValueError, TypeError):
        raise InvalidRequest("page_token is not one this service gave out", "page_token") from None
