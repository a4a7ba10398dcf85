"""The account service over gRPC, as a phone uses it: sign in by device or with Apple or
Google, refresh, link, name, sign out, delete (a real server, real OIDC issuers, SQLite)."""

from __future__ import annotations

import json

import grpc
import jwt
import pytest

from domino.account.v1 import account_service_pb2 as pb
from services.common.auth import verify_token
from tests.support.keys import KEYS, auth

from .account_harness import bearer, device, running_accounts

NONCE = "n-0123456789"


@pytest.fixture(scope="module")
def svc(tmp_path_factory):
    with running_accounts(tmp_path_factory.mktemp("accounts")) as service:
        yield service


def refused(call, code: grpc.StatusCode) -> str:
    with pytest.raises(grpc.RpcError) as caught:
        call()
    assert caught.value.code() == code, caught.value.details()
    return caught.value.details()


def google_sign_in(svc, subject: str, **kw):
    return svc.stub.SignInWithIdToken(pb.SignInWithIdTokenRequest(
        provider="google", id_token=svc.id_token("google", subject), nonce=NONCE, **kw))


# ---- devices ---------------------------------------------------------------------------

def test_first_device_sign_in_creates_a_guest_account(svc):
    device_id, secret = device()
    reply = svc.stub.SignInWithDevice(pb.SignInWithDeviceRequest(device_id=device_id, device_secret=secret,
                                                                 display_name="Guest One"))
    assert reply.created
    account = svc.stub.GetAccount(pb.GetAccountRequest(), metadata=bearer(reply.session)).account
    assert account.guest and account.devices == 1 and account.display_name == "Guest One"


def test_the_same_device_pair_signs_in_to_the_same_account(svc):
    pair = device()
    first = svc.sign_up("Same Phone", pair)
    again = svc.stub.SignInWithDevice(pb.SignInWithDeviceRequest(device_id=pair[0], device_secret=pair[1]))
    assert not again.created and again.session.player_id == first.player_id


def test_a_known_device_with_a_wrong_secret_is_unauthenticated_and_changes_nothing(svc):
    pair = device()
    first = svc.sign_up("Wrong Secret", pair)
    before = svc.app.store.dump()
    refused(lambda: svc.stub.SignInWithDevice(pb.SignInWithDeviceRequest(device_id=pair[0],
                                                                         device_secret="ab" * 32)),
            grpc.StatusCode.UNAUTHENTICATED)
    assert svc.app.store.dump() == before
    assert svc.sign_up(pair=pair).player_id == first.player_id


def test_the_server_keeps_only_a_hash_of_the_device_secret(svc):
    pair = device()
    svc.sign_up("Hashed Secret", pair)
    rows = json.dumps(svc.app.store.dump())
    assert pair[0] in rows and pair[1] not in rows


def test_an_account_id_is_opaque_and_never_the_name(svc):
    session = svc.sign_up("Opaque Id")
    assert "opaque" not in session.player_id.lower() and len(session.player_id) == 32


def test_a_new_account_without_a_name_gets_one_it_can_change(svc):
    session = svc.sign_up("")
    assert session.display_name.startswith("player-")


# ---- sessions --------------------------------------------------------------------------

def test_the_access_token_is_a_player_token_for_the_account_of_at_most_15_minutes(svc):
    session = svc.sign_up("Short Token")
    who = verify_token(session.access_token, KEYS)
    claims = jwt.decode(session.access_token, options={"verify_signature": False})
    assert who.role == "player" and who.subject == session.player_id
    assert claims["exp"] - claims["iat"] <= 900 and claims["sid"]


def test_refresh_rotates_both_tokens(svc):
    session = svc.sign_up("Rotator")
    fresh = svc.stub.RefreshSession(pb.RefreshSessionRequest(refresh_token=session.refresh_token)).session
    assert fresh.player_id == session.player_id
    assert fresh.refresh_token != session.refresh_token
    assert verify_token(fresh.access_token, KEYS).session == verify_token(session.access_token, KEYS).session


