"""MatchService over gRPC: protobuf in, application calls, protobuf out.

Only this module knows about status codes: typed errors from the domain and the
application are mapped here (CONVENTIONS.md habit 4), and every check that can be made on
the request alone happens before anything is loaded, so bad input changes nothing.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from typing import AsyncIterator

import grpc
from google.protobuf.timestamp_pb2 import Timestamp

from domino.match.v1 import match_service_pb2 as pb
from domino.match.v1 import match_service_pb2_grpc as pb_grpc
from services.common.auth import AuthError, Identity, bearer_identity

from .application import (
    ConcurrencyConflict, InvalidRequest, MatchApplication, RequestIdReused, SeatSpec, StaleTimeout, UnknownMatch,
)
from services.common.changes import ChangeFeed
from services.common.grpc_status import statuses
from .domainmodel import Match, NotSeated
from .export import full_record, seat_record_json
from .public_events import event_name
from .record import to_json
from .rules.errors import MalformedTile, RulesError
from .rules.moves import LEFT, RIGHT, Move
from .rules.tiles import HIGH, LOW, tile as tile_id
from .rules.view import player_view


class Forbidden(Exception):
    """The caller's role may not do this."""


_STATUS = [
    (AuthError, grpc.StatusCode.UNAUTHENTICATED),
    (Forbidden, grpc.StatusCode.PERMISSION_DENIED),
    (UnknownMatch, grpc.StatusCode.NOT_FOUND),
    (NotSeated, grpc.StatusCode.PERMISSION_DENIED),
    (InvalidRequest, grpc.StatusCode.INVALID_ARGUMENT),
    (RequestIdReused, grpc.StatusCode.INVALID_ARGUMENT),
    (MalformedTile, grpc.StatusCode.INVALID_ARGUMENT),
    (RulesError, grpc.StatusCode.FAILED_PRECONDITION),
    (StaleTimeout, grpc.StatusCode.FAILED_PRECONDITION),
    (ConcurrencyConflict, grpc.StatusCode.ABORTED),
]
_KIND = {"play": pb.MOVE_KIND_PLAY, "draw": pb.MOVE_KIND_DRAW, "pass": pb.MOVE_KIND_PASS}
_END = {None: pb.END_UNSPECIFIED, LEFT: pb.END_LEFT, RIGHT: pb.END_RIGHT}


