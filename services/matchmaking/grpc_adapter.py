"""MatchmakingService over gRPC: protobuf in (request_reading.py), use case calls (rooms,
tables, players), protobuf out (messages.py).

Only this module knows about status codes (docs/design.md, "Errors"); the ErrorInfo reason,
BadRequest field and RetryInfo wait come from the typed error (errors.py). Everything that
can be checked on the request alone is checked before anything is loaded, each field on its
own before what depends on several, so bad input changes nothing and the first error named
is the real one; the application and the aggregates check the rest before any event is
triggered.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING, Any, AsyncIterator, Callable, TypeVar

import grpc

from domino.matchmaking.v1 import matchmaking_service_pb2 as pb
from domino.matchmaking.v1 import matchmaking_service_pb2_grpc as pb_grpc
from services.common.auth import AuthError, Identity, KeyRing, bearer_identity
from services.common.changes import ChangeFeed, Waiter
from services.common.grpc_status import ErrorStatuses, end_at_expiry
from services.common.limits import RateLimit, StreamLimits, TooMany
from services.common.revocations import Revocations

from . import request_reading as read
from .errors import (
    AccountsUnavailable, Barred, ConcurrencyConflict, InvalidRequest, MatchRefused, MatchServiceUnavailable,
    NotAPlayer, NotHost, NotInRoom, Refused, SocialUnavailable, TooManyFailedJoins, UnknownInvite, UnknownRoom,
    UnknownTicket,
)
from .invite_use_cases import InviteUseCases
from .messages import invite_pb, practice_pb, presence_pb, room_pb, ticket_pb
from .options import check_strength, default_strength
from .presence import Presence
from .presence_use_cases import PresenceUseCases
from .rematch_use_cases import RematchUseCases
from .room_use_cases import RoomUseCases
from .rooms import Room
from .seating import check_seat_number, is_bot
from .table_use_cases import TableUseCases

if TYPE_CHECKING:
    from typing import TypeAlias

    Context: TypeAlias = grpc.aio.ServicerContext[Any, Any]  # the request and response types are the handler's

DOMAIN = "domino.matchmaking"
_STATUS = [
    (AuthError, grpc.StatusCode.UNAUTHENTICATED),
    (UnknownRoom, grpc.StatusCode.NOT_FOUND),
    (UnknownTicket, grpc.StatusCode.NOT_FOUND),
    (UnknownInvite, grpc.StatusCode.NOT_FOUND),
    (NotAPlayer, grpc.StatusCode.PERMISSION_DENIED),
    (NotHost, grpc.StatusCode.PERMISSION_DENIED),
    (NotInRoom, grpc.StatusCode.PERMISSION_DENIED),
    (InvalidRequest, grpc.StatusCode.INVALID_ARGUMENT),
    (Refused, grpc.StatusCode.FAILED_PRECONDITION),
    (TooManyFailedJoins, grpc.StatusCode.RESOURCE_EXHAUSTED),
    (MatchServiceUnavailable, grpc.StatusCode.UNAVAILABLE),
    (MatchRefused, grpc.StatusCode.INTERNAL),  # options were checked here first: a refusal is a server fault
    (ConcurrencyConflict, grpc.StatusCode.ABORTED),
    (TooMany, grpc.StatusCode.RESOURCE_EXHAUSTED),
    (Barred, grpc.StatusCode.PERMISSION_DENIED),
    (AccountsUnavailable, grpc.StatusCode.UNAVAILABLE),
    (SocialUnavailable, grpc.StatusCode.UNAVAILABLE),
]
T = TypeVar("T")
MATCH_CALL_THREADS = 4
MATCH_CALL_QUEUE = 256  # calls waiting for those threads; beyond, refused at once


class MatchmakingServicer(pb_grpc.MatchmakingServiceServicer):
    def __init__(self, rooms: RoomUseCases, tables: TableUseCases, players: PresenceUseCases, keys: KeyRing,
                 changes: ChangeFeed, poll_seconds: float = 1.0,
                 limits: tuple[StreamLimits, RateLimit] | None = None,
                 clock: Callable[[], float] = time.time, revocations: Revocations | None = None,
                 invites: InviteUseCases | None = None, rematches: RematchUseCases | None = None) -> None:
        self.rooms = rooms
        self.invites = invites
        self.rematches = rematches
        # A token of a session the account service revoked is refused, and its streams end.
        self.revocations = revocations or Revocations()
        self.tables = tables
        self.players = players
        self.keys = keys
        self.changes = changes
        self.poll_seconds = poll_seconds
        self.streams, self.rates = limits or (StreamLimits(), RateLimit())
        self.clock = clock  # the server time every view carries
        # Calls that may wait on the match service run on their own few threads, and beyond
        # them are refused at once: a slow or hung match service never holds up the rest.
        self.match_calls = ThreadPoolExecutor(MATCH_CALL_THREADS, thread_name_prefix="match-calls")
        self._match_waiting = 0

    # ---- private rooms -----------------------------------------------------------------

    async def CreateRoom(self, request: pb.CreateRoomRequest, context: Context) -> pb.CreateRoomResponse:
        async with _statuses(context):
            player = self._player(context)
            request_id = read.request_id(request.request_id)
            seat = read.optional_seat(request)
            options = read.options(request, spectators=request.HasField("spectators") and request.spectators)
            if seat is not None:
                check_seat_number(seat, options.seats)
            room = await self._held_or_not(player, self.rooms.create_room, player, request_id, options, seat)
            return pb.CreateRoomResponse(room=self._room(room))

    async def GetRoom(self, request: pb.GetRoomRequest, context: Context) -> pb.GetRoomResponse:
        async with _statuses(context):
            player = self._player(context)
            which = request.WhichOneof("room")
            if which == "room_id":
                room = await asyncio.to_thread(self.rooms.room_for, player, read.room_id(request.room_id))
            elif which == "code":
                room = await asyncio.to_thread(self.rooms.room_by_code, player, request.code)
            else:
                raise InvalidRequest("room_id or code is required", field="room_id")
            return pb.GetRoomResponse(room=self._room(room))

    async def JoinRoom(self, request: pb.JoinRoomRequest, context: Context) -> pb.JoinRoomResponse:
        async with _statuses(context):
            player = self._player(context)
            if not request.code:
                raise InvalidRequest("code is required", field="code")
            seat = read.optional_seat(request)
            room = await self._held_or_not(player, self.rooms.join_room, player, request.code, seat)
            return pb.JoinRoomResponse(room=self._room(room))

    async def LeaveRoom(self, request: pb.LeaveRoomRequest, context: Context) -> pb.LeaveRoomResponse:
        async with _statuses(context):
            player = self._player(context)
            room = await asyncio.to_thread(self.rooms.leave_room, player, read.room_id(request.room_id))
            return pb.LeaveRoomResponse(room=self._room(room))

    async def ChangeSeat(self, request: pb.ChangeSeatRequest, context: Context) -> pb.ChangeSeatResponse:
        async with _statuses(context):
            player = self._player(context)
            room_id = read.room_id(request.room_id)
            room = await asyncio.to_thread(self.rooms.change_seat, player, room_id, read.seat(request.seat))
            return pb.ChangeSeatResponse(room=self._room(room))

    async def AddBot(self, request: pb.AddBotRequest, context: Context) -> pb.AddBotResponse:
        async with _statuses(context):
            player = self._player(context)
            room_id = read.room_id(request.room_id)
            seat = read.optional_seat(request)
            strength = read.strength(request.bot_strength)
            room = await asyncio.to_thread(self.rooms.add_bot, player, room_id, seat, strength)
            return pb.AddBotResponse(room=self._room(room))

    async def RemoveBot(self, request: pb.RemoveBotRequest, context: Context) -> pb.RemoveBotResponse:
        async with _statuses(context):
            player = self._player(context)
            room_id = read.room_id(request.room_id)
            room = await asyncio.to_thread(self.rooms.remove_bot, player, room_id, read.seat(request.seat))
            return pb.RemoveBotResponse(room=self._room(room))

    async def UpdateRoomOptions(self, request: pb.UpdateRoomOptionsRequest,
                                context: Context) -> pb.UpdateRoomOptionsResponse:
        async with _statuses(context):
            player = self._player(context)
            room_id = read.room_id(request.room_id)
            changes = read.option_changes(request)
            room = await asyncio.to_thread(self.rooms.update_room_options, player, room_id, **changes)
            return pb.UpdateRoomOptionsResponse(room=self._room(room))

    async def StartRoom(self, request: pb.StartRoomRequest, context: Context) -> pb.StartRoomResponse:
        async with _statuses(context):
            player = self._player(context)
            room = await self._via_match(self.rooms.start_room, player, read.room_id(request.room_id))
            return pb.StartRoomResponse(room=self._room(room))

    async def WatchRoom(self, request: pb.WatchRoomRequest,
                        context: Context) -> AsyncIterator[pb.WatchRoomResponse]:
        async with _statuses(context):
            who = self._caller(context)
            player = who.subject
            room_id = read.room_id(request.room_id)
            from_version = read.from_version(request.from_version)
            room = await asyncio.to_thread(self.rooms.room_for, player, room_id)
            if from_version > room.version:
                raise InvalidRequest(f"from_version {from_version} is beyond the room's version {room.version}",
                                     field="from_version")
            self.streams.acquire(player)
        try:
            async with _statuses(context):
                with self.revocations.ending(who, self.changes, room_id):
                    async for update in self._watch_room(room_id, from_version, who, context):
                        yield update
        finally:
            self.streams.release(player)

    async def _watch_room(self, room_id: uuid.UUID, version: int, who: Identity,
                          context: Context) -> AsyncIterator[pb.WatchRoomResponse]:
        player = who.subject
        room = None if version == 0 else await asyncio.to_thread(self.rooms.room_at, room_id, version)
        while True:
            with self.changes.waiter(room_id) as waiter:
                self.revocations.check(who)  # its session revoked (the wake says so): UNAUTHENTICATED
                events = await asyncio.to_thread(self.rooms.room_events_after, room_id, version)
                for event in events:
                    room = event.mutate(room)
                    assert room is not None  # no event of a room discards it
                    version = room.version
                    yield pb.WatchRoomResponse(room=self._room(room))
                assert room is not None  # watched from version 0, the first event created it
                if room.status == Room.CLOSED or not room.is_member(player) or self.changes.closed:
                    return  # closed, the watcher left, or the server is stopping: the last state was sent
                await end_at_expiry(context, who, DOMAIN)
                await waiter.wait(min(self.poll_seconds, max(0.0, who.expires_at - time.time())))

    # ---- invites and rematch ---------------------------------------------------------------

    async def InviteToRoom(self, request: pb.InviteToRoomRequest, context: Context) -> pb.InviteToRoomResponse:
        async with _statuses(context):
            player = self._player(context)
            request_id = read.request_id(request.request_id)
            room_id = read.room_id(request.room_id)
            invitees = read.invitees(list(request.player_ids), player)
            room, ids = await asyncio.to_thread(self._invites().invite, player, request_id, room_id, invitees)
            now = self.clock()
            return pb.InviteToRoomResponse(invites=[invite_pb(room, n, now) for n in ids])

    async def GetInvite(self, request: pb.GetInviteRequest, context: Context) -> pb.GetInviteResponse:
        async with _statuses(context):
            player = self._player(context)
            room, invite_id = await asyncio.to_thread(self._invites().invite_of, player,
                                                      read.invite_id(request.invite_id))
            now = self.clock()
            return pb.GetInviteResponse(invite=invite_pb(room, invite_id, now), room=room_pb(room, now, player))

    async def AnswerInvite(self, request: pb.AnswerInviteRequest, context: Context) -> pb.AnswerInviteResponse:
        async with _statuses(context):
            player = self._player(context)
            invite_id = read.invite_id(request.invite_id)
            room, _ = await self._via_match(self._invites().answer, player, invite_id, request.accept)
            now = self.clock()
            seated = request.accept and room.is_member(player)
            return pb.AnswerInviteResponse(invite=invite_pb(room, invite_id, now),
                                           room=room_pb(room, now, player) if seated else None)

    async def RequestRematch(self, request: pb.RequestRematchRequest,
                             context: Context) -> pb.RequestRematchResponse:
        async with _statuses(context):
            player = self._player(context)
            match_id = read.match_id(request.match_id)
            if self.rematches is None:
                raise SocialUnavailable("this server takes no rematches", retry_after=1.0)
            room = await self._via_match(self.rematches.request_rematch, player, match_id)
            return pb.RequestRematchResponse(room=self._room(room))

    def _invites(self) -> InviteUseCases:
        if self.invites is None:
            raise SocialUnavailable("this server takes no invites", retry_after=1.0)
        return self.invites

    # ---- public tables -----------------------------------------------------------------

    async def RequestTable(self, request: pb.RequestTableRequest, context: Context) -> pb.RequestTableResponse:
        async with _statuses(context):
            player = self._player(context)
            request_id = read.request_id(request.request_id)
            options = read.table_options(request)
            ticket = await self._via_match(self.tables.request_table, player, request_id, options)
            return pb.RequestTableResponse(ticket=ticket_pb(ticket, self.clock()))

    async def GetTicket(self, request: pb.GetTicketRequest, context: Context) -> pb.GetTicketResponse:
        async with _statuses(context):
            player = self._player(context)
            ticket = await asyncio.to_thread(self.tables.ticket, player, read.ticket_id(request.ticket_id))
            return pb.GetTicketResponse(ticket=ticket_pb(ticket, self.clock()))

    async def WatchTicket(self, request: pb.WatchTicketRequest,
                          context: Context) -> AsyncIterator[pb.WatchTicketResponse]:
        async with _statuses(context):
            who = self._caller(context)
            player = who.subject
            ticket_id = read.ticket_id(request.ticket_id)
            from_version = read.from_version(request.from_version)
            ticket = await asyncio.to_thread(self.tables.ticket, player, ticket_id)
            if from_version > ticket.version:
                raise InvalidRequest(f"from_version {from_version} is beyond the ticket's version {ticket.version}",
                                     field="from_version")
            self.streams.acquire(player)
        try:
            async with _statuses(context):
                with self.revocations.ending(who, self.changes, Presence.create_id(player)):
                    async for update in self._watch_ticket(ticket_id, from_version, who, context):
                        yield update
        finally:
            self.streams.release(player)

    async def _watch_ticket(self, ticket_id: str, known: int, who: Identity,
                            context: Context) -> AsyncIterator[pb.WatchTicketResponse]:
        """The ticket's state first unless ``known`` (the version the client has) is current,
        then each change after it."""
        player = who.subject
        presence_id = Presence.create_id(player)
        first = known == 0
        table_id: uuid.UUID | None = None
        while True:
            # A ticket is its player's presence and, once seated, its table: the table alone
            # changes when its match starts or ends, so its changes wake the stream too (those
            # another replica stored come through the change tail, which names only the
            # aggregates stored).
            with self.changes.waiter(presence_id) as waiter, _optional_waiter(self.changes, table_id) as table:
                self.revocations.check(who)  # its session revoked (the wake says so): UNAUTHENTICATED
                ticket = await asyncio.to_thread(self.tables.ticket, player, ticket_id)
                if first or ticket.version > known:
                    first, known = False, ticket.version
                    yield pb.WatchTicketResponse(ticket=ticket_pb(ticket, self.clock()))
                if ticket.finished or self.changes.closed:
                    return
                if ticket.table_id and table is None:
                    table_id = uuid.UUID(ticket.table_id)
                    continue  # seated since it registered: watch the table too, then read again
                await end_at_expiry(context, who, DOMAIN)
                await _first_wake((waiter, table), min(self.poll_seconds, max(0.0, who.expires_at - time.time())))

    async def CancelTicket(self, request: pb.CancelTicketRequest, context: Context) -> pb.CancelTicketResponse:
        async with _statuses(context):
            player = self._player(context)
            ticket = await asyncio.to_thread(self.tables.cancel_ticket, player, read.ticket_id(request.ticket_id))
            return pb.CancelTicketResponse(ticket=ticket_pb(ticket, self.clock()))

    # ---- practice ----------------------------------------------------------------------

    async def StartPractice(self, request: pb.StartPracticeRequest, context: Context) -> pb.StartPracticeResponse:
        async with _statuses(context):
            player = self._player(context)
            request_id = read.request_id(request.request_id)
            strength = read.strength(request.bot_strength)
            options = read.options(request)
            strength = default_strength(options) if strength is None else strength
            check_strength(strength, options)
            table = await self._via_match(self.tables.start_practice, player, request_id, options, strength)
            return practice_pb(table)

    # ---- where the caller is --------------------------------------------------------------

    async def GetPresence(self, request: pb.GetPresenceRequest, context: Context) -> pb.GetPresenceResponse:
        async with _statuses(context):
            player = self._player(context)  # players ask for themselves only
            found = await self._held_or_not(player, self.players.whereabouts, player)
            return presence_pb(found, self.clock())

    # ---- request checks ----------------------------------------------------------------

    def _room(self, room: Room) -> pb.RoomView:
        return room_pb(room, self.clock())

    def _player(self, context: Context) -> str:
        return self._caller(context).subject

    def _caller(self, context: Context) -> Identity:
        who = bearer_identity(context.invocation_metadata(), self.keys)
        self.revocations.check(who)
        if who.role != "player" or is_bot(who.subject):
            raise NotAPlayer("only players take seats through matchmaking (not bots, services or auditors)")
        self.rates.take(who.subject)
        return who

    async def _held_or_not(self, player: str, call: Callable[..., T], *args: Any) -> T:
        """A use case that asks the match service only for a player held for a match (has it
        ended?): on the match-call threads then, else on the others, so a slow match service
        holds up nobody it need not."""
        held = await asyncio.to_thread(self.players.held_for_match, player)
        return await (self._via_match(call, *args) if held else asyncio.to_thread(call, *args))

    async def _via_match(self, call: Callable[..., T], *args: Any) -> T:
        """A use case that may call the match service, on the match-call threads: refused at
        once (UNAVAILABLE, retry with the same request id) when too many already wait there."""
        if self._match_waiting >= MATCH_CALL_QUEUE:
            raise MatchServiceUnavailable("the match service is slow to answer; retry with the same request_id")
        self._match_waiting += 1
        try:
            return await asyncio.get_running_loop().run_in_executor(self.match_calls, lambda: call(*args))
        finally:
            self._match_waiting -= 1


def _statuses(context: Context) -> ErrorStatuses:
    return ErrorStatuses(context, _STATUS, DOMAIN)


def _optional_waiter(changes: ChangeFeed, key: uuid.UUID | None) -> AbstractContextManager[Waiter | None]:
    return changes.waiter(key) if key is not None else nullcontext()


async def _first_wake(waiters: tuple[Waiter | None, ...], timeout: float) -> None:
    """Until one of ``waiters`` is woken, or ``timeout``."""
    present = [w for w in waiters if w is not None]
    if len(present) == 1:
        await present[0].wait(timeout)
        return
    waits = [asyncio.create_task(w.wait(timeout)) for w in present]
    try:
        await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for wait in waits:
            wait.cancel()
