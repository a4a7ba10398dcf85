"""The public gRPC API as the client uses it: bearer token on every call, statuses turned
into ``ApiError`` with the server's own message and the reason its details give
(services/common/error_details.py), commands retried with their request id while the server
cannot be reached (a retry with the same request_id changes nothing).

Channels are plaintext for the local system (`domino up`), or TLS for the public host
(the Gateway of deploy/k8s, `domino play --tls` / `--ca`); either way they ping the server
as its policy allows (services/common/grpc_server.py), so an idle connection survives the
NATs of mobile networks and a dead one is noticed."""

from __future__ import annotations

import time
import uuid
from dataclasses import replace
from pathlib import Path
from typing import Protocol, cast

import grpc
import jwt

from domino.match.v1 import match_service_pb2 as pb
from domino.match.v1 import match_service_pb2_grpc as pb_grpc
from domino.matchmaking.v1 import matchmaking_service_pb2 as mm
from domino.matchmaking.v1 import matchmaking_service_pb2_grpc as mm_grpc

from services.common import rule_options
from services.common.error_details import Details, details_of

from . import families
from .families import Setup

CALL_TIMEOUT = 10.0
PROBE_TIMEOUT = 1.5  # `domino play` checks the services answer before asking anything
PRESENCE_TIMEOUT = 3.0  # the menu asks where the player is each time it is shown
RETRYABLE = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)
#: Refusals that ask to be sent again with the same request id, after RetryInfo's delay: a
#: lost race (CONFLICT) and something the call needs away for now (UNAVAILABLE).
CALL_AGAIN = ("CONFLICT", "UNAVAILABLE")
MAX_RETRY_WAIT = 5.0  # seconds: a longer RetryInfo delay is the player's to wait, not a call's
# A player waits at the screen: after an outage, try the server again every two seconds at
# most (gRPC's default backoff grows to two minutes).
BACKOFF_OPTIONS = [("grpc.initial_reconnect_backoff_ms", 250), ("grpc.min_reconnect_backoff_ms", 250),
                   ("grpc.max_reconnect_backoff_ms", 2000)]
#: Keepalive: a ping a minute, with or without calls open, answered within 20 s or the
#: connection is dropped and made again. The servers accept a ping every 30 s at most
#: (DOMINO_GRPC_MIN_PING_INTERVAL_SECONDS, services/common/config.py), also on a connection
#: with no call; pinging more often would get this client sent away (GOAWAY ENHANCE_YOUR_CALM).
KEEPALIVE_SECONDS = 60.0
KEEPALIVE_TIMEOUT_SECONDS = 20.0
UNREACHABLE_HINT = "is `domino up` running?"
TLS_UNREACHABLE_HINT = "check the address, and --ca if its certificate is not from a public authority"


def keepalive_options(every: float = KEEPALIVE_SECONDS, timeout: float = KEEPALIVE_TIMEOUT_SECONDS) -> list:
    """The channel arguments of the client's pings."""
    return [("grpc.keepalive_time_ms", round(every * 1000)), ("grpc.keepalive_timeout_ms", round(timeout * 1000)),
            ("grpc.keepalive_permit_without_calls", 1),
            ("grpc.http2.max_pings_without_data", 0)]  # keep pinging while a watch has no news


CHANNEL_OPTIONS = BACKOFF_OPTIONS + keepalive_options()


def channel_credentials(ca: str | Path | None = None) -> grpc.ChannelCredentials:
    """TLS: the server's certificate checked against the PEM certificates in file ``ca``, or
    against gRPC's built-in public roots when there is none."""
    return grpc.ssl_channel_credentials(root_certificates=Path(ca).read_bytes() if ca else None)


def open_channel(address: str, credentials: grpc.ChannelCredentials | None = None,
                 options: list = CHANNEL_OPTIONS) -> grpc.Channel:
    """A plaintext channel, or a TLS one with ``credentials`` (``channel_credentials``)."""
    if credentials is None:
        return grpc.insecure_channel(address, options=options)
    return grpc.secure_channel(address, credentials, options=options)


