"""The APNs provider token: ES256 with the .p8 key, kid and iss as Apple asks, kept for 50
minutes (Apple refuses renewals more often than every 20) and renewed before the hour."""

from __future__ import annotations

import jwt

from services.notifier.apns import ProviderToken
from tests.support.clock import Clock
from tests.support.fake_apns import KEY_ID, TEAM_ID, make_key


def test_the_token_is_signed_es256_with_the_key_id_and_team_id():
    pem, public = make_key()
    clock = Clock()
    token = ProviderToken(pem, KEY_ID, TEAM_ID, clock).current()
    assert jwt.get_unverified_header(token) == {"alg": "ES256", "kid": KEY_ID, "typ": "JWT"}
    assert jwt.decode(token, public, algorithms=["ES256"], options={"verify_iat": False}) == {"iss": TEAM_ID, "iat": int(clock.now)}


def test_the_same_token_is_reused_for_fifty_minutes():
    pem, _ = make_key()
    clock = Clock()
    tokens = ProviderToken(pem, KEY_ID, TEAM_ID, clock)
    first = tokens.current()
    clock.advance(49 * 60 + 59)
    assert tokens.current() == first


def test_a_new_token_is_signed_after_fifty_minutes_before_the_hour_apple_allows():
    pem, public = make_key()
    clock = Clock()
    tokens = ProviderToken(pem, KEY_ID, TEAM_ID, clock)
    first = tokens.current()
    clock.advance(50 * 60)
    second = tokens.current()
    assert second != first and jwt.decode(second, public, algorithms=["ES256"], options={"verify_iat": False})["iat"] == int(clock.now)


def test_a_token_apns_called_expired_is_replaced_at_the_next_push():
    pem, _ = make_key()
    clock = Clock()
    tokens = ProviderToken(pem, KEY_ID, TEAM_ID, clock)
    first = tokens.current()
    clock.advance(1)
    tokens.expire(first)
    assert tokens.current() != first


def test_an_expiry_told_about_an_older_token_keeps_the_current_one():
    pem, _ = make_key()
    clock = Clock()
    tokens = ProviderToken(pem, KEY_ID, TEAM_ID, clock)
    old = tokens.current()
    clock.advance(50 * 60)
    current = tokens.current()
    tokens.expire(old)
    assert tokens.current() == current
