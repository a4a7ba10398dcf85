"""The account service tells a player's inbox of a ban, its end, and a sign-in with their
identity: a real AccountService and a real SocialService on loopback (SQLite files), the
account service posting with its own `account` token (services/accounts/notices.py). The
notices are rows written with the ban or the sign-in, posted at once when the social service
answers and by the retry pass when it was away; neither the ban nor the sign-in waits on it
or fails with it, and a notice posted twice is stored once."""

from __future__ import annotations

import json
import time
from contextlib import contextmanager

import grpc
import pytest

from domino.account.v1 import account_service_pb2 as acc
from domino.social.v1 import social_service_pb2 as pb
from domino.social.v1 import social_service_pb2_grpc as pb_grpc
from services.accounts import notices
from services.accounts.social_client import GrpcSocial
from services.common.config import Settings
from services.common.servers import free_port
from services.social.account_client import GrpcDirectory
from services.social.bootstrap import create_server
from services.social.inbox import Inbox
from services.social.store import SocialStore
from services.social.use_cases import Social
from tests.support.background import serving_in_background
from tests.support.keys import KEYS

from .account_harness import bearer, running_accounts

UNLIMITED = Settings.model_construct(command_rate=1e9, command_burst=1e9)
NONCE = "n-0123456789"
DAY = 86400.0


class NoMatches:
    def forget(self, account_id: str) -> None:
        pass

    def matches(self, account_id: str) -> list:
        return []


@contextmanager
def both(tmp_path, social_port: int | None = None):
    """An account service whose social client points at ``social_port`` (a free port by
    default: the social service not started yet), and the social service's parts."""
    port = social_port or free_port()
    with running_accounts(tmp_path, history=NoMatches()) as accounts:
        store = SocialStore.for_env({}, str(tmp_path / "social.sqlite"))
        store.create()
        directory = GrpcDirectory(f"127.0.0.1:{accounts.port}", KEYS)
        social = Social(store, directory, inbox=Inbox(store, accounts.clock))
        client = GrpcSocial(f"127.0.0.1:{port}", KEYS, notice_timeout_seconds=1.0)
        accounts.app.social = client
        try:
            yield accounts, social, port
        finally:
            client.close()
            directory.close()
            store.close()


@contextmanager
def social_serving(social: Social, port: int):
    with serving_in_background(lambda: create_server(f"127.0.0.1:{port}", social, KEYS, settings=UNLIMITED)) \
            as (bound, _):
        channel = grpc.insecure_channel(f"127.0.0.1:{bound}")
        try:
            yield pb_grpc.SocialServiceStub(channel)
        finally:
            channel.close()


def inbox(stub, who) -> list[tuple[int, str, dict[str, str]]]:
    listed = stub.ListNotifications(pb.ListNotificationsRequest(), metadata=bearer(who)).notifications
    return [(n.kind, n.text_key, dict(n.args)) for n in listed]


def google_sign_in(accounts, subject: str):
    return accounts.stub.SignInWithIdToken(acc.SignInWithIdTokenRequest(
        provider="google", id_token=accounts.id_token("google", subject), nonce=NONCE))


def test_a_ban_and_its_end_reach_the_players_inbox_with_the_bans_end(tmp_path):
    with both(tmp_path) as (accounts, social, port), social_serving(social, port) as stub:
        ann = accounts.sign_up("Ann Notices")
        until = accounts.clock() + 3 * DAY
        accounts.app.ban(ann.player_id, until, "abusive chat")
        expected_until = notices.banned(ann.player_id, until).args["until"]
        assert expected_until.endswith("Z")
        assert accounts.app.pending_notices() == 0
        accounts.clock.advance(60)
        accounts.app.unban(ann.player_id)
        assert accounts.app.pending_notices() == 0
        assert inbox(stub, ann) == [(pb.NOTIFICATION_KIND_BAN, "notice.unbanned", {}),
                                    (pb.NOTIFICATION_KIND_BAN, "notice.banned", {"until": expected_until})]


def test_a_ban_is_done_while_the_social_service_is_away_and_its_notice_arrives_with_the_next_pass(tmp_path):
    with both(tmp_path) as (accounts, social, port):
        ann = accounts.sign_up("Ann Away")
        accounts.app.ban(ann.player_id, accounts.clock() + DAY, "cheating")
        assert accounts.app.standing(ann.player_id).state == "banned"
        assert accounts.app.pending_notices() == 1
        assert accounts.app.post_notices() == 1  # still away
        with social_serving(social, port) as stub:
            assert posted_eventually(accounts.app) == 0
            assert [key for _, key, _ in inbox(stub, ann)] == ["notice.banned"]


def posted_eventually(app, seconds: float = 15.0) -> int:
    """The retry pass (bootstrap.erase_pending's step), run until nothing is pending: the
    client's channel reconnects to the server started late within a second or two."""
    deadline = time.monotonic() + seconds
    while (left := app.post_notices()) and time.monotonic() < deadline:
        time.sleep(0.2)
    return left


def test_a_sign_in_with_the_accounts_identity_tells_its_inbox_and_a_new_account_is_not_told(tmp_path):
    with both(tmp_path) as (accounts, social, port), social_serving(social, port) as stub:
        first = google_sign_in(accounts, "google-ann")
        assert first.created
        assert inbox(stub, first.session) == []
        again = google_sign_in(accounts, "google-ann")
        assert not again.created
        assert inbox(stub, again.session) == [(pb.NOTIFICATION_KIND_ACCOUNT, "notice.account.device_added",
                                               {"provider": "google"})]
        google_sign_in(accounts, "google-ann")
        assert [key for _, key, _ in inbox(stub, again.session)] == ["notice.account.device_added"] * 2


