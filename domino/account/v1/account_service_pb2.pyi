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
    STANDING_UNKNOWN: _ClassVar[Standing]
    STANDING_BANNED: _ClassVar[Standing]
    STANDING_DELETED: _ClassVar[Standing]
STANDING_UNSPECIFIED: Standing
STANDING_ACTIVE: Standing
STANDING_UNKNOWN: Standing
STANDING_BANNED: Standing
STANDING_DELETED: Standing

class Session(_message.Message):
    __slots__ = ("player_id", "access_token", "refresh_token", "access_expires_at", "refresh_expires_at", "display_name")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    ACCESS_TOKEN_FIELD_NUMBER: _ClassVar[int]
    REFRESH_TOKEN_FIELD_NUMBER: _ClassVar[int]
    ACCESS_EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    REFRESH_EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    access_token: str
    refresh_token: str
    access_expires_at: _timestamp_pb2.Timestamp
    refresh_expires_at: _timestamp_pb2.Timestamp
    display_name: str
    def __init__(self, player_id: _Optional[str] = ..., access_token: _Optional[str] = ..., refresh_token: _Optional[str] = ..., access_expires_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., refresh_expires_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., display_name: _Optional[str] = ...) -> None: ...

class SignInWithDeviceRequest(_message.Message):
    __slots__ = ("device_id", "device_secret", "display_name")
    DEVICE_ID_FIELD_NUMBER: _ClassVar[int]
    DEVICE_SECRET_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    device_id: str
    device_secret: str
    display_name: str
    def __init__(self, device_id: _Optional[str] = ..., device_secret: _Optional[str] = ..., display_name: _Optional[str] = ...) -> None: ...

class SignInWithDeviceResponse(_message.Message):
    __slots__ = ("session", "created")
    SESSION_FIELD_NUMBER: _ClassVar[int]
    CREATED_FIELD_NUMBER: _ClassVar[int]
    session: Session
    created: bool
    def __init__(self, session: _Optional[_Union[Session, _Mapping]] = ..., created: _Optional[bool] = ...) -> None: ...

class SignInWithIdTokenRequest(_message.Message):
    __slots__ = ("provider", "id_token", "nonce", "display_name")
    PROVIDER_FIELD_NUMBER: _ClassVar[int]
    ID_TOKEN_FIELD_NUMBER: _ClassVar[int]
    NONCE_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    provider: str
    id_token: str
    nonce: str
    display_name: str
    def __init__(self, provider: _Optional[str] = ..., id_token: _Optional[str] = ..., nonce: _Optional[str] = ..., display_name: _Optional[str] = ...) -> None: ...

class SignInWithIdTokenResponse(_message.Message):
    __slots__ = ("session", "created")
    SESSION_FIELD_NUMBER: _ClassVar[int]
    CREATED_FIELD_NUMBER: _ClassVar[int]
    session: Session
    created: bool
    def __init__(self, session: _Optional[_Union[Session, _Mapping]] = ..., created: _Optional[bool] = ...) -> None: ...

class RefreshSessionRequest(_message.Message):
    __slots__ = ("refresh_token",)
    REFRESH_TOKEN_FIELD_NUMBER: _ClassVar[int]
    refresh_token: str
    def __init__(self, refresh_token: _Optional[str] = ...) -> None: ...

class RefreshSessionResponse(_message.Message):
    __slots__ = ("session",)
    SESSION_FIELD_NUMBER: _ClassVar[int]
    session: Session
    def __init__(self, session: _Optional[_Union[Session, _Mapping]] = ...) -> None: ...

class SignOutRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SignOutResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SignOutEverywhereRequest(_message.Message):
    __slots__ = ("remove_other_devices",)
    REMOVE_OTHER_DEVICES_FIELD_NUMBER: _ClassVar[int]
    remove_other_devices: bool
    def __init__(self, remove_other_devices: _Optional[bool] = ...) -> None: ...

class SignOutEverywhereResponse(_message.Message):
    __slots__ = ("sessions_ended", "devices_removed")
    SESSIONS_ENDED_FIELD_NUMBER: _ClassVar[int]
    DEVICES_REMOVED_FIELD_NUMBER: _ClassVar[int]
    sessions_ended: int
    devices_removed: int
    def __init__(self, sessions_ended: _Optional[int] = ..., devices_removed: _Optional[int] = ...) -> None: ...

