import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class End(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    END_UNSPECIFIED: _ClassVar[End]
    END_LEFT: _ClassVar[End]
    END_RIGHT: _ClassVar[End]
    END_UP: _ClassVar[End]
    END_DOWN: _ClassVar[End]

class MoveKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MOVE_KIND_UNSPECIFIED: _ClassVar[MoveKind]
    MOVE_KIND_PLAY: _ClassVar[MoveKind]
    MOVE_KIND_DRAW: _ClassVar[MoveKind]
    MOVE_KIND_PASS: _ClassVar[MoveKind]

class MoveCause(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MOVE_CAUSE_UNSPECIFIED: _ClassVar[MoveCause]
    MOVE_CAUSE_SEAT: _ClassVar[MoveCause]
    MOVE_CAUSE_TIMEOUT: _ClassVar[MoveCause]
    MOVE_CAUSE_AWAY: _ClassVar[MoveCause]
    MOVE_CAUSE_LEFT: _ClassVar[MoveCause]
    MOVE_CAUSE_FORCED_PASS: _ClassVar[MoveCause]

class MatchStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MATCH_STATUS_UNSPECIFIED: _ClassVar[MatchStatus]
    MATCH_STATUS_IN_PROGRESS: _ClassVar[MatchStatus]
    MATCH_STATUS_ENDED: _ClassVar[MatchStatus]
    MATCH_STATUS_ABANDONED: _ClassVar[MatchStatus]
    MATCH_STATUS_WAITING_FOR_SEEDS: _ClassVar[MatchStatus]

class ChatPhrase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CHAT_PHRASE_UNSPECIFIED: _ClassVar[ChatPhrase]
    CHAT_PHRASE_HELLO: _ClassVar[ChatPhrase]
    CHAT_PHRASE_GOOD_LUCK: _ClassVar[ChatPhrase]
    CHAT_PHRASE_WELL_PLAYED: _ClassVar[ChatPhrase]
    CHAT_PHRASE_THANKS: _ClassVar[ChatPhrase]
    CHAT_PHRASE_OOPS: _ClassVar[ChatPhrase]
    CHAT_PHRASE_HURRY_UP: _ClassVar[ChatPhrase]
    CHAT_PHRASE_NICE_MOVE: _ClassVar[ChatPhrase]
    CHAT_PHRASE_GOOD_GAME: _ClassVar[ChatPhrase]
    CHAT_PHRASE_EMOTE_SMILE: _ClassVar[ChatPhrase]
    CHAT_PHRASE_EMOTE_LAUGH: _ClassVar[ChatPhrase]
    CHAT_PHRASE_EMOTE_THINKING: _ClassVar[ChatPhrase]
    CHAT_PHRASE_EMOTE_SAD: _ClassVar[ChatPhrase]

class MatchResult(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MATCH_RESULT_UNSPECIFIED: _ClassVar[MatchResult]
    MATCH_RESULT_WON: _ClassVar[MatchResult]
    MATCH_RESULT_LOST: _ClassVar[MatchResult]
    MATCH_RESULT_TIED: _ClassVar[MatchResult]
    MATCH_RESULT_ABANDONED: _ClassVar[MatchResult]
    MATCH_RESULT_IN_PLAY: _ClassVar[MatchResult]

class EventKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    EVENT_KIND_UNSPECIFIED: _ClassVar[EventKind]
    EVENT_KIND_MATCH_STARTED: _ClassVar[EventKind]
    EVENT_KIND_ROUND_DEALT: _ClassVar[EventKind]
    EVENT_KIND_TILE_PLAYED: _ClassVar[EventKind]
    EVENT_KIND_TILE_DRAWN: _ClassVar[EventKind]
    EVENT_KIND_TURN_PASSED: _ClassVar[EventKind]
    EVENT_KIND_ROUND_ENDED: _ClassVar[EventKind]
    EVENT_KIND_MATCH_ENDED: _ClassVar[EventKind]
    EVENT_KIND_SEAT_AWAY: _ClassVar[EventKind]
    EVENT_KIND_SEAT_RETURNED: _ClassVar[EventKind]
    EVENT_KIND_SEAT_LEFT: _ClassVar[EventKind]
    EVENT_KIND_SEED_SUBMITTED: _ClassVar[EventKind]
    EVENT_KIND_SEEDS_CLOSED: _ClassVar[EventKind]

class RoundEndReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ROUND_END_REASON_UNSPECIFIED: _ClassVar[RoundEndReason]
    ROUND_END_REASON_DOMINO: _ClassVar[RoundEndReason]
    ROUND_END_REASON_BLOCKED: _ClassVar[RoundEndReason]
    ROUND_END_REASON_REDEAL: _ClassVar[RoundEndReason]

class LeadReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    LEAD_REASON_UNSPECIFIED: _ClassVar[LeadReason]
    LEAD_REASON_ROUND_ONE_RULE: _ClassVar[LeadReason]
    LEAD_REASON_AFTER_A_TIE: _ClassVar[LeadReason]
    LEAD_REASON_TOOK_THE_LAST_ROUND: _ClassVar[LeadReason]
    LEAD_REASON_BY_CHANCE: _ClassVar[LeadReason]

class BotStrength(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    BOT_STRENGTH_UNSPECIFIED: _ClassVar[BotStrength]
    BOT_STRENGTH_RANDOM: _ClassVar[BotStrength]
    BOT_STRENGTH_GREEDY: _ClassVar[BotStrength]
    BOT_STRENGTH_STRONG: _ClassVar[BotStrength]
    BOT_STRENGTH_EXPERT: _ClassVar[BotStrength]
END_UNSPECIFIED: End
END_LEFT: End
END_RIGHT: End
END_UP: End
END_DOWN: End
MOVE_KIND_UNSPECIFIED: MoveKind
MOVE_KIND_PLAY: MoveKind
MOVE_KIND_DRAW: MoveKind
MOVE_KIND_PASS: MoveKind
MOVE_CAUSE_UNSPECIFIED: MoveCause
MOVE_CAUSE_SEAT: MoveCause
MOVE_CAUSE_TIMEOUT: MoveCause
MOVE_CAUSE_AWAY: MoveCause
MOVE_CAUSE_LEFT: MoveCause
MOVE_CAUSE_FORCED_PASS: MoveCause
MATCH_STATUS_UNSPECIFIED: MatchStatus
MATCH_STATUS_IN_PROGRESS: MatchStatus
MATCH_STATUS_ENDED: MatchStatus
MATCH_STATUS_ABANDONED: MatchStatus
MATCH_STATUS_WAITING_FOR_SEEDS: MatchStatus
CHAT_PHRASE_UNSPECIFIED: ChatPhrase
CHAT_PHRASE_HELLO: ChatPhrase
CHAT_PHRASE_GOOD_LUCK: ChatPhrase
CHAT_PHRASE_WELL_PLAYED: ChatPhrase
CHAT_PHRASE_THANKS: ChatPhrase
CHAT_PHRASE_OOPS: ChatPhrase
CHAT_PHRASE_HURRY_UP: ChatPhrase
CHAT_PHRASE_NICE_MOVE: ChatPhrase
CHAT_PHRASE_GOOD_GAME: ChatPhrase
CHAT_PHRASE_EMOTE_SMILE: ChatPhrase
CHAT_PHRASE_EMOTE_LAUGH: ChatPhrase
CHAT_PHRASE_EMOTE_THINKING: ChatPhrase
CHAT_PHRASE_EMOTE_SAD: ChatPhrase
MATCH_RESULT_UNSPECIFIED: MatchResult
MATCH_RESULT_WON: MatchResult
MATCH_RESULT_LOST: MatchResult
MATCH_RESULT_TIED: MatchResult
MATCH_RESULT_ABANDONED: MatchResult
MATCH_RESULT_IN_PLAY: MatchResult
EVENT_KIND_UNSPECIFIED: EventKind
EVENT_KIND_MATCH_STARTED: EventKind
EVENT_KIND_ROUND_DEALT: EventKind
EVENT_KIND_TILE_PLAYED: EventKind
EVENT_KIND_TILE_DRAWN: EventKind
EVENT_KIND_TURN_PASSED: EventKind
EVENT_KIND_ROUND_ENDED: EventKind
EVENT_KIND_MATCH_ENDED: EventKind
EVENT_KIND_SEAT_AWAY: EventKind
EVENT_KIND_SEAT_RETURNED: EventKind
EVENT_KIND_SEAT_LEFT: EventKind
EVENT_KIND_SEED_SUBMITTED: EventKind
EVENT_KIND_SEEDS_CLOSED: EventKind
ROUND_END_REASON_UNSPECIFIED: RoundEndReason
ROUND_END_REASON_DOMINO: RoundEndReason
ROUND_END_REASON_BLOCKED: RoundEndReason
ROUND_END_REASON_REDEAL: RoundEndReason
LEAD_REASON_UNSPECIFIED: LeadReason
LEAD_REASON_ROUND_ONE_RULE: LeadReason
LEAD_REASON_AFTER_A_TIE: LeadReason
LEAD_REASON_TOOK_THE_LAST_ROUND: LeadReason
LEAD_REASON_BY_CHANCE: LeadReason
BOT_STRENGTH_UNSPECIFIED: BotStrength
BOT_STRENGTH_RANDOM: BotStrength
BOT_STRENGTH_GREEDY: BotStrength
BOT_STRENGTH_STRONG: BotStrength
BOT_STRENGTH_EXPERT: BotStrength

class Tile(_message.Message):
    __slots__ = ("low", "high")
    LOW_FIELD_NUMBER: _ClassVar[int]
    HIGH_FIELD_NUMBER: _ClassVar[int]
    low: int
    high: int
    def __init__(self, low: _Optional[int] = ..., high: _Optional[int] = ...) -> None: ...

class Move(_message.Message):
    __slots__ = ("kind", "tile", "end", "points")
    KIND_FIELD_NUMBER: _ClassVar[int]
    TILE_FIELD_NUMBER: _ClassVar[int]
    END_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    kind: MoveKind
    tile: Tile
    end: End
    points: int
    def __init__(self, kind: _Optional[_Union[MoveKind, str]] = ..., tile: _Optional[_Union[Tile, _Mapping]] = ..., end: _Optional[_Union[End, str]] = ..., points: _Optional[int] = ...) -> None: ...

class SeatSpec(_message.Message):
    __slots__ = ("player_id", "client_seed")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    CLIENT_SEED_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    client_seed: str
    def __init__(self, player_id: _Optional[str] = ..., client_seed: _Optional[str] = ...) -> None: ...

class CreateMatchRequest(_message.Message):
    __slots__ = ("request_id", "rules", "variant", "teams", "target", "turn_timer_seconds", "seats", "seed_wait_seconds", "spectators", "rule_options", "rated")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    TEAMS_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    TURN_TIMER_SECONDS_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    SEED_WAIT_SECONDS_FIELD_NUMBER: _ClassVar[int]
    SPECTATORS_FIELD_NUMBER: _ClassVar[int]
    RULE_OPTIONS_FIELD_NUMBER: _ClassVar[int]
    RATED_FIELD_NUMBER: _ClassVar[int]
    request_id: str
    rules: str
    variant: str
    teams: bool
    target: int
    turn_timer_seconds: int
    seats: _containers.RepeatedCompositeFieldContainer[SeatSpec]
    seed_wait_seconds: int
    spectators: bool
    rule_options: _containers.RepeatedCompositeFieldContainer[OptionSetting]
    rated: bool
    def __init__(self, request_id: _Optional[str] = ..., rules: _Optional[str] = ..., variant: _Optional[str] = ..., teams: _Optional[bool] = ..., target: _Optional[int] = ..., turn_timer_seconds: _Optional[int] = ..., seats: _Optional[_Iterable[_Union[SeatSpec, _Mapping]]] = ..., seed_wait_seconds: _Optional[int] = ..., spectators: _Optional[bool] = ..., rule_options: _Optional[_Iterable[_Union[OptionSetting, _Mapping]]] = ..., rated: _Optional[bool] = ...) -> None: ...

class CreateMatchResponse(_message.Message):
    __slots__ = ("match_id", "view")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    view: MatchView
    def __init__(self, match_id: _Optional[str] = ..., view: _Optional[_Union[MatchView, _Mapping]] = ...) -> None: ...

class GetMatchRequest(_message.Message):
    __slots__ = ("match_id", "min_version")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    MIN_VERSION_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    min_version: int
    def __init__(self, match_id: _Optional[str] = ..., min_version: _Optional[int] = ...) -> None: ...

class GetMatchResponse(_message.Message):
    __slots__ = ("view",)
    VIEW_FIELD_NUMBER: _ClassVar[int]
    view: MatchView
    def __init__(self, view: _Optional[_Union[MatchView, _Mapping]] = ...) -> None: ...

class PlayTileRequest(_message.Message):
    __slots__ = ("match_id", "request_id", "tile", "end")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    TILE_FIELD_NUMBER: _ClassVar[int]
    END_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    request_id: str
    tile: Tile
    end: End
    def __init__(self, match_id: _Optional[str] = ..., request_id: _Optional[str] = ..., tile: _Optional[_Union[Tile, _Mapping]] = ..., end: _Optional[_Union[End, str]] = ...) -> None: ...

class PlayTileResponse(_message.Message):
    __slots__ = ("version", "view")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    version: int
    view: MatchView
    def __init__(self, version: _Optional[int] = ..., view: _Optional[_Union[MatchView, _Mapping]] = ...) -> None: ...

class DrawTileRequest(_message.Message):
    __slots__ = ("match_id", "request_id")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    request_id: str
    def __init__(self, match_id: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class DrawTileResponse(_message.Message):
    __slots__ = ("version", "tile", "view")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    TILE_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    version: int
    tile: Tile
    view: MatchView
    def __init__(self, version: _Optional[int] = ..., tile: _Optional[_Union[Tile, _Mapping]] = ..., view: _Optional[_Union[MatchView, _Mapping]] = ...) -> None: ...

class ResumeSeatRequest(_message.Message):
    __slots__ = ("match_id",)
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    def __init__(self, match_id: _Optional[str] = ...) -> None: ...

class ResumeSeatResponse(_message.Message):
    __slots__ = ("view",)
    VIEW_FIELD_NUMBER: _ClassVar[int]
    view: MatchView
    def __init__(self, view: _Optional[_Union[MatchView, _Mapping]] = ...) -> None: ...

class WatchMatchRequest(_message.Message):
    __slots__ = ("match_id", "from_version")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    FROM_VERSION_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    from_version: int
    def __init__(self, match_id: _Optional[str] = ..., from_version: _Optional[int] = ...) -> None: ...

class WatchMatchResponse(_message.Message):
    __slots__ = ("event", "view", "chat", "server_time")
    EVENT_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    CHAT_FIELD_NUMBER: _ClassVar[int]
    SERVER_TIME_FIELD_NUMBER: _ClassVar[int]
    event: MatchEvent
    view: MatchView
    chat: ChatMessage
    server_time: _timestamp_pb2.Timestamp
    def __init__(self, event: _Optional[_Union[MatchEvent, _Mapping]] = ..., view: _Optional[_Union[MatchView, _Mapping]] = ..., chat: _Optional[_Union[ChatMessage, _Mapping]] = ..., server_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ChatMessage(_message.Message):
    __slots__ = ("seat", "player_id", "sent_at", "chat_phrase")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    SENT_AT_FIELD_NUMBER: _ClassVar[int]
    CHAT_PHRASE_FIELD_NUMBER: _ClassVar[int]
    seat: int
    player_id: str
    sent_at: _timestamp_pb2.Timestamp
    chat_phrase: ChatPhrase
    def __init__(self, seat: _Optional[int] = ..., player_id: _Optional[str] = ..., sent_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., chat_phrase: _Optional[_Union[ChatPhrase, str]] = ...) -> None: ...

class SendChatRequest(_message.Message):
    __slots__ = ("match_id", "chat_phrase")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    CHAT_PHRASE_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    chat_phrase: ChatPhrase
    def __init__(self, match_id: _Optional[str] = ..., chat_phrase: _Optional[_Union[ChatPhrase, str]] = ...) -> None: ...

class SendChatResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListMyMatchesRequest(_message.Message):
    __slots__ = ("page_size", "page_token")
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    page_size: int
    page_token: str
    def __init__(self, page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class MatchSummary(_message.Message):
    __slots__ = ("match_id", "rules", "variant", "teams", "player_ids", "your_seat", "result", "scores", "started_at", "ended_at", "rated", "you_left", "left_seats")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    TEAMS_FIELD_NUMBER: _ClassVar[int]
    PLAYER_IDS_FIELD_NUMBER: _ClassVar[int]
    YOUR_SEAT_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    STARTED_AT_FIELD_NUMBER: _ClassVar[int]
    ENDED_AT_FIELD_NUMBER: _ClassVar[int]
    RATED_FIELD_NUMBER: _ClassVar[int]
    YOU_LEFT_FIELD_NUMBER: _ClassVar[int]
    LEFT_SEATS_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    rules: str
    variant: str
    teams: bool
    player_ids: _containers.RepeatedScalarFieldContainer[str]
    your_seat: int
    result: MatchResult
    scores: _containers.RepeatedScalarFieldContainer[int]
    started_at: _timestamp_pb2.Timestamp
    ended_at: _timestamp_pb2.Timestamp
    rated: bool
    you_left: bool
    left_seats: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, match_id: _Optional[str] = ..., rules: _Optional[str] = ..., variant: _Optional[str] = ..., teams: _Optional[bool] = ..., player_ids: _Optional[_Iterable[str]] = ..., your_seat: _Optional[int] = ..., result: _Optional[_Union[MatchResult, str]] = ..., scores: _Optional[_Iterable[int]] = ..., started_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., ended_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., rated: _Optional[bool] = ..., you_left: _Optional[bool] = ..., left_seats: _Optional[_Iterable[int]] = ...) -> None: ...

class ListMyMatchesResponse(_message.Message):
    __slots__ = ("matches", "next_page_token")
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    matches: _containers.RepeatedCompositeFieldContainer[MatchSummary]
    next_page_token: str
    def __init__(self, matches: _Optional[_Iterable[_Union[MatchSummary, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class Rating(_message.Message):
    __slots__ = ("player_id", "mu", "sigma", "ordinal", "matches", "rank")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    MU_FIELD_NUMBER: _ClassVar[int]
    SIGMA_FIELD_NUMBER: _ClassVar[int]
    ORDINAL_FIELD_NUMBER: _ClassVar[int]
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    RANK_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    mu: float
    sigma: float
    ordinal: float
    matches: int
    rank: int
    def __init__(self, player_id: _Optional[str] = ..., mu: _Optional[float] = ..., sigma: _Optional[float] = ..., ordinal: _Optional[float] = ..., matches: _Optional[int] = ..., rank: _Optional[int] = ...) -> None: ...

class GetRatingRequest(_message.Message):
    __slots__ = ("player_id", "rules", "teams")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    TEAMS_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    rules: str
    teams: bool
    def __init__(self, player_id: _Optional[str] = ..., rules: _Optional[str] = ..., teams: _Optional[bool] = ...) -> None: ...

class GetRatingResponse(_message.Message):
    __slots__ = ("rating", "rated_players")
    RATING_FIELD_NUMBER: _ClassVar[int]
    RATED_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    rating: Rating
    rated_players: int
    def __init__(self, rating: _Optional[_Union[Rating, _Mapping]] = ..., rated_players: _Optional[int] = ...) -> None: ...

class GetLeaderboardRequest(_message.Message):
    __slots__ = ("rules", "teams", "top")
    RULES_FIELD_NUMBER: _ClassVar[int]
    TEAMS_FIELD_NUMBER: _ClassVar[int]
    TOP_FIELD_NUMBER: _ClassVar[int]
    rules: str
    teams: bool
    top: int
    def __init__(self, rules: _Optional[str] = ..., teams: _Optional[bool] = ..., top: _Optional[int] = ...) -> None: ...

class GetLeaderboardResponse(_message.Message):
    __slots__ = ("top", "you", "rated_players")
    TOP_FIELD_NUMBER: _ClassVar[int]
    YOU_FIELD_NUMBER: _ClassVar[int]
    RATED_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    top: _containers.RepeatedCompositeFieldContainer[Rating]
    you: Rating
    rated_players: int
    def __init__(self, top: _Optional[_Iterable[_Union[Rating, _Mapping]]] = ..., you: _Optional[_Union[Rating, _Mapping]] = ..., rated_players: _Optional[int] = ...) -> None: ...

class GetHeadKeysRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetHeadKeysResponse(_message.Message):
    __slots__ = ("keys",)
    KEYS_FIELD_NUMBER: _ClassVar[int]
    keys: _containers.RepeatedCompositeFieldContainer[HeadKey]
    def __init__(self, keys: _Optional[_Iterable[_Union[HeadKey, _Mapping]]] = ...) -> None: ...

class HeadKey(_message.Message):
    __slots__ = ("key_id", "algorithm", "public_key", "valid_from", "valid_until")
    KEY_ID_FIELD_NUMBER: _ClassVar[int]
    ALGORITHM_FIELD_NUMBER: _ClassVar[int]
    PUBLIC_KEY_FIELD_NUMBER: _ClassVar[int]
    VALID_FROM_FIELD_NUMBER: _ClassVar[int]
    VALID_UNTIL_FIELD_NUMBER: _ClassVar[int]
    key_id: str
    algorithm: str
    public_key: bytes
    valid_from: _timestamp_pb2.Timestamp
    valid_until: _timestamp_pb2.Timestamp
    def __init__(self, key_id: _Optional[str] = ..., algorithm: _Optional[str] = ..., public_key: _Optional[bytes] = ..., valid_from: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., valid_until: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ExportMatchRequest(_message.Message):
    __slots__ = ("match_id", "unfinished")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    UNFINISHED_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    unfinished: bool
    def __init__(self, match_id: _Optional[str] = ..., unfinished: _Optional[bool] = ...) -> None: ...

class ExportMatchResponse(_message.Message):
    __slots__ = ("record_json",)
    RECORD_JSON_FIELD_NUMBER: _ClassVar[int]
    record_json: str
    def __init__(self, record_json: _Optional[str] = ...) -> None: ...

class LeaveMatchRequest(_message.Message):
    __slots__ = ("match_id",)
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    def __init__(self, match_id: _Optional[str] = ...) -> None: ...

class LeaveMatchResponse(_message.Message):
    __slots__ = ("view",)
    VIEW_FIELD_NUMBER: _ClassVar[int]
    view: MatchView
    def __init__(self, view: _Optional[_Union[MatchView, _Mapping]] = ...) -> None: ...

class SubmitSeedRequest(_message.Message):
    __slots__ = ("match_id", "seed")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seed: str
    def __init__(self, match_id: _Optional[str] = ..., seed: _Optional[str] = ...) -> None: ...

class SubmitSeedResponse(_message.Message):
    __slots__ = ("view",)
    VIEW_FIELD_NUMBER: _ClassVar[int]
    view: MatchView
    def __init__(self, view: _Optional[_Union[MatchView, _Mapping]] = ...) -> None: ...

class MatchEvent(_message.Message):
    __slots__ = ("version", "kind", "seat", "tile", "end", "occurred_at", "points", "cause")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TILE_FIELD_NUMBER: _ClassVar[int]
    END_FIELD_NUMBER: _ClassVar[int]
    OCCURRED_AT_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    CAUSE_FIELD_NUMBER: _ClassVar[int]
    version: int
    kind: EventKind
    seat: int
    tile: Tile
    end: End
    occurred_at: _timestamp_pb2.Timestamp
    points: int
    cause: MoveCause
    def __init__(self, version: _Optional[int] = ..., kind: _Optional[_Union[EventKind, str]] = ..., seat: _Optional[int] = ..., tile: _Optional[_Union[Tile, _Mapping]] = ..., end: _Optional[_Union[End, str]] = ..., occurred_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., points: _Optional[int] = ..., cause: _Optional[_Union[MoveCause, str]] = ...) -> None: ...

class SeatView(_message.Message):
    __slots__ = ("player_id", "tile_count", "away", "left", "awaiting_seed")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    TILE_COUNT_FIELD_NUMBER: _ClassVar[int]
    AWAY_FIELD_NUMBER: _ClassVar[int]
    LEFT_FIELD_NUMBER: _ClassVar[int]
    AWAITING_SEED_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    tile_count: int
    away: bool
    left: bool
    awaiting_seed: bool
    def __init__(self, player_id: _Optional[str] = ..., tile_count: _Optional[int] = ..., away: _Optional[bool] = ..., left: _Optional[bool] = ..., awaiting_seed: _Optional[bool] = ...) -> None: ...

class PlacedTile(_message.Message):
    __slots__ = ("left", "right")
    LEFT_FIELD_NUMBER: _ClassVar[int]
    RIGHT_FIELD_NUMBER: _ClassVar[int]
    left: int
    right: int
    def __init__(self, left: _Optional[int] = ..., right: _Optional[int] = ...) -> None: ...

class RoundSummary(_message.Message):
    __slots__ = ("reason", "winner", "points", "scores", "points_in_play", "written", "remembered", "pot")
    REASON_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    POINTS_IN_PLAY_FIELD_NUMBER: _ClassVar[int]
    WRITTEN_FIELD_NUMBER: _ClassVar[int]
    REMEMBERED_FIELD_NUMBER: _ClassVar[int]
    POT_FIELD_NUMBER: _ClassVar[int]
    reason: RoundEndReason
    winner: int
    points: int
    scores: _containers.RepeatedScalarFieldContainer[int]
    points_in_play: _containers.RepeatedScalarFieldContainer[int]
    written: _containers.RepeatedScalarFieldContainer[int]
    remembered: _containers.RepeatedScalarFieldContainer[int]
    pot: int
    def __init__(self, reason: _Optional[_Union[RoundEndReason, str]] = ..., winner: _Optional[int] = ..., points: _Optional[int] = ..., scores: _Optional[_Iterable[int]] = ..., points_in_play: _Optional[_Iterable[int]] = ..., written: _Optional[_Iterable[int]] = ..., remembered: _Optional[_Iterable[int]] = ..., pot: _Optional[int] = ...) -> None: ...

class PublicAction(_message.Message):
    __slots__ = ("seat", "kind", "tile", "end", "points", "cause")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    TILE_FIELD_NUMBER: _ClassVar[int]
    END_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    CAUSE_FIELD_NUMBER: _ClassVar[int]
    seat: int
    kind: MoveKind
    tile: Tile
    end: End
    points: int
    cause: MoveCause
    def __init__(self, seat: _Optional[int] = ..., kind: _Optional[_Union[MoveKind, str]] = ..., tile: _Optional[_Union[Tile, _Mapping]] = ..., end: _Optional[_Union[End, str]] = ..., points: _Optional[int] = ..., cause: _Optional[_Union[MoveCause, str]] = ...) -> None: ...

class RoundLead(_message.Message):
    __slots__ = ("seat", "reason")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    seat: int
    reason: LeadReason
    def __init__(self, seat: _Optional[int] = ..., reason: _Optional[_Union[LeadReason, str]] = ...) -> None: ...

class EndCount(_message.Message):
    __slots__ = ("end", "count")
    END_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    end: End
    count: int
    def __init__(self, end: _Optional[_Union[End, str]] = ..., count: _Optional[int] = ...) -> None: ...

class MatchView(_message.Message):
    __slots__ = ("match_id", "version", "status", "rules", "variant", "teams", "target", "turn_timer_seconds", "seats", "your_seat", "hand", "line", "left_end", "right_end", "boneyard_count", "scores", "round_number", "turn", "turn_deadline", "legal_moves", "round_actions", "rounds", "winner", "fairness_commitment", "up_end", "down_end", "up_line", "down_line", "spinner_index", "ends_total", "remembered", "accounts_open", "pot", "goats", "turn_seconds", "head", "round_starts_at", "rule_options", "server_time", "end_counts", "round_lead")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    TEAMS_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    TURN_TIMER_SECONDS_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    YOUR_SEAT_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    LINE_FIELD_NUMBER: _ClassVar[int]
    LEFT_END_FIELD_NUMBER: _ClassVar[int]
    RIGHT_END_FIELD_NUMBER: _ClassVar[int]
    BONEYARD_COUNT_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    ROUND_NUMBER_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    TURN_DEADLINE_FIELD_NUMBER: _ClassVar[int]
    LEGAL_MOVES_FIELD_NUMBER: _ClassVar[int]
    ROUND_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    ROUNDS_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    FAIRNESS_COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    UP_END_FIELD_NUMBER: _ClassVar[int]
    DOWN_END_FIELD_NUMBER: _ClassVar[int]
    UP_LINE_FIELD_NUMBER: _ClassVar[int]
    DOWN_LINE_FIELD_NUMBER: _ClassVar[int]
    SPINNER_INDEX_FIELD_NUMBER: _ClassVar[int]
    ENDS_TOTAL_FIELD_NUMBER: _ClassVar[int]
    REMEMBERED_FIELD_NUMBER: _ClassVar[int]
    ACCOUNTS_OPEN_FIELD_NUMBER: _ClassVar[int]
    POT_FIELD_NUMBER: _ClassVar[int]
    GOATS_FIELD_NUMBER: _ClassVar[int]
    TURN_SECONDS_FIELD_NUMBER: _ClassVar[int]
    HEAD_FIELD_NUMBER: _ClassVar[int]
    ROUND_STARTS_AT_FIELD_NUMBER: _ClassVar[int]
    RULE_OPTIONS_FIELD_NUMBER: _ClassVar[int]
    SERVER_TIME_FIELD_NUMBER: _ClassVar[int]
    END_COUNTS_FIELD_NUMBER: _ClassVar[int]
    ROUND_LEAD_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    version: int
    status: MatchStatus
    rules: str
    variant: str
    teams: bool
    target: int
    turn_timer_seconds: int
    seats: _containers.RepeatedCompositeFieldContainer[SeatView]
    your_seat: int
    hand: _containers.RepeatedCompositeFieldContainer[Tile]
    line: _containers.RepeatedCompositeFieldContainer[PlacedTile]
    left_end: int
    right_end: int
    boneyard_count: int
    scores: _containers.RepeatedScalarFieldContainer[int]
    round_number: int
    turn: int
    turn_deadline: _timestamp_pb2.Timestamp
    legal_moves: _containers.RepeatedCompositeFieldContainer[Move]
    round_actions: _containers.RepeatedCompositeFieldContainer[PublicAction]
    rounds: _containers.RepeatedCompositeFieldContainer[RoundSummary]
    winner: int
    fairness_commitment: str
    up_end: int
    down_end: int
    up_line: _containers.RepeatedCompositeFieldContainer[PlacedTile]
    down_line: _containers.RepeatedCompositeFieldContainer[PlacedTile]
    spinner_index: int
    ends_total: int
    remembered: _containers.RepeatedScalarFieldContainer[int]
    accounts_open: _containers.RepeatedScalarFieldContainer[bool]
    pot: int
    goats: _containers.RepeatedScalarFieldContainer[int]
    turn_seconds: int
    head: SignedHead
    round_starts_at: _timestamp_pb2.Timestamp
    rule_options: _containers.RepeatedCompositeFieldContainer[OptionSetting]
    server_time: _timestamp_pb2.Timestamp
    end_counts: _containers.RepeatedCompositeFieldContainer[EndCount]
    round_lead: RoundLead
    def __init__(self, match_id: _Optional[str] = ..., version: _Optional[int] = ..., status: _Optional[_Union[MatchStatus, str]] = ..., rules: _Optional[str] = ..., variant: _Optional[str] = ..., teams: _Optional[bool] = ..., target: _Optional[int] = ..., turn_timer_seconds: _Optional[int] = ..., seats: _Optional[_Iterable[_Union[SeatView, _Mapping]]] = ..., your_seat: _Optional[int] = ..., hand: _Optional[_Iterable[_Union[Tile, _Mapping]]] = ..., line: _Optional[_Iterable[_Union[PlacedTile, _Mapping]]] = ..., left_end: _Optional[int] = ..., right_end: _Optional[int] = ..., boneyard_count: _Optional[int] = ..., scores: _Optional[_Iterable[int]] = ..., round_number: _Optional[int] = ..., turn: _Optional[int] = ..., turn_deadline: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., legal_moves: _Optional[_Iterable[_Union[Move, _Mapping]]] = ..., round_actions: _Optional[_Iterable[_Union[PublicAction, _Mapping]]] = ..., rounds: _Optional[_Iterable[_Union[RoundSummary, _Mapping]]] = ..., winner: _Optional[int] = ..., fairness_commitment: _Optional[str] = ..., up_end: _Optional[int] = ..., down_end: _Optional[int] = ..., up_line: _Optional[_Iterable[_Union[PlacedTile, _Mapping]]] = ..., down_line: _Optional[_Iterable[_Union[PlacedTile, _Mapping]]] = ..., spinner_index: _Optional[int] = ..., ends_total: _Optional[int] = ..., remembered: _Optional[_Iterable[int]] = ..., accounts_open: _Optional[_Iterable[bool]] = ..., pot: _Optional[int] = ..., goats: _Optional[_Iterable[int]] = ..., turn_seconds: _Optional[int] = ..., head: _Optional[_Union[SignedHead, _Mapping]] = ..., round_starts_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., rule_options: _Optional[_Iterable[_Union[OptionSetting, _Mapping]]] = ..., server_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., end_counts: _Optional[_Iterable[_Union[EndCount, _Mapping]]] = ..., round_lead: _Optional[_Union[RoundLead, _Mapping]] = ...) -> None: ...

class SignedHead(_message.Message):
    __slots__ = ("match_id", "version", "entries", "hash", "key_id", "signature", "signed_at")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    HASH_FIELD_NUMBER: _ClassVar[int]
    KEY_ID_FIELD_NUMBER: _ClassVar[int]
    SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    SIGNED_AT_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    version: int
    entries: int
    hash: str
    key_id: str
    signature: bytes
    signed_at: _timestamp_pb2.Timestamp
    def __init__(self, match_id: _Optional[str] = ..., version: _Optional[int] = ..., entries: _Optional[int] = ..., hash: _Optional[str] = ..., key_id: _Optional[str] = ..., signature: _Optional[bytes] = ..., signed_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ForgetPlayerRequest(_message.Message):
    __slots__ = ("player_id",)
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    def __init__(self, player_id: _Optional[str] = ...) -> None: ...

class ForgetPlayerResponse(_message.Message):
    __slots__ = ("history_rows", "ratings")
    HISTORY_ROWS_FIELD_NUMBER: _ClassVar[int]
    RATINGS_FIELD_NUMBER: _ClassVar[int]
    history_rows: int
    ratings: int
    def __init__(self, history_rows: _Optional[int] = ..., ratings: _Optional[int] = ...) -> None: ...

class DescribeRulesRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class DescribeRulesResponse(_message.Message):
    __slots__ = ("families", "chat_phrases", "bot_strengths", "turn_timers", "default_turn_timer")
    FAMILIES_FIELD_NUMBER: _ClassVar[int]
    CHAT_PHRASES_FIELD_NUMBER: _ClassVar[int]
    BOT_STRENGTHS_FIELD_NUMBER: _ClassVar[int]
    TURN_TIMERS_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_TURN_TIMER_FIELD_NUMBER: _ClassVar[int]
    families: _containers.RepeatedCompositeFieldContainer[RuleFamily]
    chat_phrases: _containers.RepeatedScalarFieldContainer[ChatPhrase]
    bot_strengths: _containers.RepeatedCompositeFieldContainer[BotStrengthInfo]
    turn_timers: _containers.RepeatedScalarFieldContainer[int]
    default_turn_timer: int
    def __init__(self, families: _Optional[_Iterable[_Union[RuleFamily, _Mapping]]] = ..., chat_phrases: _Optional[_Iterable[_Union[ChatPhrase, str]]] = ..., bot_strengths: _Optional[_Iterable[_Union[BotStrengthInfo, _Mapping]]] = ..., turn_timers: _Optional[_Iterable[int]] = ..., default_turn_timer: _Optional[int] = ...) -> None: ...

class BotStrengthInfo(_message.Message):
    __slots__ = ("strength", "description", "name")
    STRENGTH_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    strength: BotStrength
    description: str
    name: str
    def __init__(self, strength: _Optional[_Union[BotStrength, str]] = ..., description: _Optional[str] = ..., name: _Optional[str] = ...) -> None: ...

class RuleFamily(_message.Message):
    __slots__ = ("name", "phrases", "variants", "default_variant", "targets", "options", "lower_is_better", "per_move_timer", "four_ends", "round_columns", "table")
    NAME_FIELD_NUMBER: _ClassVar[int]
    PHRASES_FIELD_NUMBER: _ClassVar[int]
    VARIANTS_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_VARIANT_FIELD_NUMBER: _ClassVar[int]
    TARGETS_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    LOWER_IS_BETTER_FIELD_NUMBER: _ClassVar[int]
    PER_MOVE_TIMER_FIELD_NUMBER: _ClassVar[int]
    FOUR_ENDS_FIELD_NUMBER: _ClassVar[int]
    ROUND_COLUMNS_FIELD_NUMBER: _ClassVar[int]
    TABLE_FIELD_NUMBER: _ClassVar[int]
    name: str
    phrases: FamilyPhrases
    variants: _containers.RepeatedCompositeFieldContainer[RuleVariant]
    default_variant: str
    targets: _containers.RepeatedScalarFieldContainer[int]
    options: _containers.RepeatedCompositeFieldContainer[HostOption]
    lower_is_better: bool
    per_move_timer: bool
    four_ends: bool
    round_columns: _containers.RepeatedCompositeFieldContainer[RoundColumn]
    table: TableFacets
    def __init__(self, name: _Optional[str] = ..., phrases: _Optional[_Union[FamilyPhrases, _Mapping]] = ..., variants: _Optional[_Iterable[_Union[RuleVariant, _Mapping]]] = ..., default_variant: _Optional[str] = ..., targets: _Optional[_Iterable[int]] = ..., options: _Optional[_Iterable[_Union[HostOption, _Mapping]]] = ..., lower_is_better: _Optional[bool] = ..., per_move_timer: _Optional[bool] = ..., four_ends: _Optional[bool] = ..., round_columns: _Optional[_Iterable[_Union[RoundColumn, _Mapping]]] = ..., table: _Optional[_Union[TableFacets, _Mapping]] = ...) -> None: ...

class FamilyPhrases(_message.Message):
    __slots__ = ("title", "target", "ended_by", "lead_rule", "scoring")
    TITLE_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    ENDED_BY_FIELD_NUMBER: _ClassVar[int]
    LEAD_RULE_FIELD_NUMBER: _ClassVar[int]
    SCORING_FIELD_NUMBER: _ClassVar[int]
    title: str
    target: str
    ended_by: str
    lead_rule: str
    scoring: str
    def __init__(self, title: _Optional[str] = ..., target: _Optional[str] = ..., ended_by: _Optional[str] = ..., lead_rule: _Optional[str] = ..., scoring: _Optional[str] = ...) -> None: ...

class RuleVariant(_message.Message):
    __slots__ = ("name", "shapes", "default_target", "presets", "leader_by_chance", "lead", "default_shape")
    NAME_FIELD_NUMBER: _ClassVar[int]
    SHAPES_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_TARGET_FIELD_NUMBER: _ClassVar[int]
    PRESETS_FIELD_NUMBER: _ClassVar[int]
    LEADER_BY_CHANCE_FIELD_NUMBER: _ClassVar[int]
    LEAD_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_SHAPE_FIELD_NUMBER: _ClassVar[int]
    name: str
    shapes: _containers.RepeatedCompositeFieldContainer[SeatShape]
    default_target: int
    presets: _containers.RepeatedCompositeFieldContainer[OptionSetting]
    leader_by_chance: bool
    lead: LeadWords
    default_shape: SeatShape
    def __init__(self, name: _Optional[str] = ..., shapes: _Optional[_Iterable[_Union[SeatShape, _Mapping]]] = ..., default_target: _Optional[int] = ..., presets: _Optional[_Iterable[_Union[OptionSetting, _Mapping]]] = ..., leader_by_chance: _Optional[bool] = ..., lead: _Optional[_Union[LeadWords, _Mapping]] = ..., default_shape: _Optional[_Union[SeatShape, _Mapping]] = ...) -> None: ...

class SeatShape(_message.Message):
    __slots__ = ("seats", "teams", "hand_size", "boneyard", "bot_strengths", "default_bot_strength")
    SEATS_FIELD_NUMBER: _ClassVar[int]
    TEAMS_FIELD_NUMBER: _ClassVar[int]
    HAND_SIZE_FIELD_NUMBER: _ClassVar[int]
    BONEYARD_FIELD_NUMBER: _ClassVar[int]
    BOT_STRENGTHS_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_BOT_STRENGTH_FIELD_NUMBER: _ClassVar[int]
    seats: int
    teams: bool
    hand_size: int
    boneyard: bool
    bot_strengths: _containers.RepeatedScalarFieldContainer[BotStrength]
    default_bot_strength: BotStrength
    def __init__(self, seats: _Optional[int] = ..., teams: _Optional[bool] = ..., hand_size: _Optional[int] = ..., boneyard: _Optional[bool] = ..., bot_strengths: _Optional[_Iterable[_Union[BotStrength, str]]] = ..., default_bot_strength: _Optional[_Union[BotStrength, str]] = ...) -> None: ...

class HostOption(_message.Message):
    __slots__ = ("name", "help", "values", "words")
    NAME_FIELD_NUMBER: _ClassVar[int]
    HELP_FIELD_NUMBER: _ClassVar[int]
    VALUES_FIELD_NUMBER: _ClassVar[int]
    WORDS_FIELD_NUMBER: _ClassVar[int]
    name: str
    help: str
    values: _containers.RepeatedCompositeFieldContainer[OptionValue]
    words: str
    def __init__(self, name: _Optional[str] = ..., help: _Optional[str] = ..., values: _Optional[_Iterable[_Union[OptionValue, _Mapping]]] = ..., words: _Optional[str] = ...) -> None: ...

class OptionValue(_message.Message):
    __slots__ = ("int_value", "bool_value", "string_value")
    INT_VALUE_FIELD_NUMBER: _ClassVar[int]
    BOOL_VALUE_FIELD_NUMBER: _ClassVar[int]
    STRING_VALUE_FIELD_NUMBER: _ClassVar[int]
    int_value: int
    bool_value: bool
    string_value: str
    def __init__(self, int_value: _Optional[int] = ..., bool_value: _Optional[bool] = ..., string_value: _Optional[str] = ...) -> None: ...

class OptionSetting(_message.Message):
    __slots__ = ("name", "value")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    name: str
    value: OptionValue
    def __init__(self, name: _Optional[str] = ..., value: _Optional[_Union[OptionValue, _Mapping]] = ...) -> None: ...

class RoundColumn(_message.Message):
    __slots__ = ("key", "header")
    KEY_FIELD_NUMBER: _ClassVar[int]
    HEADER_FIELD_NUMBER: _ClassVar[int]
    key: str
    header: str
    def __init__(self, key: _Optional[str] = ..., header: _Optional[str] = ...) -> None: ...

class LeadWords(_message.Message):
    __slots__ = ("rule", "by_double", "by_zero_zero", "by_other_tile")
    RULE_FIELD_NUMBER: _ClassVar[int]
    BY_DOUBLE_FIELD_NUMBER: _ClassVar[int]
    BY_ZERO_ZERO_FIELD_NUMBER: _ClassVar[int]
    BY_OTHER_TILE_FIELD_NUMBER: _ClassVar[int]
    rule: str
    by_double: str
    by_zero_zero: str
    by_other_tile: str
    def __init__(self, rule: _Optional[str] = ..., by_double: _Optional[str] = ..., by_zero_zero: _Optional[str] = ..., by_other_tile: _Optional[str] = ...) -> None: ...

class TableFacets(_message.Message):
    __slots__ = ("lone_zero_zero_points", "lone_zero_zero_option", "never_leads", "points_rounded_to", "move_seconds")
    LONE_ZERO_ZERO_POINTS_FIELD_NUMBER: _ClassVar[int]
    LONE_ZERO_ZERO_OPTION_FIELD_NUMBER: _ClassVar[int]
    NEVER_LEADS_FIELD_NUMBER: _ClassVar[int]
    POINTS_ROUNDED_TO_FIELD_NUMBER: _ClassVar[int]
    MOVE_SECONDS_FIELD_NUMBER: _ClassVar[int]
    lone_zero_zero_points: int
    lone_zero_zero_option: str
    never_leads: _containers.RepeatedCompositeFieldContainer[Tile]
    points_rounded_to: int
    move_seconds: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, lone_zero_zero_points: _Optional[int] = ..., lone_zero_zero_option: _Optional[str] = ..., never_leads: _Optional[_Iterable[_Union[Tile, _Mapping]]] = ..., points_rounded_to: _Optional[int] = ..., move_seconds: _Optional[_Iterable[int]] = ...) -> None: ...

class GetTurnAttentionRequest(_message.Message):
    __slots__ = ("match_id", "version")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    version: int
    def __init__(self, match_id: _Optional[str] = ..., version: _Optional[int] = ...) -> None: ...

class GetTurnAttentionResponse(_message.Message):
    __slots__ = ("to_act", "seat", "player_id", "deadline", "streaming", "rules", "server_time")
    TO_ACT_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_FIELD_NUMBER: _ClassVar[int]
    STREAMING_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    SERVER_TIME_FIELD_NUMBER: _ClassVar[int]
    to_act: bool
    seat: int
    player_id: str
    deadline: _timestamp_pb2.Timestamp
    streaming: bool
    rules: str
    server_time: _timestamp_pb2.Timestamp
    def __init__(self, to_act: _Optional[bool] = ..., seat: _Optional[int] = ..., player_id: _Optional[str] = ..., deadline: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., streaming: _Optional[bool] = ..., rules: _Optional[str] = ..., server_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ListPlayingNowRequest(_message.Message):
    __slots__ = ("player_ids",)
    PLAYER_IDS_FIELD_NUMBER: _ClassVar[int]
    player_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, player_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class PlayingNow(_message.Message):
    __slots__ = ("player_id", "match_id", "rules", "watchable")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    WATCHABLE_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    match_id: str
    rules: str
    watchable: bool
    def __init__(self, player_id: _Optional[str] = ..., match_id: _Optional[str] = ..., rules: _Optional[str] = ..., watchable: _Optional[bool] = ...) -> None: ...

class ListPlayingNowResponse(_message.Message):
    __slots__ = ("playing",)
    PLAYING_FIELD_NUMBER: _ClassVar[int]
    playing: _containers.RepeatedCompositeFieldContainer[PlayingNow]
    def __init__(self, playing: _Optional[_Iterable[_Union[PlayingNow, _Mapping]]] = ...) -> None: ...

class DescribeMatchEndRequest(_message.Message):
    __slots__ = ("match_id",)
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    def __init__(self, match_id: _Optional[str] = ...) -> None: ...

class SeatOutcome(_message.Message):
    __slots__ = ("seat", "player_id", "won", "points", "opponent_points", "rating_before", "rating_after")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    WON_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    OPPONENT_POINTS_FIELD_NUMBER: _ClassVar[int]
    RATING_BEFORE_FIELD_NUMBER: _ClassVar[int]
    RATING_AFTER_FIELD_NUMBER: _ClassVar[int]
    seat: int
    player_id: str
    won: bool
    points: int
    opponent_points: int
    rating_before: float
    rating_after: float
    def __init__(self, seat: _Optional[int] = ..., player_id: _Optional[str] = ..., won: _Optional[bool] = ..., points: _Optional[int] = ..., opponent_points: _Optional[int] = ..., rating_before: _Optional[float] = ..., rating_after: _Optional[float] = ...) -> None: ...

class DescribeMatchEndResponse(_message.Message):
    __slots__ = ("match_id", "rules", "rated", "seats", "ended_at")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    RATED_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    ENDED_AT_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    rules: str
    rated: bool
    seats: _containers.RepeatedCompositeFieldContainer[SeatOutcome]
    ended_at: _timestamp_pb2.Timestamp
    def __init__(self, match_id: _Optional[str] = ..., rules: _Optional[str] = ..., rated: _Optional[bool] = ..., seats: _Optional[_Iterable[_Union[SeatOutcome, _Mapping]]] = ..., ended_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...
