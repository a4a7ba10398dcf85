"""Every AccountService RPC refuses bad input (missing, oversized, malformed, the wrong kind
of token) with a clear status and changes nothing in the account store."""

from __future__ import annotations

from contextlib import contextmanager

import grpc
import pytest

from domino.account.v1 import account_service_pb2 as pb
from services.common.auth import KeyRing, mint_token
from tests.support.errors import refusal
from tests.support.keys import auth

from .account_harness import bearer, device, running_accounts

OK_SECRET = "ab" * 32
NO_TOKEN = ()
FORGED = (("authorization", f"Bearer {mint_token('someone', KeyRing.generate(), 'player')}"),)


@pytest.fixture(scope="module")
def svc(tmp_path_factory):
    with running_accounts(tmp_path_factory.mktemp("accounts-bad")) as service:
        yield service


@pytest.fixture(scope="module")
def player(svc):
    return svc.sign_up("Bad Input Player")


@contextmanager
def nothing_changed(svc):
    before = svc.app.store.dump()
    yield
    assert svc.app.store.dump() == before, "the refused call changed the store"


# The ErrorInfo reason a refusal with this code carries unless the test names another.
REASONS = {grpc.StatusCode.INVALID_ARGUMENT: "INVALID_REQUEST", grpc.StatusCode.RESOURCE_EXHAUSTED: "RATE_LIMITED",
           grpc.StatusCode.ALREADY_EXISTS: "NAME_TAKEN"}


def refused(svc, code: grpc.StatusCode, call, *words: str, reason: str | None = None,
            field: str | None = None) -> None:
    """The call is refused with ``code``, its ErrorInfo ``reason`` (by default the code's
    usual one) and, for a malformed field, a BadRequest naming ``field``; the store unchanged."""
    with nothing_changed(svc), pytest.raises(grpc.RpcError) as caught:
        call()
    assert caught.value.code() == code, caught.value.details()
    for word in words:
        assert word in caught.value.details()
    got = refusal(caught.value)
    expected = reason or REASONS.get(code)
    assert expected is not None, f"say which reason {code} is refused with: {got.reason}"
    assert (got.reason, got.domain) == (expected, "domino.account"), got
    if field is not None:
        assert got.fields == (field,), got


@pytest.mark.parametrize("request_, words", [
    (pb.SignInWithDeviceRequest(device_secret=OK_SECRET), ["device_id is required"]),
    (pb.SignInWithDeviceRequest(device_id="d" * 20), ["device_secret is required"]),
    (pb.SignInWithDeviceRequest(device_id="short", device_secret=OK_SECRET), ["16-128"]),
    (pb.SignInWithDeviceRequest(device_id="d" * 129, device_secret=OK_SECRET), ["longer than 128"]),
    (pb.SignInWithDeviceRequest(device_id="has spaces in it ok", device_secret=OK_SECRET), ["16-128"]),
    (pb.SignInWithDeviceRequest(device_id="d" * 20, device_secret="ab" * 16), ["256 bits"]),
    (pb.SignInWithDeviceRequest(device_id="d" * 20, device_secret="zz" * 32), ["256 bits"]),
    (pb.SignInWithDeviceRequest(device_id="d" * 20, device_secret="a" * 65), ["longer than 64"]),
    (pb.SignInWithDeviceRequest(device_id="d" * 20, device_secret=OK_SECRET, display_name="x"), ["3 to 20"]),
    (pb.SignInWithDeviceRequest(device_id="d" * 20, device_secret=OK_SECRET, display_name="n" * 81),
     ["longer than 80"]),
])
def test_sign_in_with_device_refuses_malformed_input(svc, request_, words):
    field = next(f for f, said in DEVICE_FIELDS.items() if any(w in said for w in words))
    refused(svc, grpc.StatusCode.INVALID_ARGUMENT, lambda: svc.stub.SignInWithDevice(request_), *words, field=field)


