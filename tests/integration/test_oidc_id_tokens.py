"""The ID-token verifier of the account service against a real OIDC issuer over HTTPS
(tests/support/oidc_issuer.py): what it accepts, every forgery and mistake it refuses,
and how often it asks the issuer for keys."""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import jwt
import pytest

from services.common.oidc import (
    APPLE,
    GOOGLE,
    IdTokenRefused,
    IdTokenVerifier,
    KeysUnavailable,
    Provider,
    UnknownProvider,
    VerifiedIdentity,
    providers_from_json,
    well_known,
)
from tests.support.clock import Clock
from tests.support.oidc_issuer import OidcIssuer, new_key, sha256_nonce

pytestmark = pytest.mark.integration

APP = "domino-app"
NONCE = "raw-nonce-4f1c"


@pytest.fixture
def issuer() -> Iterator[OidcIssuer]:
    with OidcIssuer() as running:
        yield running


@pytest.fixture
def other_issuer() -> Iterator[OidcIssuer]:
    with OidcIssuer() as running:
        yield running


@pytest.fixture
def verifier(issuer: OidcIssuer) -> IdTokenVerifier:
    return IdTokenVerifier([issuer.provider()], ca_file=str(issuer.ca_file))


def refusal(verifier: IdTokenVerifier, token: str, nonce: str = NONCE, provider: str = "test") -> str:
    with pytest.raises(IdTokenRefused) as refused:
        verifier.verify(provider, token, nonce)
    assert token not in str(refused.value) or len(token) < 8
    return str(refused.value)


# ---- accepted ---------------------------------------------------------------------------

def test_a_valid_rs256_token_is_accepted(issuer: OidcIssuer, verifier: IdTokenVerifier) -> None:
    identity = verifier.verify("test", issuer.sign("user-1", APP, NONCE), NONCE)
    assert identity == VerifiedIdentity("test", issuer.issuer, "user-1")


def test_a_valid_es256_token_is_accepted(issuer: OidcIssuer, verifier: IdTokenVerifier) -> None:
    identity = verifier.verify("test", issuer.sign("user-1", APP, NONCE, alg="ES256"), NONCE)
    assert identity.subject == "user-1"


def test_an_apple_style_token_carrying_the_sha256_of_the_nonce_is_accepted(issuer: OidcIssuer) -> None:
    verifier = IdTokenVerifier([issuer.provider("apple", nonce="sha256")], ca_file=str(issuer.ca_file))
    token = issuer.sign("001234.abcd", APP, sha256_nonce(NONCE))
    assert verifier.verify("apple", token, NONCE).subject == "001234.abcd"


def test_a_firebase_style_token_without_a_nonce_is_accepted_where_the_provider_binds_none(issuer: OidcIssuer) -> None:
    from dataclasses import replace

    verifier = IdTokenVerifier([replace(issuer.provider("firebase"), nonce="none", max_age_seconds=3600)],
                               ca_file=str(issuer.ca_file))
    token = issuer.sign("firebase-uid", APP, None, issued_at=time.time() - 1800, expires_in=3600)
    assert verifier.verify("firebase", token, "").subject == "firebase-uid"


def test_a_half_hour_old_token_is_refused_under_the_default_age(issuer: OidcIssuer,
                                                                verifier: IdTokenVerifier) -> None:
    token = issuer.sign("user-1", APP, NONCE, issued_at=time.time() - 1800, expires_in=3600)
    assert "too long ago" in refusal(verifier, token)


def test_providers_from_json_takes_a_nonce_of_none_and_a_max_age() -> None:
    (firebase,) = providers_from_json(json.dumps([{
        "name": "firebase", "issuer": "https://securetoken.google.com/domino-app",
        "jwks_uri": "https://www.googleapis.com/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com",
        "client_ids": ["domino-app"], "nonce": "none", "max_age_seconds": 3600}]))
    assert (firebase.nonce, firebase.max_age_seconds) == ("none", 3600)


def test_a_token_from_an_issuer_alias_is_accepted_under_the_canonical_issuer(issuer: OidcIssuer) -> None:
    alias = issuer.issuer.removeprefix("https://")  # as Google's "accounts.google.com"
    provider = Provider("google", issuer.issuer, issuer.jwks_uri, (APP,), issuer_aliases=(alias,))
    verifier = IdTokenVerifier([provider], ca_file=str(issuer.ca_file))
    identity = verifier.verify("google", issuer.sign("1077", APP, NONCE, issuer=alias), NONCE)
    assert identity == VerifiedIdentity("google", issuer.issuer, "1077")


