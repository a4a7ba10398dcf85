"""SocialService's push RPCs (RegisterPushToken, UnregisterPushToken, Get/UpdateNotificationSettings,
ForgetPushToken): a mixin of SocialServicer, which gives it ``self.pushes``, ``self.keys``,
``self.revocations`` and ``self._caller``; statuses.py maps its errors to status codes.

A request's fields are checked each alone and in field order (services/social/push_fields.py)
before the store is touched, so a refusal changes nothing."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from domino.social.v1 import social_service_pb2 as pb
from services.common.auth import AuthError, Identity, bearer_identity
from services.common.revocations import ENDED, ENDED_REASON

from . import push_fields as check
from .errors import InvalidRequest
from .push_tokens import PushSettings, Registration, SettingsChange, Target
from .statuses import run as _run
from .statuses import statuses as _statuses
from .statuses import timestamp as _timestamp

if TYPE_CHECKING:
    from .statuses import Context

NOTIFIER = "notifier"  # the `sub` of the notifier's service token
_PLATFORMS = {pb.PUSH_PLATFORM_APNS: "apns", pb.PUSH_PLATFORM_FCM: "fcm"}
_PLATFORM_NUMBERS = {name: number for number, name in _PLATFORMS.items()}
_ENVIRONMENTS = {pb.APNS_ENVIRONMENT_UNSPECIFIED: "", pb.APNS_ENVIRONMENT_SANDBOX: "sandbox",
                 pb.APNS_ENVIRONMENT_PRODUCTION: "production"}
_ENVIRONMENT_NUMBERS = {name: number for number, name in _ENVIRONMENTS.items()}
_KIND_PREFIX = "NOTIFICATION_KIND_"


class PushRpcs:
    pushes: Any
    keys: Any
    revocations: Any
    _caller: Callable[[Any], Identity]

    async def RegisterPushToken(self, request: pb.RegisterPushTokenRequest,
                                context: Context) -> pb.RegisterPushTokenResponse:
        async with _statuses(context):
            who = self._caller(context)
            registration = _registration(request)
            target = await _run(self.pushes.register, who.subject, who.session, registration)
            if self.revocations.revoked(who.session):  # the session ended while it registered
                await _run(self.pushes.forget_sessions, [who.session])
                raise AuthError(ENDED, ENDED_REASON)
            return pb.RegisterPushTokenResponse(installation=installation_pb(target))

    async def UnregisterPushToken(self, request: pb.UnregisterPushTokenRequest,
                                  context: Context) -> pb.UnregisterPushTokenResponse:
        async with _statuses(context):
            who = self._caller(context)
            installation_id = check.installation_id(request.installation_id)
            return pb.UnregisterPushTokenResponse(
                removed=await _run(self.pushes.unregister, who.subject, installation_id))

    async def GetNotificationSettings(self, request: pb.GetNotificationSettingsRequest,
                                      context: Context) -> pb.GetNotificationSettingsResponse:
        async with _statuses(context):
            who = self._caller(context)
            settings = await _run(self.pushes.settings, who.subject)
            return pb.GetNotificationSettingsResponse(settings=settings_pb(settings))

    async def UpdateNotificationSettings(self, request: pb.UpdateNotificationSettingsRequest,
                                         context: Context) -> pb.UpdateNotificationSettingsResponse:
        async with _statuses(context):
            who = self._caller(context)
            change = _settings_change(request)
            settings = await _run(self.pushes.update_settings, who.subject, change)
            return pb.UpdateNotificationSettingsResponse(settings=settings_pb(settings))

    async def ForgetPushToken(self, request: pb.ForgetPushTokenRequest,
                              context: Context) -> pb.ForgetPushTokenResponse:
        async with _statuses(context):
            who: Identity = bearer_identity(context.invocation_metadata(), self.keys)
            if not who.is_service or who.subject != NOTIFIER:
                raise AuthError("only the notifier forgets a push token for its provider", "WRONG_CALLER")
            platform = check.platform(_PLATFORMS.get(request.platform))
            token = check.token(platform, request.token)
            return pb.ForgetPushTokenResponse(removed=await _run(self.pushes.forget_token, platform, token))


def _registration(request: pb.RegisterPushTokenRequest) -> Registration:
    installation_id = check.installation_id(request.installation_id)
    platform = check.platform(_PLATFORMS.get(request.platform))
    token = check.token(platform, request.token)
    environment = check.apns_environment(platform, _ENVIRONMENTS.get(request.apns_environment))
    return Registration(installation_id, platform, token, environment, check.locale(request.locale))


def _settings_change(request: pb.UpdateNotificationSettingsRequest) -> SettingsChange:
    disabled = check.kinds([kind_name(k) for k in request.push_disabled])
    if disabled and request.clear_push_disabled:
        raise InvalidRequest("set push_disabled or clear_push_disabled, not both", "clear_push_disabled")
    quiet = None
    if request.HasField("quiet_hours"):
        quiet = check.quiet_hours(request.quiet_hours.start_minute, request.quiet_hours.end_minute)
        if request.clear_quiet_hours:
            raise InvalidRequest("set quiet_hours or clear_quiet_hours, not both", "clear_quiet_hours")
    time_zone = check.time_zone(request.time_zone) if request.HasField("time_zone") else None
    return SettingsChange(push_disabled=disabled if disabled or request.clear_push_disabled else None,
                          quiet_hours=quiet, clear_quiet_hours=request.clear_quiet_hours, time_zone=time_zone)


def kind_name(number: int) -> str | None:
    """NotificationKind's name lower case without its prefix ("your_turn"); None for
    UNSPECIFIED or a number this server does not know."""
    if number == pb.NOTIFICATION_KIND_UNSPECIFIED or number not in pb.NotificationKind.values():
        return None
    return pb.NotificationKind.Name(number).removeprefix(_KIND_PREFIX).lower()


def installation_pb(target: Target) -> pb.PushInstallation:
    return pb.PushInstallation(installation_id=target.installation_id, platform=_PLATFORM_NUMBERS[target.platform],
                               apns_environment=_ENVIRONMENT_NUMBERS[target.apns_environment], locale=target.locale,
                               registered_at=_timestamp(target.registered_at))


def push_target_pb(target: Target) -> pb.PushTarget:
    """A phone as ClaimPush and ExportPlayerData answer it, its token included."""
    return pb.PushTarget(installation_id=target.installation_id, platform=_PLATFORM_NUMBERS[target.platform],
                         token=target.token, apns_environment=_ENVIRONMENT_NUMBERS[target.apns_environment],
                         locale=target.locale)


def settings_pb(settings: PushSettings) -> pb.NotificationSettings:
    reply = pb.NotificationSettings(push_disabled=[_KIND_PREFIX + kind.upper() for kind in settings.push_disabled],
                                    time_zone=settings.time_zone)
    if settings.quiet_hours is not None:
        reply.quiet_hours.CopyFrom(pb.QuietHours(start_minute=settings.quiet_hours[0],
                                                 end_minute=settings.quiet_hours[1]))
    return reply