class ApiError(Exception):
    """A refused call: its code, the server's message (for people), and the ErrorInfo reason
    the client branches on ("" when no server answered)."""

    def __init__(self, code: grpc.StatusCode, message: str, address: str = "", hint: str = UNREACHABLE_HINT,
                 details: Details = Details()) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.address = address
        self.hint = hint
        self.reason = details.reason
        self.fields = details.fields
        self.retry_after = details.retry_after

    @property
    def unreachable(self) -> bool:
        return self.code in RETRYABLE

    @property
    def call_again(self) -> bool:
        """The call may be sent again as it was: no server answered, or one asked for it."""
        return self.unreachable or self.reason in CALL_AGAIN

    def __str__(self) -> str:
        if self.code == grpc.StatusCode.UNAVAILABLE:
            return f"cannot reach {self.address or 'the server'} ({self.hint})"
        return self.message or self.code.name


def subject_of(token: str) -> str:
    """The player id a token speaks for (read, not verified: the server verifies it)."""
    try:
        return jwt.decode(token, options={"verify_signature": False}).get("sub", "")
    except jwt.PyJWTError:
        return ""


def request_id() -> str:
    return str(uuid.uuid4())


class TokenSource(Protocol):
    """Where a stub gets the bearer token of each call (session.Session, session.LocalTokens):
    ``source()`` the current one, fresh enough to use; ``source(stale)`` one newer than
    ``stale``, which the server just refused as expired."""

    def __call__(self, stale: str | None = None) -> str: ...


class TokenExpired(Exception):
    """A stream the server ended because its token expired (the token was renewed already):
    the Pump opens it again at once, with nothing on screen."""


def expired(error: ApiError) -> bool:
    """Whether the server refused a call, or ended a stream, because its token expired (and
    not for a token it does not accept at all)."""
    return error.reason == "TOKEN_EXPIRED"


class _Stub:
    def __init__(self, address: str, token: str | TokenSource, retries: int = 4, retry_pause: float = 0.25,
                 credentials: grpc.ChannelCredentials | None = None) -> None:
        """``token``: a fixed one (`--token`), or a TokenSource that renews them, so a call
        refused for an expired token is renewed and sent again once. ``credentials``: TLS
        (``channel_credentials``); None: plaintext, the local system."""
        self.address = address
        self.tls = credentials is not None
        self.tokens: TokenSource | None = None if isinstance(token, str) else token
        self.fixed = token if isinstance(token, str) else ""
        self.channel = open_channel(address, credentials)
        self.retries = retries
        self.retry_pause = retry_pause

    def use(self, tokens: TokenSource) -> None:
        """Renewing tokens from now on: a device's session is signed in once the services
        are known to answer, after the stubs were made to ask them."""
        self.tokens = tokens

    def token(self, stale: str | None = None) -> str:
        """The bearer token to send now (ApiError when a new one cannot be had)."""
        return self.tokens(stale) if self.tokens is not None else self.fixed

    def _error(self, e: grpc.RpcError) -> ApiError:
        return ApiError(e.code(), e.details() or "", self.address, TLS_UNREACHABLE_HINT if self.tls else UNREACHABLE_HINT,
                        details_of(e))

    def call(self, method, request, retry: bool = False, timeout: float = CALL_TIMEOUT, auth: bool = True):
        """One unary call; with ``retry`` (idempotent calls) one no server answered, or one
        refused as CONFLICT or UNAVAILABLE, is sent again, after the refusal's RetryInfo delay
        when it gives one. Refused for an expired token, it is sent once more with a renewed
        one: the refusal changed nothing, so even a call without a request id may go again.
        ``auth``: False for the calls that carry their own credentials (sign-ins)."""
        attempts = self.retries if retry else 1
        attempt, renewed = 0, False
        stale: str | None = None
        while True:
            try:
                token = self.token(stale) if auth else ""
                return method(request, metadata=_bearer(token) if auth else (), timeout=timeout)
            except grpc.RpcError as e:
                error = self._error(e)
            except ApiError as e:  # no token to be had (the account service did not answer)
                error, token = e, ""
            if auth and self.tokens is not None and not renewed and expired(error):
                renewed, stale = True, token
                continue
            stale = None
            if not (error.call_again and attempt + 1 < attempts):
                raise error
            wait = error.retry_after if error.retry_after is not None else self.retry_pause * (attempt + 1)
            time.sleep(min(wait, MAX_RETRY_WAIT))
            attempt += 1

    def stream(self, method, request) -> "Stream":
        """A server stream with the current token. One that ends because the token expired
        renews it and raises TokenExpired, for the Pump to open it again."""
        token = self.token()
        return Stream(method(request, metadata=_bearer(token)), self, token)

    def reachable(self, timeout: float = PROBE_TIMEOUT) -> bool:
        """Whether the service answers at all: one call with a short deadline and an empty
        request. Any answer, a refusal included, proves it is there; only UNAVAILABLE or a
        missed deadline says it is not. No token is asked for: a sign-in must not come first."""
        method, request = self._probe()
        try:
            method(request, metadata=_bearer(self.fixed) if self.fixed else (), timeout=timeout)
        except grpc.RpcError as e:
            return e.code() not in RETRYABLE
        return True

    def _probe(self):
        raise NotImplementedError

    def close(self) -> None:
        self.channel.close()


