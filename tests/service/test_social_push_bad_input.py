"""Every push RPC of SocialService refuses bad input (no or the wrong kind of token, each
malformed field alone and in field order, a phone past the limit) with its status code,
ErrorInfo reason (domain "domino.social") and the field BadRequest names, and the refusal
changes nothing in the push tables (docs/social.md, "Mobile push: tokens and settings")."""

from __future__ import annotations

from contextlib import contextmanager

import grpc
import pytest

from domino.social.v1 import social_service_pb2 as pb
from services.common.auth import KeyRing, mint_token
from services.social.push_tokens import PushLimits
from tests.support.errors import refusal
from tests.support.keys import auth

from .account_harness import bearer
from .social_push_harness import running_pushes

C = grpc.StatusCode
PLAYER_RPCS = ("RegisterPushToken", "UnregisterPushToken", "GetNotificationSettings", "UpdateNotificationSettings")
APNS = "0123456789abcdef" * 4
FCM = pb.PUSH_PLATFORM_FCM
GOOD_FCM = dict(installation_id="phone-1", platform=FCM, token="fcm-token")
GOOD_APNS = dict(installation_id="phone-1", platform=pb.PUSH_PLATFORM_APNS, token=APNS,
                 apns_environment=pb.APNS_ENVIRONMENT_PRODUCTION)
VALID = {"RegisterPushToken": pb.RegisterPushTokenRequest(**GOOD_FCM),
         "UnregisterPushToken": pb.UnregisterPushTokenRequest(installation_id="phone-1"),
         "GetNotificationSettings": pb.GetNotificationSettingsRequest(),
         "UpdateNotificationSettings": pb.UpdateNotificationSettingsRequest(time_zone="UTC"),
         "ForgetPushToken": pb.ForgetPushTokenRequest(platform=FCM, token="fcm-token")}
NOTIFIER = auth("notifier", "service")
FORGED = (("authorization", f"Bearer {mint_token('someone', KeyRing.generate(), 'player')}"),)


@pytest.fixture(scope="module")
def svc(tmp_path_factory):
    with running_pushes(tmp_path_factory.mktemp("social-push-bad"), PushLimits(installations=2)) as service:
        yield service


_names = iter(range(10**6))


@pytest.fixture
def ann(svc):
    return svc.sign_up(f"Ann Push Bad {next(_names)}")


@contextmanager
def nothing_changed(svc):
    before = svc.pushes.dump()
    yield
    assert svc.pushes.dump() == before, "the refused call changed the push tables"


def refused(svc, code: C, reason: str, call, field: str | None = None) -> None:
    with nothing_changed(svc), pytest.raises(grpc.RpcError) as caught:
        call()
    got = refusal(caught.value)
    assert (caught.value.code(), got.reason, got.domain) == (code, reason, "domino.social"), got
    if field is not None:
        assert got.fields == (field,), got


def rpc(svc, name: str, request, metadata):
    return lambda: getattr(svc.stub, name)(request, metadata=metadata)


# ---- who may call ----------------------------------------------------------------------------

@pytest.mark.parametrize("name", PLAYER_RPCS + ("ForgetPushToken",))
def test_a_call_without_a_token_is_unauthenticated(svc, name):
    refused(svc, C.UNAUTHENTICATED, "TOKEN_MISSING", rpc(svc, name, VALID[name], ()))


@pytest.mark.parametrize("name", PLAYER_RPCS + ("ForgetPushToken",))
def test_a_token_signed_by_another_key_is_unauthenticated(svc, name):
    refused(svc, C.UNAUTHENTICATED, "TOKEN_INVALID", rpc(svc, name, VALID[name], FORGED))


@pytest.mark.parametrize("name", PLAYER_RPCS)
@pytest.mark.parametrize("caller", [("notifier", "service"), ("accounts", "account"), ("bot-1", "bot")])
def test_a_players_push_call_with_another_kind_of_token_is_the_wrong_caller(svc, name, caller):
    refused(svc, C.UNAUTHENTICATED, "WRONG_CALLER", rpc(svc, name, VALID[name], auth(*caller)))


