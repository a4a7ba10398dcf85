"""Matchmaking's domain as the API's messages (matchmaking_service.proto): rooms, tickets,
tables and presence, each with the server's clock when it is sent.

"None" is an unset optional field, never -1: a ticket not yet seated has no `your_seat`, a
solo seat no `team`. Bot strengths are the BotStrength enum on the wire and their names in
the domain and in bot ids ("bot:<name>:<seat>"): ``STRENGTHS`` maps the one to the other,
and fails at import when the registry (services/common/bot_strengths.py) names a strength the
enum lacks.
"""

from __future__ import annotations

from typing import cast

from google.protobuf.timestamp_pb2 import Timestamp

from domino.match.v1 import match_service_pb2 as match_pb
from domino.matchmaking.v1 import matchmaking_service_pb2 as pb
from services.common import bot_strengths, rule_options

from .invites import ACCEPTED, DECLINED, EXPIRED, PENDING, REMATCH
from .match_starts import MATCH_ENDED
from .options import Options
from .presence_use_cases import Whereabouts
from .rooms import HOST_LEFT, Room
from .seating import bot_strength
from .table_use_cases import TicketState
from .tables import Table

#: Every registered strength's name -> its BotStrength value.
STRENGTHS: dict[str, match_pb.BotStrength] = {
    name: cast(match_pb.BotStrength, match_pb.BotStrength.Value(bot_strengths.wire_name(name)))
    for name in bot_strengths.NAMES}
STRENGTH_NAMES: dict[int, str] = {value: name for name, value in STRENGTHS.items()}

_ROOM_STATUS = {Room.OPEN: pb.ROOM_STATUS_OPEN, Room.STARTING: pb.ROOM_STATUS_STARTING,
                Room.PLAYING: pb.ROOM_STATUS_PLAYING, Room.CLOSED: pb.ROOM_STATUS_CLOSED}
_CLOSED_REASON = {MATCH_ENDED: pb.ROOM_CLOSED_REASON_MATCH_ENDED, HOST_LEFT: pb.ROOM_CLOSED_REASON_HOST_LEFT}
_TICKET_STATUS = {"waiting": pb.TICKET_STATUS_WAITING, "seated": pb.TICKET_STATUS_SEATED,
                  "cancelled": pb.TICKET_STATUS_CANCELLED, "ended": pb.TICKET_STATUS_ENDED}
_INVITE_STATUS = {PENDING: pb.INVITE_STATUS_PENDING, ACCEPTED: pb.INVITE_STATUS_ACCEPTED,
                  DECLINED: pb.INVITE_STATUS_DECLINED, EXPIRED: pb.INVITE_STATUS_EXPIRED}
_TABLE_KIND = {Table.PUBLIC: pb.TABLE_KIND_PUBLIC, Table.PRACTICE: pb.TABLE_KIND_PRACTICE}


def timestamp(seconds: float) -> Timestamp:
    stamp = Timestamp()
    stamp.FromNanoseconds(int(seconds * 1e9))
    return stamp


def options_pb(options: Options) -> pb.MatchOptions:
    return pb.MatchOptions(rules=options.rules, variant=options.variant, teams=options.teams, target=options.target,
                           turn_timer_seconds=options.turn_timer, seat_count=options.seats,
                           spectators=options.spectators, rule_options=rule_options.settings_pb(options.host_options))


def room_pb(room: Room, now: float, viewer: str | None = None) -> pb.RoomView:
    """The room as its members see it; ``viewer`` not a member (an invitee): without its
    code, and with their own invites alone."""
    options = room.match_options
    outsider = viewer is not None and not room.is_member(viewer)
    seats = []
    for seat, player in enumerate(room.seats):
        strength = bot_strength(player)
        seats.append(pb.RoomSeat(seat=seat, player_id=player,
                                 bot_strength=STRENGTHS[strength] if strength else match_pb.BOT_STRENGTH_UNSPECIFIED,
                                 team=seat % 2 if options.teams else None))
    invites = [invite_pb(room, n, now) for n, i in room.invites.items() if not outsider or i["player"] == viewer]
    return pb.RoomView(room_id=str(room.id), code="" if outsider else room.code, host_player_id=room.host_id,
                       status=_ROOM_STATUS[room.status], options=options_pb(options), seats=seats,
                       match_id=room.match_id, version=room.version,
                       closed_reason=_CLOSED_REASON.get(room.closed_reason, pb.ROOM_CLOSED_REASON_UNSPECIFIED)
                       if room.status == Room.CLOSED else pb.ROOM_CLOSED_REASON_UNSPECIFIED,
                       server_time=timestamp(now), invites=invites, rematch_of_match_id=room.rematch_of)


def invite_pb(room: Room, invite_id: str, now: float) -> pb.RoomInvite:
    invite = room.invites[invite_id]
    return pb.RoomInvite(invite_id=invite_id, room_id=str(room.id),
                         kind=pb.INVITE_KIND_REMATCH if invite["kind"] == REMATCH else pb.INVITE_KIND_ROOM,
                         player_id=invite["player"], invited_by=invite["by"],
                         status=_INVITE_STATUS[room.invite_status(invite_id, now)], seat=invite["seat"],
                         sent_at=timestamp(invite["sent_at"]), expires_at=timestamp(invite["expires_at"]))


def ticket_pb(ticket: TicketState, now: float) -> pb.TicketView:
    return pb.TicketView(ticket_id=ticket.ticket_id, status=_TICKET_STATUS[ticket.status], rules=ticket.rules,
                         variant=ticket.variant, teams=ticket.teams, requested_at=timestamp(ticket.requested_at),
                         table_id=ticket.table_id, your_seat=ticket.seat, player_ids=ticket.seats,
                         match_id=ticket.match_id, seat_count=ticket.seat_count, version=ticket.version,
                         server_time=timestamp(now))


def practice_pb(table: Table) -> pb.StartPracticeResponse:
    return pb.StartPracticeResponse(match_id=table.match_id, your_seat=0, player_ids=table.seats,
                                    options=options_pb(table.match_options))


def presence_pb(found: Whereabouts, now: float) -> pb.GetPresenceResponse:
    if found.room is not None:
        return pb.GetPresenceResponse(room=room_pb(found.room, now), match_id=found.match_id,
                                      server_time=timestamp(now))
    if found.ticket is not None:
        return pb.GetPresenceResponse(ticket=ticket_pb(found.ticket, now), server_time=timestamp(now))
    if found.table is not None:
        table = found.table
        view = pb.TableView(table_id=str(table.id), kind=_TABLE_KIND[table.kind],
                            options=options_pb(table.match_options), your_seat=found.seat, player_ids=table.seats,
                            match_id=table.match_id, ticket_id=found.ticket_id)
        return pb.GetPresenceResponse(table=view, match_id=found.match_id, server_time=timestamp(now))
    return pb.GetPresenceResponse(server_time=timestamp(now))
