"""MatchService over gRPC: protobuf in, application calls, protobuf out.

Only this module knows about status codes: typed errors from the domain and the
application are mapped here (docs/design.md, "Errors"), and every check that can be made on
the request alone happens before anything is loaded, so bad input changes nothing.

Callers are verified and admitted before any handler runs (``authentication``: the
interceptor of services/common/auth_interceptor.py, with the rules of callers.py); each
handler checks the role it needs. History and ratings (history_rpcs.py), table talk
(talk_rpcs.py), the notifier's and social service's calls (notice_rpcs.py) and the staff's
MatchAdminService (admin_rpcs.py, served by the same server) are answered by modules of their
own.
"""

from __future__ import annotations

import json
import logging
from contextlib import aclosing
from typing import AsyncIterator, cast

import grpc
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from domino.admin.v1 import match_admin_service_pb2 as admin_pb
from domino.admin.v1 import match_admin_service_pb2_grpc as admin_grpc
from domino.match.v1 import match_service_pb2 as pb
from domino.match.v1 import match_service_pb2_grpc as pb_grpc
from services.common import rule_options
from services.common.auth import AuthError, Identity, KeyRing
from services.common.auth_interceptor import AuthInterceptor, caller
from services.common.limits import RateLimit, TooMany
from services.common.revocations import Revocations

from services.common.changes import ChangeFeed
from services.common.grpc_status import ErrorStatuses

from services.history.view import View

from .admin_rpcs import AdminRpcs
from .application import MatchApplication, SeatSpec, check_request_id
from .callers import OPEN_RPCS, Admission, StaffAdmission, seated
from .domainmodel import Match
from .errors import (
    ConcurrencyConflict, CorruptLog, Forbidden, InvalidOptions, InvalidRequest, MatchNotEnded, NotSeated,
    RequestIdReused, StaffRoleTooLow, StaleTimeout, StoreUnavailable, StoredResultMismatch, TableTalkClosed,
    TableTalkFull, UnknownMatch,
)
from .export import full_record, seat_record_json
from .heads import Head, Signer
from .history_rpcs import HistoryRpcs
from .messages import chat_pb, event_pb, public_view, seat_part, tile_pb
from .notice_rpcs import NoticeRpcs
from .staff import AUDITOR, staff_with
from .open_streams import OpenStreams
from .request_checks import match_id as _match_id, tile as _tile
from .view_cache import ViewCache, with_view
from .talk_rpcs import TalkRpcs
from .watching import Happened, Said, Shown, Watching
from .record import to_json
from services.rules.errors import MalformedTile, RulesError
from . import ends

Context = grpc.aio.ServicerContext
log = logging.getLogger("domino.match")
SERVICE = pb.DESCRIPTOR.services_by_name["MatchService"].full_name
ADMIN_SERVICE = admin_pb.DESCRIPTOR.services_by_name["MatchAdminService"].full_name
DOMAIN = "domino.match"  # every refusal's ErrorInfo domain (docs/api.md, "Errors")


STATUSES = [
    (AuthError, grpc.StatusCode.UNAUTHENTICATED),
    (Forbidden, grpc.StatusCode.PERMISSION_DENIED),
    (StaffRoleTooLow, grpc.StatusCode.PERMISSION_DENIED),
    (UnknownMatch, grpc.StatusCode.NOT_FOUND),
    (NotSeated, grpc.StatusCode.PERMISSION_DENIED),  # NotWatchable too
    (InvalidRequest, grpc.StatusCode.INVALID_ARGUMENT),
    (RequestIdReused, grpc.StatusCode.INVALID_ARGUMENT),
    (MalformedTile, grpc.StatusCode.INVALID_ARGUMENT),
    (RulesError, grpc.StatusCode.FAILED_PRECONDITION),
    (StaleTimeout, grpc.StatusCode.FAILED_PRECONDITION),
    (TableTalkClosed, grpc.StatusCode.FAILED_PRECONDITION),
    (ConcurrencyConflict, grpc.StatusCode.ABORTED),
    (StoreUnavailable, grpc.StatusCode.UNAVAILABLE),
    (CorruptLog, grpc.StatusCode.DATA_LOSS),
    (StoredResultMismatch, grpc.StatusCode.DATA_LOSS),  # a stream folding an event read after a rewrite
    (TooMany, grpc.StatusCode.RESOURCE_EXHAUSTED),
    (TableTalkFull, grpc.StatusCode.RESOURCE_EXHAUSTED),
]


