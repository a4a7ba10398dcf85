"""SocialService over gRPC: protobuf in, use cases out of the event loop, protobuf out.

Only this module knows status codes. Every call needs a person's `player` token (bots,
services and auditors are WRONG_CALLER), of a session the account service has not revoked
(``revocations``), and is rate-limited per player; then the request's own fields are
checked, in field order, before anything they name is looked up (docs/api.md, "Validation
order"). ExportPlayerData and ErasePlayer are the account service's alone: its `account`
token, `sub` "accounts", and no other."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import grpc

from domino.social.v1 import social_service_pb2 as pb
from domino.social.v1 import social_service_pb2_grpc as pb_grpc
from services.common.auth import AuthError, Identity, KeyRing, bearer_identity
from services.common.bot_ids import is_bot
from services.common.changes import ChangeFeed
from services.common.limits import RateLimit, StreamLimits
from services.common.revocations import Revocations

from .errors import InvalidRequest
from .inbox_rpcs import InboxRpcs, notification_pb
from .match_client import NobodyPlaying, Playing
from .notice_wakeups import waking_local_streams
from .presence import Presence
from .push_rpcs import PushRpcs, push_target_pb, settings_pb
from .push_tokens import PushExport, Pushes, PushSettings
from .service_rpcs import ServiceRpcs
from .statuses import DOMAIN, STATUS, run, statuses, timestamp  # noqa: F401 - DOMAIN: read by others here
from .use_cases import BlockView, FriendView, RequestView, Social, Target

if TYPE_CHECKING:
    from .statuses import Context

ACCOUNT_SERVICE = "accounts"  # the `sub` of the account service's `account` token
log = logging.getLogger("domino.social")
_STATUS = STATUS
_run = run
_statuses = statuses
_timestamp = timestamp
_DIRECTIONS = {pb.FRIEND_REQUEST_DIRECTION_UNSPECIFIED: (True, True),
               pb.FRIEND_REQUEST_DIRECTION_INCOMING: (True, False),
               pb.FRIEND_REQUEST_DIRECTION_OUTGOING: (False, True)}


class SocialServicer(InboxRpcs, ServiceRpcs, PushRpcs, pb_grpc.SocialServiceServicer):
    def __init__(self, social: Social, keys: KeyRing, rates: RateLimit | None = None,
                 revocations: Revocations | None = None, *, pushes: Pushes | None = None,
                 presence: Presence | None = None,
                 playing: Any = None, wakes: ChangeFeed | None = None, inbox_streams: StreamLimits | None = None,
                 poll_seconds: float = 30.0) -> None:
        self.social = social
        self.keys = keys
        self.rates = rates or RateLimit()
        self.revocations = revocations or Revocations()
        if pushes is None:
            pushes = Pushes(social.store.db, social.clock)
            pushes.create()
        self.pushes = pushes
        self.presence = presence if presence is not None else Presence(social.store.db, social.clock)
        self.playing = playing if playing is not None else NobodyPlaying()
        self.wakes = wakes if wakes is not None else ChangeFeed()
        self.inbox_streams = inbox_streams if inbox_streams is not None else StreamLimits(5, 10000)
        self.poll_seconds = poll_seconds
        social.inbox.listeners.append(waking_local_streams(self.wakes))

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
            ids = [f.player_id for f in page.items]
            seen = await _run(self.presence.of, ids)
            playing = await _run(self.playing.playing, ids)
            return pb.ListFriendsResponse(friends=[friend_pb(f, presence_pb(seen.get(f.player_id, (False, None)),
                                                                            playing.get(f.player_id)))
                                                   for f in page.items],
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
            held = await _run(self.social.inbox.held_for, request.player_id)
            reply = pb.ExportPlayerDataResponse(friend_code=data.friend_code,
                                                friends=[friend_pb(f) for f in data.friends],
                                                requests=[request_pb(r) for r in data.requests],
                                                blocked=[block_pb(b) for b in data.blocks],
                                                notifications=[notification_pb(n) for n in held])
            if data.friend_code_created_at is not None:
                reply.friend_code_created_at.CopyFrom(_timestamp(data.friend_code_created_at))
            _with_pushes(reply, await _run(self.pushes.export, request.player_id))
            return reply

    async def ErasePlayer(self, request: pb.ErasePlayerRequest, context: Context) -> pb.ErasePlayerResponse:
        async with _statuses(context):
            self._account_service(context)
            rows = await _run(self.social.erase, request.player_id)
            rows += await _run(self.pushes.erase, request.player_id)
            return pb.ErasePlayerResponse(rows=rows)

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


def friend_pb(view: FriendView, presence: pb.FriendPresence | None = None) -> pb.Friend:
    friend = pb.Friend(player_id=view.player_id, since=_timestamp(view.since))
    if presence is not None:
        friend.presence.CopyFrom(presence)
    return friend


def presence_pb(seen: tuple[bool, float | None], playing: Playing | None) -> pb.FriendPresence:
    online, last_seen = seen
    if playing is not None:
        presence = pb.FriendPresence(availability=pb.AVAILABILITY_PLAYING, match_id=playing.match_id,
                                     rules=playing.rules, watchable=playing.watchable)
    else:
        presence = pb.FriendPresence(availability=pb.AVAILABILITY_ONLINE if online else pb.AVAILABILITY_OFFLINE)
    if not online and last_seen is not None:
        presence.last_seen.CopyFrom(_timestamp(last_seen))
    return presence


def _with_pushes(reply: pb.ExportPlayerDataResponse, export: PushExport) -> None:
    """Push tokens and settings into the export (settings never changed: left unset)."""
    reply.push_tokens.extend(push_target_pb(t) for t in export.targets)
    if export.settings != PushSettings():
        reply.notification_settings.CopyFrom(settings_pb(export.settings))


def request_pb(view: RequestView) -> pb.FriendRequest:
    direction = pb.FRIEND_REQUEST_DIRECTION_INCOMING if view.incoming else pb.FRIEND_REQUEST_DIRECTION_OUTGOING
    return pb.FriendRequest(player_id=view.player_id, direction=direction, sent_at=_timestamp(view.sent_at))


def block_pb(view: BlockView) -> pb.BlockedPlayer:
    return pb.BlockedPlayer(player_id=view.player_id, blocked_at=_timestamp(view.blocked_at))