def test_a_token_for_several_audiences_including_the_app_is_accepted(issuer: OidcIssuer,
                                                                     verifier: IdTokenVerifier) -> None:
    token = issuer.sign("user-1", ["someone-else", APP], NONCE, extra={"azp": APP})
    assert verifier.verify("test", token, NONCE).subject == "user-1"


def test_a_token_expired_within_the_leeway_is_accepted(issuer: OidcIssuer, verifier: IdTokenVerifier) -> None:
    token = issuer.sign("user-1", APP, NONCE, issued_at=time.time() - 330, expires_in=300)
    assert verifier.verify("test", token, NONCE).subject == "user-1"


def test_the_keys_are_fetched_once_for_many_tokens(issuer: OidcIssuer, verifier: IdTokenVerifier) -> None:
    for n in range(10):
        verifier.verify("test", issuer.sign(f"user-{n}", APP, NONCE, alg=("RS256", "ES256")[n % 2]), NONCE)
    assert issuer.fetches == 1


def test_each_jwks_fetch_is_reported_with_its_outcome(issuer: OidcIssuer) -> None:
    clock = Clock(time.time())
    seen: list[tuple[str, str]] = []
    verifier = IdTokenVerifier([issuer.provider()], ca_file=str(issuer.ca_file), clock=clock,
                               on_fetch=lambda provider, outcome: seen.append((provider, outcome)))
    verifier.verify("test", issuer.sign("user-1", APP, NONCE, issued_at=clock.now), NONCE)
    issuer.stop()
    clock.advance(61)
    with pytest.raises(KeysUnavailable):
        verifier.verify("test", issuer.sign("user-1", APP, NONCE, issued_at=clock.now, kid="new-kid"), NONCE)
    assert seen == [("test", "ok"), ("test", "error")]


# ---- refused: forgeries -------------------------------------------------------------------

def test_a_token_signed_by_another_key_under_the_right_kid_is_refused(issuer: OidcIssuer,
                                                                       verifier: IdTokenVerifier) -> None:
    token = issuer.sign("user-1", APP, NONCE, key=new_key("RS256"), kid=issuer.kid("RS256"))
    assert refusal(verifier, token) == "the token's signature is not valid"


def test_a_token_naming_an_unknown_kid_is_refused(issuer: OidcIssuer, verifier: IdTokenVerifier) -> None:
    token = issuer.sign("user-1", APP, NONCE, kid="no-such-key")
    assert refusal(verifier, token) == "unknown signing key"


def test_a_token_naming_no_kid_is_refused(issuer: OidcIssuer, verifier: IdTokenVerifier) -> None:
    token = issuer.sign("user-1", APP, NONCE, headers={"kid": None})
    assert refusal(verifier, token) == "the token names no signing key (kid)"
    assert issuer.fetches == 0


def test_an_es256_token_under_the_rsa_keys_kid_is_refused(issuer: OidcIssuer, verifier: IdTokenVerifier) -> None:
    token = issuer.sign("user-1", APP, NONCE, alg="ES256", kid=issuer.kid("RS256"))
    assert refusal(verifier, token) == "the token's algorithm does not match its key"


def test_an_unsigned_alg_none_token_is_refused_before_any_key_is_fetched(issuer: OidcIssuer,
                                                                          verifier: IdTokenVerifier) -> None:
    token = issuer.sign("user-1", APP, NONCE, alg="none")
    assert token.endswith(".")
    assert refusal(verifier, token) == "the signing algorithm none is not accepted for test"
    assert issuer.fetches == 0


def test_an_hs256_token_keyed_with_the_public_key_pem_is_refused_before_any_key_is_fetched(
        issuer: OidcIssuer, verifier: IdTokenVerifier) -> None:
    token = issuer.sign("user-1", APP, NONCE, alg="HS256")
    assert refusal(verifier, token) == "the signing algorithm HS256 is not accepted for test"
    assert issuer.fetches == 0


def test_a_token_with_a_wrong_issuer_is_refused_without_fetching_keys(issuer: OidcIssuer,
                                                                       verifier: IdTokenVerifier) -> None:
    token = issuer.sign("user-1", APP, NONCE, issuer="https://evil.example")
    assert refusal(verifier, token) == "the token's issuer is not test's"
    assert issuer.fetches == 0


