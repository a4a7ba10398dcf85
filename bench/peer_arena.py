"""Our bots against the `dominoes` package's AI, in the peer's home game, judged by our engine.

The peer (the pure-Python `dominoes` library, a dev dependency) plays one game: four players
in two teams (0+2, 1+3), seven tiles each, no boneyard. That is our Egyptian block-4 with
teams, ``rule_set("egyptian", "block-4", True)``, so the match is ours: deals, turns,
legality, the end of the round and its score are our engine's (``services/rules``),
and the peer is only asked for a move whenever one of its seats must choose. The library's
own scoring differs slightly (a domino scores the partner's pips too, a block both teams'),
but who wins a round is the same under both; the peer searches with its own, the report
counts ours.

Format (docs/bots.md, "Measuring strength: the arena"): each deal (``arena.first_round``,
round 1's leader rule: the highest double leads it) is played twice, ours at seats 0+2 and
the peer at 1+3, then swapped; ``rate`` is the share of decided rounds our side won, with
the arena's Wilson 95% interval. Decision times are CPU seconds (``time.process_time``) of
each choice with more than one legal move, ours and the peer's apart.

The peer: ``probabilistic_alphabeta`` deals the hidden tiles at random among the other
hands (``Game.random_possible_hands``: right counts, no tile of a number a seat passed on),
solves each deal exactly with alpha-beta (``dominoes.search.alphabeta``, perfect information
from there on) and prefers the move that was optimal in the most deals. With its default
(every consistent deal, searched from move 0) one early decision would take hours (a single
alpha-beta from the second move is about 2 s of CPU here), so it runs with the library's own
two knobs, ``sample_size`` (``--peer-samples``) and ``start_move`` (``--peer-start-move``),
and composed, as the library's players are meant to be, after ``bota_gorda`` ("heaviest
tile first"): before ``start_move`` and among moves optimal equally often, bota_gorda's
order decides (the sort is stable); alpha-beta orders its search by bota_gorda as well.
``--peer bota_gorda`` plays that heuristic alone.

What the peer is given, and why it cannot see a hidden tile. ``peer_game(view)`` builds the
``dominoes.Game`` from the acting seat's ``PlayerView`` and from nothing else: the seat's own
hand, the public actions in order (plays with their end, passes; the board is the replay of
those plays, checked against the view's open ends), the first actor (``starting_player``),
every seat's tile count and the seat's legal moves. The library's Game has no slot for
"unknown", and ``probabilistic_alphabeta`` reads the other players' ``hands`` only for the
*set* of tiles not in the seat's hand nor on the board (public: 28 less those) and their
*lengths* (public: the counts); it re-deals them itself before searching (its docstring
says the same). So the other hands get those public tiles in a fixed arrangement (ascending
tile ids, dealt to the other seats in seat order by their counts), which is a function of
the view alone and says nothing about who holds what. ``leak_check`` makes this a tested
fact on every peer decision: it re-deals the hidden tiles among the other seats at random
(same counts) in a copy of the true match, takes that seat's view of the copy, builds the
peer's Game again and requires it to be identical to the one the peer gets; a builder that
read anything hidden would differ. The report's ``leak_checks`` counts the decisions so
checked and ``leaks`` those that failed (the run stops at the first, so a finished report says 0). The peer's move is
translated back (tile, and left or right end) and must be one of our legal moves
(``peer_illegal``, likewise 0) before our engine applies it.

``--compare`` is a diagnostic (docs/bots.md): at each of our decisions (more than one legal
move, from the peer's ``start_move`` on) it also asks the peer what it would play from the
same view; where they differ it solves the true position (every hand, known to the bench
only) exactly with the library's alpha-beta after each of the two moves and reports, by the
tiles left in hands, how often each choice was the better one with perfect play after it
(sign: won, tied, lost for our side; and the library's points).

    .venv/bin/python bench/peer_arena.py --ours strong --deals 200 --json
    .venv/bin/python bench/peer_arena.py --ours greedy --peer bota_gorda --deals 50 --json
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import dominoes  # noqa: E402
from bot_ceiling import Omniscient, PartlyShown  # noqa: E402

from services.bots import arena as A  # noqa: E402
from services.rules.match import apply  # noqa: E402
from services.rules.moves import LEFT, OPEN, PLAY_LEFT, PLAY_RIGHT, RIGHT, Move  # noqa: E402
from services.rules.rulesets import rule_set  # noqa: E402
from services.rules.tiles import ALL_TILES, HIGH, LOW, mask_of, tile, tiles_in  # noqa: E402
from services.rules.view import PlayerView, player_view  # noqa: E402

PEERS = ("probabilistic_alphabeta", "bota_gorda")


def rules():
    return rule_set("egyptian", "block-4", True)


# --- the peer's Game, from a view ------------------------------------------------------------


def domino_of(t: int) -> dominoes.Domino:
    return dominoes.Domino(LOW[t], HIGH[t])


def hidden_arrangement(view: PlayerView) -> list[list[int]]:
    """The other seats' hands as the peer's Game holds them: the tiles neither in the seat's
    hand nor on the line, ascending, dealt in seat order by the public counts. A function
    of public facts only (the set and the counts), so it tells nothing about who holds what."""
    played = mask_of(a.tile for a in view.actions if a.kind == "play")
    unseen = tiles_in(ALL_TILES & ~played & ~mask_of(view.hand))
    out: list[list[int]] = []
    k = 0
    for s, n in enumerate(view.tile_counts):
        if s == view.seat:
            out.append(list(view.hand))
        else:
            out.append(unseen[k:k + n])
            k += n
    if k != len(unseen):
        raise AssertionError(f"counts {view.tile_counts} do not hold the {len(unseen)} unseen tiles")
    return out


def peer_game(view: PlayerView) -> dominoes.Game:
    """The ``dominoes.Game`` the peer decides from: built from ``view`` alone (see the
    module's docstring for why it holds nothing hidden)."""
    if view.turn != view.seat or not view.legal_moves:
        raise ValueError("the peer is asked only on its own turn")
    board = dominoes.Board()
    moves: list = []
    for a in view.actions:
        if a.kind == "play":
            move = (domino_of(a.tile), a.end != RIGHT)  # the first play (end None) opens the line
            board.add(*move)
            moves.append(move)
        elif a.kind == "pass":
            moves.append(None)
        else:
            raise ValueError(f"the peer's game has no {a.kind!r}")
    if board and (board.left_end(), board.right_end()) != (view.left_end, view.right_end):
        raise AssertionError(f"board {board} does not end as the view's line ({view.left_end}, {view.right_end})")
    hands = [dominoes.Hand([domino_of(t) for t in h]) for h in hidden_arrangement(view)]
    starting = view.actions[0].seat if view.actions else view.seat
    game = dominoes.Game(board, hands, moves, view.seat, (), starting, None)
    ours = {_peer_move(m) for m in view.legal_moves}
    if board:
        game._update_valid_moves()  # the library's own list (one entry for a tile fitting two equal ends)
        if set(game.valid_moves) != {(d, left if board.left_end() != board.right_end() else True)
                                     for d, left in ours}:
            raise AssertionError(f"peer's moves {game.valid_moves} are not our legal moves {view.legal_moves}")
    else:
        game.valid_moves = tuple(sorted(ours, key=lambda m: tile(*m[0])))
    return game


def _peer_move(m: Move) -> tuple[dominoes.Domino, bool]:
    return domino_of(m.tile), m.end != RIGHT


def our_move(view: PlayerView, move) -> Move:
    """The peer's ``(domino, left)`` as our Move; raises if our engine would not allow it."""
    d, left = move
    t = tile(d.first, d.second)
    ours = OPEN[t] if view.left_end is None else (PLAY_LEFT[t] if left else PLAY_RIGHT[t])
    if ours not in view.legal_moves:
        raise IllegalPeerMove(f"peer played {d} {'left' if left else 'right'}, not legal: {view.legal_moves}")
    return ours


class IllegalPeerMove(AssertionError):
    pass


class Leak(AssertionError):
    pass


def fingerprint(game: dominoes.Game) -> tuple:
    """Everything the peer can read of a Game, as comparable values."""
    return (str(game.board), tuple(tuple(h) for h in game.hands), tuple(game.moves), game.turn,
            tuple(game.valid_moves), game.starting_player, game.result)


def leak_check(m, seat: int, game: dominoes.Game, rng: random.Random) -> None:
    """Raise ``Leak`` unless the peer's Game for ``seat`` stays the same when the hidden
    tiles are re-dealt among the other seats (same counts) in a copy of the true match."""
    rnd = m.round
    others = [s for s in range(len(rnd.hands)) if s != seat]
    hidden = [t for s in others for t in tiles_in(rnd.hands[s])]
    rng.shuffle(hidden)
    alt = rnd.copy()
    k = 0
    for s in others:
        n = rnd.hands[s].bit_count()
        alt.hands[s] = mask_of(hidden[k:k + n])
        k += n
    again = peer_game(player_view(m._replace(round=alt), seat))
    if fingerprint(again) != fingerprint(game):
        raise Leak(f"seat {seat}: the peer's Game changed when only hidden tiles moved")
    for s in others:  # and the arrangement is the public one, never the true hands
        if [tile(*d) for d in game.hands[s]] != hidden_arrangement(player_view(m, seat))[s]:
            raise Leak(f"seat {seat}: seat {s}'s hand in the peer's Game is not the public arrangement")


def make_peer(name: str, samples: int, start_move: int):
    """The peer as a library player: ``game -> None``, leaving its preference first in
    ``game.valid_moves``."""
    if name == "bota_gorda":
        return dominoes.players.bota_gorda
    if name != "probabilistic_alphabeta":
        raise ValueError(f"unknown peer {name!r}; choose one of {', '.join(PEERS)}")
    search = dominoes.players.probabilistic_alphabeta(start_move=start_move, sample_size=samples,
                                                      player=dominoes.players.bota_gorda)

    def peer(game):
        dominoes.players.bota_gorda(game)
        search(game)

    return peer


# --- the exact value of a position, for --compare ----------------------------------------


def true_game(m) -> dominoes.Game:
    """The round of match ``m`` as a library Game with every true hand: for ``--compare``'s
    hindsight only, never given to a player."""
    view = player_view(m, m.round.turn)
    game = peer_game(view)
    game.hands = [dominoes.Hand([domino_of(t) for t in tiles_in(h)]) for h in m.round.hands]
    return game


def exact_after(game: dominoes.Game, move) -> int:
    """The library's points (positive: seats 0+2) of perfect play by all after ``move``."""
    g = copy.deepcopy(game)
    g.skinny_board()
    g.make_move(*move)
    if g.result is not None:
        return g.result.points
    return dominoes.search.alphabeta(g, player=dominoes.players.bota_gorda)[1]


# --- the arena -----------------------------------------------------------------------------


def resolve_ours(spec: str):
    """Our strategy: an arena name (``strong:eps=0.1``), or ``oracle[:strong's options]``, a
    diagnostic that is shown every hand (``bot_ceiling.Omniscient``: strong's search of the
    true deal, solved exactly from ``exact_tiles``, by default the whole round): what it wins
    is a ceiling for a bot that plays from its view alone; ``oracle:knows=partner`` (or
    ``next``) is shown only that seat's hand (``bot_ceiling.PartlyShown``). Returns ``(choose, oracle)``;
    ``oracle.truth`` must be set to the true round before each of its choices."""
    name, _, opts = spec.partition(":")
    if name != "oracle":
        return A.resolve(spec), None
    from services.bots.strong import StrongConfig

    options = dict(item.strip().partition("=")[::2] for item in filter(None, opts.split(",")))
    knows = options.pop("knows", None)
    changes = A.parse_options("oracle", ",".join(f"{k}={v}" for k, v in options.items()),
                              StrongConfig.__dataclass_fields__)
    if knows is not None:
        bot = PartlyShown(knows.strip(), **changes)
    else:
        bot = Omniscient(**{"exact_tiles": 28, "exact_samples": 1, "exact_nodes": 20_000_000, "exact_min": 1,
                            **changes})
    return bot.choose, bot


def run_deals(ours_spec: str, peer_name: str, seed: int, indices, samples: int, start_move: int,
              compare: bool = False, progress=None, record: bool = False) -> dict:
    ruleset = rules()
    ours, oracle = resolve_ours(ours_spec)
    peer = make_peer(peer_name, samples, start_move)
    plays: list[A.PlayResult] = []
    times = {"ours": [], "peer": []}
    counts = {"peer_moves": 0, "peer_illegal": 0, "leak_checks": 0, "leaks": 0}
    cmp: dict[str, list[int]] = {}
    records: list[dict] = []
    plans = A.seatings(ruleset)
    clock = time.process_time
    for done, i in enumerate(indices, 1):
        start = A.first_round(ruleset, seed, i)
        for p, our_seats in enumerate(plans):
            rngs = A.play_rngs(seed, i, p, ruleset.seats)
            random.seed(f"peer-arena/1:{seed}:{i}:{p}")  # the library samples with the global stream
            check_rng = random.Random(f"peer-arena/leak:{seed}:{i}:{p}")
            m = start
            while m.round is not None and m.round.outcome is None:
                seat = m.round.turn
                view = player_view(m, seat)
                legal = view.legal_moves
                if seat in our_seats:
                    if oracle is not None:
                        oracle.truth = m.round
                    if len(legal) > 1:
                        if compare and len(view.actions) >= start_move:
                            _compare(m, view, ours, peer, rngs[seat], our_seats, cmp)
                        c0 = clock()
                        move = ours(view, rngs[seat])
                        times["ours"].append(clock() - c0)
                    else:
                        move = ours(view, rngs[seat])
                elif legal[0].kind == "pass":
                    move = legal[0]
                else:
                    game = peer_game(view)
                    leak_check(m, seat, game, check_rng)
                    counts["leak_checks"] += 1
                    if len(game.valid_moves) > 1:
                        c0 = clock()
                        peer(game)
                        times["peer"].append(clock() - c0)
                    move = our_move(view, game.valid_moves[0])
                    counts["peer_moves"] += 1
                if record and len(legal) > 1 and move.kind == "play":
                    records.append(_record(view, move, i, "ours" if seat in our_seats else "peer"))
                m = apply(m, move, seat)
            plays.append(A.play_result(ruleset, i, tuple(our_seats), m))
        if progress is not None:
            progress(done)
    return {"plays": plays, "times": times, "counts": counts, "compare": cmp, "records": records}


def _record(view: PlayerView, move: Move, deal: int, role: str) -> dict:
    """One free play as ``scripts/fit_play_model.py`` reads it: what the seat saw and chose."""
    return {"deal": deal, "role": role, "seat": view.seat, "hand": list(view.hand), "left": view.left_end,
            "right": view.right_end, "legal": [[x.tile, x.end] for x in view.legal_moves],
            "chosen": [move.tile, move.end], "counts": list(view.tile_counts),
            "actions": [[a.seat, a.kind, a.tile, a.end] for a in view.actions]}


def _phase(view: PlayerView) -> str:
    left = sum(view.tile_counts)
    return "hands_le_8" if left <= 8 else "hands_9_16" if left <= 16 else "hands_gt_16"


def _compare(m, view, ours, peer, rng, our_seats, cmp) -> None:
    """Ask the peer too (from the same view) and, where it differs, score both moves by
    perfect play on the true hands (the rng is copied: our own choice stays as it was)."""
    mine = ours(view, _copy_rng(rng))
    game = peer_game(view)
    state = random.getstate()
    peer(game)
    random.setstate(state)  # the peer's later decisions draw as they would without --compare
    theirs = our_move(view, game.valid_moves[0])
    row = cmp.setdefault(_phase(view), [0] * 7)
    # [decisions, disagree, ours better (sign), peer better (sign), ours more points, peer more points, equal]
    row[0] += 1
    if theirs == mine:
        return
    row[1] += 1
    truth = true_game(m)
    sign = 1 if 0 in our_seats else -1
    a = sign * exact_after(truth, _peer_move(mine))
    b = sign * exact_after(truth, game.valid_moves[0])
    sa, sb = (a > 0) - (a < 0), (b > 0) - (b < 0)
    if sa > sb:
        row[2] += 1
    elif sb > sa:
        row[3] += 1
    if a > b:
        row[4] += 1
    elif b > a:
        row[5] += 1
    else:
        row[6] += 1


def _copy_rng(rng: random.Random) -> random.Random:
    r = random.Random()
    r.setstate(rng.getstate())
    return r


def _worker(args):
    *head, record = args
    return run_deals(*head, record=record)


def ms(times: list[float]) -> dict:
    t = A.timing_summary(times)
    return {"p50": t["p50_ms"], "p99": t["p99_ms"], "mean": t["mean_ms"], "max": t["max_ms"], "count": t["count"]}


def git_short() -> str | None:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def peer_arena(ours: str = "strong", peer: str = "probabilistic_alphabeta", deals: int = 200, seed: int = 0,
               workers: int = 1, samples: int = 8, start_move: int = 4, compare: bool = False,
               record: str | None = None) -> dict:
    """Play ``deals`` duplicate deals of ours against the peer; a JSON-ready report (and with
    ``record``, every free play of both sides written to that file as JSON lines)."""
    resolve_ours(ours)  # fail early on a bad name
    make_peer(peer, samples, start_move)
    t0 = time.perf_counter()
    if workers <= 1:
        parts = [run_deals(ours, peer, seed, range(deals), samples, start_move, compare, record=bool(record))]
    else:
        import multiprocessing as mp

        chunks = [list(range(j, deals, workers)) for j in range(workers)]
        with mp.get_context("fork").Pool(workers) as pool:
            parts = pool.map(_worker, [(ours, peer, seed, c, samples, start_move, compare, None, bool(record))
                                       for c in chunks])
    plays = sorted((p for part in parts for p in part["plays"]), key=lambda r: r.deal)
    if record:
        with open(record, "w") as f:
            for part in parts:
                for r in part["records"]:
                    f.write(json.dumps(r) + "\n")
    times = {k: [t for part in parts for t in part["times"][k]] for k in ("ours", "peer")}
    counts = {k: sum(part["counts"][k] for part in parts) for k in parts[0]["counts"]}
    decided = [p for p in plays if p.a_won is not None]
    won = sum(1 for p in decided if p.a_won)
    lo, hi = A.wilson(won, len(decided))
    out = {
        "ours": ours,
        "peer": peer,
        "peer_config": ({"sample_size": samples, "start_move": start_move, "order": "bota_gorda"}
                        if peer == "probabilistic_alphabeta" else {}),
        "rules": "egyptian block-4 teams",
        "seed": seed,
        "deals": deals,
        "rounds": len(plays),
        "decided": len(decided),
        "won": won,
        "rate": round(won / len(decided), 4) if decided else None,
        "wilson95": [round(lo, 4), round(hi, 4)],
        "ties": len(plays) - len(decided),
        "our_points": sum(p.a_points for p in plays),
        "peer_points": sum(p.b_points for p in plays),
        "our_points_per_round": round(sum(p.a_points for p in plays) / len(plays), 3) if plays else None,
        "peer_points_per_round": round(sum(p.b_points for p in plays) / len(plays), 3) if plays else None,
        "our_decision_ms": ms(times["ours"]),
        "peer_decision_ms": ms(times["peer"]),
        **counts,
        "workers": workers,
        "seconds": round(time.perf_counter() - t0, 1),
        "commit": git_short(),
    }
    if compare:
        keys = ("decisions", "disagree", "ours_better_outcome", "peer_better_outcome", "ours_more_points",
                "peer_more_points", "equal_points")
        merged: dict[str, list[int]] = {}
        for part in parts:
            for phase, row in part["compare"].items():
                acc = merged.setdefault(phase, [0] * len(keys))
                for j, v in enumerate(row):
                    acc[j] += v
        out["compare"] = {phase: dict(zip(keys, row)) for phase, row in sorted(merged.items())}
    return out


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--deals", type=int, default=200)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--ours", default="strong", help="random, greedy, strong, or e.g. strong:samples=32")
    p.add_argument("--peer", default="probabilistic_alphabeta", choices=PEERS)
    p.add_argument("--peer-samples", type=int, default=8, help="probabilistic_alphabeta's sample_size")
    p.add_argument("--peer-start-move", type=int, default=4, help="probabilistic_alphabeta's start_move")
    p.add_argument("--compare", action="store_true", help="diagnostic: where ours and the peer disagree")
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--record", metavar="FILE", help="write every free play as JSON lines (scripts/fit_play_model.py)")
    p.add_argument("--json", action="store_true")
    a = p.parse_args(argv)
    out = peer_arena(a.ours, a.peer, a.deals, a.seed, a.workers, a.peer_samples, a.peer_start_move, a.compare,
                     a.record)
    if a.json:
        print(json.dumps(out))
        return
    print(f"{out['ours']} vs {out['peer']} {out['peer_config']}: {out['won']}/{out['decided']} decided rounds "
          f"= {out['rate']} {out['wilson95']}, ties {out['ties']}, points {out['our_points']}-{out['peer_points']}; "
          f"decision ms ours {out['our_decision_ms']}, peer {out['peer_decision_ms']}; "
          f"leaks {out['leaks']}/{out['leak_checks']}, illegal {out['peer_illegal']}; {out['seconds']} s")
    if "compare" in out:
        print(json.dumps(out["compare"], indent=1))


if __name__ == "__main__":
    main()