def test_a_retired_refresh_token_presented_again_revokes_the_whole_session(svc):
    session = svc.sign_up("Stolen Copy")
    fresh = svc.stub.RefreshSession(pb.RefreshSessionRequest(refresh_token=session.refresh_token)).session
    details = refused(lambda: svc.stub.RefreshSession(pb.RefreshSessionRequest(refresh_token=session.refresh_token)),
                      grpc.StatusCode.UNAUTHENTICATED)
    assert "already used" in details
    refused(lambda: svc.stub.RefreshSession(pb.RefreshSessionRequest(refresh_token=fresh.refresh_token)),
            grpc.StatusCode.UNAUTHENTICATED)


def test_reuse_revokes_only_that_session_not_the_accounts_others(svc):
    pair = device()
    one = svc.sign_up("Two Sessions", pair)
    other = svc.sign_up(pair=pair)
    svc.stub.RefreshSession(pb.RefreshSessionRequest(refresh_token=one.refresh_token))
    refused(lambda: svc.stub.RefreshSession(pb.RefreshSessionRequest(refresh_token=one.refresh_token)),
            grpc.StatusCode.UNAUTHENTICATED)
    assert svc.stub.RefreshSession(pb.RefreshSessionRequest(refresh_token=other.refresh_token)).session


def test_a_refresh_token_expires_30_days_after_its_last_use(svc):
    session = svc.sign_up("Thirty Days")
    svc.clock.advance(29 * 86400)
    fresh = svc.stub.RefreshSession(pb.RefreshSessionRequest(refresh_token=session.refresh_token)).session
    svc.clock.advance(31 * 86400)
    try:
        details = refused(lambda: svc.stub.RefreshSession(pb.RefreshSessionRequest(refresh_token=fresh.refresh_token)),
                          grpc.StatusCode.UNAUTHENTICATED)
    finally:
        svc.clock.advance(-60 * 86400)
    assert "expired" in details


def test_sign_out_ends_this_session_only(svc):
    pair = device()
    here, there = svc.sign_up("Sign Out", pair), svc.sign_up(pair=pair)
    svc.stub.SignOut(pb.SignOutRequest(), metadata=bearer(here))
    refused(lambda: svc.stub.RefreshSession(pb.RefreshSessionRequest(refresh_token=here.refresh_token)),
            grpc.StatusCode.UNAUTHENTICATED)
    assert svc.stub.RefreshSession(pb.RefreshSessionRequest(refresh_token=there.refresh_token)).session


def test_sign_out_everywhere_ends_every_session(svc):
    pair = device()
    sessions = [svc.sign_up("Everywhere", pair)] + [svc.sign_up(pair=pair) for _ in range(2)]
    ended = svc.stub.SignOutEverywhere(pb.SignOutEverywhereRequest(), metadata=bearer(sessions[0])).sessions_ended
    assert ended == 3
    for session in sessions:
        refused(lambda: svc.stub.RefreshSession(pb.RefreshSessionRequest(refresh_token=session.refresh_token)),
                grpc.StatusCode.UNAUTHENTICATED)


# ---- identities ------------------------------------------------------------------------

def test_the_first_sign_in_with_an_identity_creates_an_account(svc):
    reply = google_sign_in(svc, "google-first")
    assert reply.created and not svc.stub.GetAccount(pb.GetAccountRequest(),
                                                     metadata=bearer(reply.session)).account.guest


def test_apple_sign_in_checks_the_sha256_of_the_raw_nonce(svc):
    token = svc.id_token("apple", "apple-nonce")
    assert svc.stub.SignInWithIdToken(pb.SignInWithIdTokenRequest(provider="apple", id_token=token,
                                                                  nonce=NONCE)).created
    refused(lambda: svc.stub.SignInWithIdToken(pb.SignInWithIdTokenRequest(provider="apple", id_token=token,
                                                                           nonce="another-nonce")),
            grpc.StatusCode.UNAUTHENTICATED)


def test_a_token_for_another_provider_is_refused(svc):
    token = svc.id_token("google", "crossed")
    refused(lambda: svc.stub.SignInWithIdToken(pb.SignInWithIdTokenRequest(provider="apple", id_token=token,
                                                                           nonce=NONCE)),
            grpc.StatusCode.UNAUTHENTICATED)


