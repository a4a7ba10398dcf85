"""Instructions per random round of each rule set, counted by valgrind's callgrind.

    .venv/bin/python bench/rules_instructions.py --json            # this checkout
    PYTHONPATH=/path/to/other/install .venv/bin/python bench/rules_instructions.py --json

Wall-clock rates on a shared 2-core VM swing by tens of per cent from one second to the
next (bench/rules.py reports medians, but a 5% change hides in that noise). Instructions
are repeatable: the same code, inputs and interpreter count the same whatever else the
machine does. Each figure is (instructions of N rounds - instructions of 0 rounds) / N, so
start-up and imports cancel out; comparing two checkouts is running this once in each
(for a compiled install of another commit, ``pip install --no-deps --target DIR CHECKOUT``
and put DIR first on PYTHONPATH).

The peer, PyPI ``dominoes`` (bench/rules.py's), is counted the same way: its random
four-player team block game (``Game.new()``, then ``players.random`` and the first of its
``valid_moves`` until ``result``, as bench/rules.py plays it) per game, and each rule set's
ratio peer / ours is printed: how many of our random rounds cost what one of its games does.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

RULE_SETS = {  # name: rule_set() arguments
    "block4_teams": ("egyptian", "block-4", True, None),
    "block3": ("egyptian", "block-3", None, None),
    "draw2": ("egyptian", "draw-2", None, None),
    "all_fives": ("all-fives", None, True, 4),
    "goat_koza": ("goat", "koza", True, 4),
    "classic": ("classic", None, False, 4),
    "sports": ("sports", None, True, 4),
}

CHILD = """
import json, random, sys
from services.rules.fairness import deal
from services.rules.match import new_match, start_round
from services.rules.playout import random_playout
from services.rules.rulesets import rule_set
args = json.loads(sys.argv[1])
while args[-1] is None:  # an older engine's rule_set(family, variant, teams) takes Egyptian's arguments
    args.pop()
rules = rule_set(*args)
rand = random.Random(1).random
for n in range(int(sys.argv[2])):
    random_playout(start_round(new_match(rules), deal(rules, n.to_bytes(8, "big"))).round, rand)
"""

PEER_CHILD = """
import random, sys
import dominoes
random.seed(1)
new_game = dominoes.Game.new
choose = dominoes.players.random
for _ in range(int(sys.argv[2])):
    g = new_game()
    while g.result is None:
        choose(g)
        g.make_move(*g.valid_moves[0])
"""


def instructions(args: tuple | None, rounds: int) -> int:
    """Instructions of ``rounds`` rounds of the rule set ``args`` (None: the peer's games).

    The child runs in an empty directory with the engine this process imported first on its
    path: ``python -c`` puts the working directory before PYTHONPATH, so from a checkout it
    would otherwise count that checkout, whatever PYTHONPATH names."""
    import services.rules as engine

    child = PEER_CHILD if args is None else CHILD
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(engine.__file__)))))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")])))
    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={os.path.join(tmp, 'cg')}",
             sys.executable, "-c", child, json.dumps(args), str(rounds)],
            capture_output=True, text=True, timeout=600, check=True, cwd=tmp, env=env,
        )
    found = re.search(r"Collected\s*:\s*(\d+)", out.stderr)
    if not found:
        raise SystemExit(f"bench: callgrind printed no total:\n{out.stderr[-2000:]}")
    return int(found.group(1))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Instructions per random round, by callgrind.")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--rounds", type=int, default=2000, help="rounds per rule set (default 2000)")
    parser.add_argument("--only", nargs="*", choices=sorted(RULE_SETS), help="rule sets to count (default: all)")
    parser.add_argument("--peer-games", type=int, default=500,
                        help="the peer's games to count (default 500; 0: leave the peer out)")
    args = parser.parse_args(argv)
    if not shutil.which("valgrind"):
        raise SystemExit("bench: valgrind is not installed")
    import services.rules as engine

    result: dict = {"engine": os.path.dirname(engine.__file__), "rounds": args.rounds}
    for name in args.only or RULE_SETS:
        base = instructions(RULE_SETS[name], 0)
        result[f"{name}_instructions_per_round"] = (instructions(RULE_SETS[name], args.rounds) - base) // args.rounds
    if args.peer_games > 0:
        import dominoes  # noqa: F401 (fail here, not in valgrind, when the peer is missing)

        peer = (instructions(None, args.peer_games) - instructions(None, 0)) // args.peer_games
        result["peer_games"] = args.peer_games
        result["peer_dominoes_instructions_per_game"] = peer
        result["peer_over_ours"] = {name: round(peer / result[f"{name}_instructions_per_round"], 2)
                                    for name in args.only or RULE_SETS}
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:<40} {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
