"""A phone's life through `domino up`'s processes: it signs in by device, plays a practice
match with access tokens that expire every few seconds (refreshing without losing a move),
links an identity, finds its history and rating from a second phone, and deletes the
account. Afterwards no table of the store (SQLite or PostgreSQL), no message of the NATS
streams and no log line holds its display name or identity subject, while the match's
record still verifies against the signed heads and the witness."""

from __future__ import annotations

import asyncio
import json
import secrets
import subprocess
import time
from pathlib import Path

import grpc
import pytest

from domino.account.v1 import account_service_pb2 as acc
from domino.account.v1 import account_service_pb2_grpc as acc_grpc
from domino.match.v1 import match_service_pb2 as match_pb
from domino.match.v1 import match_service_pb2_grpc as match_grpc
from domino.matchmaking.v1 import matchmaking_service_pb2 as mm
from domino.matchmaking.v1 import matchmaking_service_pb2_grpc as mm_grpc
from services.common.supervisor import LocalSystem, Ports
from tests.support.oidc_issuer import OidcIssuer
from tests.support.store_search import found_in_store

from .conftest import domino_command, metadata

pytestmark = pytest.mark.system
NAME, SUBJECT, NONCE = "Quokka Zephyrine", "google-subject-7f3a9c", "nonce-for-the-phone"
ACCESS_SECONDS = 4


class Phone:
    """What the app does: keeps its session, refreshes it before the access token dies (or
    when a call says it has), and retries the call with the same request id."""

    def __init__(self, system: LocalSystem) -> None:
        self.accounts = acc_grpc.AccountServiceStub(grpc.insecure_channel(system.account_address))
        self.match = match_grpc.MatchServiceStub(grpc.insecure_channel(system.match_address))
        self.matchmaking = mm_grpc.MatchmakingServiceStub(grpc.insecure_channel(system.matchmaking_address))
        self.session: acc.Session | None = None
        self.refreshes = 0

    def sign_in_by_device(self, name: str) -> acc.Session:
        self.session = self.accounts.SignInWithDevice(acc.SignInWithDeviceRequest(
            device_id=secrets.token_urlsafe(24), device_secret=secrets.token_hex(32), display_name=name)).session
        return self.session

    def auth(self) -> tuple:
        assert self.session is not None
        if self.session.access_expires_at.seconds - time.time() < 1:
            self.refresh()
        return (("authorization", f"Bearer {self.session.access_token}"),)

    def refresh(self) -> None:
        assert self.session is not None
        self.session = self.accounts.RefreshSession(acc.RefreshSessionRequest(
            refresh_token=self.session.refresh_token)).session
        self.refreshes += 1

    def call(self, method, request):
        for _ in range(3):
            try:
                return method(request, metadata=self.auth(), timeout=10)
            except grpc.RpcError as e:
                if e.code() != grpc.StatusCode.UNAUTHENTICATED or "expired" not in (e.details() or ""):
                    raise
                self.refresh()
        raise AssertionError("the token kept expiring")


def play_to_the_end(phone: Phone, match_id: str) -> match_pb.MatchView:
    n = 0
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        view = phone.call(phone.match.GetMatch, match_pb.GetMatchRequest(match_id=match_id)).view
        if view.status == match_pb.MATCH_STATUS_ENDED:
            return view
        if view.turn == view.your_seat and view.legal_moves:
            move = view.legal_moves[0]
            n += 1
            try:
                if move.kind == match_pb.MOVE_KIND_DRAW:
                    phone.call(phone.match.DrawTile, match_pb.DrawTileRequest(match_id=match_id, request_id=f"m{n}"))
                else:
                    phone.call(phone.match.PlayTile, match_pb.PlayTileRequest(match_id=match_id, request_id=f"m{n}",
                                                                              tile=move.tile, end=move.end))
            except grpc.RpcError as e:
                assert e.code() == grpc.StatusCode.FAILED_PRECONDITION, e.details()  # the view was a moment old
        else:
            time.sleep(0.1)
    raise TimeoutError("the practice match did not end")


def eventually(check, timeout: float = 30):
    deadline = time.monotonic() + timeout
    while True:
        found = check()
        if found or time.monotonic() > deadline:
            return found
        time.sleep(0.3)


async def nats_texts(system: LocalSystem) -> str:
    """Every message of every JetStream stream (and KV bucket), headers and data."""
    import nats

    nc = await nats.connect(f"nats://127.0.0.1:{system.ports.nats}", user="admin",
                            password=system.nats_passwords()["admin"])
    js = nc.jetstream()
    texts = []
    try:
        for info in await js.streams_info():
            for seq in range(info.state.first_seq, info.state.last_seq + 1):
                try:
                    msg = await js.get_msg(info.config.name, seq)
                except Exception:  # noqa: BLE001 - a deleted message
                    continue
                texts.append(msg.subject + json.dumps(dict(msg.headers or {})) + (msg.data or b"").decode("utf-8", "replace"))
    finally:
        await nc.close()
    return "\n".join(texts)


@pytest.fixture(params=["sqlite", "postgres"])
def phone_system(request, tmp_path):
    store_env = {} if request.param == "sqlite" else request.getfixturevalue("fresh_postgres_env")
    with OidcIssuer(tmp_path / "issuer") as issuer:
        system = LocalSystem(tmp_path / "var", Ports.free(), services=("match", "relay", "accounts", "bots",
                                                                         "matchmaking"),
                             extra_env={**store_env, **issuer.env("google"), "DOMINO_LOG_FORMAT": "json",
                                        "DOMINO_ACCESS_TOKEN_SECONDS": str(ACCESS_SECONDS),
                                        "DOMINO_PRACTICE_RATED": "true"})  # so its practice has a rating to erase
        system.start()
        try:
            env = store_env or {"PERSISTENCE_MODULE": "services.common.sqlite_store",
                                "SQLITE_DBNAME": str(system.var_dir / "match.sqlite")}
            yield system, issuer, env
        finally:
            system.stop()