# Which field a device sign-in's refusal names, by what it says.
DEVICE_FIELDS = {"device_id": "device_id is required 16-128 longer than 128",
                 "device_secret": "device_secret is required 256 bits longer than 64",
                 "display_name": "3 to 20 longer than 80"}


@pytest.mark.parametrize("request_, code, words", [
    (pb.SignInWithIdTokenRequest(id_token="x.y.z", nonce="n"), grpc.StatusCode.INVALID_ARGUMENT,
     ["provider is required"]),
    (pb.SignInWithIdTokenRequest(provider="google", nonce="n"), grpc.StatusCode.INVALID_ARGUMENT,
     ["id_token is required"]),
    (pb.SignInWithIdTokenRequest(provider="myspace", id_token="x.y.z", nonce="n"), grpc.StatusCode.INVALID_ARGUMENT,
     ["myspace"]),
    (pb.SignInWithIdTokenRequest(provider="google", id_token="t" * 8193, nonce="n"), grpc.StatusCode.INVALID_ARGUMENT,
     ["longer than 8192"]),
    (pb.SignInWithIdTokenRequest(provider="google", id_token="not-a-jwt", nonce="n"),
     grpc.StatusCode.UNAUTHENTICATED, ["ID token is refused"]),
    (pb.SignInWithIdTokenRequest(provider="google", id_token="x.y.z", nonce="n" * 513),
     grpc.StatusCode.INVALID_ARGUMENT, ["longer than 512"]),
])
def test_sign_in_with_id_token_refuses_malformed_input(svc, request_, code, words):
    reason = "CREDENTIALS_REFUSED" if code == grpc.StatusCode.UNAUTHENTICATED else None
    refused(svc, code, lambda: svc.stub.SignInWithIdToken(request_), *words, reason=reason)


def test_sign_in_with_id_token_refuses_a_player_access_token_as_an_id_token(svc, player):
    refused(svc, grpc.StatusCode.UNAUTHENTICATED, lambda: svc.stub.SignInWithIdToken(
        pb.SignInWithIdTokenRequest(provider="google", id_token=player.access_token, nonce="n")), "refused",
        reason="CREDENTIALS_REFUSED")


def test_sign_in_with_id_token_without_its_nonce_is_refused(svc):
    token = svc.id_token("google", "no-nonce-sent")
    refused(svc, grpc.StatusCode.UNAUTHENTICATED, lambda: svc.stub.SignInWithIdToken(
        pb.SignInWithIdTokenRequest(provider="google", id_token=token, nonce="")), reason="CREDENTIALS_REFUSED")


@pytest.mark.parametrize("token, code, words", [
    ("", grpc.StatusCode.INVALID_ARGUMENT, ["refresh_token is required"]),
    ("rt1.short", grpc.StatusCode.INVALID_ARGUMENT, ["malformed"]),
    ("r" * 65, grpc.StatusCode.INVALID_ARGUMENT, ["longer than 64"]),
    ("rt1." + "A" * 43, grpc.StatusCode.UNAUTHENTICATED, ["unknown refresh token"]),
])
def test_refresh_session_refuses_bad_refresh_tokens(svc, token, code, words):
    reason = "REFRESH_TOKEN_INVALID" if code == grpc.StatusCode.UNAUTHENTICATED else None
    refused(svc, code, lambda: svc.stub.RefreshSession(pb.RefreshSessionRequest(refresh_token=token)), *words,
            reason=reason, field=None if reason else "refresh_token")


def test_refresh_session_refuses_an_access_token_in_place_of_a_refresh_token(svc, player):
    refused(svc, grpc.StatusCode.INVALID_ARGUMENT, lambda: svc.stub.RefreshSession(
        pb.RefreshSessionRequest(refresh_token=player.access_token)))


