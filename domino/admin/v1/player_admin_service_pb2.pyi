import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Standing(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    STANDING_UNSPECIFIED: _ClassVar[Standing]
    STANDING_ACTIVE: _ClassVar[Standing]
    STANDING_BANNED: _ClassVar[Standing]
    STANDING_DELETED: _ClassVar[Standing]
STANDING_UNSPECIFIED: Standing
STANDING_ACTIVE: Standing
STANDING_BANNED: Standing
STANDING_DELETED: Standing

class FindPlayersRequest(_message.Message):
    __slots__ = ("query", "page_size")
    QUERY_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    query: str
    page_size: int
    def __init__(self, query: _Optional[str] = ..., page_size: _Optional[int] = ...) -> None: ...

class FindPlayersResponse(_message.Message):
    __slots__ = ("players",)
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    players: _containers.RepeatedCompositeFieldContainer[PlayerCard]
    def __init__(self, players: _Optional[_Iterable[_Union[PlayerCard, _Mapping]]] = ...) -> None: ...

class PlayerCard(_message.Message):
    __slots__ = ("player_id", "display_name", "created_at", "standing")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    STANDING_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    display_name: str
    created_at: _timestamp_pb2.Timestamp
    standing: Standing
    def __init__(self, player_id: _Optional[str] = ..., display_name: _Optional[str] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., standing: _Optional[_Union[Standing, str]] = ...) -> None: ...

class DescribePlayerRequest(_message.Message):
    __slots__ = ("player_id",)
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    def __init__(self, player_id: _Optional[str] = ...) -> None: ...

class DescribePlayerResponse(_message.Message):
    __slots__ = ("card", "providers", "devices", "sessions", "ban")
    CARD_FIELD_NUMBER: _ClassVar[int]
    PROVIDERS_FIELD_NUMBER: _ClassVar[int]
    DEVICES_FIELD_NUMBER: _ClassVar[int]
    SESSIONS_FIELD_NUMBER: _ClassVar[int]
    BAN_FIELD_NUMBER: _ClassVar[int]
    card: PlayerCard
    providers: _containers.RepeatedCompositeFieldContainer[LinkedProvider]
    devices: _containers.RepeatedCompositeFieldContainer[PlayerDevice]
    sessions: _containers.RepeatedCompositeFieldContainer[PlayerSession]
    ban: Ban
    def __init__(self, card: _Optional[_Union[PlayerCard, _Mapping]] = ..., providers: _Optional[_Iterable[_Union[LinkedProvider, _Mapping]]] = ..., devices: _Optional[_Iterable[_Union[PlayerDevice, _Mapping]]] = ..., sessions: _Optional[_Iterable[_Union[PlayerSession, _Mapping]]] = ..., ban: _Optional[_Union[Ban, _Mapping]] = ...) -> None: ...

class LinkedProvider(_message.Message):
    __slots__ = ("provider", "linked_at")
    PROVIDER_FIELD_NUMBER: _ClassVar[int]
    LINKED_AT_FIELD_NUMBER: _ClassVar[int]
    provider: str
    linked_at: _timestamp_pb2.Timestamp
    def __init__(self, provider: _Optional[str] = ..., linked_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class PlayerDevice(_message.Message):
    __slots__ = ("device_id", "created_at", "last_used_at")
    DEVICE_ID_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    LAST_USED_AT_FIELD_NUMBER: _ClassVar[int]
    device_id: str
    created_at: _timestamp_pb2.Timestamp
    last_used_at: _timestamp_pb2.Timestamp
    def __init__(self, device_id: _Optional[str] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., last_used_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class PlayerSession(_message.Message):
    __slots__ = ("session_id", "signed_in_with", "started_at", "last_refreshed_at")
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    SIGNED_IN_WITH_FIELD_NUMBER: _ClassVar[int]
    STARTED_AT_FIELD_NUMBER: _ClassVar[int]
    LAST_REFRESHED_AT_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    signed_in_with: str
    started_at: _timestamp_pb2.Timestamp
    last_refreshed_at: _timestamp_pb2.Timestamp
    def __init__(self, session_id: _Optional[str] = ..., signed_in_with: _Optional[str] = ..., started_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., last_refreshed_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class Ban(_message.Message):
    __slots__ = ("reason", "until")
    REASON_FIELD_NUMBER: _ClassVar[int]
    UNTIL_FIELD_NUMBER: _ClassVar[int]
    reason: str
    until: _timestamp_pb2.Timestamp
    def __init__(self, reason: _Optional[str] = ..., until: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class BanPlayerRequest(_message.Message):
    __slots__ = ("player_id", "reason", "until", "why")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    UNTIL_FIELD_NUMBER: _ClassVar[int]
    WHY_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    reason: str
    until: _timestamp_pb2.Timestamp
    why: str
    def __init__(self, player_id: _Optional[str] = ..., reason: _Optional[str] = ..., until: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., why: _Optional[str] = ...) -> None: ...

class BanPlayerResponse(_message.Message):
    __slots__ = ("ban",)
    BAN_FIELD_NUMBER: _ClassVar[int]
    ban: Ban
    def __init__(self, ban: _Optional[_Union[Ban, _Mapping]] = ...) -> None: ...

class UnbanPlayerRequest(_message.Message):
    __slots__ = ("player_id", "why")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    WHY_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    why: str
    def __init__(self, player_id: _Optional[str] = ..., why: _Optional[str] = ...) -> None: ...

class UnbanPlayerResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class EndSessionsRequest(_message.Message):
    __slots__ = ("player_id", "why")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    WHY_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    why: str
    def __init__(self, player_id: _Optional[str] = ..., why: _Optional[str] = ...) -> None: ...

class EndSessionsResponse(_message.Message):
    __slots__ = ("ended",)
    ENDED_FIELD_NUMBER: _ClassVar[int]
    ended: int
    def __init__(self, ended: _Optional[int] = ...) -> None: ...

class ExportPlayerDataRequest(_message.Message):
    __slots__ = ("player_id", "why")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    WHY_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    why: str
    def __init__(self, player_id: _Optional[str] = ..., why: _Optional[str] = ...) -> None: ...

class ExportPlayerDataResponse(_message.Message):
    __slots__ = ("data",)
    DATA_FIELD_NUMBER: _ClassVar[int]
    data: bytes
    def __init__(self, data: _Optional[bytes] = ...) -> None: ...

class DeletePlayerRequest(_message.Message):
    __slots__ = ("player_id", "why")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    WHY_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    why: str
    def __init__(self, player_id: _Optional[str] = ..., why: _Optional[str] = ...) -> None: ...

class DeletePlayerResponse(_message.Message):
    __slots__ = ("deleted_at",)
    DELETED_AT_FIELD_NUMBER: _ClassVar[int]
    deleted_at: _timestamp_pb2.Timestamp
    def __init__(self, deleted_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class RecordStaffActionRequest(_message.Message):
    __slots__ = ("action", "target", "why")
    ACTION_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    WHY_FIELD_NUMBER: _ClassVar[int]
    action: str
    target: str
    why: str
    def __init__(self, action: _Optional[str] = ..., target: _Optional[str] = ..., why: _Optional[str] = ...) -> None: ...

class RecordStaffActionResponse(_message.Message):
    __slots__ = ("entry",)
    ENTRY_FIELD_NUMBER: _ClassVar[int]
    entry: OperatorLogEntry
    def __init__(self, entry: _Optional[_Union[OperatorLogEntry, _Mapping]] = ...) -> None: ...

class ListOperatorLogRequest(_message.Message):
    __slots__ = ("page_size", "page_token", "target")
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    page_size: int
    page_token: str
    target: str
    def __init__(self, page_size: _Optional[int] = ..., page_token: _Optional[str] = ..., target: _Optional[str] = ...) -> None: ...

class ListOperatorLogResponse(_message.Message):
    __slots__ = ("entries", "next_page_token")
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    entries: _containers.RepeatedCompositeFieldContainer[OperatorLogEntry]
    next_page_token: str
    def __init__(self, entries: _Optional[_Iterable[_Union[OperatorLogEntry, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class OperatorLogEntry(_message.Message):
    __slots__ = ("sequence", "at", "staff_id", "staff_name", "staff_roles", "action", "target", "why", "details", "hash")
    SEQUENCE_FIELD_NUMBER: _ClassVar[int]
    AT_FIELD_NUMBER: _ClassVar[int]
    STAFF_ID_FIELD_NUMBER: _ClassVar[int]
    STAFF_NAME_FIELD_NUMBER: _ClassVar[int]
    STAFF_ROLES_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    WHY_FIELD_NUMBER: _ClassVar[int]
    DETAILS_FIELD_NUMBER: _ClassVar[int]
    HASH_FIELD_NUMBER: _ClassVar[int]
    sequence: int
    at: _timestamp_pb2.Timestamp
    staff_id: str
    staff_name: str
    staff_roles: _containers.RepeatedScalarFieldContainer[str]
    action: str
    target: str
    why: str
    details: str
    hash: str
    def __init__(self, sequence: _Optional[int] = ..., at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., staff_id: _Optional[str] = ..., staff_name: _Optional[str] = ..., staff_roles: _Optional[_Iterable[str]] = ..., action: _Optional[str] = ..., target: _Optional[str] = ..., why: _Optional[str] = ..., details: _Optional[str] = ..., hash: _Optional[str] = ...) -> None: ...
