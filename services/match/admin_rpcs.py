"""MatchAdminService's calls: the staff's listing of every match and a player's play, served
by the match service beside MatchService (grpc_adapter.MatchAdminServicer, wired in
bootstrap.py) with the same interceptors, error statuses, rate limits and metrics.

Both calls answer from the history view (services/history: its index of every match,
match_index.py, and its ratings), which the relay's projection keeps: a match's start and end
reach a listing when the projection has applied them, a moment after they are stored. Each
listed match's version is read from the store itself (its newest stored event), so it is what
a WatchMatch or ExportMatch of it would begin with.

Every field is checked before anything is read; a role short of the call is refused
(staff.py), as is every caller but staff (callers.StaffAdmission).
"""

from __future__ import annotations

import asyncio
import base64
import json
import uuid

from domino.admin.v1 import match_admin_service_pb2 as pb
from google.protobuf.timestamp_pb2 import Timestamp
from services.common.auth import Identity
from services.common.bot_ids import is_bot
from services.history.match_index import ListedMatch, MatchFilter
from services.history.view import View
from services.rules import registry

from .application import MAX_PLAYER_ID, MatchApplication
from .errors import InvalidRequest, StoreUnavailable
from .messages import timestamp
from .staff import ANY_STAFF, SUPPORT, staff_with

MAX_PAGE, DEFAULT_PAGE = 100, 25
MAX_RECENT, DEFAULT_RECENT = 50, 10
_STATES = {pb.MATCH_STATE_UNSPECIFIED: None, pb.MATCH_STATE_IN_PLAY: False, pb.MATCH_STATE_FINISHED: True}
_EARLIEST, _LATEST = -62135596800, 253402300799  # a Timestamp's range: years 1 to 9999
_TOKEN_KIND = "admin-matches"  # a page token of another listing (ListMyMatches) is not one of these


class AdminRpcs:
    def __init__(self, app: MatchApplication, view: View | None) -> None:
        self.app = app  # the store each listed match's version is read from
        self.view = view  # None: a server without the history answers UNAVAILABLE

    async def list_matches(self, request: pb.ListMatchesRequest, who: Identity) -> pb.ListMatchesResponse:
        staff_with(who, ANY_STAFF, "ListMatches")
        which = listing_filter(request)
        if not 0 <= request.page_size <= MAX_PAGE:
            raise InvalidRequest(f"page_size must be 1 to {MAX_PAGE} (0: {DEFAULT_PAGE})", "page_size")
        size = request.page_size or DEFAULT_PAGE
        rows = await asyncio.to_thread(self._view().matches, which, size + 1)
        more = len(rows) > size
        rows = rows[:size]
        token = page_token(rows[-1]) if more else ""
        return pb.ListMatchesResponse(matches=await self._listings(rows), next_page_token=token)

    async def describe_player_play(self, request: pb.DescribePlayerPlayRequest,
                                   who: Identity) -> pb.DescribePlayerPlayResponse:
        staff_with(who, SUPPORT, "DescribePlayerPlay")
        player = request.player_id
        if not player or len(player) > MAX_PLAYER_ID:
            raise InvalidRequest(f"player_id must be a player's id of 1 to {MAX_PLAYER_ID} characters", "player_id")
        if not 0 <= request.recent <= MAX_RECENT:
            raise InvalidRequest(f"recent must be 1 to {MAX_RECENT} (0: {DEFAULT_RECENT})", "recent")
        view = self._view()
        # A bot seat's figure is the ladder's (GetRating), not one of the people's ratings.
        ratings = [] if is_bot(player) else await asyncio.to_thread(view.ratings_of, player)
        rows = await asyncio.to_thread(view.matches, MatchFilter(player_id=player), request.recent or DEFAULT_RECENT)
        return pb.DescribePlayerPlayResponse(
            ratings=[pb.FamilyRating(rules=rules, teams=teams, mu=r.rating.mu, sigma=r.rating.sigma,
                                     ordinal=r.rating.ordinal, matches=r.rating.matches, rank=r.rank)
                     for rules, teams, r in ratings],
            recent_matches=await self._listings(rows))

    async def _listings(self, rows: list[ListedMatch]) -> list[pb.MatchListing]:
        versions = await self.app.read(self.app.stored_versions, [uuid.UUID(r.match_id) for r in rows])
        return [listing_pb(r, versions[uuid.UUID(r.match_id)]) for r in rows]

    def _view(self) -> View:
        if self.view is None:
            raise StoreUnavailable("match history is not available on this server")
        return self.view