def test_a_guest_links_an_identity_and_a_second_phone_finds_the_same_account(svc):
    guest = svc.sign_up("Links Apple")
    linked = svc.stub.LinkIdentity(pb.LinkIdentityRequest(provider="apple", id_token=svc.id_token("apple", "a-link"),
                                                          nonce=NONCE), metadata=bearer(guest)).account
    assert not linked.guest and [i.provider for i in linked.identities] == ["apple"]
    phone2 = svc.stub.SignInWithIdToken(pb.SignInWithIdTokenRequest(
        provider="apple", id_token=svc.id_token("apple", "a-link"), nonce=NONCE))
    assert not phone2.created and phone2.session.player_id == guest.player_id
    assert phone2.session.display_name == "Links Apple"


def test_an_identity_linked_to_another_account_is_already_exists_and_nothing_merges(svc):
    owner = google_sign_in(svc, "g-owned").session
    guest = svc.sign_up("Would Merge")
    before = svc.app.store.dump()
    refused(lambda: svc.stub.LinkIdentity(pb.LinkIdentityRequest(
        provider="google", id_token=svc.id_token("google", "g-owned"), nonce=NONCE), metadata=bearer(guest)),
        grpc.StatusCode.ALREADY_EXISTS)
    assert svc.app.store.dump() == before
    assert google_sign_in(svc, "g-owned").session.player_id == owner.player_id


def test_the_last_way_in_cannot_be_unlinked(svc):
    only = google_sign_in(svc, "g-only").session
    refused(lambda: svc.stub.UnlinkIdentity(pb.UnlinkIdentityRequest(provider="google"), metadata=bearer(only)),
            grpc.StatusCode.FAILED_PRECONDITION)


def test_an_identity_unlinks_while_a_device_still_leads_in(svc):
    guest = svc.sign_up("Unlinks")
    svc.stub.LinkIdentity(pb.LinkIdentityRequest(provider="google", id_token=svc.id_token("google", "g-unlink"),
                                                 nonce=NONCE), metadata=bearer(guest))
    with_google = google_sign_in(svc, "g-unlink").session
    account = svc.stub.UnlinkIdentity(pb.UnlinkIdentityRequest(provider="google"),
                                      metadata=bearer(with_google)).account
    assert account.guest
    assert google_sign_in(svc, "g-unlink").created  # the identity leads nowhere now: a new account


# ---- display names ---------------------------------------------------------------------

def test_display_names_are_unique_ignoring_case_and_look_alike_forms(svc):
    svc.sign_up("Zoë Lookalike")
    for other in ("zoë lookalike", "ZOË LOOKALIKE", "Ｚｏë Lookalike"):
        refused(lambda: svc.sign_up(other), grpc.StatusCode.ALREADY_EXISTS)


@pytest.mark.parametrize("name, why", [
    ("ab", "3 to 20"), ("a" * 21, "3 to 20"), ("bad\u200bname", "invisible"), ("tab\tname", "control"),
    ("bot:greedy", "bot"), ("greedy bot", "bot"), ("strong", "bot"), ("two  spaces", "two spaces"),
])
def test_a_display_name_that_breaks_a_rule_is_invalid_argument(svc, name, why):
    session = svc.sign_up("Renamer " + str(abs(hash(name)) % 10_000))
    details = refused(lambda: svc.stub.SetDisplayName(pb.SetDisplayNameRequest(display_name=name),
                                                      metadata=bearer(session)), grpc.StatusCode.INVALID_ARGUMENT)
    assert why in details


def test_display_name_changes_are_rate_limited(svc):
    session = svc.sign_up("Changer")
    for n in range(3):
        svc.stub.SetDisplayName(pb.SetDisplayNameRequest(display_name=f"Changer {n}"), metadata=bearer(session))
    details = refused(lambda: svc.stub.SetDisplayName(pb.SetDisplayNameRequest(display_name="Changer 9"),
                                                      metadata=bearer(session)), grpc.StatusCode.FAILED_PRECONDITION)
    assert "3 times a day" in details


