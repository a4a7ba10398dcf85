"""What a red team did to the account service, done again: each test is the attack, over
real gRPC on a real SQLite store, and fails on the code before its defence
(docs/security.md, "Accounts")."""

from __future__ import annotations

import logging
import secrets
import threading
from concurrent.futures import ThreadPoolExecutor, wait

import grpc
import pytest

from domino.account.v1 import account_service_pb2 as pb
from domino.account.v1 import account_service_pb2_grpc as pb_grpc
from services.accounts.use_cases import DAY
from services.common.config import Settings
from tests.support.errors import Refusal, reason_of, refusal
from tests.support.forwarding_edge import forwarding_edge, from_address

from .account_harness import bearer, code_of, device, running_accounts

NONCE = "n-0123456789"


def limited(per_minute: float, trusted: str = "") -> Settings:
    return Settings.model_construct(command_rate=1e9, command_burst=1e9, sign_ins_per_minute=per_minute,
                                    trusted_proxies=trusted)


def junk_refresh() -> pb.RefreshSessionRequest:
    """Well formed, and nobody's."""
    return pb.RefreshSessionRequest(refresh_token="rt1." + secrets.token_urlsafe(32))


@pytest.fixture(scope="module")
def svc(tmp_path_factory):
    with running_accounts(tmp_path_factory.mktemp("accounts-attack")) as service:
        yield service


def identity_session(svc, provider: str, subject: str) -> pb.Session:
    return svc.stub.SignInWithIdToken(pb.SignInWithIdTokenRequest(
        provider=provider, id_token=svc.id_token(provider, subject), nonce=NONCE)).session


def link(svc, session, provider: str, subject: str):
    return svc.stub.LinkIdentity(pb.LinkIdentityRequest(provider=provider, id_token=svc.id_token(provider, subject),
                                                        nonce=NONCE), metadata=bearer(session))


# ---- the sign-in limits behind the gateway ------------------------------------------------

@pytest.fixture
def gateway(tmp_path):
    """The account service behind a forwarding edge it trusts; phones(n) are n stubs, each
    reaching the edge from an address of its own."""
    with running_accounts(tmp_path, settings=limited(30, trusted="127.0.0.1")) as service, \
            forwarding_edge(service.port) as edge:
        opened = []

        def phone(address: str):
            relay = from_address(address, edge)
            port = relay.__enter__()
            channel = grpc.insecure_channel(f"127.0.0.1:{port}")
            opened.append((relay, channel))
            return pb_grpc.AccountServiceStub(channel)

        try:
            yield service, phone
        finally:
            for relay, channel in opened:
                channel.close()
                relay.__exit__(None, None, None)


def test_junk_refreshes_from_one_phone_behind_the_gateway_lock_out_no_other_phone(gateway):
    _, phone = gateway
    attacker = phone("127.0.0.66")
    codes = [code_of(lambda: attacker.RefreshSession(junk_refresh())) for _ in range(40)]
    assert grpc.StatusCode.RESOURCE_EXHAUSTED in codes  # the sender's own bucket ran out
    others = [phone(f"127.0.0.{100 + i}") for i in range(20)]
    for stub in others:
        device_id, secret = device()
        stub.SignInWithDevice(pb.SignInWithDeviceRequest(device_id=device_id, device_secret=secret))


def test_a_client_cannot_choose_the_address_it_is_counted_by(gateway):
    _, phone = gateway
    attacker = phone("127.0.0.67")
    codes = [code_of(lambda: attacker.RefreshSession(junk_refresh(), metadata=(
        ("x-forwarded-for", f"198.51.100.{i}"),))) for i in range(40)]
    assert codes.count(grpc.StatusCode.RESOURCE_EXHAUSTED) >= 10


def test_without_a_trusted_proxy_x_forwarded_for_is_not_believed(tmp_path):
    with running_accounts(tmp_path, settings=limited(30)) as svc:
        codes = [code_of(lambda: svc.stub.RefreshSession(junk_refresh(), metadata=(
            ("x-forwarded-for", f"203.0.113.{i}"),))) for i in range(40)]
    assert codes.count(grpc.StatusCode.RESOURCE_EXHAUSTED) >= 10


