"""The terminal client as a phone, against a real AccountService and MatchService on
loopback (in-process): access tokens that live three seconds are renewed without the
player noticing, a WatchMatch stream goes on across their expiries from the version it had,
and `domino play` signs a new device in, names the players, and signs it in again later."""

from __future__ import annotations

import time

import grpc
import pytest
from click.testing import CliRunner

from domino.match.v1 import match_service_pb2 as pb
from services.client import names
from services.client.account_api import AccountApi
from services.client.api import ApiError, MatchApi
from services.client.device import Device
from services.client.inbox import Inbox, Pump
from services.client.session import Session, first_sign_in
from services.match.application import MatchApplication
from tests.support.keys import token

from .account_harness import running_accounts
from .harness import running_service

LIFE = 3  # seconds an access token lives here


@pytest.fixture
def accounts(tmp_path):
    with running_accounts(tmp_path, access_seconds=LIFE) as service:
        service.app.clock = time.time  # tokens expire for real: the match service reads the real clock
        yield service


@pytest.fixture
def match():
    app = MatchApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    with running_service(app) as service:
        yield service


@pytest.fixture
def signed_in(accounts, tmp_path):
    """Ann's terminal: a device in its own config directory, signed in, and her stubs."""
    api = AccountApi(f"127.0.0.1:{accounts.port}")
    session = Session(api, Device.load_or_create(tmp_path / "ann-config", f"127.0.0.1:{accounts.port}"))
    api.use(session)
    first_sign_in(session, "Ann", None)
    yield session
    api.close()


def move(api: MatchApi, view: pb.MatchView, n: int) -> pb.MatchView:
    legal = view.legal_moves[0]
    if legal.kind == pb.MOVE_KIND_DRAW:
        return api.draw(view.match_id, f"{view.your_seat}-{n}").view
    tile = (max(legal.tile.low, legal.tile.high), min(legal.tile.low, legal.tile.high))
    return api.play(view.match_id, tile, legal.end, f"{view.your_seat}-{n}").view


def test_a_watch_stream_goes_on_across_token_expiries_without_losing_a_version(match, signed_in):
    session = signed_in
    created = match.create(variant="draw-2", players=(session.player_id, "bob"), target=151, turn_timer_seconds=0)
    match_id = created.match_id
    ann = MatchApi(f"127.0.0.1:{match.port}", session)
    bob = MatchApi(f"127.0.0.1:{match.port}", token("bob"))
    start = ann.get(match_id).version
    opened: list[int] = []

    def open_watch(last):
        version = last.view.version if last is not None and last.HasField("view") else start
        opened.append(version)
        return ann.watch(match_id, version)

    inbox = Inbox()
    pump = Pump(inbox, "view", open_watch).start()
    refreshes = session.refreshes
    deadline = time.monotonic() + 4 * LIFE + 1  # four expiries of the stream's token at least
    n = 0
    try:
        while time.monotonic() < deadline:
            for api in (ann, bob):  # ann's calls carry the session's token; bob's a long one
                view = api.get(match_id)
                if view.status != pb.MATCH_STATUS_IN_PROGRESS:
                    break
                if view.turn == view.your_seat and view.legal_moves:
                    n += 1
                    move(api, view, n)
            time.sleep(0.8)  # slow enough that the match outlives the tokens
        last = ann.get(match_id).version
        seen: list[int] = []
        others = []
        wait_until = time.monotonic() + 5
        while (not seen or seen[-1] < last) and time.monotonic() < wait_until:
            event = inbox.get(0.5)
            if event is None:
                continue
            if event.kind == "view" and event.value.HasField("view"):
                seen.append(event.value.view.version)
            elif event.kind != "view" and event.kind != "view-end":  # the end: only if the match ended
                others.append((event.kind, event.value))
    finally:
        pump.stop()
        ann.close()
        bob.close()
    assert n >= 8, "the match did not go on long enough"
    assert seen == list(range(start + 1, last + 1))  # every version once, in order, none lost
    assert not others  # no "link lost", no stream error: nothing the player would see
    assert len(opened) >= 4 and opened[0] == start  # reopened after each expiry ...
    assert all(v > start for v in opened[1:])  # ... from the version it had, not from the start
    assert session.refreshes - refreshes >= 3 and session.sign_ins == 1