class MatchAuthentication(AuthInterceptor):
    """Verifies and admits (callers.py) every MatchService caller but those of the RPCs
    anyone may call without a token (callers.OPEN_RPCS: the head keys)."""

    def wraps(self, handler, method: str) -> bool:
        return super().wraps(handler, method) and method.rsplit("/", 1)[-1] not in OPEN_RPCS


def authentication(keys: KeyRing, rates: RateLimit | None = None,
                   revocations: Revocations | None = None) -> AuthInterceptor:
    """The server interceptor that verifies and admits (callers.py) every MatchService caller,
    refusing the tokens of sessions ``revocations`` lists."""
    return MatchAuthentication((SERVICE,), keys, Admission(rates or RateLimit()), STATUSES, DOMAIN, revocations)


def admin_authentication(keys: KeyRing, rates: RateLimit | None = None,
                         revocations: Revocations | None = None) -> AuthInterceptor:
    """The interceptor that verifies every MatchAdminService caller and admits staff alone."""
    return AuthInterceptor((ADMIN_SERVICE,), keys, StaffAdmission(rates or RateLimit()), STATUSES, DOMAIN,
                           revocations)


class MatchAdminServicer(admin_grpc.MatchAdminServiceServicer):
    """MatchAdminService, the staff's: admin_rpcs.py answers; this maps its errors."""

    def __init__(self, app: MatchApplication, history: View | None) -> None:
        self.rpcs = AdminRpcs(app, history)

    async def ListMatches(self, request: admin_pb.ListMatchesRequest,
                          context: Context) -> admin_pb.ListMatchesResponse:
        async with _statuses(context):
            return await self.rpcs.list_matches(request, caller())

    async def DescribePlayerPlay(self, request: admin_pb.DescribePlayerPlayRequest,
                                 context: Context) -> admin_pb.DescribePlayerPlayResponse:
        async with _statuses(context):
            return await self.rpcs.describe_player_play(request, caller())


