"""The client's session (services/client/session.py) against a fake account service: tokens
renewed before they expire and when a server refuses them, a device sign-in when the refresh
token is refused, the device credentials file, and the stubs and streams that use them."""

from __future__ import annotations

import itertools
import json
import stat
import threading

import grpc
import pytest

from domino.account.v1 import account_service_pb2 as acc
from services.client import names as names_module
from services.client.api import ApiError, MatchApi, TokenExpired
from services.client.device import Device, DeviceFileError, config_dir, credentials_path
from services.client.inbox import Inbox, Pump
from services.client.names import Names
from services.client.session import LocalTokens, Session, first_sign_in
from services.common.error_details import Details
from tests.support.errors import RefusedCall
from tests.support.rules_description import served_rules  # noqa: F401  (the fixture, by name)

pytestmark = pytest.mark.usefixtures("served_rules")

EXPIRED = "the token has expired"


class Clock:
    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


class FakeAccounts:
    """SignInWithDevice and RefreshSession with rotating refresh tokens, as the proto says:
    a retired refresh token presented again revokes its session."""

    def __init__(self, clock: Clock, life: int = 900) -> None:
        self.clock = clock
        self.life = life
        self.devices: dict[str, tuple[str, str, str]] = {}  # device id -> (secret, account id, name)
        self.live: dict[str, str] = {}  # refresh token -> session id
        self.retired: dict[str, str] = {}
        self.revoked: set[str] = set()
        self.counter = itertools.count(1)
        self.sign_ins = self.refreshes = 0
        self.taken = {"taken"}
        self.down = False
        self.lock = threading.Lock()

    def sign_in_with_device(self, device_id, device_secret, display_name=""):
        if self.down:
            raise ApiError(grpc.StatusCode.UNAVAILABLE, "down")
        created = device_id not in self.devices
        if created:
            if display_name in self.taken:
                raise ApiError(grpc.StatusCode.ALREADY_EXISTS, f"the display name {display_name!r} is taken",
                               details=Details("NAME_TAKEN"))
            self.devices[device_id] = (device_secret, f"acct-{len(self.devices) + 1:04d}-opaque", display_name or "Guest")
        secret, player_id, name = self.devices[device_id]
        if secret != device_secret:
            raise ApiError(grpc.StatusCode.UNAUTHENTICATED, "the device secret is wrong",
                           details=Details("CREDENTIALS_REFUSED"))
        self.sign_ins += 1
        return acc.SignInWithDeviceResponse(session=self._session(player_id, name, f"s{next(self.counter)}"),
                                            created=created)

    def refresh(self, refresh_token):
        with self.lock:
            if self.down:
                raise ApiError(grpc.StatusCode.UNAVAILABLE, "down")
            if refresh_token in self.retired:
                self.revoked.add(self.retired[refresh_token])
                raise ApiError(grpc.StatusCode.UNAUTHENTICATED, "the refresh token was used already",
                               details=Details("REFRESH_TOKEN_REUSED"))
            sid = self.live.pop(refresh_token, None)
            if sid is None or sid in self.revoked:
                raise ApiError(grpc.StatusCode.UNAUTHENTICATED, "the refresh token is not valid",
                               details=Details("REFRESH_TOKEN_INVALID"))
            self.retired[refresh_token] = sid
            self.refreshes += 1
            player_id, name = next((a, n) for _, a, n in self.devices.values())
            return acc.RefreshSessionResponse(session=self._session(player_id, name, sid))

    def _session(self, player_id, name, sid):
        n = next(self.counter)
        refresh = f"refresh-{n}"
        self.live[refresh] = sid
        session = acc.Session(player_id=player_id, access_token=f"access-{n}", refresh_token=refresh,
                              display_name=name)
        session.access_expires_at.seconds = int(self.clock() + self.life)
        return session


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def device(tmp_path):
    return Device.load_or_create(tmp_path / "config", "127.0.0.1:50053")


def signed_in(clock, device, life=900) -> tuple[Session, FakeAccounts]:
    accounts = FakeAccounts(clock, life)
    session = Session(accounts, device, clock)
    session.sign_in("ann")
    return session, accounts