def test_malformed_credentials_are_refused_without_counting_against_the_limit(tmp_path):
    with running_accounts(tmp_path, settings=limited(3)) as svc:
        for _ in range(20):
            assert code_of(lambda: svc.stub.RefreshSession(pb.RefreshSessionRequest(refresh_token="junk"))) \
                == grpc.StatusCode.INVALID_ARGUMENT
            assert code_of(lambda: svc.stub.SignInWithDevice(pb.SignInWithDeviceRequest(
                device_id="short", device_secret="ab" * 32))) == grpc.StatusCode.INVALID_ARGUMENT
        svc.sign_up()  # the address's three well-formed sign-ins are all still there


def test_one_identity_signs_in_only_so_often_from_however_many_addresses(tmp_path):
    with running_accounts(tmp_path, settings=limited(3, trusted="127.0.0.1")) as svc, \
            forwarding_edge(svc.port) as edge:
        codes = []
        for i in range(5):
            with from_address(f"127.0.0.{30 + i}", edge) as port, grpc.insecure_channel(f"127.0.0.1:{port}") as ch:
                codes.append(code_of(lambda: pb_grpc.AccountServiceStub(ch).SignInWithIdToken(
                    pb.SignInWithIdTokenRequest(provider="google", id_token=svc.id_token("google", "g-busy"),
                                                nonce=NONCE))))
    assert codes == [grpc.StatusCode.OK] * 3 + [grpc.StatusCode.RESOURCE_EXHAUSTED] * 2


def test_one_device_id_signs_in_only_so_often_from_however_many_addresses(tmp_path):
    """Guessing a phone's device secret from a new address each time: the device's own
    limit holds, and the addresses' buckets are not what ran out."""
    with running_accounts(tmp_path, settings=limited(3, trusted="127.0.0.1")) as svc, \
            forwarding_edge(svc.port) as edge:
        device_id, _ = device()
        svc.sign_up(pair=(device_id, secrets.token_hex(32)))  # the phone; its id is not secret
        guesses, others = [], []
        for i in range(5):
            with from_address(f"127.0.0.{40 + i}", edge) as port, grpc.insecure_channel(f"127.0.0.1:{port}") as ch:
                stub = pb_grpc.AccountServiceStub(ch)
                guesses.append(code_of(lambda: stub.SignInWithDevice(pb.SignInWithDeviceRequest(
                    device_id=device_id, device_secret=secrets.token_hex(32)))))
                other_id, other_secret = device()
                others.append(code_of(lambda: stub.SignInWithDevice(pb.SignInWithDeviceRequest(
                    device_id=other_id, device_secret=other_secret))))
    assert guesses == [grpc.StatusCode.UNAUTHENTICATED] * 2 + [grpc.StatusCode.RESOURCE_EXHAUSTED] * 3
    assert others == [grpc.StatusCode.OK] * 5


def test_ipv6_clients_in_one_64_share_one_limit_behind_the_gateway_and_another_64_does_not(tmp_path):
    """Loopback has one IPv6 address, so the phones' own come from a load balancer in front
    of the edge (127.0.0.9, trusted), which took each call over IPv6 and says whose it is in
    x-forwarded-for, as a cloud load balancer does; the edge appends its own peer after it."""
    with running_accounts(tmp_path, settings=limited(3, trusted="127.0.0.1,127.0.0.9")) as svc, \
            forwarding_edge(svc.port) as edge, from_address("127.0.0.9", edge) as port, \
            grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        balancer = pb_grpc.AccountServiceStub(channel)

        def sign_up_from(client: str) -> grpc.StatusCode:
            device_id, secret = device()  # a device of its own each time: only the address is shared
            return code_of(lambda: balancer.SignInWithDevice(pb.SignInWithDeviceRequest(
                device_id=device_id, device_secret=secret), metadata=(("x-forwarded-for", client),)))

        one_64 = [sign_up_from(f"2001:db8:5:7:{i:x}::{i + 1:x}") for i in range(5)]
        next_64 = [sign_up_from(f"2001:db8:5:8::{i + 1:x}") for i in range(3)]
    assert one_64 == [grpc.StatusCode.OK] * 3 + [grpc.StatusCode.RESOURCE_EXHAUSTED] * 2
    assert next_64 == [grpc.StatusCode.OK] * 3


def test_linking_counts_against_the_sign_in_limits(tmp_path):
    with running_accounts(tmp_path, settings=limited(3)) as svc:
        session = svc.stub.SignInWithDevice(pb.SignInWithDeviceRequest(
            device_id=device()[0], device_secret=secrets.token_hex(32))).session
        codes = [code_of(lambda: svc.stub.LinkIdentity(pb.LinkIdentityRequest(
            provider="google", id_token="a.b.c", nonce=NONCE), metadata=bearer(session))) for _ in range(6)]
    assert grpc.StatusCode.RESOURCE_EXHAUSTED in codes


