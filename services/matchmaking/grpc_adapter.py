"""MatchmakingService over gRPC: protobuf in, use case calls (rooms, tables, players), protobuf out.

Only this module knows about status codes (docs/design.md, "Errors"). Everything that can be
checked on the request alone is checked before anything is loaded, so bad input changes
nothing; the application and the aggregates check the rest before any event is triggered.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING, Any, AsyncIterator, Callable, TypeVar

import grpc
from google.protobuf.timestamp_pb2 import Timestamp

from domino.matchmaking.v1 import matchmaking_service_pb2 as pb
from domino.matchmaking.v1 import matchmaking_service_pb2_grpc as pb_grpc
from services.common import rule_options
from services.common.auth import AuthError, Identity, KeyRing, bearer_identity
from services.common.changes import ChangeFeed, Waiter
from services.common.grpc_status import ErrorStatuses, end_at_expiry
from services.common.limits import RateLimit, StreamLimits, TooMany
from services.common.revocations import Revocations
from services.match.rules.rulesets import TURN_TIMERS

from .presence import Presence
from .presence_use_cases import PresenceUseCases, Whereabouts
from .room_use_cases import RoomUseCases
from .rooms import Room
from .tables import Table
from .seating import bot_strength, is_bot
from .errors import (
    AccountsUnavailable, Barred,
    ConcurrencyConflict, InvalidRequest, MatchRefused, MatchServiceUnavailable, NotAPlayer, NotHost, NotInRoom, Refused,
    TooManyFailedJoins, UnknownRoom, UnknownTicket,
)
from .options import Options
from .table_use_cases import TableUseCases, TicketState

if TYPE_CHECKING:
    from typing import TypeAlias

    Context: TypeAlias = grpc.aio.ServicerContext[Any, Any]  # the request and response types are the handler's

_STATUS = [
    (AuthError, grpc.StatusCode.UNAUTHENTICATED),
    (UnknownRoom, grpc.StatusCode.NOT_FOUND),
    (UnknownTicket, grpc.StatusCode.NOT_FOUND),
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
]
T = TypeVar("T")
MATCH_CALL_THREADS = 4
MATCH_CALL_QUEUE = 256  # calls waiting for those threads; beyond, refused at once
_ROOM_STATUS = {Room.OPEN: pb.ROOM_STATUS_OPEN, Room.STARTING: pb.ROOM_STATUS_STARTING,
                Room.PLAYING: pb.ROOM_STATUS_PLAYING, Room.CLOSED: pb.ROOM_STATUS_CLOSED}
_TICKET_STATUS = {"waiting": pb.TICKET_STATUS_WAITING, "seated": pb.TICKET_STATUS_SEATED,
                  "cancelled": pb.TICKET_STATUS_CANCELLED, "ended": pb.TICKET_STATUS_ENDED}


class MatchmakingServicer(pb_grpc.MatchmakingServiceServicer):
    def __init__(self, rooms: RoomUseCases, tables: TableUseCases, players: PresenceUseCases, keys: KeyRing,
                 changes: ChangeFeed, poll_seconds: float = 1.0,
                 limits: tuple[StreamLimits, RateLimit] | None = None, revocations: Revocations | None = None) -> None:
        self.rooms = rooms
        # A token of a session the account service revoked is refused, and its streams end.
        self.revocations = revocations or Revocations()
        self.tables = tables
        self.players = players
        self.keys = keys
        self.changes = changes
        self.poll_seconds = poll_seconds
        self.streams, self.rates = limits or (StreamLimits(), RateLimit())
        # Calls that may wait on the match service run on their own few threads, and beyond
        # them are refused at once: a slow or hung match service never holds up the rest.
        self.match_calls = ThreadPoolExecutor(MATCH_CALL_THREADS, thread_name_prefix="match-calls")
        self._match_waiting = 0

    # ---- private rooms -----------------------------------------------------------------

    async def CreateRoom(self, request: pb.CreateRoomRequest, context: Context) -> pb.CreateRoomResponse:
        async with _statuses(context):
            player = self._player(context)
            options = _options(request, spectators=request.HasField("spectators") and request.spectators)
            seat = request.seat if request.HasField("seat") else None
            room = await asyncio.to_thread(self.rooms.create_room, player, request.request_id, options, seat)
            return pb.CreateRoomResponse(room=room_pb(room))

    async def GetRoom(self, request: pb.GetRoomRequest, context: Context) -> pb.GetRoomResponse:
        async with _statuses(context):
            player = self._player(context)
            which = request.WhichOneof("room")
            if which == "room_id":
                room = await asyncio.to_thread(self.rooms.room_for, player, _uuid(request.room_id, "room_id"))
            elif which == "code":
                room = await asyncio.to_thread(self.rooms.room_by_code, player, request.code)
            else:
                raise InvalidRequest("room_id or code is required")
            return pb.GetRoomResponse(room=room_pb(room))

    async def JoinRoom(self, request: pb.JoinRoomRequest, context: Context) -> pb.JoinRoomResponse:
        async with _statuses(context):
            player = self._player(context)
            if not request.code:
                raise InvalidRequest("code is required")
            seat = request.seat if request.HasField("seat") else None
            room = await asyncio.to_thread(self.rooms.join_room, player, request.code, seat)
            return pb.JoinRoomResponse(room=room_pb(room))

    async def LeaveRoom(self, request: pb.LeaveRoomRequest, context: Context) -> pb.LeaveRoomResponse:
        async with _statuses(context):
            player = self._player(context)
            room = await asyncio.to_thread(self.rooms.leave_room, player, _uuid(request.room_id, "room_id"))
            return pb.LeaveRoomResponse(room=room_pb(room))

    async def ChangeSeat(self, request: pb.ChangeSeatRequest, context: Context) -> pb.ChangeSeatResponse:
        async with _statuses(context):
            player = self._player(context)
            room = await asyncio.to_thread(self.rooms.change_seat, player, _uuid(request.room_id, "room_id"),
                                           request.seat)
            return pb.ChangeSeatResponse(room=room_pb(room))

    async def AddBot(self, request: pb.AddBotRequest, context: Context) -> pb.AddBotResponse:
        async with _statuses(context):
            player = self._player(context)
            room_id = _uuid(request.room_id, "room_id")
            if not request.strength:
                raise InvalidRequest("strength is required")
            seat = request.seat if request.HasField("seat") else None
            room = await asyncio.to_thread(self.rooms.add_bot, player, room_id, seat, request.strength)
            return pb.AddBotResponse(room=room_pb(room))

    async def RemoveBot(self, request: pb.RemoveBotRequest, context: Context) -> pb.RemoveBotResponse:
        async with _statuses(context):
            player = self._player(context)
            room = await asyncio.to_thread(self.rooms.remove_bot, player, _uuid(request.room_id, "room_id"),
                                           request.seat)
            return pb.RemoveBotResponse(room=room_pb(room))

    async def UpdateRoomOptions(self, request: pb.UpdateRoomOptionsRequest,
                                context: Context) -> pb.UpdateRoomOptionsResponse:
        async with _statuses(context):
            player = self._player(context)
            room_id = _uuid(request.room_id, "room_id")
            changes = {name: getattr(request, field) for name, field in
                       (("rules", "rules"), ("variant", "variant"), ("teams", "teams"), ("target", "target"),
                        ("turn_timer", "turn_timer_seconds"), ("seats", "seats"), ("spectators", "spectators"))
                       if request.HasField(field)}
            named = _host_options(request)
            if named is not None:
                changes["host_options"] = named
            _check_values(changes.get("turn_timer"))
            room = await asyncio.to_thread(self.rooms.update_room_options, player, room_id, **changes)
            return pb.UpdateRoomOptionsResponse(room=room_pb(room))

    async def StartRoom(self, request: pb.StartRoomRequest, context: Context) -> pb.StartRoomResponse:
        async with _statuses(context):
            player = self._player(context)
            room = await self._via_match(self.rooms.start_room, player, _uuid(request.room_id, "room_id"))
            return pb.StartRoomResponse(room=room_pb(room))

    async def WatchRoom(self, request: pb.WatchRoomRequest,
                        context: Context) -> AsyncIterator[pb.WatchRoomResponse]:
        async with _statuses(context):
            who = self._caller(context)
            player = who.subject
            room_id = _uuid(request.room_id, "room_id")
            if request.from_version < 0:
                raise InvalidRequest("from_version cannot be negative")
            room = await asyncio.to_thread(self.rooms.room_for, player, room_id)
            if request.from_version > room.version:
                raise InvalidRequest(f"from_version {request.from_version} is beyond the room's version {room.version}")
            self.streams.acquire(player)
        try:
            async with _statuses(context):
                with self.revocations.ending(who, self.changes, room_id):
                    async for update in self._watch_room(room_id, request.from_version, who, context):
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
                    yield pb.WatchRoomResponse(room=room_pb(room))
                assert room is not None  # watched from version 0, the first event created it
                if room.status == Room.CLOSED or not room.is_member(player) or self.changes.closed:
                    return  # closed, the watcher left, or the server is stopping: the last state was sent
                await end_at_expiry(context, who)
                await waiter.wait(min(self.poll_seconds, max(0.0, who.expires_at - time.time())))

    # ---- public tables -----------------------------------------------------------------

    async def RequestTable(self, request: pb.RequestTableRequest, context: Context) -> pb.RequestTableResponse:
        async with _statuses(context):
            player = self._player(context)
            options = Options.chosen(request.rules, request.variant, request.teams if request.HasField("teams") else None,
                                     seats=request.seats if request.HasField("seats") else None)
            ticket = await self._via_match(self.tables.request_table, player, request.request_id, options)
            return pb.RequestTableResponse(ticket=ticket_pb(ticket))

    async def GetTicket(self, request: pb.GetTicketRequest, context: Context) -> pb.GetTicketResponse:
        async with _statuses(context):
            player = self._player(context)
            ticket = await asyncio.to_thread(self.tables.ticket, player, _ticket_id(request.ticket_id))
            return pb.GetTicketResponse(ticket=ticket_pb(ticket))

    async def WatchTicket(self, request: pb.WatchTicketRequest,
                          context: Context) -> AsyncIterator[pb.WatchTicketResponse]:
        async with _statuses(context):
            who = self._caller(context)
            player = who.subject
            ticket_id = _ticket_id(request.ticket_id)
            await asyncio.to_thread(self.tables.ticket, player, ticket_id)
            self.streams.acquire(player)
        try:
            async with _statuses(context):
                with self.revocations.ending(who, self.changes, Presence.create_id(player)):
                    async for update in self._watch_ticket(ticket_id, who, context):
                        yield update
        finally:
            self.streams.release(player)

    async def _watch_ticket(self, ticket_id: str, who: Identity,
                            context: Context) -> AsyncIterator[pb.WatchTicketResponse]:
        player = who.subject
        presence_id = Presence.create_id(player)
        last = None
        while True:
            # A ticket is its player's presence and, once seated, its table: the table alone
            # changes when its match starts or ends, so its changes wake the stream too (those
            # another replica stored come through the change tail, which names only the
            # aggregates stored).
            table_id = uuid.UUID(last.table_id) if last is not None and last.table_id else None
            with self.changes.waiter(presence_id) as waiter, _optional_waiter(self.changes, table_id) as table:
                self.revocations.check(who)  # its session revoked (the wake says so): UNAUTHENTICATED
                ticket = await asyncio.to_thread(self.tables.ticket, player, ticket_id)
                if ticket != last:
                    last = ticket
                    yield pb.WatchTicketResponse(ticket=ticket_pb(ticket))
                if ticket.finished or self.changes.closed:
                    return
                if ticket.table_id and table is None:
                    continue  # seated since it registered: watch the table too, then read again
                await end_at_expiry(context, who)
                await _first_wake((waiter, table), min(self.poll_seconds, max(0.0, who.expires_at - time.time())))

    async def CancelTicket(self, request: pb.CancelTicketRequest, context: Context) -> pb.CancelTicketResponse:
        async with _statuses(context):
            player = self._player(context)
            ticket = await asyncio.to_thread(self.tables.cancel_ticket, player, _ticket_id(request.ticket_id))
            return pb.CancelTicketResponse(ticket=ticket_pb(ticket))

    # ---- practice ----------------------------------------------------------------------

    async def StartPractice(self, request: pb.StartPracticeRequest, context: Context) -> pb.StartPracticeResponse:
        async with _statuses(context):
            player = self._player(context)
            options = _options(request)
            if not request.strength:
                raise InvalidRequest("strength is required")
            table = await self._via_match(self.tables.start_practice, player, request.request_id, options,
                                            request.strength)
            return pb.StartPracticeResponse(match_id=table.match_id, seat=0, seats=table.seats,
                                            options=options_pb(table.match_options))

    # ---- where the caller is --------------------------------------------------------------

    async def GetPresence(self, request: pb.GetPresenceRequest, context: Context) -> pb.GetPresenceResponse:
        async with _statuses(context):
            player = self._player(context)  # players ask for themselves only
            found = await asyncio.to_thread(self.players.whereabouts, player)
            return presence_pb(found)

    # ---- request checks ----------------------------------------------------------------

    def _player(self, context: Context) -> str:
        return self._caller(context).subject

    def _caller(self, context: Context) -> Identity:
        who = bearer_identity(context.invocation_metadata(), self.keys)
        self.revocations.check(who)
        if who.role != "player" or is_bot(who.subject):
            raise NotAPlayer("only players take seats through matchmaking (not bots, services or auditors)")
        self.rates.take(who.subject)
        return who

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


def _options(request: pb.CreateRoomRequest | pb.StartPracticeRequest, spectators: bool = False) -> Options:
    """The options a request asks for, checked by the rules engine (InvalidOptions names the
    allowed values)."""
    target = request.target if request.HasField("target") else None
    timer = request.turn_timer_seconds if request.HasField("turn_timer_seconds") else None
    _check_values(timer)
    return Options.chosen(request.rules, request.variant, request.teams if request.HasField("teams") else None,
                          target, timer, request.seats if request.HasField("seats") else None,
                          _host_options(request), spectators)


def _host_options(request: pb.CreateRoomRequest | pb.StartPracticeRequest | pb.UpdateRoomOptionsRequest
                  ) -> dict[str, Any] | None:
    """The host options a request names, from rule_options and Goat's older goat_options
    (None: none); the family's own rules then check them (services/common/rule_options.py)."""
    try:
        return rule_options.given(request)
    except rule_options.UnreadableOptions as e:
        raise InvalidRequest(str(e)) from None