class MatchServicer(pb_grpc.MatchServiceServicer):
    def __init__(self, app: MatchApplication, jwt_secret: str, changes: ChangeFeed, poll_seconds: float = 1.0,
                 store_blocks: bool = True):
        self.app = app
        self.secret = jwt_secret
        self.changes = changes
        self.poll_seconds = poll_seconds
        self.store_blocks = store_blocks

    async def _run(self, call, *args):
        """A store that waits on a network (PostgreSQL) runs in a worker thread so waits
        overlap; an embedded one (SQLite, memory) answers in well under a millisecond and
        runs right here, sparing a thread hand-off that costs more than the call."""
        if self.store_blocks:
            return await asyncio.to_thread(call, *args)
        return call(*args)

    # ---- RPCs --------------------------------------------------------------------------

    async def CreateMatch(self, request, context):
        async with _statuses(context):
            who = self._identity(context)
            if not who.is_service:
                raise Forbidden("only services (matchmaking) may create matches")
            seats = [SeatSpec(s.player_id, s.client_seed) for s in request.seats]
            match = await self._run(
                self.app.create_match, request.request_id, request.rules, request.variant,
                request.teams if request.HasField("teams") else None,
                request.target if request.HasField("target") else None,
                request.turn_timer_seconds if request.HasField("turn_timer_seconds") else None, seats)
            return pb.CreateMatchResponse(match_id=str(match.id), view=match_view(match, -1))

    async def GetMatch(self, request, context):
        async with _statuses(context):
            who = self._identity(context)
            match_id = _match_id(request.match_id)
            match = await self._run(self.app.get_match, match_id)
            return pb.GetMatchResponse(view=match_view(match, self._viewer_seat(match, who)))

    async def PlayTile(self, request, context):
        async with _statuses(context):
            who = self._identity(context)
            match_id = _match_id(request.match_id)
            _request_id(request.request_id)
            if not request.HasField("tile"):
                raise InvalidRequest("tile is required")
            tile = _tile(request.tile)
            end = {pb.END_UNSPECIFIED: None, pb.END_LEFT: LEFT, pb.END_RIGHT: RIGHT}.get(request.end, "bad")
            if end == "bad":
                raise InvalidRequest(f"unknown end {request.end}")
            outcome = await self._run(self.app.play_tile, match_id, who.subject, tile, end, request.request_id)
            self.changes.publish(match_id)
            seat = outcome.match.seat_of(who.subject)
            return pb.PlayTileResponse(version=outcome.version, view=match_view(outcome.match, seat))

    async def DrawTile(self, request, context):
        async with _statuses(context):
            who = self._identity(context)
            match_id = _match_id(request.match_id)
            _request_id(request.request_id)
            outcome = await self._run(self.app.draw_tile, match_id, who.subject, request.request_id)
            self.changes.publish(match_id)
            seat = outcome.match.seat_of(who.subject)
            return pb.DrawTileResponse(version=outcome.version, tile=tile_pb(outcome.drawn),
                                       view=match_view(outcome.match, seat))

    async def ResumeSeat(self, request, context):
        async with _statuses(context):
            who = self._identity(context)
            match_id = _match_id(request.match_id)
            match = await self._run(self.app.resume_seat, match_id, who.subject)
            self.changes.publish(match_id)
            return pb.ResumeSeatResponse(view=match_view(match, match.seat_of(who.subject)))

    async def WatchMatch(self, request, context) -> AsyncIterator[pb.WatchMatchResponse]:
        async with _statuses(context):
            who = self._identity(context)
            match_id = _match_id(request.match_id)
            if request.from_version < 0:
                raise InvalidRequest("from_version cannot be negative")
            match = await self._run(self.app.get_match, match_id)
            seat = self._viewer_seat(match, who)
            if request.from_version > match.version:
                raise InvalidRequest(f"from_version {request.from_version} is beyond the match's version {match.version}")
        version = request.from_version
        folded = None if version == 0 else await self._run(self.app.match_at, match_id, version)
        while True:
            waiter = self.changes.waiter(match_id)
            events = await self._run(lambda: list(self.app.events_after(match_id, version)))
            for event in events:
                folded = event.mutate(folded)
                version = event.originator_version
                yield pb.WatchMatchResponse(event=event_pb(event, seat), view=match_view(folded, seat))
            if folded is not None and folded.finished:
                return
            await waiter.wait(self.poll_seconds)

    async def ExportMatch(self, request, context):
        async with _statuses(context):
            who = self._identity(context)
            match_id = _match_id(request.match_id)
            match = await self._run(self.app.get_match, match_id)
            events = await self._run(lambda: list(self.app.events_after(match_id, 0)))
            if who.is_auditor:
                if not match.finished:
                    raise RulesError("an auditor's export is available once the match has ended")
                data = to_json(full_record(events))
            else:
                seat = self._viewer_seat(match, who)
                if seat < 0:
                    raise Forbidden("only the match's players and auditors may export it")
                data = seat_record_json(events, seat)
            return pb.ExportMatchResponse(record_json=json.dumps(data))

    # ---- request checks ----------------------------------------------------------------

    def _identity(self, context) -> Identity:
        return bearer_identity(context.invocation_metadata(), self.secret)

    @staticmethod
    def _viewer_seat(match: Match, who: Identity) -> int:
        """A player sees their seat's view; services and auditors the public one."""
        if who.is_service or who.is_auditor:
            return -1
        return match.seat_of(who.subject)


def _match_id(text: str) -> uuid.UUID:
    if not text:
        raise InvalidRequest("match_id is required")
    try:
        return uuid.UUID(text)
    except ValueError:
        raise InvalidRequest(f"match_id {text[:40]!r} is not a match id") from None