# ---- one slow identity provider ------------------------------------------------------------

def test_a_slow_identity_provider_holds_up_no_device_sign_in(tmp_path):
    with running_accounts(tmp_path) as svc:
        victim = svc.sign_up("Slow Issuer Linker")
        svc.google.answering.clear()  # its keys answer when the test says so
        svc.google.rotate()  # a token under a key the service has not fetched yet
        try:
            with ThreadPoolExecutor(12) as pool:
                links = [pool.submit(code_of, lambda: link(svc, victim, "google", f"g-slow-{i}"))
                         for i in range(10)]
                assert svc.google.asked.wait(10)
                sign_ins = [pool.submit(svc.sign_up) for _ in range(20)]
                done, _ = wait(sign_ins, timeout=20)
                assert len(done) == 20 and all(f.exception() is None for f in done)
                waiting = [f for f in links if f.done()]
                assert {f.result() for f in waiting} <= {grpc.StatusCode.UNAVAILABLE}
                assert len(waiting) >= 9  # every link but the one fetching was told to try again
        finally:
            svc.google.answering.set()


# ---- a stolen device pair ------------------------------------------------------------------

def test_a_stolen_device_pair_is_cut_off_by_the_owner_and_cannot_take_the_identity(svc):
    pair = device()
    owner = svc.sign_up("Pair Owner", pair)
    link(svc, owner, "google", "g-pair-owner")
    thief = svc.stub.SignInWithDevice(pb.SignInWithDeviceRequest(device_id=pair[0], device_secret=pair[1])).session
    for attempt in (lambda: svc.stub.UnlinkIdentity(pb.UnlinkIdentityRequest(provider="google"),
                                                    metadata=bearer(thief)),
                    lambda: link(svc, thief, "apple", "a-thief"),
                    lambda: svc.stub.RemoveDevice(pb.RemoveDeviceRequest(device_id=pair[0]), metadata=bearer(thief)),
                    lambda: svc.stub.DeleteAccount(pb.DeleteAccountRequest(), metadata=bearer(thief))):
        assert code_of(attempt) == grpc.StatusCode.FAILED_PRECONDITION
    with_google = identity_session(svc, "google", "g-pair-owner")
    ended = svc.stub.SignOutEverywhere(pb.SignOutEverywhereRequest(remove_other_devices=True),
                                       metadata=bearer(with_google))
    assert ended.devices_removed == 1
    assert code_of(lambda: svc.stub.GetAccount(pb.GetAccountRequest(), metadata=bearer(thief))) \
        == grpc.StatusCode.UNAUTHENTICATED
    assert code_of(lambda: svc.stub.RefreshSession(pb.RefreshSessionRequest(refresh_token=thief.refresh_token))) \
        == grpc.StatusCode.UNAUTHENTICATED
    again = svc.stub.SignInWithDevice(pb.SignInWithDeviceRequest(device_id=pair[0], device_secret=pair[1]))
    assert again.created and again.session.player_id != owner.player_id  # the pair leads elsewhere now
    owner_now = identity_session(svc, "google", "g-pair-owner")
    assert [i.provider for i in svc.stub.GetAccount(pb.GetAccountRequest(),
                                                    metadata=bearer(owner_now)).account.identities] == ["google"]


def test_rotating_the_device_secret_ends_the_copys_sessions_and_sign_ins(svc):
    pair = device()
    owner = svc.sign_up("Rotating Guest", pair)
    copy = svc.stub.SignInWithDevice(pb.SignInWithDeviceRequest(device_id=pair[0], device_secret=pair[1])).session
    new_secret = secrets.token_hex(32)
    rotated = svc.stub.RotateDeviceSecret(pb.RotateDeviceSecretRequest(
        device_id=pair[0], device_secret=pair[1], new_device_secret=new_secret), metadata=bearer(owner))
    assert rotated.sessions_ended == 1
    assert code_of(lambda: svc.stub.GetAccount(pb.GetAccountRequest(), metadata=bearer(copy))) \
        == grpc.StatusCode.UNAUTHENTICATED
    assert code_of(lambda: svc.stub.SignInWithDevice(pb.SignInWithDeviceRequest(
        device_id=pair[0], device_secret=pair[1]))) == grpc.StatusCode.UNAUTHENTICATED
    back = svc.stub.SignInWithDevice(pb.SignInWithDeviceRequest(device_id=pair[0], device_secret=new_secret))
    assert back.session.player_id == owner.player_id
    svc.stub.GetAccount(pb.GetAccountRequest(), metadata=bearer(owner))  # the rotating session goes on


