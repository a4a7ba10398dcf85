"""`domino play` end to end: the real local system (NATS, match, relay, bots, matchmaking as
processes, like `domino up`) and the real command in a pseudo-terminal, typed at like a
player would. The typed matches of the other families are in test_play_family_matches.py."""

from __future__ import annotations

import os
import re
import time
from contextlib import closing
from pathlib import Path

import pytest

from domino.match.v1 import match_service_pb2 as pb

from .play_terminal import HAND, MATCH_ID, Service, Term, at_a_rounds_end, play_system, type_moves_to_the_end

pytestmark = pytest.mark.system


@pytest.fixture(scope="module")
def system():
    with play_system() as local:
        yield local


@pytest.fixture(scope="module")
def service(system):
    with closing(Service(system)) as reader:
        yield reader


def practice(system, service, player: str, *args: str) -> tuple[Term, str]:
    """`domino play --practice` against greedy bots."""
    term = Term(system, "--player", player, "--practice", "--variant", "draw-2", "--bots", "greedy",
                "--target", "51", *args)
    return term, term.expect(MATCH_ID.pattern).group(1)


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
                "--fill-bots", "--start-when-full")
    match_id = host.expect(MATCH_ID.pattern).group(1)
    host.expect("> ")  # the host's turn: the match waits for wren while the spectator comes in
    watcher = Term(system, "--player", "vic", "--watch", match_id)
    watcher.expect("ONE TURN BEHIND")
    host.sendline("c 3")
    watcher.expect(r"seat \d · wren\s+Well played!")
    watcher.sendline("c 1")
    watcher.expect("Spectators cannot chat")
    type_moves_to_the_end(host)
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
