"""Push tokens and notification settings over a real SocialService beside a real account
service (tests/service/social_push_harness.py): what a phone registers is what the pushes
decide with, a token moves to whoever registers it last, settings change only where set,
the tokens of a session that signed out are forgotten once the revocation list says so,
and the notifier forgets a token its provider called dead."""

from __future__ import annotations

import pytest

from domino.account.v1 import account_service_pb2 as acc
from domino.social.v1 import social_service_pb2 as pb
from tests.support.keys import auth

from .account_harness import bearer, device
from .social_push_harness import running_pushes

APNS = "AB" * 32
NOTIFIER = auth("notifier", "service")


@pytest.fixture(scope="module")
def svc(tmp_path_factory):
    with running_pushes(tmp_path_factory.mktemp("social-push")) as service:
        yield service


_names = iter(range(10**6))


@pytest.fixture
def ann(svc):
    return svc.sign_up(f"Ann Push {next(_names)}")


@pytest.fixture
def bob(svc):
    return svc.sign_up(f"Bob Push {next(_names)}")


def register(svc, who, installation_id: str, token: str, platform=pb.PUSH_PLATFORM_FCM, **more):
    if platform == pb.PUSH_PLATFORM_APNS:
        more.setdefault("apns_environment", pb.APNS_ENVIRONMENT_PRODUCTION)
    return svc.stub.RegisterPushToken(pb.RegisterPushTokenRequest(installation_id=installation_id, platform=platform,
                                                                  token=token, **more),
                                      metadata=bearer(who)).installation


def phones(svc, who) -> list[tuple[str, str]]:
    return [(t.installation_id, t.token) for t in svc.pushes.targets(who.player_id)]


def test_a_registered_phone_is_answered_as_its_installation_and_pushed_to(svc, ann):
    installation = register(svc, ann, "ann-phone", APNS, pb.PUSH_PLATFORM_APNS, locale="es-ES",
                            apns_environment=pb.APNS_ENVIRONMENT_SANDBOX)
    assert (installation.installation_id, installation.platform, installation.apns_environment,
            installation.locale) == ("ann-phone", pb.PUSH_PLATFORM_APNS, pb.APNS_ENVIRONMENT_SANDBOX, "es-ES")
    assert installation.registered_at.seconds > 0
    decision, targets = svc.pushes.decide(ann.player_id, "friend_request", svc.accounts.clock())
    assert decision == "send"
    assert [(t.platform, t.token, t.apns_environment, t.locale) for t in targets] == \
        [("apns", APNS.lower(), "sandbox", "es-ES")]


def test_registering_an_installation_again_replaces_its_token(svc, ann):
    register(svc, ann, "ann-phone", "first-token")
    register(svc, ann, "ann-phone", "second-token")
    assert phones(svc, ann) == [("ann-phone", "second-token")]


def test_a_token_another_player_registered_moves_to_the_new_one(svc, ann, bob):
    register(svc, ann, "ann-phone", "handed-down-phone")
    register(svc, bob, "bob-phone", "handed-down-phone")
    assert phones(svc, ann) == []
    assert phones(svc, bob) == [("bob-phone", "handed-down-phone")]
    assert svc.pushes.decide(ann.player_id, "invite", svc.accounts.clock())[0] == "no_tokens"


def test_unregistering_forgets_the_installation_and_says_whether_there_was_one(svc, ann):
    register(svc, ann, "ann-phone", "ann-token")
    register(svc, ann, "ann-tablet", "ann-tablet-token")
    unregister = pb.UnregisterPushTokenRequest(installation_id="ann-phone")
    assert svc.stub.UnregisterPushToken(unregister, metadata=bearer(ann)).removed is True
    assert svc.stub.UnregisterPushToken(unregister, metadata=bearer(ann)).removed is False
    assert phones(svc, ann) == [("ann-tablet", "ann-tablet-token")]


def test_a_player_cannot_unregister_another_players_installation(svc, ann, bob):
    register(svc, ann, "shared-name", "ann-token")
    removed = svc.stub.UnregisterPushToken(pb.UnregisterPushTokenRequest(installation_id="shared-name"),
                                           metadata=bearer(bob)).removed
    assert removed is False
    assert phones(svc, ann) == [("shared-name", "ann-token")]


def test_settings_start_with_every_kind_pushing_no_quiet_hours_and_utc(svc, ann):
    settings = svc.stub.GetNotificationSettings(pb.GetNotificationSettingsRequest(), metadata=bearer(ann)).settings
    assert (list(settings.push_disabled), settings.HasField("quiet_hours"), settings.time_zone) == ([], False, "")