def test_a_device_is_removed_by_an_identity_sign_in_and_its_sessions_end(svc):
    pair = device()
    guest = svc.sign_up("Removes Device", pair)
    link(svc, guest, "apple", "a-removes-device")
    with_apple = identity_session(svc, "apple", "a-removes-device")
    listed = svc.stub.GetAccount(pb.GetAccountRequest(), metadata=bearer(guest)).account
    assert [(d.device_id, d.this_device) for d in listed.device_list] == [(pair[0], True)]
    account = svc.stub.RemoveDevice(pb.RemoveDeviceRequest(device_id=pair[0]), metadata=bearer(with_apple)).account
    assert account.devices == 0 and not account.device_list
    assert code_of(lambda: svc.stub.GetAccount(pb.GetAccountRequest(), metadata=bearer(guest))) \
        == grpc.StatusCode.UNAUTHENTICATED


# ---- an ended session's access token -------------------------------------------------------

ACCOUNT_CALLS = {
    "GetAccount": lambda svc, md: svc.stub.GetAccount(pb.GetAccountRequest(), metadata=md),
    "SetDisplayName": lambda svc, md: svc.stub.SetDisplayName(pb.SetDisplayNameRequest(
        display_name=f"Renamed {secrets.token_hex(3)}"), metadata=md),
    "LinkIdentity": lambda svc, md: svc.stub.LinkIdentity(pb.LinkIdentityRequest(
        provider="google", id_token=svc.id_token("google", f"g-late-{secrets.token_hex(4)}"), nonce=NONCE),
        metadata=md),
    "SignOutEverywhere": lambda svc, md: svc.stub.SignOutEverywhere(pb.SignOutEverywhereRequest(), metadata=md),
    "ExportMyData": lambda svc, md: svc.stub.ExportMyData(pb.ExportMyDataRequest(), metadata=md),
    "DeleteAccount": lambda svc, md: svc.stub.DeleteAccount(pb.DeleteAccountRequest(), metadata=md),
    "RemoveDevice": lambda svc, md: svc.stub.RemoveDevice(pb.RemoveDeviceRequest(device_id="d" * 20), metadata=md),
    "GetDisplayNames": lambda svc, md: svc.stub.GetDisplayNames(pb.GetDisplayNamesRequest(player_ids=["x"]),
                                                                metadata=md),
}


@pytest.mark.parametrize("ending", ["SignOut", "SignOutEverywhere", "refresh token reused"])
@pytest.mark.parametrize("call", sorted(ACCOUNT_CALLS))
def test_an_ended_sessions_access_token_controls_nothing(svc, ending, call):
    session = svc.sign_up()
    if ending == "SignOut":
        svc.stub.SignOut(pb.SignOutRequest(), metadata=bearer(session))
    elif ending == "SignOutEverywhere":
        svc.stub.SignOutEverywhere(pb.SignOutEverywhereRequest(), metadata=bearer(session))
    else:
        svc.stub.RefreshSession(pb.RefreshSessionRequest(refresh_token=session.refresh_token))
        code_of(lambda: svc.stub.RefreshSession(pb.RefreshSessionRequest(refresh_token=session.refresh_token)))
    before = svc.app.store.dump()
    assert code_of(lambda: ACCOUNT_CALLS[call](svc, bearer(session))) == grpc.StatusCode.UNAUTHENTICATED
    assert svc.app.store.dump() == before


def test_a_deleted_accounts_access_token_controls_nothing(svc):
    session = svc.sign_up()
    svc.stub.DeleteAccount(pb.DeleteAccountRequest(), metadata=bearer(session))
    for call in sorted(ACCOUNT_CALLS):
        assert code_of(lambda: ACCOUNT_CALLS[call](svc, bearer(session))) == grpc.StatusCode.UNAUTHENTICATED, call


# ---- escaping a ban ------------------------------------------------------------------------