def test_others_see_the_display_name_by_account_id(svc):
    ann, bob = svc.sign_up("Ann Names"), svc.sign_up("Bob Names")
    found = svc.stub.GetDisplayNames(pb.GetDisplayNamesRequest(player_ids=[ann.player_id, "bot:greedy:1", "nobody"]),
                                     metadata=bearer(bob)).display_names
    assert dict(found) == {ann.player_id: "Ann Names"}


# ---- standing, bans, deletion ----------------------------------------------------------

def test_standing_is_for_services_only(svc):
    player = svc.sign_up("Not A Service")
    refused(lambda: svc.stub.GetStanding(pb.GetStandingRequest(player_id=player.player_id),
                                         metadata=bearer(player)), grpc.StatusCode.UNAUTHENTICATED)
    reply = svc.stub.GetStanding(pb.GetStandingRequest(player_id=player.player_id),
                                 metadata=auth("matchmaking", "service"))
    assert reply.standing == pb.STANDING_ACTIVE


def test_a_banned_accounts_refresh_is_refused_with_the_reason_and_the_end(svc):
    session = svc.sign_up("Banned One")
    svc.app.ban(session.player_id, svc.clock() + 86400, "abusive chat")
    try:
        details = refused(lambda: svc.stub.RefreshSession(pb.RefreshSessionRequest(
            refresh_token=session.refresh_token)), grpc.StatusCode.PERMISSION_DENIED)
        standing = svc.stub.GetStanding(pb.GetStandingRequest(player_id=session.player_id),
                                        metadata=auth("matchmaking", "service"))
    finally:
        svc.app.unban(session.player_id)
    assert "abusive chat" in details and "banned until" in details
    assert standing.standing == pb.STANDING_BANNED and standing.reason == "abusive chat"


def test_delete_needs_a_sign_in_from_the_last_five_minutes(svc):
    svc.clock.advance(-301)
    try:
        session = svc.sign_up("Old Sign In")
    finally:
        svc.clock.advance(301)
    fresh = svc.stub.RefreshSession(pb.RefreshSessionRequest(refresh_token=session.refresh_token)).session
    details = refused(lambda: svc.stub.DeleteAccount(pb.DeleteAccountRequest(), metadata=bearer(fresh)),
                      grpc.StatusCode.FAILED_PRECONDITION)
    assert "five minutes" in details


def test_delete_erases_every_row_of_personal_data_and_keeps_the_id_as_deleted(svc):
    pair = device()
    session = svc.sign_up("Forget Me Now", pair)
    svc.stub.LinkIdentity(pb.LinkIdentityRequest(provider="google", id_token=svc.id_token("google", "g-forget-me"),
                                                 nonce=NONCE), metadata=bearer(session))
    session = google_sign_in(svc, "g-forget-me").session  # the account has an identity: delete signed in with it
    svc.stub.DeleteAccount(pb.DeleteAccountRequest(), metadata=bearer(session))
    rows = json.dumps(svc.app.store.dump(), ensure_ascii=False)
    for personal in ("Forget Me Now", "g-forget-me", pair[0]):
        assert personal not in rows
    standing = svc.stub.GetStanding(pb.GetStandingRequest(player_id=session.player_id),
                                    metadata=auth("matchmaking", "service"))
    assert standing.standing == pb.STANDING_DELETED
    refused(lambda: svc.stub.GetAccount(pb.GetAccountRequest(), metadata=bearer(session)),
            grpc.StatusCode.UNAUTHENTICATED)


def test_export_my_data_holds_the_account_its_identities_and_devices(svc):
    pair = device()
    session = svc.sign_up("Exporter", pair)
    svc.stub.LinkIdentity(pb.LinkIdentityRequest(provider="apple", id_token=svc.id_token("apple", "a-export"),
                                                 nonce=NONCE), metadata=bearer(session))
    data = json.loads(svc.stub.ExportMyData(pb.ExportMyDataRequest(), metadata=bearer(session)).data_json)
    assert data["account"]["display_name"] == "Exporter"
    assert [(i["provider"], i["subject"]) for i in data["identities"]] == [("apple", "a-export")]
    assert [d["device_id"] for d in data["devices"]] == [pair[0]] and data["matches"] == []