def test_updating_settings_changes_what_is_set_and_keeps_the_rest(svc, ann):
    update = svc.stub.UpdateNotificationSettings
    update(pb.UpdateNotificationSettingsRequest(
        push_disabled=[pb.NOTIFICATION_KIND_INVITE, pb.NOTIFICATION_KIND_ACCOUNT],
        quiet_hours=pb.QuietHours(start_minute=1320, end_minute=420), time_zone="Europe/Madrid"),
        metadata=bearer(ann))
    answered = update(pb.UpdateNotificationSettingsRequest(time_zone="America/New_York"),
                      metadata=bearer(ann)).settings
    read = svc.stub.GetNotificationSettings(pb.GetNotificationSettingsRequest(), metadata=bearer(ann)).settings
    assert answered == read
    assert list(read.push_disabled) == [pb.NOTIFICATION_KIND_ACCOUNT, pb.NOTIFICATION_KIND_INVITE]
    assert (read.quiet_hours.start_minute, read.quiet_hours.end_minute, read.time_zone) == \
        (1320, 420, "America/New_York")


def test_clearing_push_disabled_and_quiet_hours_pushes_every_kind_at_any_hour(svc, ann):
    update = svc.stub.UpdateNotificationSettings
    update(pb.UpdateNotificationSettingsRequest(push_disabled=[pb.NOTIFICATION_KIND_REMATCH],
                                                quiet_hours=pb.QuietHours(start_minute=0, end_minute=1439)),
           metadata=bearer(ann))
    cleared = update(pb.UpdateNotificationSettingsRequest(clear_push_disabled=True, clear_quiet_hours=True),
                     metadata=bearer(ann)).settings
    assert (list(cleared.push_disabled), cleared.HasField("quiet_hours")) == ([], False)


def test_settings_set_over_grpc_are_what_the_pushes_decide_with(svc, ann):
    register(svc, ann, "ann-phone", "ann-settings-token")
    svc.stub.UpdateNotificationSettings(pb.UpdateNotificationSettingsRequest(
        push_disabled=[pb.NOTIFICATION_KIND_MATCH_RESULT]), metadata=bearer(ann))
    now = svc.accounts.clock()
    assert svc.pushes.decide(ann.player_id, "match_result", now)[0] == "opted_out"
    assert svc.pushes.decide(ann.player_id, "rating_change", now)[0] == "send"


def test_the_tokens_of_a_signed_out_session_are_forgotten_and_the_others_stay(svc):
    pair = device()
    phone = svc.accounts.sign_up(f"Cat Push {next(_names)}", pair)
    tablet = svc.accounts.sign_up(pair=pair)  # the same player, another session
    assert tablet.player_id == phone.player_id
    register(svc, phone, "cat-phone", "cat-phone-token")
    register(svc, tablet, "cat-tablet", "cat-tablet-token")
    svc.poll()
    assert len(phones(svc, phone)) == 2

    svc.accounts.stub.SignOut(acc.SignOutRequest(), metadata=bearer(phone))
    svc.poll()
    assert phones(svc, phone) == [("cat-tablet", "cat-tablet-token")]


def test_the_notifier_forgets_a_token_its_provider_called_dead(svc, ann):
    register(svc, ann, "ann-phone", APNS.replace("AB", "CD"), pb.PUSH_PLATFORM_APNS)
    forget = pb.ForgetPushTokenRequest(platform=pb.PUSH_PLATFORM_APNS, token=APNS.replace("AB", "CD"))
    assert svc.stub.ForgetPushToken(forget, metadata=NOTIFIER).removed is True
    assert svc.stub.ForgetPushToken(forget, metadata=NOTIFIER).removed is False
    assert phones(svc, ann) == []


ACCOUNT_SERVICE = auth("accounts", "account")


def test_the_players_export_holds_their_phones_and_settings(svc, ann):
    register(svc, ann, "ann-phone", "ann-export-token", locale="pt-BR")
    svc.stub.UpdateNotificationSettings(pb.UpdateNotificationSettingsRequest(
        push_disabled=[pb.NOTIFICATION_KIND_BAN], time_zone="America/Sao_Paulo"), metadata=bearer(ann))
    export = svc.stub.ExportPlayerData(pb.ExportPlayerDataRequest(player_id=ann.player_id), metadata=ACCOUNT_SERVICE)
    assert [(t.installation_id, t.platform, t.token, t.locale) for t in export.push_tokens] == \
        [("ann-phone", pb.PUSH_PLATFORM_FCM, "ann-export-token", "pt-BR")]
    assert (list(export.notification_settings.push_disabled), export.notification_settings.time_zone) == \
        ([pb.NOTIFICATION_KIND_BAN], "America/Sao_Paulo")


def test_erasing_the_player_forgets_their_phones_and_settings(svc, ann, bob):
    register(svc, ann, "ann-phone", "ann-erased-token")
    register(svc, bob, "bob-phone", "bob-stays-token")
    svc.stub.UpdateNotificationSettings(pb.UpdateNotificationSettingsRequest(time_zone="Asia/Tokyo"),
                                        metadata=bearer(ann))
    svc.stub.ErasePlayer(pb.ErasePlayerRequest(player_id=ann.player_id), metadata=ACCOUNT_SERVICE)
    assert not any(ann.player_id in row for rows in svc.pushes.dump().values() for row in rows)
    assert phones(svc, bob) == [("bob-phone", "bob-stays-token")]