def _check_values(turn_timer: int | None) -> None:
    if turn_timer is not None and turn_timer not in TURN_TIMERS:
        raise InvalidRequest("turn_timer_seconds must be 30, 45, 60 or 90, or 0 for unlimited")


def _uuid(text: str, name: str) -> uuid.UUID:
    if not text:
        raise InvalidRequest(f"{name} is required")
    try:
        return uuid.UUID(text)
    except ValueError:
        raise InvalidRequest(f"{name} {text[:40]!r} is not an id") from None


def _ticket_id(text: str) -> str:
    return str(_uuid(text, "ticket_id"))


def _statuses(context: Context) -> ErrorStatuses:
    return ErrorStatuses(context, _STATUS)


# ---- domain -> protobuf ----------------------------------------------------------------


def options_pb(options: Options) -> pb.MatchOptions:
    return pb.MatchOptions(rules=options.rules, variant=options.variant, teams=options.teams, target=options.target,
                           turn_timer_seconds=options.turn_timer, seats=options.seats,
                           goat_options=_goat_pb(options.host_options), spectators=options.spectators,
                           rule_options=rule_options.settings_pb(options.host_options))


def _goat_pb(options: dict | None) -> pb.GoatOptions | None:
    fields = rule_options.goat_fields(options)
    return pb.GoatOptions(**fields) if fields else None