def test_a_token_of_another_configured_provider_is_refused(issuer: OidcIssuer, other_issuer: OidcIssuer) -> None:
    verifier = IdTokenVerifier([issuer.provider("apple", nonce="sha256"), other_issuer.provider("google")],
                               ca_file=str(issuer.ca_file))
    token = other_issuer.sign("user-1", APP, NONCE)
    assert refusal(verifier, token, provider="apple") == "the token is not from apple"
    assert issuer.fetches == other_issuer.fetches == 0


def test_a_token_from_an_unlisted_issuer_is_refused(issuer: OidcIssuer, other_issuer: OidcIssuer,
                                                     verifier: IdTokenVerifier) -> None:
    token = other_issuer.sign("user-1", APP, NONCE)
    assert refusal(verifier, token) == "the token's issuer is not test's"
    assert issuer.fetches == other_issuer.fetches == 0


def test_a_token_for_another_audience_is_refused(issuer: OidcIssuer, verifier: IdTokenVerifier) -> None:
    token = issuer.sign("user-1", "another-app", NONCE)
    assert refusal(verifier, token) == "the token is not for this app (aud)"


def test_a_token_for_several_audiences_authorized_for_another_app_is_refused(issuer: OidcIssuer,
                                                                              verifier: IdTokenVerifier) -> None:
    token = issuer.sign("user-1", [APP, "another-app"], NONCE, extra={"azp": "another-app"})
    assert refusal(verifier, token) == "the token was issued to another app (azp)"


def test_a_token_without_a_subject_is_refused(issuer: OidcIssuer, verifier: IdTokenVerifier) -> None:
    token = issuer.sign("user-1", APP, NONCE, extra={"sub": None})
    assert refusal(verifier, token) == "the token has no sub claim"


def test_a_token_with_an_overlong_subject_is_refused(issuer: OidcIssuer, verifier: IdTokenVerifier) -> None:
    token = issuer.sign("u" * 256, APP, NONCE)
    assert refusal(verifier, token) == "the token has no valid subject"


# ---- refused: times ----------------------------------------------------------------------

def test_an_expired_token_is_refused(issuer: OidcIssuer, verifier: IdTokenVerifier) -> None:
    token = issuer.sign("user-1", APP, NONCE, issued_at=time.time() - 400, expires_in=300)
    assert refusal(verifier, token) == "the token has expired"


def test_a_token_issued_in_the_future_beyond_the_leeway_is_refused(issuer: OidcIssuer,
                                                                    verifier: IdTokenVerifier) -> None:
    token = issuer.sign("user-1", APP, NONCE, issued_at=time.time() + 120)
    assert refusal(verifier, token) == "the token was issued in the future"


def test_a_token_issued_too_long_ago_is_refused(issuer: OidcIssuer, verifier: IdTokenVerifier) -> None:
    token = issuer.sign("user-1", APP, NONCE, issued_at=time.time() - 700, expires_in=3600)
    assert refusal(verifier, token) == "the token was issued too long ago; sign in again"


def test_the_injected_clock_decides_expiry(issuer: OidcIssuer) -> None:
    clock = Clock(time.time())
    verifier = IdTokenVerifier([issuer.provider()], ca_file=str(issuer.ca_file), clock=clock)
    token = issuer.sign("user-1", APP, NONCE, issued_at=clock.now, expires_in=300)
    verifier.verify("test", token, NONCE)
    clock.advance(361)
    assert refusal(verifier, token) == "the token has expired"


# ---- refused: nonce -----------------------------------------------------------------------

def test_a_token_for_another_nonce_is_refused(issuer: OidcIssuer, verifier: IdTokenVerifier) -> None:
    token = issuer.sign("user-1", APP, "another-nonce")
    assert refusal(verifier, token) == "the nonce does not match the token"


def test_an_apple_style_token_carrying_the_raw_nonce_is_refused(issuer: OidcIssuer) -> None:
    verifier = IdTokenVerifier([issuer.provider("apple", nonce="sha256")], ca_file=str(issuer.ca_file))
    token = issuer.sign("001234.abcd", APP, NONCE)
    assert refusal(verifier, token, provider="apple") == "the nonce does not match the token"


def test_a_token_without_a_nonce_claim_is_refused(issuer: OidcIssuer, verifier: IdTokenVerifier) -> None:
    token = issuer.sign("user-1", APP, None)
    assert refusal(verifier, token) == "the token has no nonce"


