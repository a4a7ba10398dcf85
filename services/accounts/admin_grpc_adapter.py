"""PlayerAdminService over gRPC: protobuf in, the staff use cases, protobuf out.

Served on the account service's server beside AccountService (bootstrap.create_server), with
its interceptors, metrics and error statuses (grpc_adapter.statuses). Every call needs the
console's `operator` token; the use cases check its staff roles and every field
(staff_checks.py). Calls are rate-limited per member of staff, as a player's are per account.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, Callable, TypeVar

import grpc
from google.protobuf.timestamp_pb2 import Timestamp

from domino.admin.v1 import player_admin_service_pb2 as pb
from domino.admin.v1 import player_admin_service_pb2_grpc as pb_grpc
from services.common.auth import Identity, KeyRing, bearer_identity
from services.common.limits import RateLimit

from .application import AccountApplication
from .erasure import export_text
from .grpc_adapter import statuses, timestamp_of
from .operator_log import LogEntry
from .staff_views import PlayerCard, PlayerDescription

if TYPE_CHECKING:
    from typing import TypeAlias

    Context: TypeAlias = grpc.aio.ServicerContext[Any, Any]

T = TypeVar("T")
_STANDING = {"active": pb.STANDING_ACTIVE, "banned": pb.STANDING_BANNED, "deleted": pb.STANDING_DELETED}


class PlayerAdminServicer(pb_grpc.PlayerAdminServiceServicer):
    def __init__(self, app: AccountApplication, keys: KeyRing, rates: RateLimit | None = None) -> None:
        self.app = app
        self.keys = keys
        self.rates = rates or RateLimit()

    async def FindPlayers(self, request: pb.FindPlayersRequest, context: Context) -> pb.FindPlayersResponse:
        async with statuses(context):
            found = await self._run(self.app.find_players, self._staff(context), request.query, request.page_size)
            return pb.FindPlayersResponse(players=[card_pb(card) for card in found])

    async def DescribePlayer(self, request: pb.DescribePlayerRequest, context: Context) -> pb.DescribePlayerResponse:
        async with statuses(context):
            found = await self._run(self.app.describe_player, self._staff(context), request.player_id)
            return description_pb(found)

    async def BanPlayer(self, request: pb.BanPlayerRequest, context: Context) -> pb.BanPlayerResponse:
        async with statuses(context):
            until = _seconds(request.until) if request.HasField("until") else None
            ban = await self._run(self.app.ban_player, self._staff(context), request.player_id, request.reason,
                                  until, request.why)
            return pb.BanPlayerResponse(ban=pb.Ban(reason=ban.reason, until=timestamp_of(ban.until)))

    async def UnbanPlayer(self, request: pb.UnbanPlayerRequest, context: Context) -> pb.UnbanPlayerResponse:
        async with statuses(context):
            await self._run(self.app.unban_player, self._staff(context), request.player_id, request.why)
            return pb.UnbanPlayerResponse()

    async def EndSessions(self, request: pb.EndSessionsRequest, context: Context) -> pb.EndSessionsResponse:
        async with statuses(context):
            ended = await self._run(self.app.end_sessions, self._staff(context), request.player_id, request.why)
            return pb.EndSessionsResponse(ended=ended)

    async def ExportPlayerData(self, request: pb.ExportPlayerDataRequest,
                               context: Context) -> pb.ExportPlayerDataResponse:
        async with statuses(context):
            data = await self._run(self.app.export_player_data, self._staff(context), request.player_id,
                                   request.why)
            return pb.ExportPlayerDataResponse(data=export_text(data).encode())

    async def DeletePlayer(self, request: pb.DeletePlayerRequest, context: Context) -> pb.DeletePlayerResponse:
        async with statuses(context):
            deleted_at = await self._run(self.app.delete_player, self._staff(context), request.player_id,
                                         request.why)
            return pb.DeletePlayerResponse(deleted_at=timestamp_of(deleted_at))

    async def RecordStaffAction(self, request: pb.RecordStaffActionRequest,
                                context: Context) -> pb.RecordStaffActionResponse:
        async with statuses(context):
            entry = await self._run(self.app.record_staff_action, self._staff(context), request.action,
                                    request.target, request.why)
            return pb.RecordStaffActionResponse(entry=entry_pb(entry))

    async def ListOperatorLog(self, request: pb.ListOperatorLogRequest,
                              context: Context) -> pb.ListOperatorLogResponse:
        async with statuses(context):
            page, token = await self._run(self.app.operator_log, self._staff(context), request.page_size,
                                          request.page_token, request.target)
            return pb.ListOperatorLogResponse(entries=[entry_pb(e) for e in page.entries], next_page_token=token)

    def _staff(self, context: Context) -> Identity:
        """The caller; the use case checks it is staff with the role the call needs."""
        who = bearer_identity(context.invocation_metadata(), self.keys)
        if who.is_staff:
            self.rates.take(f"staff:{who.subject}")
        return who

    @staticmethod
    async def _run(call: Callable[..., T], *args: Any) -> T:
        """The store is blocking: the use cases run on the default thread pool."""
        return await asyncio.to_thread(call, *args)


def _seconds(stamp: Timestamp) -> float:
    return stamp.seconds + stamp.nanos / 1e9


def card_pb(card: PlayerCard) -> pb.PlayerCard:
    found = pb.PlayerCard(player_id=card.account_id, display_name=card.display_name,
                          standing=_STANDING[card.standing])
    if card.created_at is not None:
        found.created_at.CopyFrom(timestamp_of(card.created_at))
    return found


def description_pb(found: PlayerDescription) -> pb.DescribePlayerResponse:
    reply = pb.DescribePlayerResponse(
        card=card_pb(found.card),
        providers=[pb.LinkedProvider(provider=p, linked_at=timestamp_of(at)) for p, at in found.providers],
        devices=[pb.PlayerDevice(device_id=d.device_id, created_at=timestamp_of(d.created_at),
                                 last_used_at=timestamp_of(d.last_used_at)) for d in found.devices],
        sessions=[pb.PlayerSession(session_id=s.session_id,
                                   signed_in_with="device" if s.method == "device" else (s.provider or "identity"),
                                   started_at=timestamp_of(s.started_at),
                                   last_refreshed_at=timestamp_of(s.last_refreshed_at)) for s in found.sessions])
    if found.ban is not None:
        reply.ban.CopyFrom(pb.Ban(reason=found.ban[0], until=timestamp_of(found.ban[1])))
    return reply


def entry_pb(entry: LogEntry) -> pb.OperatorLogEntry:
    at = Timestamp()
    at.FromMicroseconds(entry.at_us)
    return pb.OperatorLogEntry(sequence=entry.sequence, at=at, staff_id=entry.staff_id, staff_name=entry.staff_name,
                               staff_roles=list(entry.staff_roles), action=entry.action, target=entry.target,
                               why=entry.why, details=entry.details, hash=entry.hash)