def room_pb(room: Room) -> pb.RoomView:
    options = room.match_options
    seats = [pb.RoomSeat(seat=s, player_id=p, bot_strength=bot_strength(p) or "",
                         team=s % 2 if options.teams else -1) for s, p in enumerate(room.seats)]
    return pb.RoomView(room_id=str(room.id), code=room.code, host_id=room.host_id, status=_ROOM_STATUS[room.status],
                       options=options_pb(options), seats=seats, match_id=room.match_id, version=room.version,
                       closed_reason=room.closed_reason)


def ticket_pb(ticket: TicketState) -> pb.TicketView:
    requested = Timestamp()
    requested.FromNanoseconds(int(ticket.requested_at * 1e9))
    return pb.TicketView(ticket_id=ticket.ticket_id, status=_TICKET_STATUS[ticket.status], rules=ticket.rules,
                         variant=ticket.variant, teams=ticket.teams, requested_at=requested, table_id=ticket.table_id,
                         seat=ticket.seat, seats=ticket.seats, match_id=ticket.match_id, seat_count=ticket.seat_count)


_TABLE_KIND = {Table.PUBLIC: pb.TABLE_KIND_PUBLIC, Table.PRACTICE: pb.TABLE_KIND_PRACTICE}


def presence_pb(found: Whereabouts) -> pb.GetPresenceResponse:
    if found.room is not None:
        return pb.GetPresenceResponse(room=room_pb(found.room), match_id=found.match_id)
    if found.ticket is not None:
        return pb.GetPresenceResponse(ticket=ticket_pb(found.ticket))
    if found.table is not None:
        table = found.table
        view = pb.TableView(table_id=str(table.id), kind=_TABLE_KIND[table.kind], options=options_pb(table.match_options),
                            seat=found.seat, seats=table.seats, match_id=table.match_id, ticket_id=found.ticket_id)
        return pb.GetPresenceResponse(table=view, match_id=found.match_id)
    return pb.GetPresenceResponse()


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
