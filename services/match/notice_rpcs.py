"""What the match service tells the services that tell players what happens (docs/social.md):
GetTurnAttention and DescribeMatchEnd to the notifier, ListPlayingNow to the social service.
Each answers one service's token alone (`service`, its `sub`): they name players, their
matches and their streams, which no player's token may ask of others.

GetTurnAttention is asked for a `domino.v1.seat_turn` message, maybe seconds late: the turn
is still to act only while the match is in that same turn (round and turn number; a draw
keeps the turn, another seat's return does not end it), and `streaming` asks the shared
record of open streams (open_streams.py), so a player watching on another replica gets no
push. ListPlayingNow answers from the history view (a player's matches in play), what the
view has not applied yet read from the store (services/match/history_unprojected.py), and each
such match as it stands (a player who left it is not playing it). DescribeMatchEnd gives
each seat the history's result (a side that left forfeits, as ListMyMatches says) and, for
a rated match, each person's rating ordinal before and after it, from the view's record of
rating moves, or, while the projection has not applied the end yet, as it will.
"""

from __future__ import annotations

import asyncio
import uuid
from typing import cast

from domino.match.v1 import match_service_pb2 as pb
from services.common import bus
from services.common.auth import Identity
from services.common.bot_ids import is_bot
from services.history.summary import Ended, Started, counts_for_ratings, fresh, rated_id, rerated, result_of, side_of
from services.history.view import View

from . import history_unprojected as unprojected
from .application import MAX_PLAYER_ID, MatchApplication
from .domainmodel import Match
from .errors import Forbidden, InvalidRequest, MatchNotEnded, StoreUnavailable, UnknownMatch
from .history_projection import ended_of
from .open_streams import OpenStreams
from .request_checks import match_id as _match_id
from services.rules.registry import find

MAX_PLAYING_NOW = 100  # player ids one ListPlayingNow may name