def listing_filter(request: pb.ListMatchesRequest) -> MatchFilter:
    """The request's filters, each checked; INVALID_ARGUMENT names the first one at fault."""
    if request.state not in _STATES:
        raise InvalidRequest("state must be MATCH_STATE_IN_PLAY, MATCH_STATE_FINISHED or unspecified (both)", "state")
    family = registry.find(request.rules) if request.rules else None
    if request.rules and family is None:
        raise InvalidRequest(f"rules must be one of {', '.join(registry.names())} (empty: any)", "rules")
    if request.variant:
        offered = family.variants if family is not None else {v for f in registry.families() for v in f.variants}
        if request.variant not in offered:
            raise InvalidRequest(f"variant {request.variant[:40]!r} is not one of "
                                 f"{'the family' if family is not None else 'any family'}'s variants", "variant")
    if len(request.player_id) > MAX_PLAYER_ID:
        raise InvalidRequest(f"player_id is longer than {MAX_PLAYER_ID} characters", "player_id")
    after = _seconds(request, "started_after")
    before = _seconds(request, "started_before")
    if after is not None and before is not None and after >= before:
        raise InvalidRequest("started_before must be later than started_after", "started_before")
    match_id = ""
    if request.match_id:
        try:
            match_id = str(uuid.UUID(request.match_id))
        except ValueError:
            raise InvalidRequest(f"match_id {request.match_id[:40]!r} is not a match id", "match_id") from None
    return MatchFilter(finished=_STATES[request.state], rules=request.rules, variant=request.variant,
                       player_id=request.player_id, started_after=after, started_before=before, match_id=match_id,
                       after=page_after(request.page_token) if request.page_token else None)


def _seconds(request: pb.ListMatchesRequest, name: str) -> float | None:
    if not request.HasField(name):
        return None
    ts: Timestamp = getattr(request, name)
    if not (_EARLIEST <= ts.seconds <= _LATEST and 0 <= ts.nanos <= 999_999_999):
        raise InvalidRequest(f"{name} is not a valid time", name)
    return ts.seconds + ts.nanos / 1e9


def listing_pb(m: ListedMatch, version: int) -> pb.MatchListing:
    ended = timestamp(m.ended_at)
    msg = pb.MatchListing(match_id=m.match_id, rules=m.rules, variant=m.variant, teams=m.teams, player_ids=m.seats,
                          state=pb.MATCH_STATE_IN_PLAY if ended is None else pb.MATCH_STATE_FINISHED, scores=m.scores,
                          started_at=timestamp(m.started_at), version=version, rated=m.rated)
    if ended is not None:
        msg.ended_at.CopyFrom(ended)
    return msg


def page_token(last: ListedMatch) -> str:
    return base64.urlsafe_b64encode(json.dumps([_TOKEN_KIND, last.started_at, last.match_id]).encode()).decode()


def page_after(token: str) -> tuple[float, str]:
    """The (started_at, match_id) a page token names; anything not made by page_token is refused."""
    try:
        if len(token) > 200:
            raise ValueError
        kind, started_at, match_id = json.loads(base64.urlsafe_b64decode(token.encode()))
        if kind != _TOKEN_KIND:
            raise ValueError
        return float(started_at), str(uuid.UUID(match_id))
    except (ValueError, TypeError, AttributeError):
        raise InvalidRequest("page_token is not one this service gave out", "page_token") from None
