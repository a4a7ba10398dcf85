"""A deleted account leaves the social service too, and its export holds its friends: a real
AccountService and a real SocialService on loopback (SQLite files), the account service
asking the social one with its own `account` token (services/accounts/social_client.py).
A and B become friends, A blocks C, D blocks A, A registers a phone and sets its
notification settings, A has a notification and Fay one naming A; A exports (its code,
friends, requests, blocks, not D's block, its phone, settings and its own notifications)
and deletes the account while the social service is down; the erasure stays pending and
the next retry pass, once the social service is back, erases every row naming A (by id,
friend code, push token or notification) from every table of the social store, and a
notification posted to A afterwards is not stored."""

from __future__ import annotations

import json
import time
import uuid
from contextlib import contextmanager
from typing import Any

import grpc
import pytest

from domino.account.v1 import account_service_pb2 as acc
from domino.social.v1 import social_service_pb2 as pb
from domino.social.v1 import social_service_pb2_grpc as pb_grpc
from services.accounts.social_client import GrpcSocial
from services.common.config import Settings
from services.social.account_client import GrpcDirectory
from services.social.bootstrap import create_server
from services.social.push_tokens import Pushes
from services.social.store import SocialStore
from services.social.use_cases import Social
from tests.support.background import serving_in_background
from tests.support.errors import refusal
from tests.support.keys import KEYS, auth

from .account_harness import bearer, running_accounts

UNLIMITED = Settings.model_construct(command_rate=1e9, command_burst=1e9)


class NoMatches:
    """The match service's side (not under test here): no history, erasures confirmed."""

    def __init__(self) -> None:
        self.forgotten: list[str] = []

    def forget(self, account_id: str) -> None:
        self.forgotten.append(account_id)

    def matches(self, account_id: str) -> list[dict[str, Any]]:
        return []


@contextmanager
def social_on(social: Social, address: str):
    with serving_in_background(lambda: create_server(address, social, KEYS, settings=UNLIMITED)) as (port, _):
        yield port


def send(stub, who, request_id: str, **target):
    return stub.SendFriendRequest(pb.SendFriendRequestRequest(request_id=request_id, **target), metadata=bearer(who))


def social_pushes(social: Social) -> Pushes:
    return Pushes(social.store.db)


def stub_posts_nothing_to(port: int, player_id: str) -> bool:
    """A notification posted to an erased account is skipped (its tombstone)."""
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    try:
        stored = pb_grpc.SocialServiceStub(channel).PostNotifications(pb.PostNotificationsRequest(notifications=[
            pb.NewNotification(notification_id=str(uuid.uuid4()), recipient_player_id=player_id,
                               kind=pb.NOTIFICATION_KIND_BAN, text_key="notice.banned")]),
            metadata=auth("accounts", "account")).stored
    finally:
        channel.close()
    return stored == 0


def erased_eventually(app, seconds: float = 15.0) -> int:
    """The retry pass (bootstrap.erase_pending's step), run until nothing is pending: the
    client's channel reconnects to the restarted server within a second or two."""
    deadline = time.monotonic() + seconds
    while (left := app.erase_pending()) and time.monotonic() < deadline:
        time.sleep(0.2)
    return left


