import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class FriendRequestDirection(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    FRIEND_REQUEST_DIRECTION_UNSPECIFIED: _ClassVar[FriendRequestDirection]
    FRIEND_REQUEST_DIRECTION_INCOMING: _ClassVar[FriendRequestDirection]
    FRIEND_REQUEST_DIRECTION_OUTGOING: _ClassVar[FriendRequestDirection]

class SendOutcome(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SEND_OUTCOME_UNSPECIFIED: _ClassVar[SendOutcome]
    SEND_OUTCOME_REQUEST_SENT: _ClassVar[SendOutcome]
    SEND_OUTCOME_BECAME_FRIENDS: _ClassVar[SendOutcome]
FRIEND_REQUEST_DIRECTION_UNSPECIFIED: FriendRequestDirection
FRIEND_REQUEST_DIRECTION_INCOMING: FriendRequestDirection
FRIEND_REQUEST_DIRECTION_OUTGOING: FriendRequestDirection
SEND_OUTCOME_UNSPECIFIED: SendOutcome
SEND_OUTCOME_REQUEST_SENT: SendOutcome
SEND_OUTCOME_BECAME_FRIENDS: SendOutcome

class Friend(_message.Message):
    __slots__ = ("player_id", "since")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    SINCE_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    since: _timestamp_pb2.Timestamp
    def __init__(self, player_id: _Optional[str] = ..., since: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class FriendRequest(_message.Message):
    __slots__ = ("player_id", "direction", "sent_at")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    DIRECTION_FIELD_NUMBER: _ClassVar[int]
    SENT_AT_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    direction: FriendRequestDirection
    sent_at: _timestamp_pb2.Timestamp
    def __init__(self, player_id: _Optional[str] = ..., direction: _Optional[_Union[FriendRequestDirection, str]] = ..., sent_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class BlockedPlayer(_message.Message):
    __slots__ = ("player_id", "blocked_at")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    BLOCKED_AT_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    blocked_at: _timestamp_pb2.Timestamp
    def __init__(self, player_id: _Optional[str] = ..., blocked_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class GetFriendCodeRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetFriendCodeResponse(_message.Message):
    __slots__ = ("friend_code",)
    FRIEND_CODE_FIELD_NUMBER: _ClassVar[int]
    friend_code: str
    def __init__(self, friend_code: _Optional[str] = ...) -> None: ...

class SendFriendRequestRequest(_message.Message):
    __slots__ = ("request_id", "display_name", "friend_code")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    FRIEND_CODE_FIELD_NUMBER: _ClassVar[int]
    request_id: str
    display_name: str
    friend_code: str
    def __init__(self, request_id: _Optional[str] = ..., display_name: _Optional[str] = ..., friend_code: _Optional[str] = ...) -> None: ...

class SendFriendRequestResponse(_message.Message):
    __slots__ = ("outcome", "request", "friend")
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    REQUEST_FIELD_NUMBER: _ClassVar[int]
    FRIEND_FIELD_NUMBER: _ClassVar[int]
    outcome: SendOutcome
    request: FriendRequest
    friend: Friend
    def __init__(self, outcome: _Optional[_Union[SendOutcome, str]] = ..., request: _Optional[_Union[FriendRequest, _Mapping]] = ..., friend: _Optional[_Union[Friend, _Mapping]] = ...) -> None: ...

class AcceptFriendRequestRequest(_message.Message):
    __slots__ = ("player_id",)
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    def __init__(self, player_id: _Optional[str] = ...) -> None: ...

class AcceptFriendRequestResponse(_message.Message):
    __slots__ = ("friend",)
    FRIEND_FIELD_NUMBER: _ClassVar[int]
    friend: Friend
    def __init__(self, friend: _Optional[_Union[Friend, _Mapping]] = ...) -> None: ...

class DeclineFriendRequestRequest(_message.Message):
    __slots__ = ("player_id",)
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    def __init__(self, player_id: _Optional[str] = ...) -> None: ...

class DeclineFriendRequestResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class CancelFriendRequestRequest(_message.Message):
    __slots__ = ("player_id",)
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    def __init__(self, player_id: _Optional[str] = ...) -> None: ...

class CancelFriendRequestResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class RemoveFriendRequest(_message.Message):
    __slots__ = ("player_id",)
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    def __init__(self, player_id: _Optional[str] = ...) -> None: ...

class RemoveFriendResponse(_message.Message):
    __slots__ = ("removed",)
    REMOVED_FIELD_NUMBER: _ClassVar[int]
    removed: bool
    def __init__(self, removed: _Optional[bool] = ...) -> None: ...

class BlockPlayerRequest(_message.Message):
    __slots__ = ("player_id",)
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    def __init__(self, player_id: _Optional[str] = ...) -> None: ...

class BlockPlayerResponse(_message.Message):
    __slots__ = ("blocked",)
    BLOCKED_FIELD_NUMBER: _ClassVar[int]
    blocked: BlockedPlayer
    def __init__(self, blocked: _Optional[_Union[BlockedPlayer, _Mapping]] = ...) -> None: ...

class UnblockPlayerRequest(_message.Message):
    __slots__ = ("player_id",)
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    def __init__(self, player_id: _Optional[str] = ...) -> None: ...

class UnblockPlayerResponse(_message.Message):
    __slots__ = ("unblocked",)
    UNBLOCKED_FIELD_NUMBER: _ClassVar[int]
    unblocked: bool
    def __init__(self, unblocked: _Optional[bool] = ...) -> None: ...

class ListFriendsRequest(_message.Message):
    __slots__ = ("page_size", "page_token")
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    page_size: int
    page_token: str
    def __init__(self, page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListFriendsResponse(_message.Message):
    __slots__ = ("friends", "next_page_token")
    FRIENDS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    friends: _containers.RepeatedCompositeFieldContainer[Friend]
    next_page_token: str
    def __init__(self, friends: _Optional[_Iterable[_Union[Friend, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class ListFriendRequestsRequest(_message.Message):
    __slots__ = ("direction", "page_size", "page_token")
    DIRECTION_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    direction: FriendRequestDirection
    page_size: int
    page_token: str
    def __init__(self, direction: _Optional[_Union[FriendRequestDirection, str]] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListFriendRequestsResponse(_message.Message):
    __slots__ = ("requests", "next_page_token")
    REQUESTS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    requests: _containers.RepeatedCompositeFieldContainer[FriendRequest]
    next_page_token: str
    def __init__(self, requests: _Optional[_Iterable[_Union[FriendRequest, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class ListBlockedPlayersRequest(_message.Message):
    __slots__ = ("page_size", "page_token")
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    page_size: int
    page_token: str
    def __init__(self, page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListBlockedPlayersResponse(_message.Message):
    __slots__ = ("blocked", "next_page_token")
    BLOCKED_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    blocked: _containers.RepeatedCompositeFieldContainer[BlockedPlayer]
    next_page_token: str
    def __init__(self, blocked: _Optional[_Iterable[_Union[BlockedPlayer, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class ExportPlayerDataRequest(_message.Message):
    __slots__ = ("player_id",)
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    def __init__(self, player_id: _Optional[str] = ...) -> None: ...

class ExportPlayerDataResponse(_message.Message):
    __slots__ = ("friend_code", "friend_code_created_at", "friends", "requests", "blocked")
    FRIEND_CODE_FIELD_NUMBER: _ClassVar[int]
    FRIEND_CODE_CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    FRIENDS_FIELD_NUMBER: _ClassVar[int]
    REQUESTS_FIELD_NUMBER: _ClassVar[int]
    BLOCKED_FIELD_NUMBER: _ClassVar[int]
    friend_code: str
    friend_code_created_at: _timestamp_pb2.Timestamp
    friends: _containers.RepeatedCompositeFieldContainer[Friend]
    requests: _containers.RepeatedCompositeFieldContainer[FriendRequest]
    blocked: _containers.RepeatedCompositeFieldContainer[BlockedPlayer]
    def __init__(self, friend_code: _Optional[str] = ..., friend_code_created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., friends: _Optional[_Iterable[_Union[Friend, _Mapping]]] = ..., requests: _Optional[_Iterable[_Union[FriendRequest, _Mapping]]] = ..., blocked: _Optional[_Iterable[_Union[BlockedPlayer, _Mapping]]] = ...) -> None: ...

class ErasePlayerRequest(_message.Message):
    __slots__ = ("player_id",)
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    def __init__(self, player_id: _Optional[str] = ...) -> None: ...

class ErasePlayerResponse(_message.Message):
    __slots__ = ("rows",)
    ROWS_FIELD_NUMBER: _ClassVar[int]
    rows: int
    def __init__(self, rows: _Optional[int] = ...) -> None: ...
