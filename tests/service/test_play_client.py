"""`domino play`'s client against a real MatchService on loopback (in-process, in memory):
the game loop over real gRPC, and the command through its input stream."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from rich.console import Console

from domino.match.v1 import match_service_pb2 as pb
from services.client.api import MatchApi
from services.client.game import Game, GameOptions
from services.client.inbox import Inbox
from services.client.terminal import Output
from services.match.application import MatchApplication
from tests.support.keys import KEYS, auth, token

from .harness import running_service, service_with_history


@pytest.fixture
def svc():
    app = MatchApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    with running_service(app) as service:
        yield service


def play_first_legal_moves(svc, match_id: str, player: str, stop: threading.Event) -> None:
    """Another player at the table, acting from their own view."""
    n = 0
    while not stop.is_set():
        view = svc.stub.GetMatch(pb.GetMatchRequest(match_id=match_id), metadata=auth(player)).view
        if view.status == pb.MATCH_STATUS_ENDED:
            return
        if view.turn != view.your_seat or not view.legal_moves:
            time.sleep(0.01)
            continue
        move = view.legal_moves[0]
        n += 1
        if move.kind == pb.MOVE_KIND_DRAW:
            svc.stub.DrawTile(pb.DrawTileRequest(match_id=match_id, request_id=f"{player}-{n}"), metadata=auth(player))
        else:
            svc.stub.PlayTile(pb.PlayTileRequest(match_id=match_id, request_id=f"{player}-{n}", tile=move.tile,
                                                 end=move.end), metadata=auth(player))


def test_the_client_plays_a_whole_match_over_grpc_following_the_stream(svc):
    match_id = svc.create(variant="draw-2", players=("ann", "bob"), target=51, turn_timer_seconds=0).match_id
    stop = threading.Event()
    bob = threading.Thread(target=play_first_legal_moves, args=(svc, match_id, "bob", stop), daemon=True)
    bob.start()
    api = MatchApi(f"127.0.0.1:{svc.port}", token("ann"))
    file = io.StringIO()
    out = Output(Console(file=file, width=100, color_system=None, highlight=False), redraw=False)
    inbox = Inbox()
    inbox.put("eof")  # nobody types: --auto plays
    ended = []
    try:
        final = Game(api, inbox, out, GameOptions(auto=True, tick=0), on_end=ended.append).run(match_id)
    finally:
        stop.set()
        bob.join(10)
        api.close()
    public = svc.stub.GetMatch(pb.GetMatchRequest(match_id=match_id), metadata=auth("ops", "service")).view
    assert public.status == pb.MATCH_STATUS_ENDED and final.version == public.version
    assert final.winner == public.winner and ended == [match_id]
    assert "Match over" in file.getvalue()


def test_the_command_reads_its_input_stream_and_refuses_moves_out_of_turn(svc, tmp_path):
    created = svc.create(variant="draw-2", players=("ann", "bob"), target=51, turn_timer_seconds=0)
    match_id = created.match_id
    leader = created.view.turn
    me = created.view.seats[1 - leader].player_id  # the player who waits for the first move
    KEYS.write(tmp_path / "keys")
    env = dict(os.environ, DOMINO_KEYS_DIR=str(tmp_path / "keys"), DOMINO_MATCH_ADDRESS=f"127.0.0.1:{svc.port}",
               DOMINO_VAR_DIR=str(tmp_path), NO_COLOR="1")
    done = subprocess.run([sys.executable, "-m", "services.cli", "play", "--player", me, "--resume", match_id],
                          input="1\n?\nq\n", capture_output=True, text=True, env=env, timeout=30)
    assert done.returncode == 0, done.stderr
    assert "It is not your turn: waiting for" in done.stdout
    assert "d draws from the boneyard" in done.stdout
    assert f"Come back with: domino play --resume {match_id}" in done.stdout
    assert "\x1b[2J" not in done.stdout  # a pipe gets screens one after another, not redraws
    again = subprocess.run([sys.executable, "-m", "services.cli", "play", "--player", "nobody", "--resume", match_id],
                           input="", capture_output=True, text=True, env=env, timeout=30)
    assert again.returncode == 1, again.stderr  # the refusal speaks to the player, not of their account id
    assert f"cannot play match {match_id}: you have no seat at this match" in again.stderr
    assert "nobody" not in again.stderr


@pytest.mark.parametrize("players", [("ann", "bob"), ("ann", "bob", "cat"), ("ann", "bob", "cat", "dan")])
def test_the_points_an_all_fives_end_would_score_are_what_the_server_scores(svc, players):
    """The client tells a player what each end would score before they choose (the legal
    move's points, as the view carries them); over whole matches, every play's points shown
    are the points the server scores for it."""
    import random

    rng = random.Random(len(players))
    checked = 0
    for game in range(5):  # the deals are the server's own, so a match may be short: play on until enough
        checked += _predictions_checked(svc, players, rng, f"fives-{len(players)}-{game}")
        if checked > 30:
            break
    assert checked > 30


def _predictions_checked(svc, players, rng, request_id: str) -> int:
    """One whole All Fives match of random moves: how many plays' predicted points it checked
    (and, before each, that the ends' counts the screen shows add up to the server's total)."""
    from services.client import render, view_reading

    match_id = svc.create(rules="all-fives", variant="", players=players, target=100, turn_timer_seconds=0,
                          request_id=request_id).match_id
    checked = 0
    for _ in range(10_000):
        view = svc.stub.GetMatch(pb.GetMatchRequest(match_id=match_id), metadata=auth(players[0], "service")).view
        if view.status == pb.MATCH_STATUS_ENDED:
            return checked
        player = players[view.turn]
        mine = svc.stub.GetMatch(pb.GetMatchRequest(match_id=match_id), metadata=auth(player)).view
        if mine.line:  # what the screen says each end counts adds up to the server's total
            lone = view_reading.lone_first_tile(mine)
            counted = sum(lone) if lone else sum(count for _, count in view_reading.end_counts(mine).values())
            assert counted == mine.ends_total, render.to_text(render.line_panel(mine))
        move = rng.choice(list(mine.legal_moves))
        rid = f"{player}-{mine.version}"
        if move.kind == pb.MOVE_KIND_PASS:  # the server passes for a seat by itself
            continue
        if move.kind == pb.MOVE_KIND_DRAW:
            svc.stub.DrawTile(pb.DrawTileRequest(match_id=match_id, request_id=rid), metadata=auth(player))
            continue
        tile, end = view_reading.tile_of(move.tile), move.end
        points = view_reading.points_if(mine, tile, end)  # what the end question shows
        after = svc.stub.PlayTile(pb.PlayTileRequest(match_id=match_id, request_id=rid, tile=move.tile, end=end),
                                  metadata=auth(player)).view
        if after.round_number == mine.round_number and len(after.round_actions) > len(mine.round_actions):
            assert after.round_actions[len(mine.round_actions)].points == points
            checked += 1
    raise AssertionError("the match does not end")


def _client_plays_a_draw2_match(svc, request_id: str):
    """Ann through the client, bob by first legal moves; the server's deal is random."""
    import json

    match_id = svc.create(variant="draw-2", players=("ann", "bob"), target=151, turn_timer_seconds=0,
                          request_id=request_id).match_id
    stop = threading.Event()
    bob = threading.Thread(target=play_first_legal_moves, args=(svc, match_id, "bob", stop), daemon=True)
    bob.start()
    api = MatchApi(f"127.0.0.1:{svc.port}", token("ann"))
    file = io.StringIO()
    out = Output(Console(file=file, width=120, color_system=None, highlight=False), redraw=False)
    inbox = Inbox()
    inbox.put("eof")
    try:
        final = Game(api, inbox, out, GameOptions(auto=True, tick=0, round_pause=0.01)).run(match_id)
        record = json.loads(api.export(match_id))
    finally:
        stop.set()
        bob.join(10)
        api.close()
    return final, record, file.getvalue()


def test_each_rounds_end_shows_your_hand_as_your_export_gives_it(svc):
    """Over real gRPC: between rounds the client reads the ended round from the player's
    ExportMatch; the hand it shows is what the seat held when the round ended. A deal can
    end the match in its first round, so it plays on to another match until one has two."""
    import re

    from services.client import round_end

    for attempt in range(5):
        final, record, text = _client_plays_a_draw2_match(svc, f"create-{attempt}")
        if len(final.rounds) >= 2:
            break
    assert final.status == pb.MATCH_STATUS_ENDED and len(final.rounds) >= 2
    for number, summary in enumerate(final.rounds, 1):
        assert f"round {number} is over" in text
        shown = round_end.from_record(record, number, summary)
        mine = shown.hands[0]
        if mine.count:
            pips = round_end.hand_value(final, mine.tiles)
            assert re.search(rf"you\s+(\[\d\|\d\] ?)+\s+{pips} pips", text)
        assert shown.hands[1].tiles is not None  # an ended round's hands are laid down for all to see
        assert len(shown.hands[1].tiles) == shown.hands[1].count
    assert "Press Enter for the next round" in text


# ---- history, ratings, watching and table talk ------------------------------------------------


def play_env(tmp_path, match_port: int, matchmaking_port: int | None = None) -> dict:
    KEYS.write(tmp_path / "keys")
    env = dict(os.environ, DOMINO_KEYS_DIR=str(tmp_path / "keys"), DOMINO_MATCH_ADDRESS=f"127.0.0.1:{match_port}",
               DOMINO_VAR_DIR=str(tmp_path / "var"), NO_COLOR="1", COLUMNS="120")
    if matchmaking_port is not None:
        env["DOMINO_MATCHMAKING_ADDRESS"] = f"127.0.0.1:{matchmaking_port}"
    return env


@pytest.fixture
def kept(tmp_path):
    """A match service on a real SQLite file serving history (tests/service/test_table_features.py),
    the projection that keeps it, and a matchmaking that answers every call UNIMPLEMENTED: the
    menu finds it there and falls back on what this machine remembers (nothing)."""
    from concurrent import futures

    import grpc

    from domino.matchmaking.v1 import matchmaking_service_pb2_grpc as mm_grpc

    matchmaking = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    mm_grpc.add_MatchmakingServiceServicer_to_server(mm_grpc.MatchmakingServiceServicer(), matchmaking)
    mm_port = matchmaking.add_insecure_port("127.0.0.1:0")
    matchmaking.start()
    try:
        with service_with_history(tmp_path) as (service, projection):
            yield service, projection, mm_port
    finally:
        matchmaking.stop(0)


def test_the_menu_lists_your_matches_exports_one_and_shows_the_ratings(kept, tmp_path):
    from tests.support.grpc_matches import play_whole_match

    svc, projection, mm_port = kept
    ids = []
    for i in range(2):
        match_id = svc.create(variant="draw-2", players=("ann", "bot:strong:1"), request_id=f"h{i}",
                              rated=True).match_id
        play_whole_match(svc, match_id)
        ids.append(match_id)
    projection.catch_up()
    lines = ["5", "2", "",  # your matches: export the older one, then one Enter back to the menu
             "6", "", "", "",  # ratings: the family and setting last played (egyptian, solo)
             "q"]
    done = subprocess.run([sys.executable, "-m", "services.cli", "play", "--player", "ann"],
                          input="\n".join(lines) + "\n", capture_output=True, text=True,
                          env=play_env(tmp_path, svc.port, mm_port), timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    text = done.stdout
    assert "your matches   newest first · page 1" in text
    rows = [line for line in text.splitlines() if "Egyptian draw-2 · solo" in line]
    assert len(rows) == 2 and all("you, bot strong 1" in row for row in rows)
    assert all(re.search(r"\b(won|lost|tied)\b", row) for row in rows)
    exported = next(Path(tmp_path / "var" / "exports").glob(f"*/{ids[0]}.json"))  # newest first: 2 is the older
    assert f"Exported match {ids[0]} (as your seat saw it) to {exported}" in " ".join(text.split())
    assert json.loads(exported.read_text())["viewer_seat"] == 0
    assert "ratings   Egyptian · solo   1 rated" in text  # the leaderboard lists people: the bot is no one's rival
    assert re.search(r"Your rating  -?\d+\.\d \(μ .*\) · rank 1 of 1 · 2 matches rated", text)
    assert not re.search(r"\d   bot:strong\s+-?\d+\.\d\s+2", text)


def watching(env, match_id: str, player: str = "zed") -> tuple[subprocess.Popen, list[str]]:
    """`domino play --watch` with closed input (it watches to the end), its output read as it comes."""
    proc = subprocess.Popen([sys.executable, "-m", "services.cli", "play", "--player", player, "--watch", match_id],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env)
    out: list[str] = []
    threading.Thread(target=lambda: out.extend(iter(proc.stdout.readline, "")), daemon=True).start()
    return proc, out


def eventually(condition, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_a_spectator_watches_a_match_one_turn_behind_with_its_table_talk(svc, tmp_path):
    from tests.support.grpc_matches import act, play_whole_match

    match_id = svc.create(variant="draw-2", players=("ann", "bob"), spectators=True, turn_timer_seconds=0).match_id
    proc, out = watching(play_env(tmp_path, svc.port), match_id)
    try:
        eventually(lambda: "ONE TURN BEHIND" in "".join(out))
        view = svc.stub.GetMatch(pb.GetMatchRequest(match_id=match_id), metadata=auth("ops", "service")).view
        first = act(svc, match_id, view, 0)  # the first turn: held back from the spectator until the next seat acts
        svc.stub.SendChat(pb.SendChatRequest(match_id=match_id, chat_phrase=pb.CHAT_PHRASE_GOOD_LUCK),
                         metadata=auth("ann"))
        eventually(lambda: "Good luck!" in "".join(out))
        shown = "".join(out)
        screen = shown[shown.rfind(" domino "):]  # the latest screen: the one the phrase brought
        assert first.round_actions and "Good luck!" in screen
        assert "The line is empty" in screen and "opened the line" not in shown  # the first turn is held back
        play_whole_match(svc, match_id)
        assert proc.wait(30) == 0, proc.stderr.read() if proc.stderr else ""
    finally:
        proc.kill()
    text = "".join(out)
    assert "seat 0 · ann  Good luck!" in text
    assert "Your hand" not in text and "Match over — " in text and f"match {match_id} ended: " in text
    assert "the match is over: everything is shown" in text
    rounds = len(svc.stub.GetMatch(pb.GetMatchRequest(match_id=match_id), metadata=auth("ops", "service")).view.rounds)
    assert f"round {rounds} is over" in text  # the last round's end as a player sees it, above the result


def test_watching_a_match_that_allows_no_spectators_shows_the_servers_refusal(svc, tmp_path):
    match_id = svc.create(variant="draw-2", players=("ann", "bob")).match_id
    done = subprocess.run([sys.executable, "-m", "services.cli", "play", "--player", "zed", "--watch", match_id],
                          input="", capture_output=True, text=True, env=play_env(tmp_path, svc.port), timeout=30)
    assert done.returncode == 1
    assert f"cannot watch match {match_id}: you have no seat at this match, and it does not allow spectators" \
        in " ".join(done.stderr.split())


def test_a_phrase_typed_at_one_seat_shows_at_the_other_and_too_many_are_refused_politely(svc, tmp_path):
    match_id = svc.create(variant="draw-2", players=("ann", "bob"), turn_timer_seconds=0).match_id
    api = MatchApi(f"127.0.0.1:{svc.port}", token("bob"))
    file = io.StringIO()
    out = Output(Console(file=file, width=120, color_system=None, highlight=False), redraw=False)
    inbox = Inbox()
    game = Game(api, inbox, out, GameOptions(tick=0))
    bob = threading.Thread(target=game.run, args=(match_id,), daemon=True)
    bob.start()
    try:
        lines = "c 3\nc hello\nc thanks\nc 8\nq\n"  # the fourth at once is over the rate limit
        done = subprocess.run([sys.executable, "-m", "services.cli", "play", "--player", "ann", "--resume", match_id],
                              input=lines, capture_output=True, text=True, env=play_env(tmp_path, svc.port),
                              timeout=30)
        assert done.returncode == 0, done.stderr
        assert "You said: Well played!" in done.stdout
        assert "Easy on the chat: wait a few seconds before the next phrase." in done.stdout
        eventually(lambda: "Thanks!" in file.getvalue(), timeout=10)
    finally:
        inbox.put("line", "q")
        bob.join(10)
        api.close()
    screen = file.getvalue()
    assert "Table talk  seat 0 · ann  Well played!" in screen
    assert "seat 0 · ann  Hello!" in screen and "seat 0 · ann  Thanks!" in screen and "Good game!" not in screen