def test_a_phone_plays_links_moves_to_a_second_phone_and_is_forgotten(phone_system, tmp_path):
    system, issuer, store_env = phone_system
    phone = Phone(system)
    account_id = phone.sign_in_by_device(NAME).player_id

    started = phone.call(phone.matchmaking.StartPractice, mm.StartPracticeRequest(
        request_id="practice-1", variant="draw-2", target=51))
    final = play_to_the_end(phone, started.match_id)
    assert final.status == match_pb.MATCH_STATUS_ENDED and phone.refreshes >= 1

    phone.call(phone.accounts.LinkIdentity, acc.LinkIdentityRequest(
        provider="google", id_token=issuer.sign(SUBJECT, "domino-app", NONCE), nonce=NONCE))
    second = Phone(system)
    second.session = second.accounts.SignInWithIdToken(acc.SignInWithIdTokenRequest(
        provider="google", id_token=issuer.sign(SUBJECT, "domino-app", NONCE), nonce=NONCE)).session
    assert second.session.player_id == account_id and second.session.display_name == NAME
    history = eventually(lambda: second.call(second.match.ListMyMatches, match_pb.ListMyMatchesRequest()).matches)
    assert [m.match_id for m in history] == [started.match_id]
    assert eventually(lambda: second.call(second.match.GetRating, match_pb.GetRatingRequest(
        rules="egyptian", teams=False)).rating.matches == 1)

    assert found_in_store(store_env, [NAME, SUBJECT])  # before: the account store holds them
    ended = second.auth()
    second.call(second.accounts.DeleteAccount, acc.DeleteAccountRequest())
    # The phone's session ended with the account (the services refuse its token within a
    # second); a token for the same id without a session asks what is left of its history.
    anyone = metadata(system, account_id)
    assert eventually(lambda: not second.match.ListMyMatches(match_pb.ListMyMatchesRequest(), metadata=anyone,
                                                             timeout=10).matches)
    assert second.match.GetRating(match_pb.GetRatingRequest(rules="egyptian", teams=False), metadata=anyone,
                                  timeout=10).rating.matches == 0
    for token, codes in ((anyone, {grpc.StatusCode.PERMISSION_DENIED}),
                         (ended, {grpc.StatusCode.PERMISSION_DENIED, grpc.StatusCode.UNAUTHENTICATED})):
        with pytest.raises(grpc.RpcError) as refused:
            second.matchmaking.StartPractice(mm.StartPracticeRequest(request_id="after", variant="draw-2"),
                                             metadata=token, timeout=10)
        assert refused.value.code() in codes

    assert found_in_store(store_env, [NAME, SUBJECT]) == []
    assert not any(n in asyncio.run(nats_texts(system)) for n in (NAME, SUBJECT))
    logs = "".join(p.read_text(errors="replace") for p in (system.var_dir / "logs").glob("*.log"))
    assert NAME not in logs and SUBJECT not in logs

    record = match_grpc.MatchServiceStub(grpc.insecure_channel(system.match_address)).ExportMatch(
        match_pb.ExportMatchRequest(match_id=started.match_id), metadata=metadata(system, "auditor", "auditor"))
    path = tmp_path / "record.json"
    path.write_text(record.record_json)
    assert account_id in record.record_json
    keys = str(system.keys_dir / "heads-keys.json")
    verified = subprocess.run([domino_command(), "audit", "verify", "--json", str(path), "--key", keys],
                              capture_output=True, text=True, timeout=60)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    env = {"DOMINO_NATS_URL": f"nats://127.0.0.1:{system.ports.nats}", "DOMINO_NATS_USER": "auditor",
           "DOMINO_NATS_PASSWORD": system.nats_passwords()["auditor"], "PATH": "/usr/bin:/bin"}
    witnessed = subprocess.run([domino_command(), "audit", "witness", started.match_id, "--record", str(path),
                                "--key", keys, "--json"], capture_output=True, text=True, env=env, timeout=60)
    assert witnessed.returncode == 0, witnessed.stdout + witnessed.stderr


def test_a_banned_phone_is_refused_by_refresh_and_matchmaking_at_once(tmp_path):
    with LocalSystem(tmp_path / "var", Ports.free(), services=("match", "accounts", "matchmaking")) as system:
        phone = Phone(system)
        account_id = phone.sign_in_by_device("Soon Banned").player_id
        env = {**system.env(), "PATH": "/usr/bin:/bin"}
        banned = subprocess.run([domino_command(), "admin", "ban", account_id, "--until", "2d", "--reason",
                                 "abusive chat"], capture_output=True, text=True, env=env, timeout=60)
        assert banned.returncode == 0, banned.stderr
        with pytest.raises(grpc.RpcError) as by_matchmaking:
            phone.matchmaking.StartPractice(mm.StartPracticeRequest(request_id="b", variant="draw-2"),
                                            metadata=phone.auth())
        with pytest.raises(grpc.RpcError) as by_refresh:
            phone.refresh()
        unbanned = subprocess.run([domino_command(), "admin", "unban", account_id], capture_output=True, text=True,
                                  env=env, timeout=60)
        assert unbanned.returncode == 0, unbanned.stderr
        phone.sign_in_by_device("Unbanned Now")
    assert by_matchmaking.value.code() == grpc.StatusCode.PERMISSION_DENIED
    assert "abusive chat" in by_matchmaking.value.details()
    assert by_refresh.value.code() == grpc.StatusCode.PERMISSION_DENIED and "until" in by_refresh.value.details()