def _request_id(text: str) -> None:
    if not text:
        raise InvalidRequest("request_id is required (any unique string per command)")
    if len(text) > 200:
        raise InvalidRequest("request_id is longer than 200 characters")


def _tile(msg: pb.Tile) -> int:
    if msg.low > 6 or msg.high > 6:
        raise InvalidRequest(f"{msg.low}-{msg.high} is not a double-six tile")
    return tile_id(msg.low, msg.high)


def _statuses(context) -> statuses:
    return statuses(context, _STATUS)


# ---- domain -> protobuf ----------------------------------------------------------------


def tile_pb(t: int) -> pb.Tile | None:
    return pb.Tile(low=LOW[t], high=HIGH[t]) if t >= 0 else None


def move_pb(move: Move) -> pb.Move:
    return pb.Move(kind=_KIND[move.kind], tile=tile_pb(move.tile), end=_END[move.end])


def _timestamp(seconds: float | None) -> Timestamp | None:
    if seconds is None:
        return None
    ts = Timestamp()
    ts.FromNanoseconds(int(seconds * 1e9))
    return ts


def match_view(match: Match, seat: int) -> pb.MatchView:
    """What ``seat`` may see (-1: the public view, no hand)."""
    view = player_view(match.state, max(seat, 0))
    rnd = match.state.round
    in_play = rnd is not None and rnd.outcome is None and not match.finished
    actions = [
        pb.PublicAction(seat=a.seat, kind=_KIND[a.kind], tile=tile_pb(a.tile), end=_END[a.end],
                        timeout=i < len(match.round_timeouts) and match.round_timeouts[i])
        for i, a in enumerate(view.actions)
    ]
    winner = match.state.winner if match.finished else None
    return pb.MatchView(
        match_id=str(match.id),
        version=match.version,
        status=pb.MATCH_STATUS_ENDED if match.finished else pb.MATCH_STATUS_IN_PROGRESS,
        rules=match.rules_name,
        variant=match.variant,
        teams=match.teams,
        target=match.target,
        turn_timer_seconds=match.turn_timer,
        seats=[pb.SeatView(player_id=p, tile_count=view.tile_counts[s] if rnd else 0, away=s in match.away)
               for s, p in enumerate(match.seats)],
        your_seat=seat,
        hand=[tile_pb(t) for t in view.hand] if seat >= 0 else [],
        line=[pb.PlacedTile(left=a, right=b) for a, b in view.line],
        left_end=-1 if view.left_end is None else view.left_end,
        right_end=-1 if view.right_end is None else view.right_end,
        boneyard_count=view.boneyard_count,
        scores=list(match.state.scores),
        round_number=view.round_number,
        turn=rnd.turn if in_play else -1,
        turn_deadline=_timestamp(match.deadline) if in_play else None,
        legal_moves=[move_pb(m) for m in view.legal_moves] if seat >= 0 and in_play else [],
        round_actions=actions,
        rounds=[pb.RoundSummary(reason=r.reason, winner=-1 if r.winner is None else r.winner, points=r.points,
                                scores=list(r.scores)) for r in match.state.results],
        winner=-1 if winner is None else winner,
        fairness_commitment=match.commitment,
    )


def event_pb(event, seat: int) -> pb.MatchEvent:
    kind = type(event).__name__
    msg = pb.MatchEvent(version=event.originator_version, kind=event_name(event),
                        occurred_at=_timestamp(event.timestamp.timestamp()))
    if hasattr(event, "seat"):
        msg.seat = event.seat
    if hasattr(event, "timeout"):
        msg.timeout = event.timeout
    if kind == "TilePlayed":
        msg.tile.CopyFrom(tile_pb(event.tile))
        msg.end = _END[event.end]
    elif kind == "TileDrawn" and event.seat == seat:
        msg.tile.CopyFrom(tile_pb(event.tile))
    return msg
