"""`domino play` end to end: the real local system (NATS, match, relay, bots, matchmaking as
processes, like `domino up`) and the real command in a pseudo-terminal, typed at like a
player would."""

from __future__ import annotations

import codecs
import fcntl
import os
import pty
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import termios
import threading
import time
from pathlib import Path

import grpc
import pytest

from domino.match.v1 import match_service_pb2 as pb
from domino.match.v1 import match_service_pb2_grpc as pb_grpc
from services.common.auth import KeyRing, mint_token
from services.common.supervisor import LocalSystem, Ports

pytestmark = pytest.mark.system

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Za-z0-9]|\r")
HAND = re.compile(r"(\d+)\)\[(\d)\|(\d)\]([←→↔★]?)")
MATCH_ID = re.compile(r"match ([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})")


@pytest.fixture(scope="module")
def system():
    var = Path(tempfile.mkdtemp(prefix="domino-play-"))
    services = ("match", "relay", "accounts", "bots", "matchmaking")
    local = LocalSystem(var / "system", Ports.free(), services=services,
                        extra_env={"DOMINO_TABLE_WAIT_SECONDS": "30", "DOMINO_WATCH_POLL_SECONDS": "0.2",
                                   "DOMINO_SHUTDOWN_GRACE_SECONDS": "1"})
    local.start()
    try:
        yield local
    finally:
        local.stop()
        shutil.rmtree(var, ignore_errors=True)


class Term:
    """`domino play ARGS` in a pseudo-terminal of 50x120. A thread keeps reading its output
    (a terminal nobody reads from fills up and blocks the client); ``expect`` searches that
    output with the colours and cursor moves taken out.

    The child is started by subprocess (vfork/exec), not pty.fork: forking this process,
    whose gRPC threads are running, now and then left a child that died before exec."""

    def __init__(self, system: LocalSystem, *args: str) -> None:
        env = dict(os.environ, DOMINO_KEYS_DIR=str(system.keys_dir), DOMINO_MATCH_ADDRESS=system.match_address,
                   DOMINO_MATCHMAKING_ADDRESS=system.matchmaking_address, DOMINO_VAR_DIR=str(system.var_dir / "client"),
                   TERM="xterm-256color")
        env.pop("NO_COLOR", None)
        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 120, 0, 0))
        self.proc = subprocess.Popen([sys.executable, "-m", "services.cli", "play", *args], stdin=slave, stdout=slave,
                                     stderr=slave, env=env, start_new_session=True, close_fds=True)
        os.close(slave)
        self.text = ""
        self.carry = ""
        self.raw: list[bytes] = []
        self.before = ""
        self.cond = threading.Condition()
        self.eof = False
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        while True:
            try:
                chunk = os.read(self.master, 65536)
            except OSError:  # EIO: the child and every copy of the terminal are gone
                chunk = b""
            with self.cond:
                if not chunk:
                    self.eof = True
                    self.cond.notify_all()
                    return
                self.raw.append(chunk)
                data = self.carry + decoder.decode(chunk)
                cut = data.rfind("\x1b")
                if cut != -1 and not ANSI.match(data, cut):  # a sequence cut in two by the read
                    data, self.carry = data[:cut], data[cut:]
                else:
                    self.carry = ""
                self.text += ANSI.sub("", data)
                self.cond.notify_all()

    def expect(self, pattern: str, timeout: float = 30) -> re.Match:
        """The first match of ``pattern`` in the output not consumed yet; what came before
        it is ``self.before``, and the search goes on after it."""
        rx = re.compile(pattern)
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                found = rx.search(self.text)
                if found:
                    self.before, self.text = self.text[:found.start()], self.text[found.end():]
                    return found
                if self.eof or time.monotonic() > deadline:
                    raise AssertionError(f"{pattern!r} not seen ({'exited' if self.eof else 'timed out'}); "
                                         f"output ends with:\n{self.text[-2500:]}")
                self.cond.wait(0.5)

    def sendline(self, text: str) -> None:
        os.write(self.master, (text + "\n").encode())

    def kill(self) -> None:
        self.proc.kill()
        self.wait_exit()

    def wait_exit(self, timeout: float = 30) -> int:
        code = self.proc.wait(timeout)
        with self.cond:
            self.cond.wait_for(lambda: self.eof, 5)
        os.close(self.master)
        return code


class Service:
    def __init__(self, system: LocalSystem) -> None:
        self.channel = grpc.insecure_channel(system.match_address)
        self.stub = pb_grpc.MatchServiceStub(self.channel)
        self.metadata = (("authorization", f"Bearer {mint_token('ops', KeyRing.load(system.keys_dir, issues=('service',)), 'service')}"),)

    def view(self, match_id: str) -> pb.MatchView:
        return self.stub.GetMatch(pb.GetMatchRequest(match_id=match_id), metadata=self.metadata, timeout=10).view