class Stream:
    """A streaming call as the Pump reads it: iterate it, ``cancel()`` it. An end for an
    expired token becomes TokenExpired once a newer token is there (a fixed one cannot be
    renewed: its stream ends UNAUTHENTICATED, as any refusal)."""

    def __init__(self, call, stub: _Stub, token: str) -> None:
        self.call = call
        self.stub = stub
        self.token = token

    def __iter__(self):
        try:
            yield from self.call
        except grpc.RpcError as e:
            error = self.stub._error(e)
            if self.stub.tokens is None or not expired(error):
                raise
            self.stub.token(self.token)  # renewed now: ApiError when it cannot be
            raise TokenExpired(error.message) from None

    def cancel(self) -> None:
        self.call.cancel()

    def __getattr__(self, name: str):
        return getattr(self.call, name)


def _bearer(token: str) -> tuple:
    return (("authorization", f"Bearer {token}"),)


class MatchApi(_Stub):
    def __init__(self, address: str, token: str | TokenSource, **kw) -> None:
        super().__init__(address, token, **kw)
        self.stub = pb_grpc.MatchServiceStub(self.channel)
        self._rules: families.Rules | None = None
        self.described: pb.DescribeRulesResponse | None = None  # the answer as it came (rules_cache.py keeps it)
        self._head_keys: pb.GetHeadKeysResponse | None = None

    def rules(self) -> families.Rules:
        """What the server plays (DescribeRules), asked once per session and used by every
        screen from then on (families.use); a refusal is the caller's to tell (ApiError)."""
        if self._rules is None:
            self.described = self.call(self.stub.DescribeRules, pb.DescribeRulesRequest(), retry=True)
            self._rules = families.Rules.of(self.described)
        families.use(self._rules)
        return self._rules

    def head_keys(self) -> pb.GetHeadKeysResponse:
        """The keys the match heads are signed with (GetHeadKeys, no token needed), asked once
        per session: every key ever used stays published, so only a rotation mid-session
        makes it stale (``forget_head_keys``, when a head names a key not listed)."""
        if self._head_keys is None:
            self._head_keys = self.call(self.stub.GetHeadKeys, pb.GetHeadKeysRequest(), retry=True, auth=False)
        return self._head_keys

    def forget_head_keys(self) -> None:
        """The next ``head_keys()`` asks the server again (a head named a key not listed)."""
        self._head_keys = None

    def get(self, match_id: str, retry: bool = True) -> pb.MatchView:
        return self.call(self.stub.GetMatch, pb.GetMatchRequest(match_id=match_id), retry=retry).view

    def play(self, match_id: str, tile: tuple[int, int], end: int, rid: str | None = None) -> pb.PlayTileResponse:
        request = pb.PlayTileRequest(match_id=match_id, request_id=rid or request_id(),
                                     tile=pb.Tile(low=tile[1], high=tile[0]), end=cast(pb.End, end))
        return self.call(self.stub.PlayTile, request, retry=True)

    def draw(self, match_id: str, rid: str | None = None) -> pb.DrawTileResponse:
        request = pb.DrawTileRequest(match_id=match_id, request_id=rid or request_id())
        return self.call(self.stub.DrawTile, request, retry=True)

    def submit_seed(self, match_id: str, seed: str) -> pb.MatchView:
        return self.call(self.stub.SubmitSeed, pb.SubmitSeedRequest(match_id=match_id, seed=seed), retry=True).view

    def leave(self, match_id: str) -> pb.MatchView:
        return self.call(self.stub.LeaveMatch, pb.LeaveMatchRequest(match_id=match_id), retry=True).view

    def resume(self, match_id: str) -> pb.MatchView:
        return self.call(self.stub.ResumeSeat, pb.ResumeSeatRequest(match_id=match_id), retry=True).view

    def watch(self, match_id: str, from_version: int):
        """The WatchMatch call (iterate it; ``cancel()`` ends it)."""
        return self.stream(self.stub.WatchMatch, pb.WatchMatchRequest(match_id=match_id, from_version=from_version))

    def export(self, match_id: str) -> str:
        """The match's domino-record/1 JSON as the caller's seat may see it (docs/record.md)."""
        return self.call(self.stub.ExportMatch, pb.ExportMatchRequest(match_id=match_id), retry=True).record_json

    def send_chat(self, match_id: str, phrase: int) -> None:
        """One quick-chat phrase (a ChatPhrase of DescribeRules' chat_phrases) to the table. Not
        retried: it carries no request id, and a phrase lost to an outage is better than one
        said twice."""
        self.call(self.stub.SendChat, pb.SendChatRequest(match_id=match_id, chat_phrase=cast(pb.ChatPhrase, phrase)))

    def my_matches(self, page_size: int = 10, page_token: str = "") -> pb.ListMyMatchesResponse:
        """A page of the caller's matches, newest first (``next_page_token`` for the next)."""
        request = pb.ListMyMatchesRequest(page_size=page_size, page_token=page_token)
        return self.call(self.stub.ListMyMatches, request, retry=True)

    def rating(self, rules: str, teams: bool, player_id: str = "") -> pb.GetRatingResponse:
        """A player's rating in a family and team setting (empty ``player_id``: the caller)."""
        request = pb.GetRatingRequest(player_id=player_id, rules=rules, teams=teams)
        return self.call(self.stub.GetRating, request, retry=True)

    def leaderboard(self, rules: str, teams: bool, top: int = 10) -> pb.GetLeaderboardResponse:
        request = pb.GetLeaderboardRequest(rules=rules, teams=teams, top=top)
        return self.call(self.stub.GetLeaderboard, request, retry=True)

    def _probe(self):
        return self.stub.GetMatch, pb.GetMatchRequest()