# Every call that needs a signed-in player, with no token, a forged one, and another kind's.
AUTHENTICATED = [
    ("SignOut", pb.SignOutRequest()),
    ("SignOutEverywhere", pb.SignOutEverywhereRequest()),
    ("LinkIdentity", pb.LinkIdentityRequest(provider="google", id_token="x.y.z", nonce="n")),
    ("UnlinkIdentity", pb.UnlinkIdentityRequest(provider="google")),
    ("GetAccount", pb.GetAccountRequest()),
    ("SetDisplayName", pb.SetDisplayNameRequest(display_name="Someone New")),
    ("DeleteAccount", pb.DeleteAccountRequest()),
    ("ExportMyData", pb.ExportMyDataRequest()),
    ("RemoveDevice", pb.RemoveDeviceRequest(device_id="d" * 20)),
    ("RotateDeviceSecret", pb.RotateDeviceSecretRequest(device_id="d" * 20, device_secret=OK_SECRET,
                                                        new_device_secret="cd" * 32)),
]


@pytest.mark.parametrize("method, request_", AUTHENTICATED, ids=[m for m, _ in AUTHENTICATED])
@pytest.mark.parametrize("metadata, reason", [
    (NO_TOKEN, "TOKEN_MISSING"), (FORGED, "TOKEN_INVALID"), (auth("matchmaking", "service"), "WRONG_CALLER"),
    (auth("bot:greedy:1", "bot"), "WRONG_CALLER"), ((("authorization", "Bearer rt1." + "A" * 43),), "TOKEN_INVALID")],
    ids=["none", "forged", "service", "bot", "refresh-token"])
def test_player_calls_refuse_a_missing_forged_or_wrong_kind_of_token(svc, method, request_, metadata, reason):
    refused(svc, grpc.StatusCode.UNAUTHENTICATED, lambda: getattr(svc.stub, method)(request_, metadata=metadata),
            reason=reason)


def test_get_display_names_refuses_more_than_100_ids(svc, player):
    refused(svc, grpc.StatusCode.INVALID_ARGUMENT, lambda: svc.stub.GetDisplayNames(
        pb.GetDisplayNamesRequest(player_ids=[f"id-{n}" for n in range(101)]), metadata=bearer(player)), "100")


def test_get_display_names_refuses_an_empty_or_oversized_id(svc, player):
    for bad in ("", "x" * 201):
        refused(svc, grpc.StatusCode.INVALID_ARGUMENT, lambda: svc.stub.GetDisplayNames(
            pb.GetDisplayNamesRequest(player_ids=[bad]), metadata=bearer(player)))


def test_get_display_names_needs_a_token(svc):
    refused(svc, grpc.StatusCode.UNAUTHENTICATED, lambda: svc.stub.GetDisplayNames(
        pb.GetDisplayNamesRequest(player_ids=["a"])), reason="TOKEN_MISSING")


def test_set_display_name_refuses_an_empty_name(svc, player):
    refused(svc, grpc.StatusCode.INVALID_ARGUMENT, lambda: svc.stub.SetDisplayName(
        pb.SetDisplayNameRequest(display_name=""), metadata=bearer(player)), "display_name is required")


def test_set_display_name_refuses_a_name_another_account_holds_and_counts_only_the_try(svc, player):
    svc.sign_up("Taken Already")
    before = svc.app.store.dump()
    with pytest.raises(grpc.RpcError) as caught:
        svc.stub.SetDisplayName(pb.SetDisplayNameRequest(display_name="TAKEN ALREADY"), metadata=bearer(player))
    assert caught.value.code() == grpc.StatusCode.ALREADY_EXISTS
    after = svc.app.store.dump()
    assert {t for t in after if after[t] != before[t]} == {"domino_accounts"}
    mine = [(b, a) for b, a in zip(before["domino_accounts"], after["domino_accounts"]) if a != b]
    assert len(mine) == 1 and mine[0][0][:-1] == mine[0][1][:-1]  # only the last column: the tries


def test_link_identity_refuses_a_garbage_token(svc, player):
    refused(svc, grpc.StatusCode.UNAUTHENTICATED, lambda: svc.stub.LinkIdentity(
        pb.LinkIdentityRequest(provider="google", id_token="x.y.z", nonce="n"), metadata=bearer(player)),
        reason="CREDENTIALS_REFUSED")