@pytest.fixture(scope="module")
def service(system):
    s = Service(system)
    yield s
    s.channel.close()


def practice(system, service, player: str, *args: str) -> tuple[Term, str]:
    """`domino play --practice` against greedy bots."""
    term = Term(system, "--player", player, "--practice", "--variant", "draw-2", "--bots", "greedy",
                "--target", "51", *args)
    return term, term.expect(MATCH_ID.pattern).group(1)


def at_a_rounds_end(before: str) -> bool:
    """The prompt under a round's end (its hands and points), not under the table."""
    return before.rfind("Press Enter for the next round") > before.rfind("Your hand")


def test_a_player_types_their_way_through_a_whole_match_against_greedy_bots(system, service):
    term, match_id = practice(system, service, "alice")
    moves = asked_for_an_end = rounds_ended = 0
    while term.expect(r"> |Match over — ").group(0) == "> ":
        if at_a_rounds_end(term.before):
            assert re.search(r"round \d+ is over", term.before) and "Scores: you " in term.before
            rounds_ended += 1
            term.sendline("")  # on to the next round
            continue
        screen = term.before[term.before.rfind("Your hand"):]
        if "fits both ends: l (left" in screen:
            asked_for_an_end += 1
            term.sendline("r")
            continue
        playable = [(number, mark) for number, _a, _b, mark in HAND.findall(screen) if mark]
        if "Nothing fits: d to draw." in screen:
            term.sendline("d")
        elif playable:
            term.sendline(playable[0][0])  # a tile that fits both ends goes without one: the client asks
        else:
            raise AssertionError(f"a prompt with nothing to do:\n{term.before[-2500:]}")
        moves += 1
    term.expect(r"Final scores: you \d+ · bot greedy 1 \d+")
    term.expect(r"ended: ")
    assert term.wait_exit() == 0
    final = service.view(match_id)
    assert final.status == pb.MATCH_STATUS_ENDED and moves >= 5
    # Every round but the last stayed on screen until Enter; the last one's end may show its
    # prompt too, in the moment before the match's end (the next update) arrives.
    assert len(final.rounds) - 1 <= rounds_ended <= len(final.rounds)
    record = [a for a in final.round_actions if a.seat == 0]
    assert record and not any(a.cause == pb.MOVE_CAUSE_TIMEOUT for a in record)  # alice's turns were all typed in time


def test_your_own_turns_countdown_ticks_in_the_terminal_while_you_type(system, service):
    """Reported: on your own turn the countdown stood still. A line half typed meanwhile is
    still there, whole, when Enter is pressed."""
    term, match_id = practice(system, service, "tick", "--turn-timer", "60")
    seconds = int(term.expect(r"Your turn — (\d+) s left").group(1))
    term.expect(r"> ")
    os.write(term.master, b"hel")  # half typed, no Enter yet
    later = int(term.expect(r"Your turn — (\d+) s left", timeout=5).group(1))
    assert later < seconds
    term.sendline("lo")
    term.expect(r"'hello' is not a move")
    term.sendline("q")
    term.expect(f"Come back with: domino play --resume {match_id}")
    assert term.wait_exit() == 0


def test_a_killed_client_resumes_its_match_from_the_menu_and_by_id(system, service):
    term, match_id = practice(system, service, "bruno", "--auto", "--delay", "0.05")
    start = service.view(match_id).version
    wait_until(lambda: service.view(match_id).version >= start + 4)
    term.kill()
    wait_until(lambda: service.view(match_id).turn == 0)  # the bot's move in flight is made
    stopped = service.view(match_id)
    assert stopped.status == pb.MATCH_STATUS_IN_PROGRESS
    time.sleep(0.3)
    assert service.view(match_id).version == stopped.version  # bruno's turn waits for bruno

    menu = Term(system, "--player", "bruno", "--auto", "--delay", "0.05")
    menu.expect(r"r\) Resume your match \(Egyptian draw-2, round \d+")
    menu.expect(r"Choose .*\(r\):")
    menu.sendline("")
    assert menu.expect(MATCH_ID.pattern).group(1) == match_id
    wait_until(lambda: service.view(match_id).version >= stopped.version + 4)
    menu.kill()
    later = service.view(match_id)
    assert later.status == pb.MATCH_STATUS_IN_PROGRESS

    back = Term(system, "--player", "bruno", "--resume", match_id, "--auto")
    back.expect(r"Match over — ")
    back.expect(r"ended: ")
    assert back.wait_exit() == 0
    final = service.view(match_id)
    assert final.status == pb.MATCH_STATUS_ENDED and final.version > later.version
    assert not any(a.cause == pb.MOVE_CAUSE_TIMEOUT for a in final.round_actions)