def test_a_call_after_the_token_expired_succeeds_without_the_player_noticing(match, signed_in, accounts, tmp_path):
    session = signed_in
    match_id = match.create(variant="draw-2", players=(session.player_id, "bob"), target=51).match_id
    ann = MatchApi(f"127.0.0.1:{match.port}", session)
    try:
        assert ann.get(match_id).your_seat == 0
        time.sleep(LIFE + 0.5)  # the token expired; the session renews it before the call
        assert ann.get(match_id).your_seat == 0
        assert session.refreshes == 1

        # A client whose clock says the token is still fresh: the match service refuses it
        # as expired, and the call is renewed and sent again.
        frozen = time.time()
        lagging = Session(AccountApi(f"127.0.0.1:{accounts.port}"), session.device, clock=lambda: frozen)
        lagging.accounts.use(lagging)  # type: ignore[attr-defined]
        lagging.sign_in()
        late = MatchApi(f"127.0.0.1:{match.port}", lagging)
        try:
            late.get(match_id)
            time.sleep(LIFE + 0.5)
            assert late.get(match_id).your_seat == 0
            assert lagging.refreshes == 1
        finally:
            late.close()
            lagging.accounts.close()  # type: ignore[attr-defined]
    finally:
        ann.close()


def test_a_refresh_token_used_twice_ends_the_session_and_the_device_signs_in_again(signed_in):
    session = signed_in
    assert session.current is not None
    stolen = session.current.refresh_token
    session(stale=session())  # renewed: the refresh token above is retired
    accounts = session.accounts
    with pytest.raises(ApiError) as reused:
        accounts.refresh(stolen)  # someone presents the retired one: the whole session is revoked
    assert reused.value.code == grpc.StatusCode.UNAUTHENTICATED
    session(stale=session())  # its refresh token no longer works: the device signs in again
    assert session.sign_ins == 2
    assert accounts.account().display_name == "Ann"  # type: ignore[attr-defined]


def test_domino_play_signs_a_new_device_in_names_the_players_and_later_signs_in_silently(match, accounts, tmp_path):
    from services.cli.play import play

    config = tmp_path / "phone"
    address = f"127.0.0.1:{accounts.port}"
    args = ["--config-dir", str(config), "--account-address", address, "--match-address", f"127.0.0.1:{match.port}",
            "--var", str(tmp_path / "var"), "--no-color"]
    first = CliRunner().invoke(play, [*args, "--name", "Ann Phone", "--resume", "no-such-match"], input="")
    assert "Signed in as Ann Phone" in first.output, first.output
    device = Device.load_or_create(config, address)
    assert device.player_id  # the account it made is remembered beside the device key

    bob = accounts.sign_up("Bobby")
    match_id = match.create(variant="draw-2", players=(device.player_id, bob.player_id), target=51,
                            turn_timer_seconds=0).match_id
    again = CliRunner().invoke(play, [*args, "--name", "Someone Else", "--resume", match_id], input="q\n")
    assert again.exit_code == 0, again.output
    assert "Signed in as" not in again.output  # the same account, nothing asked
    assert "Bobby" in again.output and bob.player_id not in again.output  # a name, not the id
    assert Device.load_or_create(config, address).player_id == device.player_id


def test_domino_play_leaves_no_name_directory_behind_on_its_closed_channel(match, accounts, tmp_path):
    from services.cli.play import play

    bob = accounts.sign_up("Bobby Left")
    CliRunner().invoke(play, ["--config-dir", str(tmp_path / "c"), "--account-address", f"127.0.0.1:{accounts.port}",
                              "--match-address", f"127.0.0.1:{match.port}", "--name", "Ann Leaves",
                              "--resume", "no-such-match"], input="")
    names.learn([bob.player_id])  # the next screen in this process asks nobody, and fails nothing
    assert names.name(bob.player_id) == bob.player_id


