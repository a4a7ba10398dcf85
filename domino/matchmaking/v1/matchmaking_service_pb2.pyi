import datetime

from domino.match.v1 import match_service_pb2 as _match_service_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class RoomStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ROOM_STATUS_UNSPECIFIED: _ClassVar[RoomStatus]
    ROOM_STATUS_OPEN: _ClassVar[RoomStatus]
    ROOM_STATUS_STARTING: _ClassVar[RoomStatus]
    ROOM_STATUS_PLAYING: _ClassVar[RoomStatus]
    ROOM_STATUS_CLOSED: _ClassVar[RoomStatus]

class TableKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TABLE_KIND_UNSPECIFIED: _ClassVar[TableKind]
    TABLE_KIND_PUBLIC: _ClassVar[TableKind]
    TABLE_KIND_PRACTICE: _ClassVar[TableKind]

class TicketStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TICKET_STATUS_UNSPECIFIED: _ClassVar[TicketStatus]
    TICKET_STATUS_WAITING: _ClassVar[TicketStatus]
    TICKET_STATUS_SEATED: _ClassVar[TicketStatus]
    TICKET_STATUS_CANCELLED: _ClassVar[TicketStatus]
    TICKET_STATUS_ENDED: _ClassVar[TicketStatus]

class RoomClosedReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ROOM_CLOSED_REASON_UNSPECIFIED: _ClassVar[RoomClosedReason]
    ROOM_CLOSED_REASON_MATCH_ENDED: _ClassVar[RoomClosedReason]
    ROOM_CLOSED_REASON_HOST_LEFT: _ClassVar[RoomClosedReason]

class InviteKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    INVITE_KIND_UNSPECIFIED: _ClassVar[InviteKind]
    INVITE_KIND_ROOM: _ClassVar[InviteKind]
    INVITE_KIND_REMATCH: _ClassVar[InviteKind]

class InviteStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    INVITE_STATUS_UNSPECIFIED: _ClassVar[InviteStatus]
    INVITE_STATUS_PENDING: _ClassVar[InviteStatus]
    INVITE_STATUS_ACCEPTED: _ClassVar[InviteStatus]
    INVITE_STATUS_DECLINED: _ClassVar[InviteStatus]
    INVITE_STATUS_EXPIRED: _ClassVar[InviteStatus]
ROOM_STATUS_UNSPECIFIED: RoomStatus
ROOM_STATUS_OPEN: RoomStatus
ROOM_STATUS_STARTING: RoomStatus
ROOM_STATUS_PLAYING: RoomStatus
ROOM_STATUS_CLOSED: RoomStatus
TABLE_KIND_UNSPECIFIED: TableKind
TABLE_KIND_PUBLIC: TableKind
TABLE_KIND_PRACTICE: TableKind
TICKET_STATUS_UNSPECIFIED: TicketStatus
TICKET_STATUS_WAITING: TicketStatus
TICKET_STATUS_SEATED: TicketStatus
TICKET_STATUS_CANCELLED: TicketStatus
TICKET_STATUS_ENDED: TicketStatus
ROOM_CLOSED_REASON_UNSPECIFIED: RoomClosedReason
ROOM_CLOSED_REASON_MATCH_ENDED: RoomClosedReason
ROOM_CLOSED_REASON_HOST_LEFT: RoomClosedReason
INVITE_KIND_UNSPECIFIED: InviteKind
INVITE_KIND_ROOM: InviteKind
INVITE_KIND_REMATCH: InviteKind
INVITE_STATUS_UNSPECIFIED: InviteStatus
INVITE_STATUS_PENDING: InviteStatus
INVITE_STATUS_ACCEPTED: InviteStatus
INVITE_STATUS_DECLINED: InviteStatus
INVITE_STATUS_EXPIRED: InviteStatus

