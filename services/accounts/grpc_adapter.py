"""AccountService over gRPC: protobuf in, application calls, protobuf out.

Only this module knows status codes. Sizes are checked before anything else, so an
oversized field is refused without being parsed, then the credentials' form: a malformed
one is refused without counting against anyone's limit. Sign-ins, refreshes and links are
rate-limited per client address (the one the trusted gateway forwarded, an IPv6 one by its
/64: services/common/client_address.py), per device id and per identity: brute force buys
nothing against 256-bit secrets, but a flood must cost its sender, never the phones that
share its gateway. Every other call needs a player access token and is rate-limited per
account, but ListRevokedSessions: the revocation list the match service and matchmaking
poll needs no token (a revoked session id is worth nothing) and is limited per client.

ID tokens are checked on threads of their own (``verifier_threads``): checking may wait on
an issuer's keys, and a slow issuer must not take the threads that device sign-ins and
refreshes run on. When they are all busy, the call is UNAVAILABLE at once.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, Callable, Sequence, TypeVar

import grpc
from google.protobuf.timestamp_pb2 import Timestamp

from domino.account.v1 import account_service_pb2 as pb
from domino.account.v1 import account_service_pb2_grpc as pb_grpc
from services.common.auth import AuthError, Identity, KeyRing, bearer_identity
from services.common.bot_ids import is_bot
from services.common.client_address import Network, client_key
from services.common.grpc_status import ErrorStatuses
from services.common.limits import RateLimit, TooMany
from services.common.oidc import is_compact_jws

from . import credentials, names
from .application import AccountApplication, AccountView, Tokens, VerifiedToken
from .erasure import export_text
from .errors import Banned, Busy, CursorAhead, InvalidRequest, NoSuchPlayer, NotSignedIn, NotStaff, Refused, \
    StaffRoleTooLow, Taken, TooManyTries, Unavailable, UnknownAccount
from .revocation_waits import LONGEST_WAIT_SECONDS, RevocationWaits

if TYPE_CHECKING:
    from typing import TypeAlias

    Context: TypeAlias = grpc.aio.ServicerContext[Any, Any]

_STATUS = [
    (AuthError, grpc.StatusCode.UNAUTHENTICATED),
    (NotSignedIn, grpc.StatusCode.UNAUTHENTICATED),
    (UnknownAccount, grpc.StatusCode.UNAUTHENTICATED),
    (Banned, grpc.StatusCode.PERMISSION_DENIED),
    (InvalidRequest, grpc.StatusCode.INVALID_ARGUMENT),
    (Taken, grpc.StatusCode.ALREADY_EXISTS),
    (Refused, grpc.StatusCode.FAILED_PRECONDITION),
    (Unavailable, grpc.StatusCode.UNAVAILABLE),
    (TooMany, grpc.StatusCode.RESOURCE_EXHAUSTED),
    (TooManyTries, grpc.StatusCode.RESOURCE_EXHAUSTED),
    (Busy, grpc.StatusCode.ABORTED),
    (CursorAhead, grpc.StatusCode.OUT_OF_RANGE),
    (NoSuchPlayer, grpc.StatusCode.NOT_FOUND),
    (NotStaff, grpc.StatusCode.PERMISSION_DENIED),
    (StaffRoleTooLow, grpc.StatusCode.PERMISSION_DENIED),
]
log = logging.getLogger("domino.accounts")
_STANDING = {"active": pb.STANDING_ACTIVE, "unknown": pb.STANDING_UNKNOWN, "banned": pb.STANDING_BANNED,
             "deleted": pb.STANDING_DELETED}
MAX_FIELD = {"device_id": 128, "device_secret": 64, "new_device_secret": 64, "display_name": 80, "provider": 32,
             "id_token": 8192, "nonce": 512, "refresh_token": 64, "player_id": 200}
VERIFIER_THREADS = 4
DOMAIN = "domino.account"
SOCIAL_SUBJECT = "social"  # the service token FindPlayerByDisplayName answers (services/social/account_client.py)
# ListRevokedSessions per client address: each match and matchmaking process asks about once
# a second, several share an address on one machine, and a first read may take a few pages.
REVOCATION_READS = (10.0, 60.0)  # a second, and in a burst
T = TypeVar("T")


class AccountServicer(pb_grpc.AccountServiceServicer):
    def __init__(self, app: AccountApplication, keys: KeyRing, rates: RateLimit | None = None,
                 sign_ins: RateLimit | None = None, trusted_proxies: Sequence[Network] = (),
                 verifier_threads: int = VERIFIER_THREADS, revocation_reads: RateLimit | None = None) -> None:
        self.app = app
        self.keys = keys
        self.rates = rates or RateLimit()
        self.sign_ins = sign_ins or RateLimit(rate=0.5, burst=30)
        self.revocation_reads = revocation_reads or RateLimit(*REVOCATION_READS)
        self.revocation_waits = RevocationWaits(lambda: self._run(self.app.newest_revocation))
        self.trusted_proxies = tuple(trusted_proxies)
        self._verifiers = ThreadPoolExecutor(verifier_threads, thread_name_prefix="id-token")
        self._verifier_slots = threading.BoundedSemaphore(verifier_threads)

    # ---- signing in ---------------------------------------------------------------------

    async def SignInWithDevice(self, request: pb.SignInWithDeviceRequest,
                               context: Context) -> pb.SignInWithDeviceResponse:
        async with statuses(context):
            _sizes(request, "device_id", "device_secret", "display_name")
            device_id = credentials.device_id_of(request.device_id)
            credentials.device_secret_of(request.device_secret)
            if request.display_name:
                names.checked(request.display_name)
            self._limit_sign_in(context, f"device:{device_id}")
            tokens, created = await self._run(self.app.sign_in_with_device, request.device_id,
                                              request.device_secret, request.display_name)
            return pb.SignInWithDeviceResponse(session=session_pb(tokens), created=created)

    async def SignInWithIdToken(self, request: pb.SignInWithIdTokenRequest,
                                context: Context) -> pb.SignInWithIdTokenResponse:
        async with statuses(context):
            _sizes(request, "provider", "id_token", "nonce", "display_name")
            wanted = names.checked(request.display_name) if request.display_name else None
            token = await self._verify(context, request.provider, request.id_token, request.nonce)
            tokens, created = await self._run(self.app.sign_in_with_identity, token, wanted)
            return pb.SignInWithIdTokenResponse(session=session_pb(tokens), created=created)

    async def RefreshSession(self, request: pb.RefreshSessionRequest, context: Context) -> pb.RefreshSessionResponse:
        async with statuses(context):
            _sizes(request, "refresh_token")
            credentials.refresh_token_of(request.refresh_token)
            self._limit_sign_in(context)
            tokens = await self._run(self.app.refresh, request.refresh_token)
            return pb.RefreshSessionResponse(session=session_pb(tokens))

    async def SignOut(self, request: pb.SignOutRequest, context: Context) -> pb.SignOutResponse:
        async with statuses(context):
            await self._run(self.app.sign_out, self._player(context))
            return pb.SignOutResponse()

    async def SignOutEverywhere(self, request: pb.SignOutEverywhereRequest,
                                context: Context) -> pb.SignOutEverywhereResponse:
        async with statuses(context):
            ended, removed = await self._run(self.app.sign_out_everywhere, self._player(context),
                                             request.remove_other_devices)
            return pb.SignOutEverywhereResponse(sessions_ended=ended, devices_removed=removed)

    async def RemoveDevice(self, request: pb.RemoveDeviceRequest, context: Context) -> pb.RemoveDeviceResponse:
        async with statuses(context):
            _sizes(request, "device_id")
            who = self._player(context)
            credentials.device_id_of(request.device_id)
            view = await self._run(self.app.remove_device, who, request.device_id)
            return pb.RemoveDeviceResponse(account=account_pb(view))

    async def RotateDeviceSecret(self, request: pb.RotateDeviceSecretRequest,
                                 context: Context) -> pb.RotateDeviceSecretResponse:
        async with statuses(context):
            _sizes(request, "device_id", "device_secret", "new_device_secret")
            who = self._player(context)
            device_id = credentials.device_id_of(request.device_id)
            credentials.device_secret_of(request.device_secret)
            credentials.device_secret_of(request.new_device_secret, field="new_device_secret")
            if request.new_device_secret == request.device_secret:
                raise InvalidRequest("new_device_secret must differ from device_secret", "new_device_secret")
            self._limit_sign_in(context, f"device:{device_id}")
            ended = await self._run(self.app.rotate_device_secret, who, request.device_id, request.device_secret,
                                    request.new_device_secret)
            return pb.RotateDeviceSecretResponse(sessions_ended=ended)

    # ---- the account --------------------------------------------------------------------

    async def LinkIdentity(self, request: pb.LinkIdentityRequest, context: Context) -> pb.LinkIdentityResponse:
        async with statuses(context):
            _sizes(request, "provider", "id_token", "nonce")
            who = self._player(context)
            token = await self._verify(context, request.provider, request.id_token, request.nonce, who.subject)
            view = await self._run(self.app.link, who, token)
            return pb.LinkIdentityResponse(account=account_pb(view))

    async def UnlinkIdentity(self, request: pb.UnlinkIdentityRequest, context: Context) -> pb.UnlinkIdentityResponse:
        async with statuses(context):
            _sizes(request, "provider")
            view = await self._run(self.app.unlink, self._player(context), request.provider)
            return pb.UnlinkIdentityResponse(account=account_pb(view))

    async def GetAccount(self, request: pb.GetAccountRequest, context: Context) -> pb.GetAccountResponse:
        async with statuses(context):
            view = await self._run(self.app.account, self._player(context))
            return pb.GetAccountResponse(account=account_pb(view))

    async def SetDisplayName(self, request: pb.SetDisplayNameRequest, context: Context) -> pb.SetDisplayNameResponse:
        async with statuses(context):
            _sizes(request, "display_name")
            who = self._player(context)
            if not request.display_name:
                raise InvalidRequest("display_name is required", "display_name")
            view = await self._run(self.app.set_display_name, who, request.display_name)
            return pb.SetDisplayNameResponse(account=account_pb(view))

    async def GetDisplayNames(self, request: pb.GetDisplayNamesRequest,
                              context: Context) -> pb.GetDisplayNamesResponse:
        async with statuses(context):
            who = self._caller(context, "player", "bot", "service")
            found = await self._run(self.app.display_names, list(request.player_ids), who)
            return pb.GetDisplayNamesResponse(display_names=found)

    async def DeleteAccount(self, request: pb.DeleteAccountRequest, context: Context) -> pb.DeleteAccountResponse:
        async with statuses(context):
            deleted_at = await self._run(self.app.delete, self._player(context))
            return pb.DeleteAccountResponse(deleted_at=timestamp_of(deleted_at))

    async def ExportMyData(self, request: pb.ExportMyDataRequest, context: Context) -> pb.ExportMyDataResponse:
        async with statuses(context):
            data = await self._run(self.app.export, self._player(context))
            return pb.ExportMyDataResponse(data_json=export_text(data))

    async def GetStanding(self, request: pb.GetStandingRequest, context: Context) -> pb.GetStandingResponse:
        async with statuses(context):
            self._caller(context, "service")
            _sizes(request, "player_id")
            if not request.player_id:
                raise InvalidRequest("player_id is required", "player_id")
            found = await self._run(self.app.standing, request.player_id)
            reply = pb.GetStandingResponse(standing=_STANDING[found.state], reason=found.reason)
            if found.until is not None:
                reply.until.CopyFrom(timestamp_of(found.until))
            return reply

    async def FindPlayerByDisplayName(self, request: pb.FindPlayerByDisplayNameRequest,
                                      context: Context) -> pb.FindPlayerByDisplayNameResponse:
        async with statuses(context):
            who = self._caller(context, "service")
            if who.subject != SOCIAL_SUBJECT:
                raise AuthError("this call is the social service's", "WRONG_CALLER")
            _sizes(request, "display_name")
            if not request.display_name:
                raise InvalidRequest("display_name is required", "display_name")
            found = await self._run(self.app.find_by_display_name, request.display_name)
            if found is None:
                raise NoSuchPlayer("no player has this display name")
            return pb.FindPlayerByDisplayNameResponse(player_id=found)

    async def ListRevokedSessions(self, request: pb.ListRevokedSessionsRequest,
                                  context: Context) -> pb.ListRevokedSessionsResponse:
        async with statuses(context):
            client = client_key(context.peer(), context.invocation_metadata(), self.trusted_proxies)
            self.revocation_reads.take(f"client:{client}")
            if not 0 <= request.wait_seconds <= LONGEST_WAIT_SECONDS:
                raise InvalidRequest(f"wait_seconds must be 0 to {LONGEST_WAIT_SECONDS}", "wait_seconds")
            page = await self._run(self.app.revoked_since, request.after_cursor, request.page_size)
            if not page.sessions and page.next_cursor == request.after_cursor and \
                    await self.revocation_waits.past(request.after_cursor, request.wait_seconds):
                page = await self._run(self.app.revoked_since, request.after_cursor, request.page_size)
            return pb.ListRevokedSessionsResponse(
                sessions=[pb.RevokedSession(session_id=r.session_id, expires_at=timestamp_of(r.expires_at))
                          for r in page.sessions], next_cursor=page.next_cursor, more=page.more)

    # ---- request checks -----------------------------------------------------------------

    def _player(self, context: Context) -> Identity:
        return self._caller(context, "player")

    def _caller(self, context: Context, *roles: str) -> Identity:
        who = bearer_identity(context.invocation_metadata(), self.keys)
        if who.role not in roles or (who.role == "player" and is_bot(who.subject)):
            raise AuthError(f"this call needs a {' or '.join(roles)} token", "WRONG_CALLER")
        if who.role == "player":
            self.rates.take(who.subject)
        return who

    def _limit_sign_in(self, context: Context, *more: str) -> None:
        """Counts a well-formed credential against its client's address and ``more`` keys."""
        client = client_key(context.peer(), context.invocation_metadata(), self.trusted_proxies)
        for key in (f"client:{client}", *more):
            self.sign_ins.take(key)

    async def _verify(self, context: Context, provider: str, id_token: str, nonce: str,
                      account_id: str | None = None) -> VerifiedToken:
        """The ID token checked on the verifier's threads, after the client's limit and, once
        it is known to be genuine, its identity's (and the linking account's)."""
        if not provider:
            raise InvalidRequest("provider is required", "provider")
        if not id_token:
            raise InvalidRequest("id_token is required", "id_token")
        if not is_compact_jws(id_token):
            raise NotSignedIn("the ID token is refused: the ID token is not a compact JWS")
        self._limit_sign_in(context, *([f"account:{account_id}"] if account_id else []))
        if not self._verifier_slots.acquire(blocking=False):
            raise Unavailable("sign-in with an identity is busy right now (its provider is slow); try again "
                              "in a few seconds", retry_after=2.0)
        try:
            loop = asyncio.get_running_loop()
            token = await loop.run_in_executor(self._verifiers, self.app.verified, provider, id_token, nonce)
        finally:
            self._verifier_slots.release()
        self.sign_ins.take(f"identity:{token.identity.issuer}:{token.identity.subject}")
        return token

    @staticmethod
    async def _run(call: Callable[..., T], *args: Any) -> T:
        """The store is blocking: the use cases run on the default thread pool."""
        return await asyncio.to_thread(call, *args)


