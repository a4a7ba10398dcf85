"""`domino play`'s client against a real MatchService on loopback (in-process, in memory):
the game loop over real gRPC, and the command through its input stream."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import threading
import time

import pytest
from rich.console import Console

from domino.match.v1 import match_service_pb2 as pb
from services.client.api import MatchApi
from services.client.game import Game, GameOptions
from services.client.inbox import Inbox
from services.client.terminal import Output
from services.match.application import MatchApplication
from tests.support.keys import KEYS, auth, token

from .harness import running_service


@pytest.fixture
def svc():
    app = MatchApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    with running_service(app, watch_poll_seconds=0.1) as service:
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
    assert again.returncode == 1 and "nobody has no seat at this match" in again.stderr


@pytest.mark.parametrize("players", [("ann", "bob"), ("ann", "bob", "cat"), ("ann", "bob", "cat", "dan")])
def test_the_points_an_all_fives_end_would_score_are_what_the_server_scores(svc, players):
    """The client tells a player what each end would score before they choose; over whole
    matches, every play's predicted ends total and points match the server's."""
    import random

    rng = random.Random(len(players))
    checked = 0
    for game in range(5):  # the deals are the server's own, so a match may be short: play on until enough
        checked += _predictions_checked(svc, players, rng, f"fives-{len(players)}-{game}")
        if checked > 30:
            break
    assert checked > 30


def _predictions_checked(svc, players, rng, request_id: str) -> int:
    """One whole All Fives match of random moves: how many plays' predicted points it checked."""
    from services.client import tiles

    match_id = svc.create(rules="all-fives", variant="", players=players, target=100, turn_timer_seconds=0,
                          request_id=request_id).match_id
    checked = 0
    for _ in range(10_000):
        view = svc.stub.GetMatch(pb.GetMatchRequest(match_id=match_id), metadata=auth(players[0], "service")).view
        if view.status == pb.MATCH_STATUS_ENDED:
            return checked
        player = players[view.turn]
        mine = svc.stub.GetMatch(pb.GetMatchRequest(match_id=match_id), metadata=auth(player)).view
        move = rng.choice(list(mine.legal_moves))
        rid = f"{player}-{mine.version}"
        if move.kind == pb.MOVE_KIND_PASS:  # the server passes for a seat by itself
            continue
        if move.kind == pb.MOVE_KIND_DRAW:
            svc.stub.DrawTile(pb.DrawTileRequest(match_id=match_id, request_id=rid), metadata=auth(player))
            continue
        tile, end = tiles.tile_of(move.tile), move.end
        total, points = tiles.ends_total_after(mine, tile, end), tiles.points_if(mine, tile, end)
        after = svc.stub.PlayTile(pb.PlayTileRequest(match_id=match_id, request_id=rid, tile=move.tile, end=end),
                                  metadata=auth(player)).view
        if after.round_number == mine.round_number and len(after.round_actions) > len(mine.round_actions):
            assert (after.ends_total, after.round_actions[len(mine.round_actions)].points) == (total, points)
            checked += 1
    raise AssertionError("the match does not end")


def test_each_rounds_end_shows_your_hand_as_your_export_gives_it(svc):
    """Over real gRPC: between rounds the client reads the ended round from the player's
    ExportMatch; the hand it shows is what the seat held when the round ended."""
    import json
    import re

    from services.client import round_end

    match_id = svc.create(variant="draw-2", players=("ann", "bob"), target=101, turn_timer_seconds=0).match_id
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
    text = file.getvalue()
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