def test_a_request_without_a_nonce_is_refused(issuer: OidcIssuer, verifier: IdTokenVerifier) -> None:
    token = issuer.sign("user-1", APP, "")
    assert refusal(verifier, token, nonce="") == "the request has no nonce"


# ---- refused: not a token at all, unknown provider ----------------------------------------

@pytest.mark.parametrize("garbage", ["", "not-a-token", "a.b", "a.b.c.d", "a b.c d.e", "eyJhbGciOi.eyJzdWIi.c2ln",
                                     "bm90IGpzb24.bm90IGpzb24.c2ln"])
def test_garbage_is_refused(verifier: IdTokenVerifier, garbage: str) -> None:
    refusal(verifier, garbage)


def test_an_oversized_token_is_refused_before_it_is_parsed(issuer: OidcIssuer, verifier: IdTokenVerifier) -> None:
    token = issuer.sign("user-1", APP, NONCE, extra={"padding": "x" * 9000})
    assert refusal(verifier, token) == "the ID token is longer than 8 KiB"
    assert issuer.fetches == 0


def test_an_unconfigured_provider_name_is_an_unknown_provider(issuer: OidcIssuer, verifier: IdTokenVerifier) -> None:
    with pytest.raises(UnknownProvider):
        verifier.verify("facebook", issuer.sign("user-1", APP, NONCE), NONCE)


# ---- the issuer's keys: outages, rotation, floods ----------------------------------------

def test_an_unreachable_jwks_makes_the_keys_unavailable(issuer: OidcIssuer, verifier: IdTokenVerifier) -> None:
    issuer.stop()
    with pytest.raises(KeysUnavailable) as refused:
        verifier.verify("test", issuer.sign("user-1", APP, NONCE), NONCE)
    assert str(refused.value) == "cannot fetch the issuer's keys; try again"


def test_keys_already_held_still_verify_while_the_jwks_is_down(issuer: OidcIssuer) -> None:
    clock = Clock(time.time())
    verifier = IdTokenVerifier([issuer.provider()], ca_file=str(issuer.ca_file), clock=clock,
                               max_age_seconds=7200, keys_max_age_seconds=3600)
    token = issuer.sign("user-1", APP, NONCE, issued_at=clock.now, expires_in=7200)
    verifier.verify("test", token, NONCE)
    issuer.stop()
    clock.advance(3601)  # the held keys are due for a refresh, which fails
    assert verifier.verify("test", token, NONCE).subject == "user-1"


def test_a_rotated_key_is_accepted_after_exactly_one_refetch(issuer: OidcIssuer) -> None:
    clock = Clock(time.time())
    verifier = IdTokenVerifier([issuer.provider()], ca_file=str(issuer.ca_file), clock=clock)
    verifier.verify("test", issuer.sign("user-1", APP, NONCE, issued_at=clock.now), NONCE)
    assert issuer.fetches == 1
    new_kid = issuer.rotate()
    clock.advance(61)
    token = issuer.sign("user-1", APP, NONCE, issued_at=clock.now)
    assert jwt.get_unverified_header(token)["kid"] == new_kid
    assert verifier.verify("test", token, NONCE).subject == "user-1"
    assert issuer.fetches == 2
    verifier.verify("test", issuer.sign("user-2", APP, NONCE, issued_at=clock.now), NONCE)
    assert issuer.fetches == 2


# While one sign-in fetches the keys, the others are told to try again rather than wait.
REFUSED_FOR_A_MADE_UP_KID = {"unknown signing key", "the issuer's keys are being fetched; try again in a few seconds"}


def test_a_flood_of_unknown_kids_costs_the_issuer_at_most_one_fetch_a_minute(issuer: OidcIssuer) -> None:
    clock = Clock(time.time())
    verifier = IdTokenVerifier([issuer.provider()], ca_file=str(issuer.ca_file), clock=clock)
    verifier.verify("test", issuer.sign("user-1", APP, NONCE, issued_at=clock.now), NONCE)
    assert issuer.fetches == 1

    def flood() -> list[str]:
        tokens = [issuer.sign("user-1", APP, NONCE, issued_at=clock.now, kid=secrets.token_hex(8)) for _ in range(50)]
        with ThreadPoolExecutor(max_workers=10) as pool:
            return list(pool.map(lambda token: refusal(verifier, token), tokens))

    assert set(flood()) <= REFUSED_FOR_A_MADE_UP_KID
    assert issuer.fetches == 1  # within the minute of the first fetch
    clock.advance(61)
    assert set(flood()) <= REFUSED_FOR_A_MADE_UP_KID
    assert issuer.fetches == 2
    clock.advance(30)
    flood()
    assert issuer.fetches == 2
    clock.advance(31)
    flood()
    assert issuer.fetches == 3