class MatchOptions(_message.Message):
    __slots__ = ("rules", "variant", "teams", "target", "turn_timer_seconds", "seat_count", "spectators", "rule_options")
    RULES_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    TEAMS_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    TURN_TIMER_SECONDS_FIELD_NUMBER: _ClassVar[int]
    SEAT_COUNT_FIELD_NUMBER: _ClassVar[int]
    SPECTATORS_FIELD_NUMBER: _ClassVar[int]
    RULE_OPTIONS_FIELD_NUMBER: _ClassVar[int]
    rules: str
    variant: str
    teams: bool
    target: int
    turn_timer_seconds: int
    seat_count: int
    spectators: bool
    rule_options: _containers.RepeatedCompositeFieldContainer[_match_service_pb2.OptionSetting]
    def __init__(self, rules: _Optional[str] = ..., variant: _Optional[str] = ..., teams: _Optional[bool] = ..., target: _Optional[int] = ..., turn_timer_seconds: _Optional[int] = ..., seat_count: _Optional[int] = ..., spectators: _Optional[bool] = ..., rule_options: _Optional[_Iterable[_Union[_match_service_pb2.OptionSetting, _Mapping]]] = ...) -> None: ...

class RoomSeat(_message.Message):
    __slots__ = ("seat", "player_id", "bot_strength", "team")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    BOT_STRENGTH_FIELD_NUMBER: _ClassVar[int]
    TEAM_FIELD_NUMBER: _ClassVar[int]
    seat: int
    player_id: str
    bot_strength: _match_service_pb2.BotStrength
    team: int
    def __init__(self, seat: _Optional[int] = ..., player_id: _Optional[str] = ..., bot_strength: _Optional[_Union[_match_service_pb2.BotStrength, str]] = ..., team: _Optional[int] = ...) -> None: ...

class RoomView(_message.Message):
    __slots__ = ("room_id", "code", "host_player_id", "status", "options", "seats", "match_id", "version", "closed_reason", "server_time", "invites", "rematch_of_match_id")
    ROOM_ID_FIELD_NUMBER: _ClassVar[int]
    CODE_FIELD_NUMBER: _ClassVar[int]
    HOST_PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    CLOSED_REASON_FIELD_NUMBER: _ClassVar[int]
    SERVER_TIME_FIELD_NUMBER: _ClassVar[int]
    INVITES_FIELD_NUMBER: _ClassVar[int]
    REMATCH_OF_MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    room_id: str
    code: str
    host_player_id: str
    status: RoomStatus
    options: MatchOptions
    seats: _containers.RepeatedCompositeFieldContainer[RoomSeat]
    match_id: str
    version: int
    closed_reason: RoomClosedReason
    server_time: _timestamp_pb2.Timestamp
    invites: _containers.RepeatedCompositeFieldContainer[RoomInvite]
    rematch_of_match_id: str
    def __init__(self, room_id: _Optional[str] = ..., code: _Optional[str] = ..., host_player_id: _Optional[str] = ..., status: _Optional[_Union[RoomStatus, str]] = ..., options: _Optional[_Union[MatchOptions, _Mapping]] = ..., seats: _Optional[_Iterable[_Union[RoomSeat, _Mapping]]] = ..., match_id: _Optional[str] = ..., version: _Optional[int] = ..., closed_reason: _Optional[_Union[RoomClosedReason, str]] = ..., server_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., invites: _Optional[_Iterable[_Union[RoomInvite, _Mapping]]] = ..., rematch_of_match_id: _Optional[str] = ...) -> None: ...