class NoticeRpcs:
    def __init__(self, app: MatchApplication, streams: OpenStreams, view: View | None) -> None:
        self.app = app
        self.streams = streams
        self.view = view  # the history view; None: not configured (ListPlayingNow UNAVAILABLE, no ratings)

    async def get_turn_attention(self, request: pb.GetTurnAttentionRequest,
                                 who: Identity) -> pb.GetTurnAttentionResponse:
        _only(who, "notifier")
        match_id = _match_id(request.match_id)
        if not 1 <= request.version <= bus.MAX_VERSION:
            raise InvalidRequest(f"version must be 1 to {bus.MAX_VERSION}", "version")
        match = await self.app.read(self.app.get_match, match_id)
        if request.version > match.version:
            raise InvalidRequest(f"version {request.version} is beyond the match's version {match.version}", "version")
        then = match if match.version == request.version else \
            await self.app.read(self.app.match_at, match_id, request.version)
        reply = pb.GetTurnAttentionResponse(seat=-1, rules=match.rules_name)
        seat = then.seat_to_act
        if seat is not None:
            player = then.seats[seat]
            to_act = match.seat_to_act == seat and (match.round_number, match.turn_no) == \
                (then.round_number, then.turn_no)
            deadline = (match if to_act else then).deadline
            reply.to_act, reply.seat, reply.player_id = to_act, seat, player
            if deadline is not None:
                reply.deadline.FromNanoseconds(int(deadline * 1e9))
            if not is_bot(player):
                reply.streaming = await self.streams.streaming(str(match_id), player)
        reply.server_time.FromNanoseconds(int(self.app.clock() * 1e9))
        return reply

    async def list_playing_now(self, request: pb.ListPlayingNowRequest, who: Identity) -> pb.ListPlayingNowResponse:
        _only(who, "social")
        if len(request.player_ids) > MAX_PLAYING_NOW:
            raise InvalidRequest(f"player_ids names at most {MAX_PLAYING_NOW} players", "player_ids")
        for i, player in enumerate(request.player_ids):
            if not player or len(player) > MAX_PLAYER_ID:
                raise InvalidRequest(f"a player id is 1 to {MAX_PLAYER_ID} characters", f"player_ids[{i}]")
        wanted = [p for p in dict.fromkeys(request.player_ids) if not is_bot(p)]
        if not wanted:
            return pb.ListPlayingNowResponse()
        if self.view is None:
            raise StoreUnavailable("match history is not available on this server")
        view = self.view
        position = await asyncio.to_thread(view.position)  # before the rows: what they lack is after it
        rows = await asyncio.to_thread(view.in_play, wanted, 4 * MAX_PLAYING_NOW)
        started, ended = await self.app.read(unprojected.pending, self.app, position)
        newest: dict[str, str] = {}  # player -> their newest match in play, as far as the view and store say
        for s in reversed(started):
            for player in s.seats:
                if player in wanted and s.match_id not in ended:
                    newest.setdefault(player, s.match_id)
        for player, match_id in rows:
            if match_id not in ended:
                newest.setdefault(player, match_id)
        playing = []
        for player in wanted:
            match = await self._live(newest.get(player))
            if match is not None and player in match.seats and match.seats.index(player) not in match.left:
                playing.append(pb.PlayingNow(player_id=player, match_id=str(match.id), rules=match.rules_name,
                                             watchable=bool(match.spectators)))
        return pb.ListPlayingNowResponse(playing=playing)

    async def _live(self, match_id: str | None) -> Match | None:
        if match_id is None:
            return None
        try:
            match = await self.app.read(self.app.get_match, uuid.UUID(match_id))
        except UnknownMatch:
            return None
        return None if match.finished else match

    async def describe_match_end(self, request: pb.DescribeMatchEndRequest,
                                 who: Identity) -> pb.DescribeMatchEndResponse:
        _only(who, "notifier")
        match_id = _match_id(request.match_id)
        match = await self.app.read(self.app.get_match, match_id)
        if not match.finished:
            raise MatchNotEnded("the match is still being played; its end is described once it has ended")
        request_id = "" if match.rated is not None else await self.app.read(self._request_id, match_id)
        started = Started(str(match.id), match.rules_name, match.variant or "", bool(match.teams), tuple(match.seats),
                          0.0, counts_for_ratings(match.rated, request_id, tuple(match.seats)))
        ended = ended_of(match, match.ended_at or 0.0)
        rated = started.rated and not ended.abandoned and len(ended.scores) >= 2
        moves = await self._rating_moves(started, ended) if rated else {}
        family = find(match.rules_name)
        best = min if family is not None and family.lower_is_better else max
        reply = pb.DescribeMatchEndResponse(match_id=str(match.id), rules=match.rules_name, rated=rated)
        for seat, player in enumerate(match.seats):
            side = side_of(seat, started.teams)
            others = [score for s, score in enumerate(ended.scores) if s != side]
            outcome = pb.SeatOutcome(seat=seat, player_id=player, won=result_of(seat, started, ended) == "won",
                                     points=ended.scores[side] if side < len(ended.scores) else 0,
                                     opponent_points=best(others) if others else 0)
            if player in moves:
                outcome.rating_before, outcome.rating_after = moves[player]
            reply.seats.append(outcome)
        if match.ended_at is not None:
            reply.ended_at.FromNanoseconds(int(match.ended_at * 1e9))
        return reply

    def _request_id(self, match_id: uuid.UUID) -> str:
        """The request id the match was created with (whether an older match is rated says so)."""
        first = next(iter(self.app.events.get(match_id, lte=1)))
        return cast(Match.MatchStarted, first).request_id

    async def _rating_moves(self, started: Started, ended: Ended) -> dict[str, tuple[float, float]]:
        """person -> (ordinal before, after): as the view recorded them, or, while the
        projection has not applied this end, as it will (from the ratings it holds now)."""
        if self.view is None:
            return {}
        view = self.view
        position = await asyncio.to_thread(view.position)  # before the moves: what they lack is after it
        moves = await asyncio.to_thread(view.rating_moves, started.match_id)
        if moves:
            return moves
        _, pending_ends = await self.app.read(unprojected.pending, self.app, position)
        if started.match_id not in pending_ends:
            return {}  # applied, and nobody's rating recorded (an end from before the record, or erased)
        people = {p for p in started.seats if not is_bot(p)}
        current = await asyncio.to_thread(view.current_ratings, started.rules, started.teams,
                                          {rated_id(p) for p in started.seats})
        after = rerated(started, ended, current)
        foreseen = {p: ((current.get(p) or fresh()).ordinal, after[p].ordinal) for p in people if p in after}
        recorded = await asyncio.to_thread(view.rating_moves, started.match_id)  # applied meanwhile: the record
        return recorded or foreseen


def _only(who: Identity, service: str) -> None:
    if not (who.is_service and who.subject == service):
        raise Forbidden(f"only the {service} service's token may ask this")