def test_a_deleted_account_is_exported_then_erased_from_the_social_service_once_it_is_back(tmp_path):
    history = NoMatches()
    with running_accounts(tmp_path, history=history) as accounts:
        store = SocialStore.for_env({}, str(tmp_path / "social.sqlite"))
        store.create()
        directory = GrpcDirectory(f"127.0.0.1:{accounts.port}", KEYS)
        social = Social(store, directory)
        a, b, c, d = (accounts.sign_up(f"{n} Erasure") for n in ("Ann", "Bob", "Cat", "Dan"))
        try:
            with social_on(social, "127.0.0.1:0") as port:
                client = GrpcSocial(f"127.0.0.1:{port}", KEYS)
                accounts.app.social = client
                channel = grpc.insecure_channel(f"127.0.0.1:{port}")
                stub = pb_grpc.SocialServiceStub(channel)
                code = stub.GetFriendCode(pb.GetFriendCodeRequest(), metadata=bearer(a)).friend_code
                send(stub, b, "b-to-a", friend_code=code.lower())  # B's kept outcome names A, and A's code
                stub.AcceptFriendRequest(pb.AcceptFriendRequestRequest(player_id=b.player_id), metadata=bearer(a))
                stub.BlockPlayer(pb.BlockPlayerRequest(player_id=c.player_id), metadata=bearer(a))
                stub.BlockPlayer(pb.BlockPlayerRequest(player_id=a.player_id), metadata=bearer(d))
                pending = accounts.sign_up("Eve Erasure")
                send(stub, pending, "e-to-a", display_name=a.display_name)
                fay = accounts.sign_up("Fay Erasure")
                send(stub, a, "a-to-f", display_name=fay.display_name)
                token = "f" * 64
                stub.RegisterPushToken(pb.RegisterPushTokenRequest(
                    installation_id=str(uuid.uuid4()), platform=pb.PUSH_PLATFORM_APNS, token=token,
                    apns_environment=pb.APNS_ENVIRONMENT_SANDBOX, locale="en-GB"), metadata=bearer(a))
                stub.UpdateNotificationSettings(pb.UpdateNotificationSettingsRequest(
                    push_disabled=[pb.NOTIFICATION_KIND_RATING_CHANGE]), metadata=bearer(a))
                to_a, naming_a = str(uuid.uuid4()), str(uuid.uuid4())
                stub.PostNotifications(pb.PostNotificationsRequest(notifications=[
                    pb.NewNotification(notification_id=to_a, recipient_player_id=a.player_id,
                                       kind=pb.NOTIFICATION_KIND_ACCOUNT, text_key="notice.account.device_added")]),
                    metadata=auth("accounts", "account"))
                stub.PostNotifications(pb.PostNotificationsRequest(notifications=[
                    pb.NewNotification(notification_id=naming_a, recipient_player_id=fay.player_id,
                                       kind=pb.NOTIFICATION_KIND_INVITE, text_key="notice.invite",
                                       player_id=a.player_id, args={"host": a.player_id})]),
                    metadata=auth("matchmaking", "service"))

                data = json.loads(accounts.stub.ExportMyData(acc.ExportMyDataRequest(),
                                                             metadata=bearer(a)).data_json)["social"]
                assert data["friend_code"] == code and data["friend_code_created_at"].endswith("Z")
                assert [f["player_id"] for f in data["friends"]] == [b.player_id]
                assert data["friends"][0]["since"].endswith("Z")
                assert [x["player_id"] for x in data["blocked"]] == [c.player_id]  # not D, who blocks A
                assert {(r["player_id"], r["direction"]) for r in data["friend_requests"]} == {
                    (pending.player_id, "FRIEND_REQUEST_DIRECTION_INCOMING"),
                    (fay.player_id, "FRIEND_REQUEST_DIRECTION_OUTGOING")}
                assert all(r["sent_at"].endswith("Z") for r in data["friend_requests"])
                assert [(t["token"], t["locale"]) for t in data["push_tokens"]] == [(token, "en-GB")]
                assert data["notification_settings"]["push_disabled"] == ["NOTIFICATION_KIND_RATING_CHANGE"]
                assert to_a in {n["notification_id"] for n in data["notifications"]}
                assert naming_a not in {n["notification_id"] for n in data["notifications"]}  # Fay's inbox
                channel.close()
            before = json.dumps(store.dump())
            assert a.player_id in before and code.replace("-", "") in before

            # The social service is down: the export is UNAVAILABLE (no document without the
            # friends), the deletion is done and its social erasure stays pending.
            with pytest.raises(grpc.RpcError) as caught:
                accounts.stub.ExportMyData(acc.ExportMyDataRequest(), metadata=bearer(a))
            got = refusal(caught.value)
            assert (caught.value.code(), got.reason, got.domain) == (grpc.StatusCode.UNAVAILABLE, "UNAVAILABLE",
                                                                     "domino.account")
            assert got.retry_after is not None and got.retry_after > 0
            accounts.stub.DeleteAccount(acc.DeleteAccountRequest(), metadata=bearer(a))
            assert accounts.app.pending_erasures() == 1 and accounts.app.erase_pending() == 1
            assert a.player_id in json.dumps(store.dump())

            # Back on the same address: the next retry pass erases every row naming A.
            with social_on(social, f"127.0.0.1:{port}"):
                assert erased_eventually(accounts.app) == 0
                assert accounts.app.pending_erasures() == 0 and a.player_id in history.forgotten
                rows = json.dumps(store.dump())
                for trace in (a.player_id, a.display_name, code, code.replace("-", ""), code.replace("-", "").lower(),
                              token, to_a, naming_a):
                    assert trace not in rows, trace
                assert token not in json.dumps(social_pushes(social).dump())
                assert stub_posts_nothing_to(port, a.player_id)
                channel = grpc.insecure_channel(f"127.0.0.1:{port}")
                stub = pb_grpc.SocialServiceStub(channel)
                assert not stub.ListFriends(pb.ListFriendsRequest(), metadata=bearer(b)).friends
                assert not stub.ListFriendRequests(pb.ListFriendRequestsRequest(), metadata=bearer(pending)).requests
                assert not stub.ListBlockedPlayers(pb.ListBlockedPlayersRequest(), metadata=bearer(d)).blocked
                channel.close()
                assert accounts.app.erase_pending(only=a.player_id) == 0  # asked again: nothing left, still OK
            client.close()
        finally:
            directory.close()
            store.close()


def test_without_a_social_service_the_account_service_is_given_no_address_and_skips_it(tmp_path):
    from services.accounts.bootstrap import social_of
    from services.common.supervisor import LocalSystem, Ports

    with_social = LocalSystem(tmp_path / "one", Ports.free())
    assert with_social.env("accounts")["DOMINO_SOCIAL_ADDRESS"] == with_social.social_address
    without = LocalSystem(tmp_path / "two", Ports.free(), services=("match", "relay", "accounts"))
    assert without.env("accounts")["DOMINO_SOCIAL_ADDRESS"] == ""
    assert social_of(Settings.model_construct(social_address=""), KEYS) is None
    with running_accounts(tmp_path, history=NoMatches()) as accounts:  # no social port: deletion completes
        who = accounts.sign_up("Solo Erasure")
        data = json.loads(accounts.stub.ExportMyData(acc.ExportMyDataRequest(), metadata=bearer(who)).data_json)
        assert "social" not in data
        accounts.stub.DeleteAccount(acc.DeleteAccountRequest(), metadata=bearer(who))
        assert accounts.app.pending_erasures() == 0