class RemoveDeviceRequest(_message.Message):
    __slots__ = ("device_id",)
    DEVICE_ID_FIELD_NUMBER: _ClassVar[int]
    device_id: str
    def __init__(self, device_id: _Optional[str] = ...) -> None: ...

class RemoveDeviceResponse(_message.Message):
    __slots__ = ("account",)
    ACCOUNT_FIELD_NUMBER: _ClassVar[int]
    account: Account
    def __init__(self, account: _Optional[_Union[Account, _Mapping]] = ...) -> None: ...

class RotateDeviceSecretRequest(_message.Message):
    __slots__ = ("device_id", "device_secret", "new_device_secret")
    DEVICE_ID_FIELD_NUMBER: _ClassVar[int]
    DEVICE_SECRET_FIELD_NUMBER: _ClassVar[int]
    NEW_DEVICE_SECRET_FIELD_NUMBER: _ClassVar[int]
    device_id: str
    device_secret: str
    new_device_secret: str
    def __init__(self, device_id: _Optional[str] = ..., device_secret: _Optional[str] = ..., new_device_secret: _Optional[str] = ...) -> None: ...

class RotateDeviceSecretResponse(_message.Message):
    __slots__ = ("sessions_ended",)
    SESSIONS_ENDED_FIELD_NUMBER: _ClassVar[int]
    sessions_ended: int
    def __init__(self, sessions_ended: _Optional[int] = ...) -> None: ...

class LinkIdentityRequest(_message.Message):
    __slots__ = ("provider", "id_token", "nonce")
    PROVIDER_FIELD_NUMBER: _ClassVar[int]
    ID_TOKEN_FIELD_NUMBER: _ClassVar[int]
    NONCE_FIELD_NUMBER: _ClassVar[int]
    provider: str
    id_token: str
    nonce: str
    def __init__(self, provider: _Optional[str] = ..., id_token: _Optional[str] = ..., nonce: _Optional[str] = ...) -> None: ...

class LinkIdentityResponse(_message.Message):
    __slots__ = ("account",)
    ACCOUNT_FIELD_NUMBER: _ClassVar[int]
    account: Account
    def __init__(self, account: _Optional[_Union[Account, _Mapping]] = ...) -> None: ...

class UnlinkIdentityRequest(_message.Message):
    __slots__ = ("provider",)
    PROVIDER_FIELD_NUMBER: _ClassVar[int]
    provider: str
    def __init__(self, provider: _Optional[str] = ...) -> None: ...

class UnlinkIdentityResponse(_message.Message):
    __slots__ = ("account",)
    ACCOUNT_FIELD_NUMBER: _ClassVar[int]
    account: Account
    def __init__(self, account: _Optional[_Union[Account, _Mapping]] = ...) -> None: ...

class GetAccountRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetAccountResponse(_message.Message):
    __slots__ = ("account",)
    ACCOUNT_FIELD_NUMBER: _ClassVar[int]
    account: Account
    def __init__(self, account: _Optional[_Union[Account, _Mapping]] = ...) -> None: ...

class SetDisplayNameRequest(_message.Message):
    __slots__ = ("display_name",)
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    display_name: str
    def __init__(self, display_name: _Optional[str] = ...) -> None: ...

class SetDisplayNameResponse(_message.Message):
    __slots__ = ("account",)
    ACCOUNT_FIELD_NUMBER: _ClassVar[int]
    account: Account
    def __init__(self, account: _Optional[_Union[Account, _Mapping]] = ...) -> None: ...

class GetDisplayNamesRequest(_message.Message):
    __slots__ = ("player_ids",)
    PLAYER_IDS_FIELD_NUMBER: _ClassVar[int]
    player_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, player_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class GetDisplayNamesResponse(_message.Message):
    __slots__ = ("display_names",)
    class DisplayNamesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    DISPLAY_NAMES_FIELD_NUMBER: _ClassVar[int]
    display_names: _containers.ScalarMap[str, str]
    def __init__(self, display_names: _Optional[_Mapping[str, str]] = ...) -> None: ...

class DeleteAccountRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class DeleteAccountResponse(_message.Message):
    __slots__ = ("deleted_at",)
    DELETED_AT_FIELD_NUMBER: _ClassVar[int]
    deleted_at: _timestamp_pb2.Timestamp
    def __init__(self, deleted_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ExportMyDataRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ExportMyDataResponse(_message.Message):
    __slots__ = ("data_json",)
    DATA_JSON_FIELD_NUMBER: _ClassVar[int]
    data_json: str
    def __init__(self, data_json: _Optional[str] = ...) -> None: ...

class GetStandingRequest(_message.Message):
    __slots__ = ("player_id",)
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    def __init__(self, player_id: _Optional[str] = ...) -> None: ...

class GetStandingResponse(_message.Message):
    __slots__ = ("standing", "reason", "until")
    STANDING_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    UNTIL_FIELD_NUMBER: _ClassVar[int]
    standing: Standing
    reason: str
    until: _timestamp_pb2.Timestamp
    def __init__(self, standing: _Optional[_Union[Standing, str]] = ..., reason: _Optional[str] = ..., until: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class FindPlayerByDisplayNameRequest(_message.Message):
    __slots__ = ("display_name",)
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    display_name: str
    def __init__(self, display_name: _Optional[str] = ...) -> None: ...

class FindPlayerByDisplayNameResponse(_message.Message):
    __slots__ = ("player_id",)
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    def __init__(self, player_id: _Optional[str] = ...) -> None: ...

class ListRevokedSessionsRequest(_message.Message):
    __slots__ = ("after_cursor", "page_size", "wait_seconds")
    AFTER_CURSOR_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    WAIT_SECONDS_FIELD_NUMBER: _ClassVar[int]
    after_cursor: int
    page_size: int
    wait_seconds: int
    def __init__(self, after_cursor: _Optional[int] = ..., page_size: _Optional[int] = ..., wait_seconds: _Optional[int] = ...) -> None: ...

class ListRevokedSessionsResponse(_message.Message):
    __slots__ = ("sessions", "next_cursor", "more")
    SESSIONS_FIELD_NUMBER: _ClassVar[int]
    NEXT_CURSOR_FIELD_NUMBER: _ClassVar[int]
    MORE_FIELD_NUMBER: _ClassVar[int]
    sessions: _containers.RepeatedCompositeFieldContainer[RevokedSession]
    next_cursor: int
    more: bool
    def __init__(self, sessions: _Optional[_Iterable[_Union[RevokedSession, _Mapping]]] = ..., next_cursor: _Optional[int] = ..., more: _Optional[bool] = ...) -> None: ...

class RevokedSession(_message.Message):
    __slots__ = ("session_id", "expires_at")
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    expires_at: _timestamp_pb2.Timestamp
    def __init__(self, session_id: _Optional[str] = ..., expires_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class Account(_message.Message):
    __slots__ = ("player_id", "display_name", "created_at", "identities", "devices", "guest", "device_list")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    IDENTITIES_FIELD_NUMBER: _ClassVar[int]
    DEVICES_FIELD_NUMBER: _ClassVar[int]
    GUEST_FIELD_NUMBER: _ClassVar[int]
    DEVICE_LIST_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    display_name: str
    created_at: _timestamp_pb2.Timestamp
    identities: _containers.RepeatedCompositeFieldContainer[LinkedIdentity]
    devices: int
    guest: bool
    device_list: _containers.RepeatedCompositeFieldContainer[Device]
    def __init__(self, player_id: _Optional[str] = ..., display_name: _Optional[str] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., identities: _Optional[_Iterable[_Union[LinkedIdentity, _Mapping]]] = ..., devices: _Optional[int] = ..., guest: _Optional[bool] = ..., device_list: _Optional[_Iterable[_Union[Device, _Mapping]]] = ...) -> None: ...

class Device(_message.Message):
    __slots__ = ("device_id", "created_at", "last_used_at", "this_device")
    DEVICE_ID_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    LAST_USED_AT_FIELD_NUMBER: _ClassVar[int]
    THIS_DEVICE_FIELD_NUMBER: _ClassVar[int]
    device_id: str
    created_at: _timestamp_pb2.Timestamp
    last_used_at: _timestamp_pb2.Timestamp
    this_device: bool
    def __init__(self, device_id: _Optional[str] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., last_used_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., this_device: _Optional[bool] = ...) -> None: ...

class LinkedIdentity(_message.Message):
    __slots__ = ("provider", "linked_at")
    PROVIDER_FIELD_NUMBER: _ClassVar[int]
    LINKED_AT_FIELD_NUMBER: _ClassVar[int]
    provider: str
    linked_at: _timestamp_pb2.Timestamp
    def __init__(self, provider: _Optional[str] = ..., linked_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...