def test_link_identity_refuses_an_unknown_provider(svc, player):
    refused(svc, grpc.StatusCode.INVALID_ARGUMENT, lambda: svc.stub.LinkIdentity(
        pb.LinkIdentityRequest(provider="myspace", id_token="x.y.z", nonce="n"), metadata=bearer(player)))


def test_unlink_identity_refuses_a_provider_that_is_not_linked(svc, player):
    refused(svc, grpc.StatusCode.FAILED_PRECONDITION, lambda: svc.stub.UnlinkIdentity(
        pb.UnlinkIdentityRequest(provider="apple"), metadata=bearer(player)), "no apple identity",
        reason="NOT_LINKED")


def test_unlink_identity_refuses_an_empty_or_oversized_provider(svc, player):
    for bad, words in (("", "provider is required"), ("p" * 33, "longer than 32")):
        refused(svc, grpc.StatusCode.INVALID_ARGUMENT, lambda: svc.stub.UnlinkIdentity(
            pb.UnlinkIdentityRequest(provider=bad), metadata=bearer(player)), words)


@pytest.mark.parametrize("metadata, reason", [(NO_TOKEN, "TOKEN_MISSING"), (FORGED, "TOKEN_INVALID")],
                         ids=["none", "forged"])
def test_get_standing_refuses_callers_without_a_service_token(svc, metadata, reason):
    refused(svc, grpc.StatusCode.UNAUTHENTICATED, lambda: svc.stub.GetStanding(
        pb.GetStandingRequest(player_id="someone"), metadata=metadata), reason=reason)


@pytest.mark.parametrize("request_, words", [
    (pb.RemoveDeviceRequest(), ["device_id is required"]),
    (pb.RemoveDeviceRequest(device_id="short"), ["16-128"]),
    (pb.RemoveDeviceRequest(device_id="d" * 129), ["longer than 128"]),
], ids=["missing", "malformed", "oversized"])
def test_remove_device_refuses_a_missing_or_malformed_device_id(svc, player, request_, words):
    refused(svc, grpc.StatusCode.INVALID_ARGUMENT, lambda: svc.stub.RemoveDevice(request_, metadata=bearer(player)),
            *words)


def test_remove_device_refuses_a_device_of_another_account(svc, player):
    other = device()
    svc.sign_up(pair=other)
    refused(svc, grpc.StatusCode.FAILED_PRECONDITION, lambda: svc.stub.RemoveDevice(
        pb.RemoveDeviceRequest(device_id=other[0]), metadata=bearer(player)), "no such device", reason="NOT_LINKED")


@pytest.mark.parametrize("fields, words", [
    (dict(device_secret=OK_SECRET, new_device_secret="cd" * 32), ["device_id is required"]),
    (dict(device_id="d" * 20, new_device_secret="cd" * 32), ["device_secret is required"]),
    (dict(device_id="d" * 20, device_secret=OK_SECRET), ["new_device_secret is required"]),
    (dict(device_id="d" * 20, device_secret=OK_SECRET, new_device_secret="zz" * 32), ["new_device_secret", "256"]),
    (dict(device_id="d" * 20, device_secret=OK_SECRET, new_device_secret=OK_SECRET), ["must differ"]),
    (dict(device_id="d" * 20, device_secret=OK_SECRET, new_device_secret="c" * 65), ["longer than 64"]),
], ids=["no-id", "no-secret", "no-new-secret", "malformed-new", "same", "oversized"])
def test_rotate_device_secret_refuses_malformed_input(svc, player, fields, words):
    refused(svc, grpc.StatusCode.INVALID_ARGUMENT, lambda: svc.stub.RotateDeviceSecret(
        pb.RotateDeviceSecretRequest(**fields), metadata=bearer(player)), *words)