@pytest.mark.parametrize("caller", [("matchmaking", "service"), ("accounts", "account"), ("someone", "player")])
def test_forgetting_a_token_is_the_notifiers_alone(svc, caller):
    refused(svc, C.UNAUTHENTICATED, "WRONG_CALLER", rpc(svc, "ForgetPushToken", VALID["ForgetPushToken"],
                                                        auth(*caller)))


# ---- RegisterPushToken -----------------------------------------------------------------------

BAD_REGISTRATIONS = [
    ("installation_id", dict(GOOD_FCM, installation_id="")),
    ("installation_id", dict(GOOD_FCM, installation_id="i" * 65)),
    ("installation_id", dict(GOOD_FCM, installation_id="a phone")),
    ("platform", dict(GOOD_FCM, platform=pb.PUSH_PLATFORM_UNSPECIFIED)),
    ("platform", dict(GOOD_FCM, platform=9)),
    ("token", dict(GOOD_FCM, token="")),
    ("token", dict(GOOD_FCM, token="with space")),
    ("token", dict(GOOD_FCM, token="t" * 4097)),
    ("token", dict(GOOD_FCM, token="caf\u00e9")),
    ("token", dict(GOOD_APNS, token=APNS[:63])),
    ("token", dict(GOOD_APNS, token="a" * 201)),
    ("token", dict(GOOD_APNS, token="g" * 64)),
    ("apns_environment", dict(GOOD_APNS, apns_environment=pb.APNS_ENVIRONMENT_UNSPECIFIED)),
    ("apns_environment", dict(GOOD_APNS, apns_environment=7)),
    ("apns_environment", dict(GOOD_FCM, apns_environment=pb.APNS_ENVIRONMENT_SANDBOX)),
    ("locale", dict(GOOD_FCM, locale="e")),
    ("locale", dict(GOOD_FCM, locale="es_ES")),
    ("locale", dict(GOOD_FCM, locale="es-" + "-".join(["abcdefgh"] * 4))),
    # each field alone, in field order: the first bad one is named
    ("installation_id", dict(installation_id="", platform=0, token="", apns_environment=3, locale="?")),
    ("platform", dict(installation_id="ok", platform=0, token="", locale="?")),
    ("token", dict(GOOD_APNS, token="xyz", apns_environment=0, locale="?")),
]


@pytest.mark.parametrize("field, fields", BAD_REGISTRATIONS)
def test_a_malformed_registration_is_refused_naming_its_field(svc, ann, field, fields):
    refused(svc, C.INVALID_ARGUMENT, "INVALID_REQUEST",
            rpc(svc, "RegisterPushToken", pb.RegisterPushTokenRequest(**fields), bearer(ann)), field)


def test_a_phone_past_the_installations_limit_is_refused_and_a_known_one_is_replaced(svc, ann):
    for n in (1, 2):
        svc.stub.RegisterPushToken(pb.RegisterPushTokenRequest(installation_id=f"phone-{n}", platform=FCM,
                                                               token=f"limit-{ann.player_id}-{n}"),
                                   metadata=bearer(ann))
    third = pb.RegisterPushTokenRequest(installation_id="phone-3", platform=FCM, token=f"limit-{ann.player_id}-3")
    refused(svc, C.FAILED_PRECONDITION, "TOO_MANY_PUSH_TOKENS", rpc(svc, "RegisterPushToken", third, bearer(ann)))
    again = pb.RegisterPushTokenRequest(installation_id="phone-2", platform=FCM, token=f"limit-{ann.player_id}-9")
    assert svc.stub.RegisterPushToken(again, metadata=bearer(ann)).installation.installation_id == "phone-2"