class MatchServicer(pb_grpc.MatchServiceServicer):
    """Served behind ``authentication``: without it every call is UNAUTHENTICATED."""

    def __init__(self, app: MatchApplication, changes: ChangeFeed, watching: Watching | None = None,
                 talk: TalkRpcs | None = None, signer: Signer | None = None, history: View | None = None,
                 open_streams: OpenStreams | None = None) -> None:
        self.app = app
        # seated players' open streams, on every replica of the store: GetTurnAttention's ``streaming``
        self.open_streams = open_streams or OpenStreams()
        self.notices = NoticeRpcs(app, self.open_streams, history)
        self.history = HistoryRpcs(history, app)  # history: the view services/history keeps; None: not configured
        self.talk = talk or TalkRpcs(app, changes)
        # Without a configured key (unit and component tests) heads are signed with a key of the moment.
        self.signer = signer or Signer(Ed25519PrivateKey.generate())
        self.changes = changes
        # WatchMatch's use case, built by bootstrap.create_server with what it needs; None: one
        # for this process alone (unit tests), sharing the talk's counts and the open streams.
        self.watching = watching or Watching(app, changes, talk_sent=self.talk.sent, open_streams=self.open_streams)
        # Each (match, version, seat) view is built once for the reply, the streams, the bots and spectators.
        # Each leaves stamped with the server's time (server_time): clients count turns down by it.
        self.views = ViewCache(lambda match: public_view(match, self._head(match)), seat_part, event_pb,
                               clock=app.clock)

    # ---- RPCs --------------------------------------------------------------------------

    async def CreateMatch(self, request: pb.CreateMatchRequest, context: Context) -> pb.CreateMatchResponse:
        async with _statuses(context):
            if not caller().is_service:
                raise Forbidden("only services (matchmaking) may create matches")
            seats = [SeatSpec(s.player_id, s.client_seed) for s in request.seats]
            match = await self.app.create_match(
                request.request_id, request.rules, request.variant,
                request.teams if request.HasField("teams") else None,
                request.target if request.HasField("target") else None,
                request.turn_timer_seconds if request.HasField("turn_timer_seconds") else None, seats,
                host_options(request), request.seed_wait_seconds, request.spectators,
                request.rated if request.HasField("rated") else None)
            return with_view(pb.CreateMatchResponse(match_id=str(match.id)), self.views.serialized(match, -1))

    async def GetMatch(self, request: pb.GetMatchRequest, context: Context) -> pb.GetMatchResponse:
        async with _statuses(context):
            who = caller()
            match_id = _match_id(request.match_id)
            if request.min_version < 0:
                raise InvalidRequest("min_version cannot be negative", "min_version")
            match = self.app.match_since(match_id, request.min_version) if request.min_version else None
            if match is None:
                match = await self.app.read(self.app.get_match, match_id)
                if match.version < request.min_version:
                    raise InvalidRequest(f"min_version {request.min_version} is beyond the match's version "
                                         f"{match.version}", "min_version")
            return with_view(pb.GetMatchResponse(), self.views.serialized(match, self._viewer_seat(match, who)))

    async def PlayTile(self, request: pb.PlayTileRequest, context: Context) -> pb.PlayTileResponse:
        async with _statuses(context):
            who = seated(caller())
            match_id = _match_id(request.match_id)
            check_request_id(request.request_id)
            if not request.HasField("tile"):
                raise InvalidRequest("tile is required", "tile")
            tile = _tile(request.tile)
            try:
                end = ends.from_pb(request.end)
            except ValueError as e:
                raise InvalidRequest(str(e), "end") from None
            outcome = await self.app.play_tile(match_id, who.subject, tile, end, request.request_id)
            self.changes.publish(match_id)
            seat = outcome.match.seat_of(who.subject)
            return with_view(pb.PlayTileResponse(version=outcome.version), self.views.serialized(outcome.match, seat))

    async def DrawTile(self, request: pb.DrawTileRequest, context: Context) -> pb.DrawTileResponse:
        async with _statuses(context):
            who = seated(caller())
            match_id = _match_id(request.match_id)
            check_request_id(request.request_id)
            outcome = await self.app.draw_tile(match_id, who.subject, request.request_id)
            self.changes.publish(match_id)
            seat = outcome.match.seat_of(who.subject)
            return with_view(pb.DrawTileResponse(version=outcome.version, tile=tile_pb(outcome.drawn)),
                             self.views.serialized(outcome.match, seat))

    async def ResumeSeat(self, request: pb.ResumeSeatRequest, context: Context) -> pb.ResumeSeatResponse:
        async with _statuses(context):
            who = seated(caller())
            match_id = _match_id(request.match_id)
            match = await self.app.resume_seat(match_id, who.subject)
            self.changes.publish(match_id)
            return with_view(pb.ResumeSeatResponse(), self.views.serialized(match, match.seat_of(who.subject)))

    async def LeaveMatch(self, request: pb.LeaveMatchRequest, context: Context) -> pb.LeaveMatchResponse:
        async with _statuses(context):
            who = seated(caller())
            match_id = _match_id(request.match_id)
            match = await self.app.leave_match(match_id, who.subject)
            self.changes.publish(match_id)
            return with_view(pb.LeaveMatchResponse(), self.views.serialized(match, match.seat_of(who.subject)))

    async def SubmitSeed(self, request: pb.SubmitSeedRequest, context: Context) -> pb.SubmitSeedResponse:
        async with _statuses(context):
            who = seated(caller())
            match_id = _match_id(request.match_id)
            match = await self.app.submit_seed(match_id, who.subject, request.seed)
            self.changes.publish(match_id)
            return with_view(pb.SubmitSeedResponse(), self.views.serialized(match, match.seat_of(who.subject)))

    async def WatchMatch(self, request: pb.WatchMatchRequest,
                         context: Context) -> AsyncIterator[pb.WatchMatchResponse]:
        """The watching use case's updates (watching.py), each as a message of its own."""
        async with _statuses(context):  # the store may fail mid-stream: UNAVAILABLE, and the client resumes
            who = caller()
            match_id = _match_id(request.match_id)
            if request.from_version < 0:
                raise InvalidRequest("from_version cannot be negative", "from_version")
            async with aclosing(self.watching.watch(match_id, who, request.from_version)) as updates:
                async for update in updates:  # mapped here, not in a call: this runs for every message
                    if type(update) is Happened:
                        yield self.views.update(update.event, update.match, update.seat)  # built once per seat
                    elif type(update) is Said:
                        yield self.views.stamped(pb.WatchMatchResponse(chat=chat_pb(update.phrase)))
                    else:
                        shown = cast(Shown, update)
                        yield self.views.current(shown.match, shown.seat)

    async def ExportMatch(self, request: pb.ExportMatchRequest, context: Context) -> pb.ExportMatchResponse:
        async with _statuses(context):
            who = caller()
            match_id = _match_id(request.match_id)
            if who.is_staff:
                staff_with(who, AUDITOR, "ExportMatch")
                if request.unfinished:
                    raise Forbidden("staff export a match once it has ended, never one still in play")
            elif request.unfinished and not who.is_auditor:
                raise Forbidden("only auditors may export a match that has not ended")
            if who.is_auditor or who.is_staff:
                # Built from the stored events without replaying them, so a log the engine
                # refuses (a corrupt or tampered one) can still be exported and examined.
                events = await self.app.read(self.app.stored_events, match_id)
                ended = any(isinstance(e, Match.MatchEnded) for e in events)
                if not ended and not request.unfinished:
                    raise MatchNotEnded("an auditor's export is available once the match has ended"
                                        + ("" if who.is_staff else " (set unfinished to export one still in play)"))
                if not ended:
                    log.warning("an auditor exported a match still in play", extra={"auditor": who.subject,
                                                                                   "match": str(match_id)})
                data = to_json(full_record(events))
                self._sign_export(data, str(match_id), events[-1].originator_version)
                if who.is_staff:
                    log.info("a member of staff exported a match's whole record",
                             extra={"staff": who.subject, "staff_name": who.staff_name, "match": str(match_id)})
            else:
                match = await self.app.read(self.app.get_match, match_id)
                seat = self._viewer_seat(match, who)
                if seat < 0:
                    raise Forbidden("only the match's players and auditors may export it")
                events = await self.app.read(lambda: list(self.app.events_after(match_id, 0)))
                data = seat_record_json(events, seat)
                head = self._head(match)
                if head is not None:
                    data["chain"] = {"head": head.to_json()}
            return pb.ExportMatchResponse(record_json=json.dumps(data))

    async def SendChat(self, request: pb.SendChatRequest, context: Context) -> pb.SendChatResponse:
        async with _statuses(context):
            return await self.talk.send_chat(request, caller())

    async def ListMyMatches(self, request: pb.ListMyMatchesRequest, context: Context) -> pb.ListMyMatchesResponse:
        async with _statuses(context):
            return await self.history.list_my_matches(request, caller())

    async def GetRating(self, request: pb.GetRatingRequest, context: Context) -> pb.GetRatingResponse:
        async with _statuses(context):
            return await self.history.get_rating(request, caller())

    async def GetLeaderboard(self, request: pb.GetLeaderboardRequest,
                             context: Context) -> pb.GetLeaderboardResponse:
        async with _statuses(context):
            return await self.history.get_leaderboard(request, caller())

    async def ForgetPlayer(self, request: pb.ForgetPlayerRequest, context: Context) -> pb.ForgetPlayerResponse:
        async with _statuses(context):
            return await self.history.forget_player(request, caller())

    async def GetTurnAttention(self, request: pb.GetTurnAttentionRequest,
                               context: Context) -> pb.GetTurnAttentionResponse:
        async with _statuses(context):
            return await self.notices.get_turn_attention(request, caller())

    async def ListPlayingNow(self, request: pb.ListPlayingNowRequest, context: Context) -> pb.ListPlayingNowResponse:
        async with _statuses(context):
            return await self.notices.list_playing_now(request, caller())

    async def DescribeMatchEnd(self, request: pb.DescribeMatchEndRequest,
                               context: Context) -> pb.DescribeMatchEndResponse:
        async with _statuses(context):
            return await self.notices.describe_match_end(request, caller())

    def _sign_export(self, data: dict, match_id: str, version: int) -> None:
        """The export's chain ends with the head of the stored links, signed now."""
        links = data.get("chain", {}).get("links")
        if links:
            data["chain"]["head"] = self.signer.head(match_id, version, len(links), links[-1]).to_json()

    def _view(self, match: Match, seat: int) -> pb.MatchView:
        """``seat``'s view of ``match``, a message of the caller's own (built once: view_cache.py)."""
        return self.views.view(match, seat)

    def _head(self, match: Match) -> Head | None:
        if not match.chain_head:
            return None  # a match from before the chain
        return self.signer.head(str(match.id), match.version, match.chain_entries, match.chain_head)

    # ---- who sees what -----------------------------------------------------------------

    @staticmethod
    def _viewer_seat(match: Match, who: Identity) -> int:
        """A player sees their seat's view; services, auditors and staff the public one."""
        if who.is_service or who.is_auditor or who.is_staff:
            return -1
        return match.seat_of(who.subject)


def _statuses(context: Context) -> ErrorStatuses:
    return ErrorStatuses(context, STATUSES, DOMAIN)


def host_options(request: pb.CreateMatchRequest) -> dict[str, object] | None:
    """The host options a CreateMatch names in rule_options (None: the variant's preset).
    The family's own ``build`` then refuses a name or value it does not have, naming what it
    allows (services/common/rule_options.py)."""
    try:
        return rule_options.given(request)
    except rule_options.UnreadableOptions as e:
        raise InvalidOptions(str(e), "rule_options") from None
