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

class Availability(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    AVAILABILITY_UNSPECIFIED: _ClassVar[Availability]
    AVAILABILITY_OFFLINE: _ClassVar[Availability]
    AVAILABILITY_ONLINE: _ClassVar[Availability]
    AVAILABILITY_PLAYING: _ClassVar[Availability]

class NotificationKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    NOTIFICATION_KIND_UNSPECIFIED: _ClassVar[NotificationKind]
    NOTIFICATION_KIND_FRIEND_REQUEST: _ClassVar[NotificationKind]
    NOTIFICATION_KIND_FRIEND_ACCEPTED: _ClassVar[NotificationKind]
    NOTIFICATION_KIND_INVITE: _ClassVar[NotificationKind]
    NOTIFICATION_KIND_INVITE_ANSWERED: _ClassVar[NotificationKind]
    NOTIFICATION_KIND_REMATCH: _ClassVar[NotificationKind]
    NOTIFICATION_KIND_YOUR_TURN: _ClassVar[NotificationKind]
    NOTIFICATION_KIND_MATCH_RESULT: _ClassVar[NotificationKind]
    NOTIFICATION_KIND_RATING_CHANGE: _ClassVar[NotificationKind]
    NOTIFICATION_KIND_BAN: _ClassVar[NotificationKind]
    NOTIFICATION_KIND_ACCOUNT: _ClassVar[NotificationKind]

class PushPlatform(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PUSH_PLATFORM_UNSPECIFIED: _ClassVar[PushPlatform]
    PUSH_PLATFORM_APNS: _ClassVar[PushPlatform]
    PUSH_PLATFORM_FCM: _ClassVar[PushPlatform]

class ApnsEnvironment(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    APNS_ENVIRONMENT_UNSPECIFIED: _ClassVar[ApnsEnvironment]
    APNS_ENVIRONMENT_SANDBOX: _ClassVar[ApnsEnvironment]
    APNS_ENVIRONMENT_PRODUCTION: _ClassVar[ApnsEnvironment]

class PushDecision(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PUSH_DECISION_UNSPECIFIED: _ClassVar[PushDecision]
    PUSH_DECISION_SEND: _ClassVar[PushDecision]
    PUSH_DECISION_ALREADY_CLAIMED: _ClassVar[PushDecision]
    PUSH_DECISION_GONE: _ClassVar[PushDecision]
    PUSH_DECISION_OPTED_OUT: _ClassVar[PushDecision]
    PUSH_DECISION_QUIET_HOURS: _ClassVar[PushDecision]
    PUSH_DECISION_RATE_LIMITED: _ClassVar[PushDecision]
    PUSH_DECISION_NO_TOKENS: _ClassVar[PushDecision]
FRIEND_REQUEST_DIRECTION_UNSPECIFIED: FriendRequestDirection
FRIEND_REQUEST_DIRECTION_INCOMING: FriendRequestDirection
FRIEND_REQUEST_DIRECTION_OUTGOING: FriendRequestDirection
SEND_OUTCOME_UNSPECIFIED: SendOutcome
SEND_OUTCOME_REQUEST_SENT: SendOutcome
SEND_OUTCOME_BECAME_FRIENDS: SendOutcome
AVAILABILITY_UNSPECIFIED: Availability
AVAILABILITY_OFFLINE: Availability
AVAILABILITY_ONLINE: Availability
AVAILABILITY_PLAYING: Availability
NOTIFICATION_KIND_UNSPECIFIED: NotificationKind
NOTIFICATION_KIND_FRIEND_REQUEST: NotificationKind
NOTIFICATION_KIND_FRIEND_ACCEPTED: NotificationKind
NOTIFICATION_KIND_INVITE: NotificationKind
NOTIFICATION_KIND_INVITE_ANSWERED: NotificationKind
NOTIFICATION_KIND_REMATCH: NotificationKind
NOTIFICATION_KIND_YOUR_TURN: NotificationKind
NOTIFICATION_KIND_MATCH_RESULT: NotificationKind
NOTIFICATION_KIND_RATING_CHANGE: NotificationKind
NOTIFICATION_KIND_BAN: NotificationKind
NOTIFICATION_KIND_ACCOUNT: NotificationKind
PUSH_PLATFORM_UNSPECIFIED: PushPlatform
PUSH_PLATFORM_APNS: PushPlatform
PUSH_PLATFORM_FCM: PushPlatform
APNS_ENVIRONMENT_UNSPECIFIED: ApnsEnvironment
APNS_ENVIRONMENT_SANDBOX: ApnsEnvironment
APNS_ENVIRONMENT_PRODUCTION: ApnsEnvironment
PUSH_DECISION_UNSPECIFIED: PushDecision
PUSH_DECISION_SEND: PushDecision
PUSH_DECISION_ALREADY_CLAIMED: PushDecision
PUSH_DECISION_GONE: PushDecision
PUSH_DECISION_OPTED_OUT: PushDecision
PUSH_DECISION_QUIET_HOURS: PushDecision
PUSH_DECISION_RATE_LIMITED: PushDecision
PUSH_DECISION_NO_TOKENS: PushDecision

class Friend(_message.Message):
    __slots__ = ("player_id", "since", "presence")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    SINCE_FIELD_NUMBER: _ClassVar[int]
    PRESENCE_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    since: _timestamp_pb2.Timestamp
    presence: FriendPresence
    def __init__(self, player_id: _Optional[str] = ..., since: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., presence: _Optional[_Union[FriendPresence, _Mapping]] = ...) -> None: ...

class FriendPresence(_message.Message):
    __slots__ = ("availability", "last_seen", "match_id", "rules", "watchable")
    AVAILABILITY_FIELD_NUMBER: _ClassVar[int]
    LAST_SEEN_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    WATCHABLE_FIELD_NUMBER: _ClassVar[int]
    availability: Availability
    last_seen: _timestamp_pb2.Timestamp
    match_id: str
    rules: str
    watchable: bool
    def __init__(self, availability: _Optional[_Union[Availability, str]] = ..., last_seen: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., match_id: _Optional[str] = ..., rules: _Optional[str] = ..., watchable: _Optional[bool] = ...) -> None: ...

class Notification(_message.Message):
    __slots__ = ("notification_id", "kind", "text_key", "args", "created_at", "expires_at", "read", "player_id", "match_id", "room_id", "invite_id")
    class ArgsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    NOTIFICATION_ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    TEXT_KEY_FIELD_NUMBER: _ClassVar[int]
    ARGS_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    READ_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    ROOM_ID_FIELD_NUMBER: _ClassVar[int]
    INVITE_ID_FIELD_NUMBER: _ClassVar[int]
    notification_id: str
    kind: NotificationKind
    text_key: str
    args: _containers.ScalarMap[str, str]
    created_at: _timestamp_pb2.Timestamp
    expires_at: _timestamp_pb2.Timestamp
    read: bool
    player_id: str
    match_id: str
    room_id: str
    invite_id: str
    def __init__(self, notification_id: _Optional[str] = ..., kind: _Optional[_Union[NotificationKind, str]] = ..., text_key: _Optional[str] = ..., args: _Optional[_Mapping[str, str]] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., expires_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., read: _Optional[bool] = ..., player_id: _Optional[str] = ..., match_id: _Optional[str] = ..., room_id: _Optional[str] = ..., invite_id: _Optional[str] = ...) -> None: ...

class QuietHours(_message.Message):
    __slots__ = ("start_minute", "end_minute")
    START_MINUTE_FIELD_NUMBER: _ClassVar[int]
    END_MINUTE_FIELD_NUMBER: _ClassVar[int]
    start_minute: int
    end_minute: int
    def __init__(self, start_minute: _Optional[int] = ..., end_minute: _Optional[int] = ...) -> None: ...

class NotificationSettings(_message.Message):
    __slots__ = ("push_disabled", "quiet_hours", "time_zone")
    PUSH_DISABLED_FIELD_NUMBER: _ClassVar[int]
    QUIET_HOURS_FIELD_NUMBER: _ClassVar[int]
    TIME_ZONE_FIELD_NUMBER: _ClassVar[int]
    push_disabled: _containers.RepeatedScalarFieldContainer[NotificationKind]
    quiet_hours: QuietHours
    time_zone: str
    def __init__(self, push_disabled: _Optional[_Iterable[_Union[NotificationKind, str]]] = ..., quiet_hours: _Optional[_Union[QuietHours, _Mapping]] = ..., time_zone: _Optional[str] = ...) -> None: ...

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
    __slots__ = ("friend_code", "friend_code_created_at", "friends", "requests", "blocked", "push_tokens", "notifications", "notification_settings")
    FRIEND_CODE_FIELD_NUMBER: _ClassVar[int]
    FRIEND_CODE_CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    FRIENDS_FIELD_NUMBER: _ClassVar[int]
    REQUESTS_FIELD_NUMBER: _ClassVar[int]
    BLOCKED_FIELD_NUMBER: _ClassVar[int]
    PUSH_TOKENS_FIELD_NUMBER: _ClassVar[int]
    NOTIFICATIONS_FIELD_NUMBER: _ClassVar[int]
    NOTIFICATION_SETTINGS_FIELD_NUMBER: _ClassVar[int]
    friend_code: str
    friend_code_created_at: _timestamp_pb2.Timestamp
    friends: _containers.RepeatedCompositeFieldContainer[Friend]
    requests: _containers.RepeatedCompositeFieldContainer[FriendRequest]
    blocked: _containers.RepeatedCompositeFieldContainer[BlockedPlayer]
    push_tokens: _containers.RepeatedCompositeFieldContainer[PushTarget]
    notifications: _containers.RepeatedCompositeFieldContainer[Notification]
    notification_settings: NotificationSettings
    def __init__(self, friend_code: _Optional[str] = ..., friend_code_created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., friends: _Optional[_Iterable[_Union[Friend, _Mapping]]] = ..., requests: _Optional[_Iterable[_Union[FriendRequest, _Mapping]]] = ..., blocked: _Optional[_Iterable[_Union[BlockedPlayer, _Mapping]]] = ..., push_tokens: _Optional[_Iterable[_Union[PushTarget, _Mapping]]] = ..., notifications: _Optional[_Iterable[_Union[Notification, _Mapping]]] = ..., notification_settings: _Optional[_Union[NotificationSettings, _Mapping]] = ...) -> None: ...

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

class ListNotificationsRequest(_message.Message):
    __slots__ = ("page_size", "page_token", "unread_only")
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    UNREAD_ONLY_FIELD_NUMBER: _ClassVar[int]
    page_size: int
    page_token: str
    unread_only: bool
    def __init__(self, page_size: _Optional[int] = ..., page_token: _Optional[str] = ..., unread_only: _Optional[bool] = ...) -> None: ...

class ListNotificationsResponse(_message.Message):
    __slots__ = ("notifications", "next_page_token", "unread_count")
    NOTIFICATIONS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    UNREAD_COUNT_FIELD_NUMBER: _ClassVar[int]
    notifications: _containers.RepeatedCompositeFieldContainer[Notification]
    next_page_token: str
    unread_count: int
    def __init__(self, notifications: _Optional[_Iterable[_Union[Notification, _Mapping]]] = ..., next_page_token: _Optional[str] = ..., unread_count: _Optional[int] = ...) -> None: ...

class WatchNotificationsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class WatchNotificationsResponse(_message.Message):
    __slots__ = ("notification", "unread_count", "server_time")
    NOTIFICATION_FIELD_NUMBER: _ClassVar[int]
    UNREAD_COUNT_FIELD_NUMBER: _ClassVar[int]
    SERVER_TIME_FIELD_NUMBER: _ClassVar[int]
    notification: Notification
    unread_count: int
    server_time: _timestamp_pb2.Timestamp
    def __init__(self, notification: _Optional[_Union[Notification, _Mapping]] = ..., unread_count: _Optional[int] = ..., server_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class MarkNotificationsReadRequest(_message.Message):
    __slots__ = ("notification_ids", "all")
    NOTIFICATION_IDS_FIELD_NUMBER: _ClassVar[int]
    ALL_FIELD_NUMBER: _ClassVar[int]
    notification_ids: _containers.RepeatedScalarFieldContainer[str]
    all: bool
    def __init__(self, notification_ids: _Optional[_Iterable[str]] = ..., all: _Optional[bool] = ...) -> None: ...

class MarkNotificationsReadResponse(_message.Message):
    __slots__ = ("unread_count",)
    UNREAD_COUNT_FIELD_NUMBER: _ClassVar[int]
    unread_count: int
    def __init__(self, unread_count: _Optional[int] = ...) -> None: ...

class RegisterPushTokenRequest(_message.Message):
    __slots__ = ("installation_id", "platform", "token", "apns_environment", "locale")
    INSTALLATION_ID_FIELD_NUMBER: _ClassVar[int]
    PLATFORM_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    APNS_ENVIRONMENT_FIELD_NUMBER: _ClassVar[int]
    LOCALE_FIELD_NUMBER: _ClassVar[int]
    installation_id: str
    platform: PushPlatform
    token: str
    apns_environment: ApnsEnvironment
    locale: str
    def __init__(self, installation_id: _Optional[str] = ..., platform: _Optional[_Union[PushPlatform, str]] = ..., token: _Optional[str] = ..., apns_environment: _Optional[_Union[ApnsEnvironment, str]] = ..., locale: _Optional[str] = ...) -> None: ...

class PushInstallation(_message.Message):
    __slots__ = ("installation_id", "platform", "apns_environment", "locale", "registered_at")
    INSTALLATION_ID_FIELD_NUMBER: _ClassVar[int]
    PLATFORM_FIELD_NUMBER: _ClassVar[int]
    APNS_ENVIRONMENT_FIELD_NUMBER: _ClassVar[int]
    LOCALE_FIELD_NUMBER: _ClassVar[int]
    REGISTERED_AT_FIELD_NUMBER: _ClassVar[int]
    installation_id: str
    platform: PushPlatform
    apns_environment: ApnsEnvironment
    locale: str
    registered_at: _timestamp_pb2.Timestamp
    def __init__(self, installation_id: _Optional[str] = ..., platform: _Optional[_Union[PushPlatform, str]] = ..., apns_environment: _Optional[_Union[ApnsEnvironment, str]] = ..., locale: _Optional[str] = ..., registered_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class RegisterPushTokenResponse(_message.Message):
    __slots__ = ("installation",)
    INSTALLATION_FIELD_NUMBER: _ClassVar[int]
    installation: PushInstallation
    def __init__(self, installation: _Optional[_Union[PushInstallation, _Mapping]] = ...) -> None: ...

class UnregisterPushTokenRequest(_message.Message):
    __slots__ = ("installation_id",)
    INSTALLATION_ID_FIELD_NUMBER: _ClassVar[int]
    installation_id: str
    def __init__(self, installation_id: _Optional[str] = ...) -> None: ...

class UnregisterPushTokenResponse(_message.Message):
    __slots__ = ("removed",)
    REMOVED_FIELD_NUMBER: _ClassVar[int]
    removed: bool
    def __init__(self, removed: _Optional[bool] = ...) -> None: ...

class GetNotificationSettingsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetNotificationSettingsResponse(_message.Message):
    __slots__ = ("settings",)
    SETTINGS_FIELD_NUMBER: _ClassVar[int]
    settings: NotificationSettings
    def __init__(self, settings: _Optional[_Union[NotificationSettings, _Mapping]] = ...) -> None: ...

class UpdateNotificationSettingsRequest(_message.Message):
    __slots__ = ("push_disabled", "clear_push_disabled", "quiet_hours", "clear_quiet_hours", "time_zone")
    PUSH_DISABLED_FIELD_NUMBER: _ClassVar[int]
    CLEAR_PUSH_DISABLED_FIELD_NUMBER: _ClassVar[int]
    QUIET_HOURS_FIELD_NUMBER: _ClassVar[int]
    CLEAR_QUIET_HOURS_FIELD_NUMBER: _ClassVar[int]
    TIME_ZONE_FIELD_NUMBER: _ClassVar[int]
    push_disabled: _containers.RepeatedScalarFieldContainer[NotificationKind]
    clear_push_disabled: bool
    quiet_hours: QuietHours
    clear_quiet_hours: bool
    time_zone: str
    def __init__(self, push_disabled: _Optional[_Iterable[_Union[NotificationKind, str]]] = ..., clear_push_disabled: _Optional[bool] = ..., quiet_hours: _Optional[_Union[QuietHours, _Mapping]] = ..., clear_quiet_hours: _Optional[bool] = ..., time_zone: _Optional[str] = ...) -> None: ...

class UpdateNotificationSettingsResponse(_message.Message):
    __slots__ = ("settings",)
    SETTINGS_FIELD_NUMBER: _ClassVar[int]
    settings: NotificationSettings
    def __init__(self, settings: _Optional[_Union[NotificationSettings, _Mapping]] = ...) -> None: ...

class NewNotification(_message.Message):
    __slots__ = ("notification_id", "recipient_player_id", "kind", "text_key", "args", "player_id", "match_id", "room_id", "invite_id", "expires_at")
    class ArgsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    NOTIFICATION_ID_FIELD_NUMBER: _ClassVar[int]
    RECIPIENT_PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    TEXT_KEY_FIELD_NUMBER: _ClassVar[int]
    ARGS_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    ROOM_ID_FIELD_NUMBER: _ClassVar[int]
    INVITE_ID_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    notification_id: str
    recipient_player_id: str
    kind: NotificationKind
    text_key: str
    args: _containers.ScalarMap[str, str]
    player_id: str
    match_id: str
    room_id: str
    invite_id: str
    expires_at: _timestamp_pb2.Timestamp
    def __init__(self, notification_id: _Optional[str] = ..., recipient_player_id: _Optional[str] = ..., kind: _Optional[_Union[NotificationKind, str]] = ..., text_key: _Optional[str] = ..., args: _Optional[_Mapping[str, str]] = ..., player_id: _Optional[str] = ..., match_id: _Optional[str] = ..., room_id: _Optional[str] = ..., invite_id: _Optional[str] = ..., expires_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class PostNotificationsRequest(_message.Message):
    __slots__ = ("notifications",)
    NOTIFICATIONS_FIELD_NUMBER: _ClassVar[int]
    notifications: _containers.RepeatedCompositeFieldContainer[NewNotification]
    def __init__(self, notifications: _Optional[_Iterable[_Union[NewNotification, _Mapping]]] = ...) -> None: ...

class PostNotificationsResponse(_message.Message):
    __slots__ = ("stored",)
    STORED_FIELD_NUMBER: _ClassVar[int]
    stored: int
    def __init__(self, stored: _Optional[int] = ...) -> None: ...

class CheckRelationsRequest(_message.Message):
    __slots__ = ("player_id", "others")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    OTHERS_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    others: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, player_id: _Optional[str] = ..., others: _Optional[_Iterable[str]] = ...) -> None: ...

class Relation(_message.Message):
    __slots__ = ("player_id", "friends", "blocked")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    FRIENDS_FIELD_NUMBER: _ClassVar[int]
    BLOCKED_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    friends: bool
    blocked: bool
    def __init__(self, player_id: _Optional[str] = ..., friends: _Optional[bool] = ..., blocked: _Optional[bool] = ...) -> None: ...

class CheckRelationsResponse(_message.Message):
    __slots__ = ("relations",)
    RELATIONS_FIELD_NUMBER: _ClassVar[int]
    relations: _containers.RepeatedCompositeFieldContainer[Relation]
    def __init__(self, relations: _Optional[_Iterable[_Union[Relation, _Mapping]]] = ...) -> None: ...

class PushTarget(_message.Message):
    __slots__ = ("installation_id", "platform", "token", "apns_environment", "locale")
    INSTALLATION_ID_FIELD_NUMBER: _ClassVar[int]
    PLATFORM_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    APNS_ENVIRONMENT_FIELD_NUMBER: _ClassVar[int]
    LOCALE_FIELD_NUMBER: _ClassVar[int]
    installation_id: str
    platform: PushPlatform
    token: str
    apns_environment: ApnsEnvironment
    locale: str
    def __init__(self, installation_id: _Optional[str] = ..., platform: _Optional[_Union[PushPlatform, str]] = ..., token: _Optional[str] = ..., apns_environment: _Optional[_Union[ApnsEnvironment, str]] = ..., locale: _Optional[str] = ...) -> None: ...

class ClaimPushRequest(_message.Message):
    __slots__ = ("notification_id", "claim_id")
    NOTIFICATION_ID_FIELD_NUMBER: _ClassVar[int]
    CLAIM_ID_FIELD_NUMBER: _ClassVar[int]
    notification_id: str
    claim_id: str
    def __init__(self, notification_id: _Optional[str] = ..., claim_id: _Optional[str] = ...) -> None: ...

class ClaimPushResponse(_message.Message):
    __slots__ = ("decision", "notification", "recipient_player_id", "targets", "display_names")
    class DisplayNamesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    DECISION_FIELD_NUMBER: _ClassVar[int]
    NOTIFICATION_FIELD_NUMBER: _ClassVar[int]
    RECIPIENT_PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    TARGETS_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAMES_FIELD_NUMBER: _ClassVar[int]
    decision: PushDecision
    notification: Notification
    recipient_player_id: str
    targets: _containers.RepeatedCompositeFieldContainer[PushTarget]
    display_names: _containers.ScalarMap[str, str]
    def __init__(self, decision: _Optional[_Union[PushDecision, str]] = ..., notification: _Optional[_Union[Notification, _Mapping]] = ..., recipient_player_id: _Optional[str] = ..., targets: _Optional[_Iterable[_Union[PushTarget, _Mapping]]] = ..., display_names: _Optional[_Mapping[str, str]] = ...) -> None: ...

class ForgetPushTokenRequest(_message.Message):
    __slots__ = ("platform", "token")
    PLATFORM_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    platform: PushPlatform
    token: str
    def __init__(self, platform: _Optional[_Union[PushPlatform, str]] = ..., token: _Optional[str] = ...) -> None: ...

class ForgetPushTokenResponse(_message.Message):
    __slots__ = ("removed",)
    REMOVED_FIELD_NUMBER: _ClassVar[int]
    removed: bool
    def __init__(self, removed: _Optional[bool] = ...) -> None: ...
