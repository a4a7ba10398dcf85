"""`domino play` in a pseudo-terminal against the real local system (NATS, match, relay, bots,
matchmaking as processes, like `domino up`), typed at like a player would: the system, the
terminal and the typing shared by test_play_system.py and test_play_family_matches.py. Each of
those modules starts a system of its own, so that xdist can run their long matches side by
side (the ports they take are reserved, services/common/servers.py)."""

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
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import grpc

from domino.match.v1 import match_service_pb2 as pb
from domino.match.v1 import match_service_pb2_grpc as pb_grpc
from services.common.auth import KeyRing, mint_token
from services.common.supervisor import LocalSystem, Ports

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Za-z0-9]|\r")
HAND = re.compile(r"(\d+)\)\[(\d)\|(\d)\]([←→↔★]?)")
MATCH_ID = re.compile(r"match ([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})")


@contextmanager
def play_system() -> Iterator[LocalSystem]:
    """The services `domino play` talks to, on free ports, in a directory of their own."""
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
    """The match service as an operator reads it: what a typed match left behind."""

    def __init__(self, system: LocalSystem) -> None:
        self.channel = grpc.insecure_channel(system.match_address)
        self.stub = pb_grpc.MatchServiceStub(self.channel)
        self.metadata = (("authorization", f"Bearer {mint_token('ops', KeyRing.load(system.keys_dir, issues=('service',)), 'service')}"),)

    def view(self, match_id: str) -> pb.MatchView:
        return self.stub.GetMatch(pb.GetMatchRequest(match_id=match_id), metadata=self.metadata, timeout=10).view

    def close(self) -> None:
        self.channel.close()


def at_a_rounds_end(before: str) -> bool:
    """The prompt under a round's end (its hands and points), not under the table."""
    return before.rfind("Press Enter for the next round") > before.rfind("Your hand")


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