def test_a_banned_player_cannot_change_the_account_to_escape(svc):
    pair = device()
    banned = svc.sign_up("Escape Artist", pair)
    link(svc, banned, "google", "g-escape")
    with_google = identity_session(svc, "google", "g-escape")
    svc.app.ban(banned.player_id, svc.clock() + 3600, "cheating")
    before = svc.app.store.dump()
    attempts = {
        "UnlinkIdentity": lambda: svc.stub.UnlinkIdentity(pb.UnlinkIdentityRequest(provider="google"),
                                                          metadata=bearer(with_google)),
        "SetDisplayName": lambda: svc.stub.SetDisplayName(pb.SetDisplayNameRequest(display_name="New Me"),
                                                          metadata=bearer(with_google)),
        "LinkIdentity": lambda: link(svc, with_google, "apple", "a-escape"),
        "RemoveDevice": lambda: svc.stub.RemoveDevice(pb.RemoveDeviceRequest(device_id=pair[0]),
                                                      metadata=bearer(with_google)),
        "RotateDeviceSecret": lambda: svc.stub.RotateDeviceSecret(pb.RotateDeviceSecretRequest(
            device_id=pair[0], device_secret=pair[1], new_device_secret=secrets.token_hex(32)),
            metadata=bearer(banned)),
        "SignOutEverywhere(remove_other_devices)": lambda: svc.stub.SignOutEverywhere(
            pb.SignOutEverywhereRequest(remove_other_devices=True), metadata=bearer(with_google)),
    }
    codes = {name: code_of(attempt) for name, attempt in attempts.items()}
    assert codes == {name: grpc.StatusCode.PERMISSION_DENIED for name in attempts}
    assert svc.app.store.dump() == before  # the pair the ban binds still leads to the banned account


def test_a_ban_outlives_the_deletion_on_the_accounts_identities_and_devices(svc):
    pair = device()
    banned = svc.sign_up("Deletes To Escape", pair)
    link(svc, banned, "google", "g-deletes")
    with_google = identity_session(svc, "google", "g-deletes")
    svc.app.ban(banned.player_id, svc.clock() + 3600, "cheating")
    svc.stub.DeleteAccount(pb.DeleteAccountRequest(), metadata=bearer(with_google))  # erasure is still a right
    assert code_of(lambda: identity_session(svc, "google", "g-deletes")) == grpc.StatusCode.PERMISSION_DENIED
    assert code_of(lambda: svc.stub.SignInWithDevice(pb.SignInWithDeviceRequest(
        device_id=pair[0], device_secret=pair[1]))) == grpc.StatusCode.PERMISSION_DENIED
    svc.clock.advance(3601)
    try:
        assert identity_session(svc, "google", "g-deletes").player_id != banned.player_id
    finally:
        svc.clock.advance(-3601)


def test_an_unban_frees_the_identities_and_devices_too(svc):
    pair = device()
    banned = svc.sign_up("Unbanned Later", pair)
    svc.app.ban(banned.player_id, svc.clock() + 3600, "a mistake")
    assert code_of(lambda: svc.stub.SignInWithDevice(pb.SignInWithDeviceRequest(
        device_id=pair[0], device_secret=pair[1]))) == grpc.StatusCode.PERMISSION_DENIED
    svc.app.unban(banned.player_id)
    svc.stub.SignInWithDevice(pb.SignInWithDeviceRequest(device_id=pair[0], device_secret=pair[1]))


# ---- probing which names are taken ----------------------------------------------------------

def refused_with(call) -> Refusal:
    with pytest.raises(grpc.RpcError) as caught:
        call()
    return refusal(caught.value)


def test_probing_taken_names_runs_out_and_then_even_a_free_name_waits_out_the_day(svc):
    held = [svc.sign_up(f"Held Name {secrets.token_hex(3)}").display_name for _ in range(3)]
    prober = svc.sign_up()
    rename = lambda name: lambda: svc.stub.SetDisplayName(  # noqa: E731
        pb.SetDisplayNameRequest(display_name=name), metadata=bearer(prober))
    probes = [refused_with(rename(held[i % 3])) for i in range(svc.app.names_taken_per_day)]
    assert {(p.code, p.reason) for p in probes} == {(grpc.StatusCode.ALREADY_EXISTS, "NAME_TAKEN")}
    for name in (held[0], f"Free Name {secrets.token_hex(3)}"):  # held or free, one answer
        found = refused_with(rename(name))
        assert (found.code, found.reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "NAME_CHANGES_EXHAUSTED")
        assert found.retry_after is not None and DAY - 60 < found.retry_after <= DAY
    legit = f"Legit {secrets.token_hex(3)}"
    try:
        svc.clock.advance(DAY - 60)
        assert refused_with(rename(legit)).code == grpc.StatusCode.RESOURCE_EXHAUSTED
        svc.clock.advance(61)
        assert rename(legit)().account.display_name == legit
    finally:
        svc.clock.advance(-(DAY + 1))