class MatchmakingApi(_Stub):
    def __init__(self, address: str, token: str | TokenSource, **kw) -> None:
        super().__init__(address, token, **kw)
        self.stub = mm_grpc.MatchmakingServiceStub(self.channel)

    def start_practice(self, setup: Setup, strength: str, turn_timer: int | None = None) -> mm.StartPracticeResponse:
        """``strength``: a strength's name as DescribeRules gives it ("": the server's default)."""
        request = mm.StartPracticeRequest(request_id=request_id(), bot_strength=_strength(strength))
        _setup(request, setup)
        _optional(request, turn_timer_seconds=turn_timer)
        return self.call(self.stub.StartPractice, request, retry=True)

    def request_table(self, setup: Setup) -> mm.TicketView:
        """Public tables play the family's default target and options."""
        request = mm.RequestTableRequest(request_id=request_id())
        _setup(request, replace(setup, target=None, host_options=None))
        return self.call(self.stub.RequestTable, request, retry=True).ticket

    def get_ticket(self, ticket_id: str) -> mm.TicketView:
        return self.call(self.stub.GetTicket, mm.GetTicketRequest(ticket_id=ticket_id), retry=True).ticket

    def watch_ticket(self, ticket_id: str, from_version: int = 0):
        """The ticket's changes after ``from_version`` (0: its current state first)."""
        return self.stream(self.stub.WatchTicket, mm.WatchTicketRequest(ticket_id=ticket_id, from_version=from_version))

    def cancel_ticket(self, ticket_id: str) -> mm.TicketView:
        return self.call(self.stub.CancelTicket, mm.CancelTicketRequest(ticket_id=ticket_id), retry=True).ticket

    def create_room(self, setup: Setup, turn_timer: int | None = None, seat: int | None = None,
                    spectators: bool | None = None) -> mm.RoomView:
        request = mm.CreateRoomRequest(request_id=request_id())
        _setup(request, setup)
        _optional(request, turn_timer_seconds=turn_timer, seat=seat, spectators=spectators)
        return self.call(self.stub.CreateRoom, request, retry=True).room

    def update_room_options(self, room_id: str, rules: str | None = None, variant: str | None = None,
                            seats: int | None = None, teams: bool | None = None, target: int | None = None,
                            turn_timer: int | None = None, host_options: dict | None = None,
                            spectators: bool | None = None) -> mm.RoomView:
        """Host only, before the start: changes the options given; the others stay."""
        request = mm.UpdateRoomOptionsRequest(room_id=room_id)
        _optional(request, rules=rules, variant=variant, seat_count=seats, teams=teams, target=target,
                  turn_timer_seconds=turn_timer, spectators=spectators)
        request.rule_options.extend(rule_options.settings_pb(host_options))
        return self.call(self.stub.UpdateRoomOptions, request).room

    def room_by_code(self, code: str) -> mm.RoomView:
        return self.call(self.stub.GetRoom, mm.GetRoomRequest(code=code)).room

    def room(self, room_id: str) -> mm.RoomView:
        return self.call(self.stub.GetRoom, mm.GetRoomRequest(room_id=room_id), retry=True).room

    def join_room(self, code: str, seat: int | None = None) -> mm.RoomView:
        request = mm.JoinRoomRequest(code=code)
        _optional(request, seat=seat)
        return self.call(self.stub.JoinRoom, request).room

    def leave_room(self, room_id: str) -> mm.RoomView:
        return self.call(self.stub.LeaveRoom, mm.LeaveRoomRequest(room_id=room_id)).room

    def change_seat(self, room_id: str, seat: int) -> mm.RoomView:
        return self.call(self.stub.ChangeSeat, mm.ChangeSeatRequest(room_id=room_id, seat=seat)).room

    def add_bot(self, room_id: str, strength: str, seat: int | None = None) -> mm.RoomView:
        """``strength``: a strength's name as DescribeRules gives it ("": the server's default)."""
        request = mm.AddBotRequest(room_id=room_id, bot_strength=_strength(strength))
        _optional(request, seat=seat)
        return self.call(self.stub.AddBot, request).room

    def remove_bot(self, room_id: str, seat: int) -> mm.RoomView:
        return self.call(self.stub.RemoveBot, mm.RemoveBotRequest(room_id=room_id, seat=seat)).room

    def start_room(self, room_id: str) -> mm.RoomView:
        return self.call(self.stub.StartRoom, mm.StartRoomRequest(room_id=room_id), retry=True).room

    def watch_room(self, room_id: str, from_version: int = 0):
        return self.stream(self.stub.WatchRoom, mm.WatchRoomRequest(room_id=room_id, from_version=from_version))

    def invite(self, room_id: str, player_ids: list[str]) -> list[mm.RoomInvite]:
        """Friends to the caller's room; retried with its request id (inviting again answers
        the pending invite)."""
        request = mm.InviteToRoomRequest(request_id=request_id(), room_id=room_id, player_ids=player_ids)
        return list(self.call(self.stub.InviteToRoom, request, retry=True).invites)

    def get_invite(self, invite_id: str) -> mm.GetInviteResponse:
        return self.call(self.stub.GetInvite, mm.GetInviteRequest(invite_id=invite_id), retry=True)

    def answer_invite(self, invite_id: str, accept: bool) -> mm.AnswerInviteResponse:
        """Answering again the same way answers as the first time: retried."""
        return self.call(self.stub.AnswerInvite, mm.AnswerInviteRequest(invite_id=invite_id, accept=accept),
                         retry=True)

    def request_rematch(self, match_id: str) -> mm.RoomView:
        """"Play again": the rematch room (made by the first to ask; idempotent per match)."""
        return self.call(self.stub.RequestRematch, mm.RequestRematchRequest(match_id=match_id), retry=True).room

    def presence(self, timeout: float = PRESENCE_TIMEOUT) -> mm.GetPresenceResponse:
        """Where matchmaking says the caller is: a room, a waiting ticket, a table and its
        match, or nowhere (no ``place``). Asked once, briefly: the menu falls back on what
        this machine remembers when matchmaking does not answer."""
        return self.call(self.stub.GetPresence, mm.GetPresenceRequest(), timeout=timeout)

    def _probe(self):
        return self.stub.GetTicket, mm.GetTicketRequest()


def _strength(name: str) -> pb.BotStrength:
    return cast(pb.BotStrength, families.current().strength_value(name)) if name else pb.BOT_STRENGTH_UNSPECIFIED


def _optional(request, **fields) -> None:
    for name, value in fields.items():
        if value is not None:
            setattr(request, name, value)


def _setup(request, setup: Setup) -> None:
    """The family and its options into a CreateRoom, RequestTable or StartPractice request;
    unset ones are left out, so the server takes its defaults."""
    request.rules = setup.rules
    request.variant = setup.variant
    _optional(request, seat_count=setup.seats, teams=setup.teams)
    if hasattr(request, "target"):
        _optional(request, target=setup.target)
    if hasattr(request, "rule_options"):
        request.rule_options.extend(rule_options.settings_pb(setup.host_options))