# ---- renewing -----------------------------------------------------------------------------------


def test_the_access_token_is_renewed_a_little_before_it_expires(clock, device):
    session, accounts = signed_in(clock, device)
    first = session()
    clock.now += 800
    assert session() == first and accounts.refreshes == 0  # still well in time
    clock.now += 45  # 845 s of 900: within the last minute
    second = session()
    assert second != first and accounts.refreshes == 1 and accounts.sign_ins == 1
    assert session() == second  # once: the next call uses it


def test_short_tokens_are_renewed_at_four_fifths_of_their_life_not_on_every_call(clock, device):
    session, accounts = signed_in(clock, device, life=3)
    first = session()
    clock.now += 2.0
    assert session() == first and accounts.refreshes == 0
    clock.now += 0.5
    assert session() != first and accounts.refreshes == 1


def test_a_token_a_server_refused_as_expired_is_renewed_even_if_the_clock_says_it_is_fresh(clock, device):
    session, accounts = signed_in(clock, device)
    first = session()
    second = session(stale=first)
    assert second != first and accounts.refreshes == 1
    assert session(stale=first) == second  # a late refusal of the old one renews nothing more
    assert accounts.refreshes == 1 and not accounts.revoked


def test_a_refused_refresh_token_signs_in_again_with_the_device(clock, device):
    session, accounts = signed_in(clock, device)
    first = session()
    accounts.live.clear()  # the server no longer knows the refresh token (revoked, too old)
    second = session(stale=first)
    assert second != first and accounts.sign_ins == 2 and session.player_id == device.player_id


def test_the_session_never_presents_a_retired_refresh_token_when_threads_renew_at_once(clock, device):
    session, accounts = signed_in(clock, device)
    first = session()
    got: list[str] = []
    threads = [threading.Thread(target=lambda: got.append(session(stale=first))) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(got)) == 1 and got[0] != first
    assert accounts.refreshes == 1 and not accounts.revoked and accounts.sign_ins == 1


def test_an_unanswered_refresh_keeps_the_token_while_it_is_valid_and_fails_once_it_is_not(clock, device):
    session, accounts = signed_in(clock, device)
    first = session()
    accounts.down = True
    clock.now += 850
    assert session() == first  # renewing failed, but the token still works: tried again next call
    clock.now += 60
    with pytest.raises(ApiError) as failed:
        session()
    assert failed.value.unreachable
    accounts.down = False
    assert session() != first


def test_a_closed_session_gives_no_token(clock, device):
    session, _ = signed_in(clock, device)
    session.close("signed out")
    with pytest.raises(ApiError, match="signed out"):
        session()


def test_the_first_sign_in_asks_again_for_a_name_the_server_refuses(clock, device):
    accounts = FakeAccounts(clock)
    session = Session(accounts, device, clock)
    asked: list[str] = []
    answers = iter(["taken", "ann"])

    def ask(refusal: str) -> str:
        asked.append(refusal)
        return next(answers)

    assert first_sign_in(session, "", ask) is True
    assert asked == ["", "the display name 'taken' is taken"]
    assert session.display_name == "ann" and device.player_id == session.player_id


def test_a_script_s_refused_name_is_an_error_and_no_name_lets_the_server_choose(clock, tmp_path):
    accounts = FakeAccounts(clock)
    refused = Session(accounts, Device.load_or_create(tmp_path, "a"), clock)
    with pytest.raises(ApiError) as e:
        first_sign_in(refused, "taken", None)
    assert e.value.code == grpc.StatusCode.ALREADY_EXISTS
    unnamed = Session(accounts, Device.load_or_create(tmp_path, "b"), clock)
    assert first_sign_in(unnamed, "", None) and unnamed.display_name == "Guest"


def test_local_tokens_are_minted_again_before_they_expire_and_when_refused(clock):
    minted = itertools.count(1)
    import jwt

    def mint():
        n = next(minted)
        return jwt.encode({"sub": "alice", "iat": int(clock()), "exp": int(clock()) + 900, "n": n}, "k" * 32,
                          algorithm="HS256")

    tokens = LocalTokens(mint, clock)
    first = tokens()
    assert tokens() == first
    assert tokens(stale=first) != first
    second = tokens()
    clock.now += 845
    assert tokens() != second