# ---- ID tokens -----------------------------------------------------------------------------

def test_an_id_token_signs_in_once(svc):
    token = svc.id_token("google", "g-once")
    svc.stub.SignInWithIdToken(pb.SignInWithIdTokenRequest(provider="google", id_token=token, nonce=NONCE))
    with pytest.raises(grpc.RpcError) as caught:
        svc.stub.SignInWithIdToken(pb.SignInWithIdTokenRequest(provider="google", id_token=token, nonce=NONCE))
    assert caught.value.code() == grpc.StatusCode.UNAUTHENTICATED
    assert "used already" in (caught.value.details() or "")


@pytest.mark.parametrize("first_use", ["sign-in", "link"])
def test_an_id_token_used_once_is_refused_when_replayed_through_link_identity(svc, first_use):
    """Whoever copied a token the owner already used (a log, a proxy) replays it to link the
    owner's identity: into the owner's account, into the copier's, and once the owner's
    account is gone and the identity free."""
    subject = f"g-replayed-{first_use}-{secrets.token_hex(3)}"
    token = svc.id_token("google", subject)
    replay = pb.LinkIdentityRequest(provider="google", id_token=token, nonce=NONCE)
    if first_use == "sign-in":
        owner = svc.stub.SignInWithIdToken(pb.SignInWithIdTokenRequest(provider="google", id_token=token,
                                                                        nonce=NONCE)).session
    else:
        owner = svc.sign_up()
        svc.stub.LinkIdentity(replay, metadata=bearer(owner))
    copier = svc.sign_up()
    for session in (owner, copier):
        assert reason_of(lambda: svc.stub.LinkIdentity(replay, metadata=bearer(session))) == "ID_TOKEN_USED"
    svc.stub.DeleteAccount(pb.DeleteAccountRequest(), metadata=bearer(identity_session(svc, "google", subject)))
    assert reason_of(lambda: svc.stub.LinkIdentity(replay, metadata=bearer(copier))) == "ID_TOKEN_USED"
    assert svc.stub.GetAccount(pb.GetAccountRequest(), metadata=bearer(copier)).account.guest


def test_an_id_token_whose_subject_is_a_lone_surrogate_is_refused_without_a_traceback(svc, caplog):
    caplog.set_level(logging.INFO)
    token = svc.google.sign("\ud800", "domino-app", NONCE)
    with pytest.raises(grpc.RpcError) as caught:
        svc.stub.SignInWithIdToken(pb.SignInWithIdTokenRequest(provider="google", id_token=token, nonce=NONCE))
    assert caught.value.code() == grpc.StatusCode.UNAUTHENTICATED
    assert "Traceback" not in caplog.text


def test_several_tries_of_one_rename_race_to_one_answer_each_never_unknown(svc):
    sessions = [svc.sign_up() for _ in range(6)]
    wanted = f"Race {secrets.token_hex(3)}"
    barrier = threading.Barrier(len(sessions))

    def rename(session):
        barrier.wait(5)
        return code_of(lambda: svc.stub.SetDisplayName(pb.SetDisplayNameRequest(display_name=wanted),
                                                       metadata=bearer(session)))

    with ThreadPoolExecutor(len(sessions)) as pool:
        codes = list(pool.map(rename, sessions))
    assert codes.count(grpc.StatusCode.OK) == 1
    assert set(codes) == {grpc.StatusCode.OK, grpc.StatusCode.ALREADY_EXISTS}


def test_what_a_ban_kept_of_its_credentials_is_forgotten_once_it_ends(svc):
    banned = svc.sign_up("Ban Ends Later")
    svc.app.ban(banned.player_id, svc.clock() + 60, "a minute off")
    held = lambda: [r for r in svc.app.store.dump()["domino_account_bans"] if r[1] == banned.player_id]  # noqa: E731
    assert held()
    svc.app.forget_what_expired()
    assert held()  # still running
    svc.clock.advance(61)
    try:
        svc.app.forget_what_expired()
    finally:
        svc.clock.advance(-61)
    assert held() == []