def test_an_apns_token_is_kept_in_lower_case(svc, ann):
    svc.stub.RegisterPushToken(pb.RegisterPushTokenRequest(**dict(GOOD_APNS, token=APNS.upper())),
                               metadata=bearer(ann))
    assert [t.token for t in svc.pushes.targets(ann.player_id)] == [APNS]


# ---- UnregisterPushToken ---------------------------------------------------------------------

@pytest.mark.parametrize("installation_id", ["", "x" * 65, "bad/id"])
def test_unregistering_a_malformed_installation_id_is_refused(svc, ann, installation_id):
    refused(svc, C.INVALID_ARGUMENT, "INVALID_REQUEST",
            rpc(svc, "UnregisterPushToken", pb.UnregisterPushTokenRequest(installation_id=installation_id),
                bearer(ann)), "installation_id")


# ---- UpdateNotificationSettings --------------------------------------------------------------

QUIET = pb.QuietHours(start_minute=1320, end_minute=420)
BAD_SETTINGS = [
    ("push_disabled", dict(push_disabled=[pb.NOTIFICATION_KIND_UNSPECIFIED])),
    ("push_disabled", dict(push_disabled=[pb.NOTIFICATION_KIND_INVITE, 99])),
    ("clear_push_disabled", dict(push_disabled=[pb.NOTIFICATION_KIND_INVITE], clear_push_disabled=True)),
    ("quiet_hours.start_minute", dict(quiet_hours=pb.QuietHours(start_minute=1440, end_minute=0))),
    ("quiet_hours.start_minute", dict(quiet_hours=pb.QuietHours(start_minute=-1, end_minute=0))),
    ("quiet_hours.end_minute", dict(quiet_hours=pb.QuietHours(start_minute=0, end_minute=1440))),
    ("quiet_hours.end_minute", dict(quiet_hours=pb.QuietHours(start_minute=600, end_minute=600))),
    ("clear_quiet_hours", dict(quiet_hours=QUIET, clear_quiet_hours=True)),
    ("time_zone", dict(time_zone="Mars/Olympus_Mons")),
    ("time_zone", dict(time_zone="localtime")),
    ("time_zone", dict(time_zone="../../etc/passwd")),
    ("time_zone", dict(time_zone="Europe/" + "x" * 60)),
    # in field order
    ("push_disabled", dict(push_disabled=[0], quiet_hours=pb.QuietHours(start_minute=-5), time_zone="Nowhere")),
    ("quiet_hours.end_minute", dict(quiet_hours=pb.QuietHours(start_minute=5, end_minute=5000),
                                    time_zone="Nowhere")),
]


@pytest.mark.parametrize("field, fields", BAD_SETTINGS)
def test_malformed_settings_are_refused_naming_their_field(svc, ann, field, fields):
    svc.stub.UpdateNotificationSettings(pb.UpdateNotificationSettingsRequest(
        push_disabled=[pb.NOTIFICATION_KIND_RATING_CHANGE], quiet_hours=pb.QuietHours(start_minute=60, end_minute=120),
        time_zone="Asia/Tokyo"), metadata=bearer(ann))
    refused(svc, C.INVALID_ARGUMENT, "INVALID_REQUEST",
            rpc(svc, "UpdateNotificationSettings", pb.UpdateNotificationSettingsRequest(**fields), bearer(ann)),
            field)


# ---- ForgetPushToken -------------------------------------------------------------------------

@pytest.mark.parametrize("field, fields", [
    ("platform", dict(platform=pb.PUSH_PLATFORM_UNSPECIFIED, token="fcm-token")),
    ("platform", dict(platform=5, token="fcm-token")),
    ("token", dict(platform=FCM, token="")),
    ("token", dict(platform=pb.PUSH_PLATFORM_APNS, token="not-hex")),
])
def test_forgetting_a_malformed_token_is_refused_naming_its_field(svc, field, fields):
    refused(svc, C.INVALID_ARGUMENT, "INVALID_REQUEST",
            rpc(svc, "ForgetPushToken", pb.ForgetPushTokenRequest(**fields), NOTIFIER), field)