# ---- the device credentials ---------------------------------------------------------------------


def test_the_credentials_file_is_private_and_reused(tmp_path, clock):
    directory = tmp_path / "cfg" / "domino"
    device = Device.load_or_create(directory, "127.0.0.1:50053")
    path = credentials_path(directory, "127.0.0.1:50053")
    assert device.path == path and path.name.startswith("device-") and len(path.stem) == len("device-") + 12
    assert stat.S_IMODE(directory.stat().st_mode) == 0o700
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert len(device.device_id) == 32 and len(device.device_secret) == 64
    int(device.device_secret, 16)
    session, _ = signed_in(clock, device)
    kept = json.loads(path.read_text())
    assert kept == {"device_id": device.device_id, "device_secret": device.device_secret,
                    "player_id": session.player_id}  # no refresh token on disk
    again = Device.load_or_create(directory, "127.0.0.1:50053")
    assert (again.device_id, again.device_secret, again.player_id) == (device.device_id, device.device_secret,
                                                                       session.player_id)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    other = Device.load_or_create(directory, "play.example.com:443")
    assert other.path != path and other.device_id != device.device_id


def test_a_loose_directory_and_file_are_made_private(tmp_path):
    directory = tmp_path / "loose"
    directory.mkdir(mode=0o755)
    device = Device.load_or_create(directory, "x")
    assert device.path is not None
    device.path.chmod(0o644)
    directory.chmod(0o755)
    Device.load_or_create(directory, "x")
    assert stat.S_IMODE(directory.stat().st_mode) == 0o700
    assert stat.S_IMODE(device.path.stat().st_mode) == 0o600


def test_a_damaged_credentials_file_is_reported_not_replaced(tmp_path):
    directory = tmp_path / "cfg"
    Device.load_or_create(directory, "x")
    path = credentials_path(directory, "x")
    path.write_text("not json")
    with pytest.raises(DeviceFileError, match="move it away"):
        Device.load_or_create(directory, "x")
    assert path.read_text() == "not json"