def test_a_sign_in_while_the_social_service_is_away_signs_in_and_is_told_later(tmp_path):
    with both(tmp_path) as (accounts, social, port):
        first = google_sign_in(accounts, "google-bob")
        again = google_sign_in(accounts, "google-bob")
        assert again.session.access_token and not again.created
        assert accounts.app.pending_notices() == 1
        with social_serving(social, port) as stub:
            assert posted_eventually(accounts.app) == 0
            assert inbox(stub, first.session) == [(pb.NOTIFICATION_KIND_ACCOUNT, "notice.account.device_added",
                                                   {"provider": "google"})]


def test_a_notice_posted_again_after_a_lost_answer_is_stored_once(tmp_path):
    with both(tmp_path) as (accounts, social, port), social_serving(social, port) as stub:
        ann = accounts.sign_up("Ann Twice")
        until = accounts.clock() + DAY
        accounts.app.ban(ann.player_id, until, "spam")
        accounts.app.social.post([notices.banned(ann.player_id, until)])  # what a retry after a lost answer sends
        accounts.clock.advance(60)
        accounts.app.unban(ann.player_id)
        assert [key for _, key, _ in inbox(stub, ann)] == ["notice.unbanned", "notice.banned"]


def test_the_pending_notices_are_bounded_by_dropping_the_oldest(tmp_path):
    with both(tmp_path) as (accounts, social, port), social_serving(social, port) as stub:
        ann = accounts.sign_up("Ann Bounded")
        store = accounts.app.store
        with store.transaction() as execute:
            for i in range(5):
                store.notices.add(execute, notices.banned(ann.player_id, 2_000_000_000.0 + i), 1_000.0 + i)
        assert notices.post_pending(store, accounts.app.social, keep=2) == 0
        assert {args["until"] for _, _, args in inbox(stub, ann)} == {
            notices.banned("p", 2_000_000_004.0).args["until"], notices.banned("p", 2_000_000_003.0).args["until"]}


def test_a_ban_without_a_calendar_end_says_until_empty():
    assert notices.banned("p", float("inf")).args == {"until": ""}
    assert notices.banned("p", 1_800_000_000.5).args == {"until": "2027-01-15T08:00:00.500000Z"}


def test_notice_ids_are_derived_from_the_event():
    assert notices.banned("p", 100.0) == notices.banned("p", 100.0)
    assert notices.banned("p", 100.0).notification_id != notices.banned("p", 200.0).notification_id
    assert notices.unbanned("p", 100.0).notification_id != notices.banned("p", 100.0).notification_id
    assert notices.device_added("p", "h1", "apple").notification_id != notices.device_added(
        "p", "h2", "apple").notification_id


def test_an_unban_of_an_account_without_a_running_ban_tells_nobody(tmp_path):
    with both(tmp_path) as (accounts, social, port), social_serving(social, port) as stub:
        ann = accounts.sign_up("Ann Unbanned")
        accounts.app.unban(ann.player_id)
        assert accounts.app.pending_notices() == 0
        assert inbox(stub, ann) == []


def test_a_deleted_account_leaves_no_pending_notice(tmp_path):
    with both(tmp_path) as (accounts, social, port):
        first = google_sign_in(accounts, "google-cat")
        again = google_sign_in(accounts, "google-cat")
        assert accounts.app.pending_notices() == 1
        accounts.stub.DeleteAccount(acc.DeleteAccountRequest(), metadata=bearer(again.session))
        assert accounts.app.pending_notices() == 0
        assert first.session.player_id not in json.dumps(accounts.app.store.dump()[notices.TABLE])


def test_the_social_service_refusing_a_notice_drops_it_and_keeps_the_others_moving(tmp_path):
    with both(tmp_path) as (accounts, social, port), social_serving(social, port) as stub:
        ann = accounts.sign_up("Ann Refused")
        with accounts.app.store.transaction() as execute:
            accounts.app.store.notices.add(execute, notices.Notice(
                "not-a-uuid", ann.player_id, notices.ACCOUNT, "notice.account.device_added"), accounts.clock())
            accounts.app.store.notices.add(execute, notices.banned(ann.player_id, accounts.clock() + DAY),
                                           accounts.clock())
        with pytest.raises(notices.NoticesRefused):
            accounts.app.social.post([notices.Notice("not-a-uuid", ann.player_id, notices.ACCOUNT,
                                                     "notice.account.device_added")])
        assert accounts.app.post_notices() == 0
        assert [key for _, key, _ in inbox(stub, ann)] == ["notice.banned"]


def test_a_service_without_a_social_service_drops_its_pending_notices_on_its_pass(tmp_path):
    with both(tmp_path) as (accounts, _, _):
        ann = accounts.sign_up("Ann Alone")
        accounts.app.social = None
        accounts.app.ban(ann.player_id, accounts.clock() + DAY, "spam")
        assert accounts.app.pending_notices() == 1  # `domino admin ban` leaves it to the service
        assert accounts.app.post_notices() == 0


@pytest.mark.parametrize("kind", ["ban", "unban"])
def test_domino_admin_leaves_the_notice_for_the_service_to_post(tmp_path, kind):
    with both(tmp_path) as (accounts, social, port):
        ann = accounts.sign_up("Ann Admin")
        posted_by = accounts.app.social
        accounts.app.social = None
        accounts.app.ban(ann.player_id, accounts.clock() + DAY, "spam")
        if kind == "unban":
            accounts.app.unban(ann.player_id)
        pending = accounts.app.pending_notices()
        assert pending == (1 if kind == "ban" else 2)
        accounts.app.social = posted_by
        with social_serving(social, port) as stub:
            assert posted_eventually(accounts.app) == 0
            assert len(inbox(stub, ann)) == pending