def _sizes(request: Any, *fields: str) -> None:
    for name in fields:
        if len(getattr(request, name)) > MAX_FIELD[name]:
            raise InvalidRequest(f"{name} is longer than {MAX_FIELD[name]} characters", name)


def statuses(context: Context) -> ErrorStatuses:
    """The account service's errors as statuses (PlayerAdminService's too)."""
    return ErrorStatuses(context, _STATUS, DOMAIN, unexpected=log)


def timestamp_of(seconds: float) -> Timestamp:
    """Seconds since the epoch as a Timestamp, to the nanosecond a float holds."""
    stamp = Timestamp()
    stamp.FromNanoseconds(int(seconds * 1e9))
    return stamp


def session_pb(tokens: Tokens) -> pb.Session:
    return pb.Session(player_id=tokens.account_id, access_token=tokens.access_token,
                      refresh_token=tokens.refresh_token, access_expires_at=timestamp_of(tokens.access_expires_at),
                      refresh_expires_at=timestamp_of(tokens.refresh_expires_at), display_name=tokens.display_name)


def account_pb(view: AccountView) -> pb.Account:
    return pb.Account(player_id=view.account_id, display_name=view.display_name,
                      created_at=timestamp_of(view.created_at), devices=view.devices, guest=view.guest,
                      identities=[pb.LinkedIdentity(provider=p, linked_at=timestamp_of(at))
                                  for p, at in view.identities],
                      device_list=[pb.Device(device_id=d.device_id, created_at=timestamp_of(d.created_at),
                                             last_used_at=timestamp_of(d.last_used_at), this_device=d.this_device)
                                   for d in view.device_list])
