"""SocialService over gRPC: protobuf in, use cases out of the event loop, protobuf out.

Only this module knows status codes. Every call needs a person's `player` token (bots,
services and auditors are WRONG_CALLER), of a session the account service has not revoked
(``revocations``), and is rate-limited per player; then the request's own fields are
checked, in field order, before anything they name is looked up (docs/api.md, "Validation
order"). ExportPlayerData and ErasePlayer are the account service's alone: its `account`
token, `sub` "accounts", and no other."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any, Callable, TypeVar

import grpc
from google.protobuf.timestamp_pb2 import Timestamp

from domino.social.v1 import social_service_pb2 as pb
from domino.social.v1 import social_service_pb2_grpc as pb_grpc
from services.common.auth import AuthError, Identity, KeyRing, bearer_identity
from services.common.bot_ids import is_bot
from services.common.grpc_status import ErrorStatuses
from services.common.limits import RateLimit, TooMany
from services.common.revocations import Revocations

from .push_rpcs import PushRpcs
from .errors import AccountsUnavailable, Busy, Exhausted, InvalidRequest, NotFound, Refused, RequestIdReused
from .use_cases import BlockView, FriendView, RequestView, Social, Target

if TYPE_CHECKING:
    from typing import TypeAlias

    Context: TypeAlias = grpc.aio.ServicerContext[Any, Any]

DOMAIN = "domino.social"
ACCOUNT_SERVICE = "accounts"  # the `sub` of the account service's `account` token
log = logging.getLogger("domino.social")
_STATUS = [
    (AuthError, grpc.StatusCode.UNAUTHENTICATED),
    (InvalidRequest, grpc.StatusCode.INVALID_ARGUMENT),
    (RequestIdReused, grpc.StatusCode.INVALID_ARGUMENT),
    (NotFound, grpc.StatusCode.NOT_FOUND),
    (Refused, grpc.StatusCode.FAILED_PRECONDITION),
    (Exhausted, grpc.StatusCode.RESOURCE_EXHAUSTED),
    (TooMany, grpc.StatusCode.RESOURCE_EXHAUSTED),
    (Busy, grpc.StatusCode.ABORTED),
    (AccountsUnavailable, grpc.StatusCode.UNAVAILABLE),
]
_DIRECTIONS = {pb.FRIEND_REQUEST_DIRECTION_UNSPECIFIED: (True, True),
               pb.FRIEND_REQUEST_DIRECTION_INCOMING: (True, False),
               pb.FRIEND_REQUEST_DIRECTION_OUTGOING: (False, True)}
T = TypeVar("T")


class SocialServicer(PushRpcs, pb_grpc.SocialServiceServicer):
    def __init__(self, social: Social, keys: KeyRing, rates: RateLimit | None = None,
                 revocations: Revocations | None = None) -> None:
        self.social = social
        self.keys = keys
        self.rates = rates or RateLimit()
        self.revocations = revocations or Revocations()

    async def GetFriendCode(self, request: pb.GetFriendCodeRequest, context: Context) -> pb.GetFriendCodeResponse:
        async with _statuses(context):
            code = await _run(self.social.friend_code, self._player(context))
            return pb.GetFriendCodeResponse(friend_code=code)

    async def SendFriendRequest(self, request: pb.SendFriendRequestRequest,
                                context: Context) -> pb.SendFriendRequestResponse:
        async with _statuses(context):
            who = self._player(context)
            named = request.WhichOneof("target")
            target = Target(display_name=request.display_name if named == "display_name" else "",
                            friend_code=request.friend_code if named == "friend_code" else "")
            outcome = await _run(self.social.send_request, who, request.request_id, target)
            if outcome.friend is not None:
                return pb.SendFriendRequestResponse(outcome=pb.SEND_OUTCOME_BECAME_FRIENDS,
                                                    friend=friend_pb(outcome.friend))
            assert outcome.request is not None
            return pb.SendFriendRequestResponse(outcome=pb.SEND_OUTCOME_REQUEST_SENT,
                                                request=request_pb(outcome.request))

    async def AcceptFriendRequest(self, request: pb.AcceptFriendRequestRequest,
                                  context: Context) -> pb.AcceptFriendRequestResponse:
        async with _statuses(context):
            friend = await _run(self.social.accept, self._player(context), request.player_id)
            return pb.AcceptFriendRequestResponse(friend=friend_pb(friend))

    async def DeclineFriendRequest(self, request: pb.DeclineFriendRequestRequest,
                                   context: Context) -> pb.DeclineFriendRequestResponse:
        async with _statuses(context):
            await _run(self.social.decline, self._player(context), request.player_id)
            return pb.DeclineFriendRequestResponse()

    async def CancelFriendRequest(self, request: pb.CancelFriendRequestRequest,
                                  context: Context) -> pb.CancelFriendRequestResponse:
        async with _statuses(context):
            await _run(self.social.cancel, self._player(context), request.player_id)
            return pb.CancelFriendRequestResponse()

    async def RemoveFriend(self, request: pb.RemoveFriendRequest, context: Context) -> pb.RemoveFriendResponse:
        async with _statuses(context):
            removed = await _run(self.social.remove_friend, self._player(context), request.player_id)
            return pb.RemoveFriendResponse(removed=removed)

    async def BlockPlayer(self, request: pb.BlockPlayerRequest, context: Context) -> pb.BlockPlayerResponse:
        async with _statuses(context):
            blocked = await _run(self.social.block, self._player(context), request.player_id)
            return pb.BlockPlayerResponse(blocked=block_pb(blocked))

    async def UnblockPlayer(self, request: pb.UnblockPlayerRequest, context: Context) -> pb.UnblockPlayerResponse:
        async with _statuses(context):
            unblocked = await _run(self.social.unblock, self._player(context), request.player_id)
            return pb.UnblockPlayerResponse(unblocked=unblocked)

    async def ListFriends(self, request: pb.ListFriendsRequest, context: Context) -> pb.ListFriendsResponse:
        async with _statuses(context):
            page = await _run(self.social.friends, self._player(context), request.page_size, request.page_token)
            return pb.ListFriendsResponse(friends=[friend_pb(f) for f in page.items],
                                          next_page_token=page.next_page_token)

    async def ListFriendRequests(self, request: pb.ListFriendRequestsRequest,
                                 context: Context) -> pb.ListFriendRequestsResponse:
        async with _statuses(context):
            who = self._player(context)
            if request.direction not in _DIRECTIONS:
                raise InvalidRequest("direction is not one this server knows", "direction")
            incoming, outgoing = _DIRECTIONS[request.direction]
            page = await _run(self.social.requests, who, incoming, outgoing, request.page_size, request.page_token)
            return pb.ListFriendRequestsResponse(requests=[request_pb(r) for r in page.items],
                                                 next_page_token=page.next_page_token)

    async def ListBlockedPlayers(self, request: pb.ListBlockedPlayersRequest,
                                 context: Context) -> pb.ListBlockedPlayersResponse:
        async with _statuses(context):
            page = await _run(self.social.blocks, self._player(context), request.page_size, request.page_token)
            return pb.ListBlockedPlayersResponse(blocked=[block_pb(b) for b in page.items],
                                                 next_page_token=page.next_page_token)

    async def ExportPlayerData(self, request: pb.ExportPlayerDataRequest,
                               context: Context) -> pb.ExportPlayerDataResponse:
        async with _statuses(context):
            self._account_service(context)
            data = await _run(self.social.export, request.player_id)
            reply = pb.ExportPlayerDataResponse(friend_code=data.friend_code,
                                                friends=[friend_pb(f) for f in data.friends],
                                                requests=[request_pb(r) for r in data.requests],
                                                blocked=[block_pb(b) for b in data.blocks])
            if data.friend_code_created_at is not None:
                reply.friend_code_created_at.CopyFrom(_timestamp(data.friend_code_created_at))
            return reply

    async def ErasePlayer(self, request: pb.ErasePlayerRequest, context: Context) -> pb.ErasePlayerResponse:
        async with _statuses(context):
            self._account_service(context)
            return pb.ErasePlayerResponse(rows=await _run(self.social.erase, request.player_id))

    def _account_service(self, context: Context) -> None:
        """Only the account service's own `account` token (services/accounts/social_client.py)."""
        who: Identity = bearer_identity(context.invocation_metadata(), self.keys)
        if who.role != "account" or who.subject != ACCOUNT_SERVICE:
            raise AuthError("only the account service exports or erases a player's social data", "WRONG_CALLER")

    def _player(self, context: Context) -> str:
        return self._caller(context).subject

    def _caller(self, context: Context) -> Identity:
        """A person's identity (its session included), checked, revocation and rate included."""
        who: Identity = bearer_identity(context.invocation_metadata(), self.keys)
        self.revocations.check(who)
        if who.role != "player" or is_bot(who.subject):
            raise AuthError("friends are for players: this call needs a player's token", "WRONG_CALLER")
        self.rates.take(who.subject)
        return who


async def _run(call: Callable[..., T], *args: Any) -> T:
    """The store and the account service are blocking: the use cases run on threads."""
    return await asyncio.to_thread(call, *args)


def _statuses(context: Context) -> ErrorStatuses:
    return ErrorStatuses(context, _STATUS, DOMAIN, unexpected=log)


def _timestamp(seconds: float) -> Timestamp:
    stamp = Timestamp()
    stamp.FromNanoseconds(int(seconds * 1e9))
    return stamp


def friend_pb(view: FriendView) -> pb.Friend:
    return pb.Friend(player_id=view.player_id, since=_timestamp(view.since))


def request_pb(view: RequestView) -> pb.FriendRequest:
    direction = pb.FRIEND_REQUEST_DIRECTION_INCOMING if view.incoming else pb.FRIEND_REQUEST_DIRECTION_OUTGOING
    return pb.FriendRequest(player_id=view.player_id, direction=direction, sent_at=_timestamp(view.sent_at))


def block_pb(view: BlockView) -> pb.BlockedPlayer:
    return pb.BlockedPlayer(player_id=view.player_id, blocked_at=_timestamp(view.blocked_at))
