"""Which providers a deployment has: each is on only with its credentials' file, so `domino
up` runs with neither (their phones' pushes are counted provider_off)."""

from __future__ import annotations

import asyncio
import json

import pytest

from domino.social.v1 import social_service_pb2 as pb
from services.common.config import Settings
from services.notifier import providers
from services.notifier.apns import Apns
from services.notifier.fcm import Fcm
from tests.support.fake_apns import make_key
from tests.support.fake_fcm import make_account


def test_without_credentials_both_providers_are_off():
    found = providers.providers_of(Settings(apns_key_file="", fcm_service_account_file=""))
    assert found == {pb.PUSH_PLATFORM_APNS: None, pb.PUSH_PLATFORM_FCM: None}


def test_each_provider_is_on_with_its_credentials_file(tmp_path):
    key, _ = make_key()
    (tmp_path / "apns.p8").write_bytes(key)
    account, _ = make_account("https://oauth2.example/token")
    (tmp_path / "fcm.json").write_text(json.dumps(account))
    found = providers.providers_of(Settings(apns_key_file=str(tmp_path / "apns.p8"), apns_key_id="K",
                                            apns_team_id="T", apns_topic="com.example.domino",
                                            fcm_service_account_file=str(tmp_path / "fcm.json")))
    try:
        apns, fcm = found[pb.PUSH_PLATFORM_APNS], found[pb.PUSH_PLATFORM_FCM]
        assert isinstance(apns, Apns) and set(apns.urls.values()) == {"https://api.push.apple.com",
                                                                       "https://api.sandbox.push.apple.com"}
        assert isinstance(fcm, Fcm) and fcm.url == "https://fcm.googleapis.com/v1/projects/domino-test/messages:send"
        assert fcm.account.token_uri == "https://oauth2.example/token"
    finally:
        asyncio.run(providers.close(found))


def test_an_apns_key_that_cannot_sign_stops_the_start(tmp_path):
    (tmp_path / "apns.p8").write_text("-----BEGIN PRIVATE KEY-----\nbm90IGEga2V5\n-----END PRIVATE KEY-----\n")
    with pytest.raises(ValueError):
        providers.providers_of(Settings(apns_key_file=str(tmp_path / "apns.p8"), apns_key_id="K", apns_team_id="T",
                                        fcm_service_account_file=""))
