"""bench/peer_arena.py: the peer's moves are legal in our engine, the Game it decides from
holds nothing hidden (and the check that says so catches a Game that does), the report's shape."""

from __future__ import annotations

import json
import random

import dominoes
import pytest

from services.bots import arena as A
from services.rules.match import apply
from services.rules.tiles import tiles_in
from services.rules.view import player_view
from tests.support.benches import load_bench

pa = load_bench("peer_arena.py")


def mid_round(plays: int = 9, seed: int = 3):
    """A block-4 round after ``plays`` greedy actions."""
    rules = pa.rules()
    m = A.first_round(rules, seed, 0)
    greedy = A.resolve("greedy")
    rng = random.Random(0)
    for _ in range(plays):
        seat = m.round.turn
        m = apply(m, greedy(player_view(m, seat), rng), seat)
    assert m.round.outcome is None
    return m


def test_two_deals_against_the_peer_are_legal_leak_free_and_reported():
    out = pa.peer_arena("greedy", "probabilistic_alphabeta", deals=2, seed=1, samples=2, start_move=8)
    for key in ("ours", "peer", "deals", "decided", "won", "rate", "wilson95", "ties", "our_decision_ms",
                "peer_decision_ms", "seconds", "commit"):
        assert key in out
    assert out["ours"] == "greedy" and out["peer"] == "probabilistic_alphabeta" and out["deals"] == 2
    assert out["decided"] + out["ties"] == out["rounds"] == 4
    assert set(out["our_decision_ms"]) >= {"p50", "p99"} and set(out["peer_decision_ms"]) >= {"p50", "p99"}
    # every peer play went through the legality and leak checks (the run raises on a failure)
    assert out["peer_moves"] > 0 and out["leak_checks"] == out["peer_moves"]
    assert out["peer_illegal"] == 0 and out["leaks"] == 0
    lo, hi = out["wilson95"]
    assert lo <= (out["rate"] or 0) <= hi


def test_the_peer_game_is_the_same_whoever_holds_the_hidden_tiles():
    m = mid_round()
    seat = m.round.turn
    view = player_view(m, seat)
    game = pa.peer_game(view)
    pa.leak_check(m, seat, game, random.Random(1))
    # the seat's own hand and the board are as ours; the others' are the public arrangement
    assert [pa.tile(*d) for d in game.hands[seat]] == list(view.hand)
    assert str(game.board) == "".join(f"[{a}|{b}]" for a, b in view.line)
    truth = [tiles_in(h) for h in m.round.hands]
    assert any([pa.tile(*d) for d in game.hands[s]] != truth[s] for s in range(4) if s != seat)


def test_the_check_catches_a_game_that_holds_the_true_hands():
    m = mid_round()
    seat = m.round.turn
    cheat = pa.peer_game(player_view(m, seat))
    cheat.hands = [dominoes.Hand([pa.domino_of(t) for t in tiles_in(h)]) for h in m.round.hands]
    with pytest.raises(pa.Leak):
        pa.leak_check(m, seat, cheat, random.Random(1))


def test_a_move_our_engine_refuses_is_not_played():
    m = mid_round()
    view = player_view(m, m.round.turn)
    held = set(view.hand)
    foreign = next(t for t in range(28) if t not in held)
    with pytest.raises(pa.IllegalPeerMove):
        pa.our_move(view, (pa.domino_of(foreign), True))
    for move in pa.peer_game(view).valid_moves:  # and every move the peer may pick translates back
        assert pa.our_move(view, move) in view.legal_moves


def test_recorded_plays_are_what_the_play_models_fit_reads(tmp_path):
    path = tmp_path / "plays.jsonl"
    pa.peer_arena("greedy", "bota_gorda", deals=2, seed=1, record=str(path))
    fit = load_bench("../scripts/fit_play_model.py")
    data = fit.decisions([str(path)], "all")
    assert data, "some free play was recorded"
    roles = {json.loads(line)["role"] for line in path.read_text().splitlines()}
    assert roles == {"ours", "peer"}
    for _, rows, chosen in data:
        assert 0 <= chosen < len(rows) >= 2


def test_the_oracle_plays_from_the_true_hands_and_beats_the_heuristic_peer():
    out = pa.peer_arena("oracle", "bota_gorda", deals=3, seed=1)
    assert out["decided"] and out["rate"] > 0.5
    partly = pa.peer_arena("oracle:knows=partner", "bota_gorda", deals=1, seed=1)
    assert partly["rounds"] == 2 and partly["leaks"] == 0