def test_rotate_device_secret_refuses_a_wrong_secret_or_another_accounts_device(svc, player):
    other = device()
    svc.sign_up(pair=other)
    refused(svc, grpc.StatusCode.UNAUTHENTICATED, lambda: svc.stub.RotateDeviceSecret(pb.RotateDeviceSecretRequest(
        device_id=other[0], device_secret=other[1], new_device_secret="cd" * 32), metadata=bearer(player)),
        "do not sign in to this account", reason="CREDENTIALS_REFUSED")


def test_sign_out_everywhere_removing_devices_needs_an_identity_sign_in_where_there_is_one(svc):
    pair = device()
    session = svc.sign_up(pair=pair)
    svc.stub.LinkIdentity(pb.LinkIdentityRequest(provider="apple", id_token=svc.id_token("apple", "a-bad-input-sow"),
                                                 nonce="n-0123456789"), metadata=bearer(session))
    refused(svc, grpc.StatusCode.FAILED_PRECONDITION, lambda: svc.stub.SignOutEverywhere(
        pb.SignOutEverywhereRequest(remove_other_devices=True), metadata=bearer(session)), "identities",
        reason="SIGN_IN_AGAIN")


def test_get_standing_refuses_a_missing_or_oversized_account_id(svc):
    for bad in ("", "x" * 201):
        refused(svc, grpc.StatusCode.INVALID_ARGUMENT, lambda: svc.stub.GetStanding(
            pb.GetStandingRequest(player_id=bad), metadata=auth("matchmaking", "service")))


def test_a_flood_of_device_sign_ins_is_resource_exhausted(tmp_path):
    from services.common.config import Settings

    with running_accounts(tmp_path, settings=Settings.model_construct(
            command_rate=1e9, command_burst=1e9, sign_ins_per_minute=3)) as svc:
        device_id, secret = device()
        for _ in range(3):
            svc.stub.SignInWithDevice(pb.SignInWithDeviceRequest(device_id=device_id, device_secret=secret))
        refused(svc, grpc.StatusCode.RESOURCE_EXHAUSTED, lambda: svc.stub.SignInWithDevice(
            pb.SignInWithDeviceRequest(device_id=device_id, device_secret=secret)), "slow down")


@pytest.mark.parametrize("metadata, reason", [
    (NO_TOKEN, "TOKEN_MISSING"), (FORGED, "TOKEN_INVALID"), (auth("matchmaking", "service"), "WRONG_CALLER"),
    (auth("someone", "player"), "WRONG_CALLER"), (auth("bot:greedy:1", "bot"), "WRONG_CALLER")],
    ids=["none", "forged", "matchmaking", "player", "bot"])
def test_find_player_by_display_name_refuses_callers_but_the_social_service(svc, metadata, reason):
    refused(svc, grpc.StatusCode.UNAUTHENTICATED, lambda: svc.stub.FindPlayerByDisplayName(
        pb.FindPlayerByDisplayNameRequest(display_name="Bad Input Player"), metadata=metadata), reason=reason)


@pytest.mark.parametrize("name", ["", "n" * 81], ids=["missing", "oversized"])
def test_find_player_by_display_name_refuses_a_missing_or_oversized_name(svc, name):
    refused(svc, grpc.StatusCode.INVALID_ARGUMENT, lambda: svc.stub.FindPlayerByDisplayName(
        pb.FindPlayerByDisplayNameRequest(display_name=name), metadata=auth("social", "service")),
        field="display_name")


def test_find_player_by_display_name_of_no_one_is_not_found(svc):
    refused(svc, grpc.StatusCode.NOT_FOUND, lambda: svc.stub.FindPlayerByDisplayName(
        pb.FindPlayerByDisplayNameRequest(display_name="Nobody Has It"), metadata=auth("social", "service")),
        reason="PLAYER_NOT_FOUND")


def test_find_player_by_display_name_finds_the_name_in_another_case(svc, player):
    found = svc.stub.FindPlayerByDisplayName(pb.FindPlayerByDisplayNameRequest(display_name="BAD INPUT PLAYER"),
                                             metadata=auth("social", "service"))
    assert found.player_id == player.player_id