class RoomInvite(_message.Message):
    __slots__ = ("invite_id", "room_id", "kind", "player_id", "invited_by", "status", "seat", "sent_at", "expires_at")
    INVITE_ID_FIELD_NUMBER: _ClassVar[int]
    ROOM_ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    INVITED_BY_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SENT_AT_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    invite_id: str
    room_id: str
    kind: InviteKind
    player_id: str
    invited_by: str
    status: InviteStatus
    seat: int
    sent_at: _timestamp_pb2.Timestamp
    expires_at: _timestamp_pb2.Timestamp
    def __init__(self, invite_id: _Optional[str] = ..., room_id: _Optional[str] = ..., kind: _Optional[_Union[InviteKind, str]] = ..., player_id: _Optional[str] = ..., invited_by: _Optional[str] = ..., status: _Optional[_Union[InviteStatus, str]] = ..., seat: _Optional[int] = ..., sent_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., expires_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class InviteToRoomRequest(_message.Message):
    __slots__ = ("request_id", "room_id", "player_ids")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    ROOM_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYER_IDS_FIELD_NUMBER: _ClassVar[int]
    request_id: str
    room_id: str
    player_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, request_id: _Optional[str] = ..., room_id: _Optional[str] = ..., player_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class InviteToRoomResponse(_message.Message):
    __slots__ = ("invites",)
    INVITES_FIELD_NUMBER: _ClassVar[int]
    invites: _containers.RepeatedCompositeFieldContainer[RoomInvite]
    def __init__(self, invites: _Optional[_Iterable[_Union[RoomInvite, _Mapping]]] = ...) -> None: ...

class GetInviteRequest(_message.Message):
    __slots__ = ("invite_id",)
    INVITE_ID_FIELD_NUMBER: _ClassVar[int]
    invite_id: str
    def __init__(self, invite_id: _Optional[str] = ...) -> None: ...

class GetInviteResponse(_message.Message):
    __slots__ = ("invite", "room")
    INVITE_FIELD_NUMBER: _ClassVar[int]
    ROOM_FIELD_NUMBER: _ClassVar[int]
    invite: RoomInvite
    room: RoomView
    def __init__(self, invite: _Optional[_Union[RoomInvite, _Mapping]] = ..., room: _Optional[_Union[RoomView, _Mapping]] = ...) -> None: ...

class AnswerInviteRequest(_message.Message):
    __slots__ = ("invite_id", "accept")
    INVITE_ID_FIELD_NUMBER: _ClassVar[int]
    ACCEPT_FIELD_NUMBER: _ClassVar[int]
    invite_id: str
    accept: bool
    def __init__(self, invite_id: _Optional[str] = ..., accept: _Optional[bool] = ...) -> None: ...

class AnswerInviteResponse(_message.Message):
    __slots__ = ("invite", "room")
    INVITE_FIELD_NUMBER: _ClassVar[int]
    ROOM_FIELD_NUMBER: _ClassVar[int]
    invite: RoomInvite
    room: RoomView
    def __init__(self, invite: _Optional[_Union[RoomInvite, _Mapping]] = ..., room: _Optional[_Union[RoomView, _Mapping]] = ...) -> None: ...

class RequestRematchRequest(_message.Message):
    __slots__ = ("match_id",)
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    def __init__(self, match_id: _Optional[str] = ...) -> None: ...

class RequestRematchResponse(_message.Message):
    __slots__ = ("room",)
    ROOM_FIELD_NUMBER: _ClassVar[int]
    room: RoomView
    def __init__(self, room: _Optional[_Union[RoomView, _Mapping]] = ...) -> None: ...

class TicketView(_message.Message):
    __slots__ = ("ticket_id", "status", "rules", "variant", "teams", "seat_count", "requested_at", "table_id", "your_seat", "player_ids", "match_id", "version", "server_time")
    TICKET_ID_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    TEAMS_FIELD_NUMBER: _ClassVar[int]
    SEAT_COUNT_FIELD_NUMBER: _ClassVar[int]
    REQUESTED_AT_FIELD_NUMBER: _ClassVar[int]
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    YOUR_SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYER_IDS_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    SERVER_TIME_FIELD_NUMBER: _ClassVar[int]
    ticket_id: str
    status: TicketStatus
    rules: str
    variant: str
    teams: bool
    seat_count: int
    requested_at: _timestamp_pb2.Timestamp
    table_id: str
    your_seat: int
    player_ids: _containers.RepeatedScalarFieldContainer[str]
    match_id: str
    version: int
    server_time: _timestamp_pb2.Timestamp
    def __init__(self, ticket_id: _Optional[str] = ..., status: _Optional[_Union[TicketStatus, str]] = ..., rules: _Optional[str] = ..., variant: _Optional[str] = ..., teams: _Optional[bool] = ..., seat_count: _Optional[int] = ..., requested_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., table_id: _Optional[str] = ..., your_seat: _Optional[int] = ..., player_ids: _Optional[_Iterable[str]] = ..., match_id: _Optional[str] = ..., version: _Optional[int] = ..., server_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class CreateRoomRequest(_message.Message):
    __slots__ = ("request_id", "rules", "variant", "teams", "target", "turn_timer_seconds", "seat", "seat_count", "spectators", "rule_options")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    TEAMS_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    TURN_TIMER_SECONDS_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SEAT_COUNT_FIELD_NUMBER: _ClassVar[int]
    SPECTATORS_FIELD_NUMBER: _ClassVar[int]
    RULE_OPTIONS_FIELD_NUMBER: _ClassVar[int]
    request_id: str
    rules: str
    variant: str
    teams: bool
    target: int
    turn_timer_seconds: int
    seat: int
    seat_count: int
    spectators: bool
    rule_options: _containers.RepeatedCompositeFieldContainer[_match_service_pb2.OptionSetting]
    def __init__(self, request_id: _Optional[str] = ..., rules: _Optional[str] = ..., variant: _Optional[str] = ..., teams: _Optional[bool] = ..., target: _Optional[int] = ..., turn_timer_seconds: _Optional[int] = ..., seat: _Optional[int] = ..., seat_count: _Optional[int] = ..., spectators: _Optional[bool] = ..., rule_options: _Optional[_Iterable[_Union[_match_service_pb2.OptionSetting, _Mapping]]] = ...) -> None: ...

class CreateRoomResponse(_message.Message):
    __slots__ = ("room",)
    ROOM_FIELD_NUMBER: _ClassVar[int]
    room: RoomView
    def __init__(self, room: _Optional[_Union[RoomView, _Mapping]] = ...) -> None: ...

class GetRoomRequest(_message.Message):
    __slots__ = ("room_id", "code")
    ROOM_ID_FIELD_NUMBER: _ClassVar[int]
    CODE_FIELD_NUMBER: _ClassVar[int]
    room_id: str
    code: str
    def __init__(self, room_id: _Optional[str] = ..., code: _Optional[str] = ...) -> None: ...

class GetRoomResponse(_message.Message):
    __slots__ = ("room",)
    ROOM_FIELD_NUMBER: _ClassVar[int]
    room: RoomView
    def __init__(self, room: _Optional[_Union[RoomView, _Mapping]] = ...) -> None: ...

class JoinRoomRequest(_message.Message):
    __slots__ = ("code", "seat")
    CODE_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    code: str
    seat: int
    def __init__(self, code: _Optional[str] = ..., seat: _Optional[int] = ...) -> None: ...

class JoinRoomResponse(_message.Message):
    __slots__ = ("room",)
    ROOM_FIELD_NUMBER: _ClassVar[int]
    room: RoomView
    def __init__(self, room: _Optional[_Union[RoomView, _Mapping]] = ...) -> None: ...

class LeaveRoomRequest(_message.Message):
    __slots__ = ("room_id",)
    ROOM_ID_FIELD_NUMBER: _ClassVar[int]
    room_id: str
    def __init__(self, room_id: _Optional[str] = ...) -> None: ...

class LeaveRoomResponse(_message.Message):
    __slots__ = ("room",)
    ROOM_FIELD_NUMBER: _ClassVar[int]
    room: RoomView
    def __init__(self, room: _Optional[_Union[RoomView, _Mapping]] = ...) -> None: ...

class ChangeSeatRequest(_message.Message):
    __slots__ = ("room_id", "seat")
    ROOM_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    room_id: str
    seat: int
    def __init__(self, room_id: _Optional[str] = ..., seat: _Optional[int] = ...) -> None: ...

class ChangeSeatResponse(_message.Message):
    __slots__ = ("room",)
    ROOM_FIELD_NUMBER: _ClassVar[int]
    room: RoomView
    def __init__(self, room: _Optional[_Union[RoomView, _Mapping]] = ...) -> None: ...

class AddBotRequest(_message.Message):
    __slots__ = ("room_id", "seat", "bot_strength")
    ROOM_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    BOT_STRENGTH_FIELD_NUMBER: _ClassVar[int]
    room_id: str
    seat: int
    bot_strength: _match_service_pb2.BotStrength
    def __init__(self, room_id: _Optional[str] = ..., seat: _Optional[int] = ..., bot_strength: _Optional[_Union[_match_service_pb2.BotStrength, str]] = ...) -> None: ...

class AddBotResponse(_message.Message):
    __slots__ = ("room",)
    ROOM_FIELD_NUMBER: _ClassVar[int]
    room: RoomView
    def __init__(self, room: _Optional[_Union[RoomView, _Mapping]] = ...) -> None: ...

class RemoveBotRequest(_message.Message):
    __slots__ = ("room_id", "seat")
    ROOM_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    room_id: str
    seat: int
    def __init__(self, room_id: _Optional[str] = ..., seat: _Optional[int] = ...) -> None: ...

class RemoveBotResponse(_message.Message):
    __slots__ = ("room",)
    ROOM_FIELD_NUMBER: _ClassVar[int]
    room: RoomView
    def __init__(self, room: _Optional[_Union[RoomView, _Mapping]] = ...) -> None: ...

class UpdateRoomOptionsRequest(_message.Message):
    __slots__ = ("room_id", "rules", "variant", "teams", "target", "turn_timer_seconds", "seat_count", "spectators", "rule_options")
    ROOM_ID_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    TEAMS_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    TURN_TIMER_SECONDS_FIELD_NUMBER: _ClassVar[int]
    SEAT_COUNT_FIELD_NUMBER: _ClassVar[int]
    SPECTATORS_FIELD_NUMBER: _ClassVar[int]
    RULE_OPTIONS_FIELD_NUMBER: _ClassVar[int]
    room_id: str
    rules: str
    variant: str
    teams: bool
    target: int
    turn_timer_seconds: int
    seat_count: int
    spectators: bool
    rule_options: _containers.RepeatedCompositeFieldContainer[_match_service_pb2.OptionSetting]
    def __init__(self, room_id: _Optional[str] = ..., rules: _Optional[str] = ..., variant: _Optional[str] = ..., teams: _Optional[bool] = ..., target: _Optional[int] = ..., turn_timer_seconds: _Optional[int] = ..., seat_count: _Optional[int] = ..., spectators: _Optional[bool] = ..., rule_options: _Optional[_Iterable[_Union[_match_service_pb2.OptionSetting, _Mapping]]] = ...) -> None: ...

class UpdateRoomOptionsResponse(_message.Message):
    __slots__ = ("room",)
    ROOM_FIELD_NUMBER: _ClassVar[int]
    room: RoomView
    def __init__(self, room: _Optional[_Union[RoomView, _Mapping]] = ...) -> None: ...

class StartRoomRequest(_message.Message):
    __slots__ = ("room_id",)
    ROOM_ID_FIELD_NUMBER: _ClassVar[int]
    room_id: str
    def __init__(self, room_id: _Optional[str] = ...) -> None: ...

class StartRoomResponse(_message.Message):
    __slots__ = ("room",)
    ROOM_FIELD_NUMBER: _ClassVar[int]
    room: RoomView
    def __init__(self, room: _Optional[_Union[RoomView, _Mapping]] = ...) -> None: ...

class WatchRoomRequest(_message.Message):
    __slots__ = ("room_id", "from_version")
    ROOM_ID_FIELD_NUMBER: _ClassVar[int]
    FROM_VERSION_FIELD_NUMBER: _ClassVar[int]
    room_id: str
    from_version: int
    def __init__(self, room_id: _Optional[str] = ..., from_version: _Optional[int] = ...) -> None: ...

class WatchRoomResponse(_message.Message):
    __slots__ = ("room",)
    ROOM_FIELD_NUMBER: _ClassVar[int]
    room: RoomView
    def __init__(self, room: _Optional[_Union[RoomView, _Mapping]] = ...) -> None: ...

class RequestTableRequest(_message.Message):
    __slots__ = ("request_id", "rules", "variant", "teams", "seat_count")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    TEAMS_FIELD_NUMBER: _ClassVar[int]
    SEAT_COUNT_FIELD_NUMBER: _ClassVar[int]
    request_id: str
    rules: str
    variant: str
    teams: bool
    seat_count: int
    def __init__(self, request_id: _Optional[str] = ..., rules: _Optional[str] = ..., variant: _Optional[str] = ..., teams: _Optional[bool] = ..., seat_count: _Optional[int] = ...) -> None: ...

class RequestTableResponse(_message.Message):
    __slots__ = ("ticket",)
    TICKET_FIELD_NUMBER: _ClassVar[int]
    ticket: TicketView
    def __init__(self, ticket: _Optional[_Union[TicketView, _Mapping]] = ...) -> None: ...

class GetTicketRequest(_message.Message):
    __slots__ = ("ticket_id",)
    TICKET_ID_FIELD_NUMBER: _ClassVar[int]
    ticket_id: str
    def __init__(self, ticket_id: _Optional[str] = ...) -> None: ...

class GetTicketResponse(_message.Message):
    __slots__ = ("ticket",)
    TICKET_FIELD_NUMBER: _ClassVar[int]
    ticket: TicketView
    def __init__(self, ticket: _Optional[_Union[TicketView, _Mapping]] = ...) -> None: ...

class WatchTicketRequest(_message.Message):
    __slots__ = ("ticket_id", "from_version")
    TICKET_ID_FIELD_NUMBER: _ClassVar[int]
    FROM_VERSION_FIELD_NUMBER: _ClassVar[int]
    ticket_id: str
    from_version: int
    def __init__(self, ticket_id: _Optional[str] = ..., from_version: _Optional[int] = ...) -> None: ...

class WatchTicketResponse(_message.Message):
    __slots__ = ("ticket",)
    TICKET_FIELD_NUMBER: _ClassVar[int]
    ticket: TicketView
    def __init__(self, ticket: _Optional[_Union[TicketView, _Mapping]] = ...) -> None: ...

class CancelTicketRequest(_message.Message):
    __slots__ = ("ticket_id",)
    TICKET_ID_FIELD_NUMBER: _ClassVar[int]
    ticket_id: str
    def __init__(self, ticket_id: _Optional[str] = ...) -> None: ...

class CancelTicketResponse(_message.Message):
    __slots__ = ("ticket",)
    TICKET_FIELD_NUMBER: _ClassVar[int]
    ticket: TicketView
    def __init__(self, ticket: _Optional[_Union[TicketView, _Mapping]] = ...) -> None: ...

class StartPracticeRequest(_message.Message):
    __slots__ = ("request_id", "rules", "variant", "teams", "target", "bot_strength", "turn_timer_seconds", "seat_count", "rule_options")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    TEAMS_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    BOT_STRENGTH_FIELD_NUMBER: _ClassVar[int]
    TURN_TIMER_SECONDS_FIELD_NUMBER: _ClassVar[int]
    SEAT_COUNT_FIELD_NUMBER: _ClassVar[int]
    RULE_OPTIONS_FIELD_NUMBER: _ClassVar[int]
    request_id: str
    rules: str
    variant: str
    teams: bool
    target: int
    bot_strength: _match_service_pb2.BotStrength
    turn_timer_seconds: int
    seat_count: int
    rule_options: _containers.RepeatedCompositeFieldContainer[_match_service_pb2.OptionSetting]
    def __init__(self, request_id: _Optional[str] = ..., rules: _Optional[str] = ..., variant: _Optional[str] = ..., teams: _Optional[bool] = ..., target: _Optional[int] = ..., bot_strength: _Optional[_Union[_match_service_pb2.BotStrength, str]] = ..., turn_timer_seconds: _Optional[int] = ..., seat_count: _Optional[int] = ..., rule_options: _Optional[_Iterable[_Union[_match_service_pb2.OptionSetting, _Mapping]]] = ...) -> None: ...

class StartPracticeResponse(_message.Message):
    __slots__ = ("match_id", "your_seat", "player_ids", "options")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    YOUR_SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYER_IDS_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    your_seat: int
    player_ids: _containers.RepeatedScalarFieldContainer[str]
    options: MatchOptions
    def __init__(self, match_id: _Optional[str] = ..., your_seat: _Optional[int] = ..., player_ids: _Optional[_Iterable[str]] = ..., options: _Optional[_Union[MatchOptions, _Mapping]] = ...) -> None: ...

class GetPresenceRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class TableView(_message.Message):
    __slots__ = ("table_id", "kind", "options", "your_seat", "player_ids", "match_id", "ticket_id")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    YOUR_SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYER_IDS_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    TICKET_ID_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    kind: TableKind
    options: MatchOptions
    your_seat: int
    player_ids: _containers.RepeatedScalarFieldContainer[str]
    match_id: str
    ticket_id: str
    def __init__(self, table_id: _Optional[str] = ..., kind: _Optional[_Union[TableKind, str]] = ..., options: _Optional[_Union[MatchOptions, _Mapping]] = ..., your_seat: _Optional[int] = ..., player_ids: _Optional[_Iterable[str]] = ..., match_id: _Optional[str] = ..., ticket_id: _Optional[str] = ...) -> None: ...

class GetPresenceResponse(_message.Message):
    __slots__ = ("room", "ticket", "table", "match_id", "server_time")
    ROOM_FIELD_NUMBER: _ClassVar[int]
    TICKET_FIELD_NUMBER: _ClassVar[int]
    TABLE_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SERVER_TIME_FIELD_NUMBER: _ClassVar[int]
    room: RoomView
    ticket: TicketView
    table: TableView
    match_id: str
    server_time: _timestamp_pb2.Timestamp
    def __init__(self, room: _Optional[_Union[RoomView, _Mapping]] = ..., ticket: _Optional[_Union[TicketView, _Mapping]] = ..., table: _Optional[_Union[TableView, _Mapping]] = ..., match_id: _Optional[str] = ..., server_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...