# ---- DOMINO_OIDC_PROVIDERS ----------------------------------------------------------------

def test_providers_from_json_reads_every_field() -> None:
    text = json.dumps([{"name": "keycloak", "issuer": "https://id.example.com/realms/domino",
                        "jwks_uri": "https://id.example.com/realms/domino/protocol/openid-connect/certs",
                        "client_ids": ["domino", "domino-web"], "nonce": "plain",
                        "issuer_aliases": ["id.example.com/realms/domino"], "algorithms": ["ES256"]},
                       {"name": "firebase", "issuer": "https://securetoken.google.com/domino",
                        "jwks_uri": "https://www.googleapis.com/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com",
                        "client_ids": ["domino"]}])
    keycloak, firebase = providers_from_json(text)
    assert keycloak == Provider("keycloak", "https://id.example.com/realms/domino",
                                "https://id.example.com/realms/domino/protocol/openid-connect/certs",
                                ("domino", "domino-web"), "plain", ("id.example.com/realms/domino",), ("ES256",))
    assert firebase.nonce == "plain" and firebase.algorithms == ("RS256", "ES256")


def test_providers_from_json_fills_in_apple_and_google() -> None:
    apple, google = providers_from_json('[{"name": "apple", "client_ids": ["com.example.domino"]},'
                                        ' {"name": "google", "client_ids": ["123-x.apps.googleusercontent.com"]}]')
    assert apple == well_known("apple", ["com.example.domino"])
    assert (apple.issuer, apple.jwks_uri, apple.nonce) == (APPLE.issuer, APPLE.jwks_uri, "sha256")
    assert google == well_known("google", ("123-x.apps.googleusercontent.com",))
    assert (google.issuer, google.issuer_aliases, google.nonce) == (GOOGLE.issuer, ("accounts.google.com",), "plain")


def test_providers_from_json_of_empty_text_is_no_providers() -> None:
    assert providers_from_json("  \n") == ()


def test_providers_from_json_refuses_an_http_jwks_uri() -> None:
    text = '[{"name": "kc", "issuer": "https://id.example.com", "jwks_uri": "http://id.example.com/certs", "client_ids": ["d"]}]'
    with pytest.raises(ValueError, match=r"entry 0 \('kc'\): jwks_uri must be an https:// URL"):
        providers_from_json(text)


def test_providers_from_json_refuses_a_name_used_twice() -> None:
    with pytest.raises(ValueError, match="entry 1 .*used twice"):
        providers_from_json('[{"name": "apple", "client_ids": ["a"]}, {"name": "apple", "client_ids": ["b"]}]')


def test_providers_from_json_refuses_an_entry_without_client_ids() -> None:
    with pytest.raises(ValueError, match=r"entry 0 \('google'\): client_ids must be a non-empty list"):
        providers_from_json('[{"name": "google"}]')


def test_providers_from_json_refuses_symmetric_algorithms() -> None:
    text = '[{"name": "apple", "client_ids": ["a"], "algorithms": ["RS256", "HS256"]}]'
    with pytest.raises(ValueError, match="algorithms must be some of"):
        providers_from_json(text)


def test_providers_from_json_refuses_a_misspelt_field() -> None:
    with pytest.raises(ValueError, match="unknown fields: clientIds"):
        providers_from_json('[{"name": "apple", "client_ids": ["a"], "clientIds": ["b"]}]')


def test_the_test_issuers_providers_json_configures_a_working_verifier(issuer: OidcIssuer) -> None:
    env = issuer.env("apple", nonce="sha256")
    verifier = IdTokenVerifier(providers_from_json(env["DOMINO_OIDC_PROVIDERS"]), ca_file=env["DOMINO_OIDC_CA_FILE"])
    assert verifier.providers["apple"].issuer == issuer.issuer
    assert verifier.verify("apple", issuer.sign("a-1", APP, sha256_nonce(NONCE)), NONCE).subject == "a-1"