def wait_until(condition, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_friends_meet_in_a_private_room_by_its_code_and_play_it_out(system, service):
    host = Term(system, "--player", "hana", "--create", "--variant", "block-3", "--target", "51", "--auto")
    code = host.expect(r"Invite code\s+([A-Z0-9]{8})").group(1)
    host.expect("> ")
    host.sendline("b 2 strong")
    host.expect(r"2\s+bot strong \d")
    guest = Term(system, "--player", "gus", "--join", code, "--auto")
    guest.expect("Waiting for the host to start")
    host.expect(r"1\s+gus")
    host.sendline("s")
    match_id = host.expect(MATCH_ID.pattern).group(1)
    assert guest.expect(MATCH_ID.pattern).group(1) == match_id
    for term in (host, guest):
        term.expect(r"Match over — ", timeout=60)
        assert term.wait_exit() == 0
    final = service.view(match_id)
    assert final.status == pb.MATCH_STATUS_ENDED
    assert [s.player_id for s in final.seats][:2] == ["hana", "gus"]


def test_two_players_asking_for_a_public_table_sit_at_the_same_match(system, service):
    first = Term(system, "--player", "tom", "--table", "--variant", "draw-2")
    first.expect("Looking for players")
    second = Term(system, "--player", "tess", "--table", "--variant", "draw-2")
    ids = {first.expect(MATCH_ID.pattern).group(1), second.expect(MATCH_ID.pattern).group(1)}
    assert len(ids) == 1
    players = {s.player_id for s in service.view(ids.pop()).seats}
    assert players == {"tom", "tess"}
    for term in (first, second):
        term.sendline("q")
        term.expect("Come back with: domino play --resume")
        assert term.wait_exit() == 0


def test_a_spectator_watches_a_rooms_match_with_its_table_talk_and_the_host_finds_it_in_their_matches(system,
                                                                                                      service):
    host = Term(system, "--player", "wren", "--create", "--variant", "draw-2", "--target", "51", "--spectators",
                "--fill-bots", "--start-when-full", "--auto", "--delay", "0.5")  # slow enough to chat before the end
    match_id = host.expect(MATCH_ID.pattern).group(1)
    watcher = Term(system, "--player", "vic", "--watch", match_id)
    watcher.expect("ONE TURN BEHIND")
    host.sendline("c 3")
    watcher.expect(r"seat \d · wren\s+Well played!")
    watcher.sendline("c 1")
    watcher.expect("Spectators cannot chat")
    host.expect(r"Match over — ", timeout=120)
    assert host.wait_exit() == 0
    watcher.expect(r"Match over — ", timeout=30)
    assert watcher.wait_exit() == 0
    menu = Term(system, "--player", "wren")
    menu.expect(r"Choose \[")
    menu.sendline("5")
    menu.expect(r"you, bot greedy 1")  # listed the moment it ended: ListMyMatches reads its writes
    menu.sendline("1")
    path = menu.expect(r"to (\S+\.json)").group(1)
    assert Path(path).exists() and f"Exported match {match_id}" in menu.before.replace("\n", "")
    menu.sendline("")  # one Enter leaves Your matches for the menu
    menu.expect(r"Choose \[")
    menu.sendline("q")
    assert menu.wait_exit() == 0


def test_the_client_rides_out_a_restart_of_the_match_service(system, service):
    """Last in this module: it restarts a service the others use."""
    term, match_id = practice(system, service, "cleo", "--auto", "--delay", "0.03")
    start = service.view(match_id).version
    wait_until(lambda: service.view(match_id).version >= start + 2)
    system.kill("match")
    term.expect("Connection to the match service lost — reconnecting…")
    system.start_service("match")
    term.expect("Reconnected.")
    back = service.view(match_id)

    def moved_on() -> bool:
        now = service.view(match_id)
        return now.status == pb.MATCH_STATUS_ENDED or now.version >= back.version + 10  # cleo's moves among them

    wait_until(moved_on)
    term.sendline("q")  # unless the match has just ended by itself
    term.expect(f"Come back with: domino play --resume {match_id}|match {match_id} ended: ")
    assert term.wait_exit() == 0
    final = service.view(match_id)
    assert final.version > back.version
    # cleo's turns were played by cleo's client
    assert not any(a.cause == pb.MOVE_CAUSE_TIMEOUT for a in final.round_actions)


FAMILY_HAND = re.compile(r"(\d+)\)\[(\d)\|(\d)\]([←→↑↓↔★]*)")
END_OFFER = re.compile(r"(?:left|right|up|down) \(([lrud]), scores (\d+)\)")


def type_moves_to_the_end(term: Term) -> tuple[str, int, int]:
    """Plays like a person at the keyboard until the match is over: a tile that fits, by
    its number; ``d`` when nothing fits; asked for an end, the one that scores most.
    Returns everything shown, the moves typed and the end questions answered."""
    shown: list[str] = []
    moves = ends = 0
    while term.expect(r"> |Match over — ", timeout=45).group(0) == "> ":
        shown.append(term.before)
        if at_a_rounds_end(term.before):
            term.sendline("")  # the round's end read: on to the next round
            continue
        screen = term.before[term.before.rfind("Your hand"):]
        if re.search(r"Play \d\|\d on ", screen):
            offers = END_OFFER.findall(screen[screen.rfind("Play "):])
            assert offers, screen
            term.sendline(max(offers, key=lambda offer: int(offer[1]))[0])
            ends += 1
            continue
        if "fits both ends: l (left" in screen:
            term.sendline("l")
            ends += 1
            continue
        playable = [number for number, _a, _b, marks in FAMILY_HAND.findall(screen) if marks]
        if "Nothing fits: d to draw." in screen:
            term.sendline("d")
        elif playable:
            term.sendline(playable[0])
        else:
            raise AssertionError(f"a prompt with nothing to do:\n{term.before[-2500:]}")
        moves += 1
    shown.append(term.before)
    ended = term.expect(r"ended: [^\r\n]*\r?\n").group(0)  # the whole line: a match may see half of it
    shown += [term.before, ended]
    return "".join(shown), moves, ends


def test_a_player_types_an_all_fives_match_to_its_end_choosing_ends_on_the_spinner(system, service):
    term = Term(system, "--player", "fiona", "--practice", "--rules", "all-fives", "--seats", "2", "--bots", "random",
                "--target", "100")
    match_id = term.expect(MATCH_ID.pattern).group(1)
    text, moves, ends = type_moves_to_the_end(term)
    assert term.wait_exit() == 0
    final = service.view(match_id)
    assert final.status == pb.MATCH_STATUS_ENDED and final.rules == "all-fives" and moves >= 5
    assert "All Fives · 2 seats · solo · to 100" in text
    assert re.search(r"counting: (left|the first tile).{0,300}? total \d+", text, re.S)
    assert re.search(r"spinner (\d)\|\1 · counting: ", text) and "▲ up" in text and "▼ down" in text
    assert re.search(r"played \[\d\|\d\] on the (left|right|up|down) end  \+\d+", text)  # points a play scored
    assert re.search(r"Round \d+: .*scored in play: ", text) and "boneyard " in text
    assert ends >= 1  # asked which end at least once, and answered
    assert not any(a.cause == pb.MOVE_CAUSE_TIMEOUT for a in final.round_actions if a.seat == 0)  # fiona typed her turns in time


def test_a_player_types_a_goat_match_to_its_end_and_sees_who_is_the_goat(system, service):
    term = Term(system, "--player", "gwen", "--practice", "--rules", "goat", "--variant", "koza", "--seats", "2",
                "--bots", "random", "--option", "redeal=off")
    match_id = term.expect(MATCH_ID.pattern).group(1)
    text, moves, _ = type_moves_to_the_end(term)
    assert term.wait_exit() == 0
    final = service.view(match_id)
    assert final.status == pb.MATCH_STATUS_ENDED and final.rules == "goat" and final.goats and moves >= 5
    assert "Goat koza · 2 seats · solo · 101 makes the goat" in text
    assert "lowest total wins · 0-0 alone counts 10 · redeal off · remembered on · fish all" in text
    assert re.search(r"score/101\s+remembered\s+account", text)
    assert re.search(r"\d\s+(closed|open)", text)
    assert re.search(r"Round \d+: .* (went out|made the fish \(blocked\)) · written: you \d+, bot random 1 \d+", text)
    assert re.search(r"Written so far .*\n\s*round\s+you\s+bot random 1", text)  # every round's writes, in play
    assert re.search(r"(You are|Bot random 1 is) the goat\.|are the goats\.", text)
    assert re.search(r"round 1 is over", text) and "Written this round: you " in text  # a round's end, shown
    assert re.search(r"you\s+(\[\d\|\d\] ?)+\s+\d+ pips|you\s+out — no tiles left", text)
    assert re.search(r"ended: (you won!|bot random 1 won|no single winner[^;]*); "
                     r"(you are|bot random 1 is) the goat|are the goats", text)
