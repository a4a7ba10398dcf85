import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class MatchState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MATCH_STATE_UNSPECIFIED: _ClassVar[MatchState]
    MATCH_STATE_IN_PLAY: _ClassVar[MatchState]
    MATCH_STATE_FINISHED: _ClassVar[MatchState]
MATCH_STATE_UNSPECIFIED: MatchState
MATCH_STATE_IN_PLAY: MatchState
MATCH_STATE_FINISHED: MatchState

class ListMatchesRequest(_message.Message):
    __slots__ = ("state", "rules", "variant", "player_id", "started_after", "started_before", "page_size", "page_token", "match_id")
    STATE_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    STARTED_AFTER_FIELD_NUMBER: _ClassVar[int]
    STARTED_BEFORE_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    state: MatchState
    rules: str
    variant: str
    player_id: str
    started_after: _timestamp_pb2.Timestamp
    started_before: _timestamp_pb2.Timestamp
    page_size: int
    page_token: str
    match_id: str
    def __init__(self, state: _Optional[_Union[MatchState, str]] = ..., rules: _Optional[str] = ..., variant: _Optional[str] = ..., player_id: _Optional[str] = ..., started_after: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., started_before: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ..., match_id: _Optional[str] = ...) -> None: ...

class ListMatchesResponse(_message.Message):
    __slots__ = ("matches", "next_page_token")
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    matches: _containers.RepeatedCompositeFieldContainer[MatchListing]
    next_page_token: str
    def __init__(self, matches: _Optional[_Iterable[_Union[MatchListing, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class MatchListing(_message.Message):
    __slots__ = ("match_id", "rules", "variant", "teams", "player_ids", "state", "scores", "started_at", "ended_at", "version", "rated")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    TEAMS_FIELD_NUMBER: _ClassVar[int]
    PLAYER_IDS_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    STARTED_AT_FIELD_NUMBER: _ClassVar[int]
    ENDED_AT_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    RATED_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    rules: str
    variant: str
    teams: bool
    player_ids: _containers.RepeatedScalarFieldContainer[str]
    state: MatchState
    scores: _containers.RepeatedScalarFieldContainer[int]
    started_at: _timestamp_pb2.Timestamp
    ended_at: _timestamp_pb2.Timestamp
    version: int
    rated: bool
    def __init__(self, match_id: _Optional[str] = ..., rules: _Optional[str] = ..., variant: _Optional[str] = ..., teams: _Optional[bool] = ..., player_ids: _Optional[_Iterable[str]] = ..., state: _Optional[_Union[MatchState, str]] = ..., scores: _Optional[_Iterable[int]] = ..., started_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., ended_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., version: _Optional[int] = ..., rated: _Optional[bool] = ...) -> None: ...

class DescribePlayerPlayRequest(_message.Message):
    __slots__ = ("player_id", "recent")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    RECENT_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    recent: int
    def __init__(self, player_id: _Optional[str] = ..., recent: _Optional[int] = ...) -> None: ...

class DescribePlayerPlayResponse(_message.Message):
    __slots__ = ("ratings", "recent_matches")
    RATINGS_FIELD_NUMBER: _ClassVar[int]
    RECENT_MATCHES_FIELD_NUMBER: _ClassVar[int]
    ratings: _containers.RepeatedCompositeFieldContainer[FamilyRating]
    recent_matches: _containers.RepeatedCompositeFieldContainer[MatchListing]
    def __init__(self, ratings: _Optional[_Iterable[_Union[FamilyRating, _Mapping]]] = ..., recent_matches: _Optional[_Iterable[_Union[MatchListing, _Mapping]]] = ...) -> None: ...

class FamilyRating(_message.Message):
    __slots__ = ("rules", "teams", "mu", "sigma", "ordinal", "matches", "rank")
    RULES_FIELD_NUMBER: _ClassVar[int]
    TEAMS_FIELD_NUMBER: _ClassVar[int]
    MU_FIELD_NUMBER: _ClassVar[int]
    SIGMA_FIELD_NUMBER: _ClassVar[int]
    ORDINAL_FIELD_NUMBER: _ClassVar[int]
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    RANK_FIELD_NUMBER: _ClassVar[int]
    rules: str
    teams: bool
    mu: float
    sigma: float
    ordinal: float
    matches: int
    rank: int
    def __init__(self, rules: _Optional[str] = ..., teams: _Optional[bool] = ..., mu: _Optional[float] = ..., sigma: _Optional[float] = ..., ordinal: _Optional[float] = ..., matches: _Optional[int] = ..., rank: _Optional[int] = ...) -> None: ...