def test_a_taken_name_in_a_script_is_refused_with_the_server_s_words(accounts, match, tmp_path):
    from services.cli.play import play

    accounts.sign_up("Taken")
    result = CliRunner().invoke(play, ["--config-dir", str(tmp_path / "c"), "--account-address",
                                       f"127.0.0.1:{accounts.port}", "--match-address", f"127.0.0.1:{match.port}",
                                       "--name", "Taken", "--resume", "no-such-match"], input="")
    assert result.exit_code == 1 and "choose another with --name" in result.output, result.output


def test_names_come_from_the_account_service_and_unknown_ids_are_shortened(signed_in, accounts):
    session = signed_in
    bob = accounts.sign_up("Bobby")
    directory = names.Names(session.accounts.display_names)  # type: ignore[attr-defined]
    directory.learn([bob.player_id, session.player_id, "0123456789abcdef", "bot:greedy:1"])
    assert directory.name(bob.player_id) == "Bobby"
    assert directory.name(session.player_id) == "Ann"
    assert directory.name("0123456789abcdef") == "player 0123…"


def test_names_fall_back_to_the_ids_when_the_account_service_is_gone():
    api = AccountApi("127.0.0.1:1", "fixed")
    try:
        directory = names.Names(api.display_names)
        directory.learn(["3f9a1c2b7e11"])
        assert directory.name("3f9a1c2b7e11") == "3f9a1c2b7e11"
    finally:
        api.close()


def test_a_blank_display_name_is_asked_again_with_why(accounts, tmp_path):
    import io

    from rich.console import Console

    from services.cli.play import sign_in
    from services.client.terminal import Output

    api = AccountApi(f"127.0.0.1:{accounts.port}")
    session = Session(api, Device.load_or_create(tmp_path / "blank", f"127.0.0.1:{accounts.port}"))
    api.use(session)
    file = io.StringIO()
    inbox = Inbox()
    for line in ("", "   ", "Ann Blank"):
        inbox.put("line", line)
    try:
        sign_in(session, None, Output(Console(file=file, width=200, color_system=None), redraw=False), inbox, True)
    finally:
        api.close()
    said = file.getvalue()
    assert said.count("A display name cannot be blank") == 2 and session.display_name == "Ann Blank"


def sign_out(accounts, tmp_path, answers: tuple[str, ...]) -> tuple[str, Device]:
    """A guest signs in on a new device, then Account → Sign out with ``answers``."""
    import io

    from rich.console import Console

    from services.client.account_screen import AccountScreen
    from services.client.terminal import Output

    api = AccountApi(f"127.0.0.1:{accounts.port}")
    device = Device.load_or_create(tmp_path / "guest", f"127.0.0.1:{accounts.port}")
    session = Session(api, device)
    api.use(session)
    first_sign_in(session, "Guest Out", None)
    file = io.StringIO()
    inbox = Inbox()
    for line in ("2", *answers):
        inbox.put("line", line)
    try:
        assert AccountScreen(api, session).run(Output(Console(file=file, width=200, color_system=None),
                                                      redraw=False), inbox)
    finally:
        api.close()
    return file.getvalue(), device


def test_signing_out_offers_to_forget_the_device_and_says_a_guest_would_lose_the_account(accounts, tmp_path):
    said, device = sign_out(accounts, tmp_path, ("y", "y"))
    assert "This is a guest account" in said and "loses the account" in said
    assert "device key is deleted" in said
    assert device.path is not None and not device.path.exists()


def test_signing_out_without_forgetting_keeps_the_device_key_and_says_so(accounts, tmp_path):
    said, device = sign_out(accounts, tmp_path, ("y", "n"))
    assert "Forget this device too?" in said and "device key stays in your config directory" in said
    assert device.path is not None and device.path.exists()