def test_the_config_dir_follows_xdg(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert config_dir() == tmp_path / "domino"
    assert config_dir(tmp_path / "mine") == tmp_path / "mine"
    monkeypatch.delenv("XDG_CONFIG_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert config_dir() == tmp_path / "home" / ".config" / "domino"


# ---- the stubs and streams that use a session ---------------------------------------------------


Refused = RefusedCall


def token_of(metadata) -> str:
    return dict(metadata)["authorization"].removeprefix("Bearer ")


def test_a_call_refused_for_an_expired_token_is_renewed_and_sent_again_once(clock, device):
    session, accounts = signed_in(clock, device)
    api = MatchApi("127.0.0.1:1", session)
    first = session()
    sent: list[str] = []

    def method(request, metadata, timeout):
        sent.append(token_of(metadata))
        if token_of(metadata) == first:
            raise Refused(grpc.StatusCode.UNAUTHENTICATED, EXPIRED, "TOKEN_EXPIRED")
        return "ok"

    try:
        assert api.call(method, object()) == "ok"
        assert sent == [first, session()] and accounts.refreshes == 1

        def always(request, metadata, timeout):
            sent.append(token_of(metadata))
            raise Refused(grpc.StatusCode.UNAUTHENTICATED, EXPIRED, "TOKEN_EXPIRED")

        sent.clear()
        with pytest.raises(ApiError) as e:
            api.call(always, object())
        assert e.value.code == grpc.StatusCode.UNAUTHENTICATED and len(sent) == 2  # once more, not forever

        def other(request, metadata, timeout):
            sent.append(token_of(metadata))
            raise Refused(grpc.StatusCode.UNAUTHENTICATED, "the token's signature is not valid", "TOKEN_INVALID")

        sent.clear()
        with pytest.raises(ApiError):
            api.call(other, object())
        assert len(sent) == 1  # not an expiry: no renewal, no retry
    finally:
        api.close()


def test_an_expiry_is_told_by_its_reason_not_by_the_words_of_its_message(clock, device):
    """A refusal whose message says "expired" but whose ErrorInfo says TOKEN_INVALID is no
    expiry (renewing would not help), and TOKEN_EXPIRED is one whatever its message says."""
    session, accounts = signed_in(clock, device)
    api = MatchApi("127.0.0.1:1", session)
    first = session()
    sent: list[str] = []

    def worded(request, metadata, timeout):
        sent.append(token_of(metadata))
        raise Refused(grpc.StatusCode.UNAUTHENTICATED, "this key expired from the key ring", "TOKEN_INVALID")

    def reasoned(request, metadata, timeout):
        sent.append(token_of(metadata))
        if token_of(metadata) == first:
            raise Refused(grpc.StatusCode.UNAUTHENTICATED, "try a newer one", "TOKEN_EXPIRED")
        return "ok"

    try:
        with pytest.raises(ApiError) as e:
            api.call(worded, object())
        assert e.value.reason == "TOKEN_INVALID" and sent == [first] and accounts.refreshes == 0
        sent.clear()
        assert api.call(reasoned, object()) == "ok" and len(sent) == 2 and accounts.refreshes == 1
    finally:
        api.close()


def test_a_fixed_token_is_sent_as_it_is_and_not_renewed():
    api = MatchApi("127.0.0.1:1", "fixed")
    sent: list[str] = []

    def method(request, metadata, timeout):
        sent.append(token_of(metadata))
        raise Refused(grpc.StatusCode.UNAUTHENTICATED, EXPIRED, "TOKEN_EXPIRED")

    try:
        with pytest.raises(ApiError):
            api.call(method, object())
        assert sent == ["fixed"]
    finally:
        api.close()


class FakeStream:
    """A server stream: items, then the end the server chose."""

    def __init__(self, items, end: grpc.RpcError | None) -> None:
        self.items = items
        self.end = end
        self.cancelled = False

    def __iter__(self):
        yield from self.items
        if self.end is not None:
            raise self.end

    def cancel(self):
        self.cancelled = True


def test_a_stream_ended_for_an_expired_token_reopens_silently_from_the_last_version(clock, device):
    """Three expiries in a row: each reopen asks from the version last received, with a
    renewed token, and the inbox sees every version once and nothing else."""
    session, accounts = signed_in(clock, device, life=3)
    api = MatchApi("127.0.0.1:1", session)
    opened: list[tuple[str, int]] = []
    versions = iter([[1, 2], [3], [], [4, 5]])

    def watch(request, metadata):
        opened.append((token_of(metadata), request))
        items = next(versions)
        last = not items or items[-1] == 5
        return FakeStream(items, None if items and last else Refused(grpc.StatusCode.UNAUTHENTICATED,
                                                                      EXPIRED + "; reconnect with a fresh one",
                                                                      "TOKEN_EXPIRED"))

    inbox = Inbox()
    pump = Pump(inbox, "view", lambda last: api.stream(watch, last or 0), max_pause=0.01).start()
    try:
        pump.thread.join(5)
        assert not pump.thread.is_alive()
        events = inbox.pending()
        assert [(e.kind, e.value) for e in events] == [("view", 1), ("view", 2), ("view", 3), ("view", 4),
                                                        ("view", 5), ("view-end", 5)]  # no "link" lost/back
        assert [v for _, v in opened] == [0, 2, 3, 3]
        tokens = [t for t, _ in opened]
        assert len(set(tokens)) == 4 and accounts.refreshes == 3 and accounts.sign_ins == 1
    finally:
        pump.stop()
        api.close()


def test_a_stream_whose_token_cannot_be_renewed_is_a_lost_link_until_it_can(clock, device):
    session, accounts = signed_in(clock, device)
    api = MatchApi("127.0.0.1:1", session)
    rounds = iter([[1], [2]])

    def watch(request, metadata):
        items = next(rounds)
        if items == [1]:
            accounts.down = True  # the account service goes away as the token expires
            clock.now += 901
            return FakeStream(items, Refused(grpc.StatusCode.UNAUTHENTICATED, EXPIRED, "TOKEN_EXPIRED"))
        return FakeStream(items, None)

    inbox = Inbox()
    pump = Pump(inbox, "view", lambda last: api.stream(watch, last or 0), max_pause=0.01).start()
    try:
        assert inbox.get(2).value == 1
        assert (lambda e: (e.kind, e.value))(inbox.get(2)) == ("link", "lost")
        accounts.down = False
        kinds = [(e.kind, e.value) for e in (inbox.get(2), inbox.get(2), inbox.get(2))]
        assert kinds == [("link", "back"), ("view", 2), ("view-end", 2)]
    finally:
        pump.stop()
        api.close()


def test_a_fixed_token_s_expired_stream_is_a_stream_error_not_a_loop():
    api = MatchApi("127.0.0.1:1", "fixed")
    inbox = Inbox()
    pump = Pump(inbox, "view", lambda last: api.stream(
        lambda request, metadata: FakeStream([1], Refused(grpc.StatusCode.UNAUTHENTICATED, EXPIRED, "TOKEN_EXPIRED")), 0)).start()
    try:
        pump.thread.join(5)
        assert [(e.kind, e.value) for e in inbox.pending()] == [("view", 1), ("stream-error", EXPIRED)]
    finally:
        api.close()


def test_token_expired_is_raised_only_after_the_token_was_renewed(clock, device):
    session, accounts = signed_in(clock, device)
    api = MatchApi("127.0.0.1:1", session)
    try:
        stream = api.stream(lambda request, metadata: FakeStream([], Refused(grpc.StatusCode.UNAUTHENTICATED,
                                                                             EXPIRED, "TOKEN_EXPIRED")), 0)
        with pytest.raises(TokenExpired):
            list(stream)
        assert accounts.refreshes == 1 and session() != stream.token
    finally:
        api.close()


# ---- names --------------------------------------------------------------------------------------


def test_names_are_asked_once_per_id_a_hundred_at_a_time_and_bots_never():
    asked: list[list[str]] = []

    def lookup(ids):
        asked.append(list(ids))
        return {i: f"name-{i}" for i in ids if i != "gone-account-id"}

    directory = Names(lookup)
    ids = [f"id{n:03d}" for n in range(150)]
    directory.learn(ids + ["bot:greedy:1", "", "gone-account-id"])
    assert [len(a) for a in asked] == [100, 51] and not any(i.startswith("bot:") for a in asked for i in a)
    directory.learn(ids)
    assert len(asked) == 2  # cached for the session
    assert directory.name("id007") == "name-id007"
    assert directory.name("gone-account-id") == "player gone…"  # deleted or unknown: a short form
    assert directory.name("bob") == "bob"


def test_names_fall_back_to_the_ids_when_the_account_service_does_not_answer():
    clock = Clock(0.0)
    calls = []

    def lookup(ids):
        calls.append(ids)
        raise ApiError(grpc.StatusCode.UNAVAILABLE, "down")

    directory = Names(lookup, clock)
    directory.learn(["3f9a1c2b7e"])
    assert directory.name("3f9a1c2b7e") == "3f9a1c2b7e"
    directory.learn(["3f9a1c2b7e"])
    assert len(calls) == 1  # not asked again on every screen
    clock.now += 31
    directory.learn(["3f9a1c2b7e"])
    assert len(calls) == 2


def test_screens_read_the_directory_in_use(monkeypatch):
    from services.client import history_screens, view_reading

    directory = Names(lambda ids: {"3f9a1c2b7e": "Ann"})
    monkeypatch.setattr(names_module, "_directory", directory)
    names_module.learn(["3f9a1c2b7e", "0123456789ab"])
    assert view_reading.player_name("3f9a1c2b7e") == "Ann"
    assert view_reading.player_name("0123456789ab") == "player 0123…"
    assert view_reading.player_name("bot:greedy:1") == "bot greedy 1"
    assert history_screens.rated_name("3f9a1c2b7e") == "Ann"
    assert history_screens.rated_name("bot:strong:3") == "bot:strong"
    monkeypatch.setattr(names_module, "_directory", names_module.PLAIN)
    assert view_reading.player_name("3f9a1c2b7e") == "3f9a1c2b7e"  # --player: ids as they are


# ---- the prompts: the first name, and the account screen ----------------------------------------


def terminal(*lines: str):
    import io

    from rich.console import Console

    from services.client.terminal import Output

    file = io.StringIO()
    inbox = Inbox()
    for line in lines:
        inbox.put("line", line)
    inbox.put("eof")
    return Output(Console(file=file, width=120, color_system=None, highlight=False), redraw=False), inbox, file


def test_the_first_start_asks_the_name_through_the_inbox_until_the_server_takes_it(clock, device):
    from services.cli.play import sign_in

    accounts = FakeAccounts(clock)
    session = Session(accounts, device, clock)
    out, inbox, file = terminal("", "taken", "Ann")
    sign_in(session, None, out, inbox, ask=True)
    text = file.getvalue()
    assert "Choose the name other players see" in text and "the display name 'taken' is taken" in text
    assert "Signed in as Ann" in text and session.display_name == "Ann"
    out, inbox, file = terminal()
    sign_in(Session(accounts, device, clock), "ignored", out, inbox, ask=True)  # later starts: nothing asked
    assert file.getvalue() == "" and accounts.sign_ins == 2


class FakeAccountApi:
    def __init__(self, session: Session) -> None:
        self.session = session
        self.deleted = 0
        self.attempts = 0

    def account(self):
        return acc.Account(player_id=self.session.player_id, display_name=self.session.display_name, devices=1,
                           guest=True)

    def set_display_name(self, name):
        if name == "taken":
            raise ApiError(grpc.StatusCode.ALREADY_EXISTS, "that display name is taken", details=Details("NAME_TAKEN"))
        return acc.Account(player_id=self.session.player_id, display_name=name)

    def delete_account(self):
        self.attempts += 1
        if self.session.sign_ins < 2:
            raise ApiError(grpc.StatusCode.FAILED_PRECONDITION, "deleting an account needs a sign-in from the last "
                                                                "five minutes: sign in again first",
                           details=Details("SIGN_IN_AGAIN"))
        self.deleted += 1
        return acc.DeleteAccountResponse()


def test_the_account_screen_renames_and_deletes_after_a_fresh_sign_in(clock, device):
    from services.client.account_screen import AccountScreen

    session, _ = signed_in(clock, device)
    api = FakeAccountApi(session)
    directory = Names()
    screen = AccountScreen(api, session, directory)  # type: ignore[arg-type]
    out, inbox, file = terminal("1", "taken", "Annie", "3", "Ann", "3", "Annie")
    assert screen.run(out, inbox) is True
    text = file.getvalue()
    assert "that display name is taken" in text and "You are now Annie" in text
    assert directory.name(session.player_id) == "Annie" and "Type your display name (Annie)" in text
    assert "Kept: nothing was deleted" in text  # "Ann" is not the name typed out
    assert api.attempts == 2 and api.deleted == 1 and session.sign_ins == 2  # refused once, signed in, deleted
    assert "Your account was deleted" in text
    assert device.path is not None and not device.path.exists()  # the next start makes a new device
    with pytest.raises(ApiError):
        session()


def test_a_call_refused_as_a_lost_race_goes_again_after_the_wait_the_server_gives_and_a_rules_refusal_does_not():
    """Issue 35: a client retries on the server's word (ErrorInfo CONFLICT with a RetryInfo),
    never on a guess; a refusal of the rules is the player's to read."""
    api = MatchApi("127.0.0.1:1", "token", retry_pause=30.0)  # a guessed pause would stall this test
    sent: list[object] = []
    raced = RefusedCall(grpc.StatusCode.ABORTED, "lost a race", "CONFLICT", retry_after=0.01)

    def racing(request, metadata, timeout):
        sent.append(request)
        if len(sent) == 1:
            raise raced
        return "ok"

    def refusing(request, metadata, timeout):
        sent.append(request)
        raise RefusedCall(grpc.StatusCode.FAILED_PRECONDITION, "not your turn", "NOT_YOUR_TURN")

    try:
        request = object()
        assert api.call(racing, request, retry=True) == "ok" and sent == [request, request]
        sent.clear()
        with pytest.raises(ApiError) as e:
            api.call(refusing, request, retry=True)
        assert e.value.reason == "NOT_YOUR_TURN" and len(sent) == 1
    finally:
        api.close()
