"""Fit services/bots/play_model.py's weights to recorded free plays, and say how well they
predict plays they were not fitted to.

Input: JSON lines, one free play each, as ``bench/peer_arena.py --record FILE`` writes them
(``deal``, ``role``: ours or peer, ``hand``: the tiles held before the play, ``left``/``right``: the
open ends, ``chosen``: [tile, end], ``actions``: the round's public actions before it).
Conditional logit by Newton's method with a ridge (the two "keep" counts of a play on one end mirror those of a play on the other, so without one their weights wander); every other deal is held out.

    .venv/bin/python scripts/fit_play_model.py --role all recorded.jsonl [more.jsonl ...]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from services.bots.play_model import FEATURES, candidates, features, seen_plays  # noqa: E402


def decisions(paths: list[str], role: str, seats: int = 4) -> list[tuple[int, list[tuple[float, ...]], int]]:
    """(deal key, every candidate's features, the chosen one's index) per free play (the
    recorded game: four seats, 0+2 against 1+3)."""
    out = []
    for n, path in enumerate(paths):
        for k, line in enumerate(open(path)):
            d = json.loads(line)
            if role != "all" and d["role"] != role:
                continue
            hand = sum(1 << t for t in d["hand"])
            t, end = d["chosen"]
            actions = [Action(*a) for a in d["actions"]] + [Action(d["seat"], "play", t, end)]
            seen, _ = seen_plays(actions, seats, lambda s: (s + 2) % seats)[-1]
            options = candidates(hand, seen.left, seen.right)
            if len(options) < 2:
                continue
            chosen = next(j for j, (u, c, _) in enumerate(options) if u == t and c == seen.covered)
            rows = [features(hand, seen, u, c, e) for u, c, e in options]
            out.append((100_000 * n + d.get("deal", k // 40), rows, chosen))
    return out


class Action(NamedTuple):
    seat: int
    kind: str
    tile: int | None
    end: int | None


def log_likelihood(data, w) -> float:
    total = 0.0
    for _, rows, chosen in data:
        s = [sum(a * b for a, b in zip(w, f)) for f in rows]
        m = max(s)
        total += s[chosen] - m - math.log(sum(math.exp(x - m) for x in s))
    return total


def fit(data, ridge: float = 3.0, steps: int = 30) -> list[float]:
    k = len(FEATURES)
    w = [0.0] * k
    for _ in range(steps):
        grad = [-ridge * x for x in w]
        hess = [[ridge if i == j else 0.0 for j in range(k)] for i in range(k)]
        for _, rows, chosen in data:
            s = [sum(a * b for a, b in zip(w, f)) for f in rows]
            m = max(s)
            e = [math.exp(x - m) for x in s]
            z = sum(e)
            p = [x / z for x in e]
            mean = [sum(p[j] * rows[j][i] for j in range(len(rows))) for i in range(k)]
            for i in range(k):
                grad[i] += rows[chosen][i] - mean[i]
            for j, f in enumerate(rows):
                d = [f[i] - mean[i] for i in range(k)]
                for i in range(k):
                    if d[i]:
                        for l in range(k):
                            hess[i][l] += p[j] * d[i] * d[l]
        step = _solve(hess, grad)
        w = [a + b for a, b in zip(w, step)]
        if max(abs(x) for x in step) < 1e-6:
            break
    return w


def _solve(a: list[list[float]], b: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting (the system is small and positive definite)."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        for r in range(c + 1, n):
            f = m[r][c] / m[c][c]
            for j in range(c, n + 1):
                m[r][j] -= f * m[c][j]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        x[r] = (m[r][n] - sum(m[r][j] * x[j] for j in range(r + 1, n))) / m[r][r]
    return x


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("paths", nargs="+")
    p.add_argument("--role", choices=("all", "ours", "peer"), default="all")
    p.add_argument("--ridge", type=float, default=3.0)
    a = p.parse_args()
    data = decisions(a.paths, a.role)
    train = [d for d in data if d[0] % 2 == 0]
    test = [d for d in data if d[0] % 2 == 1]
    w = fit(train, a.ridge)
    uniform = sum(-math.log(len(rows)) for _, rows, _ in test)
    model = log_likelihood(test, w)
    hits = sum(1 for _, rows, chosen in test
               if max(range(len(rows)), key=lambda j: sum(x * y for x, y in zip(w, rows[j]))) == chosen)
    print(json.dumps({
        "role": a.role, "train": len(train), "test": len(test),
        "weights": {name: round(x, 3) for name, x in zip(FEATURES, w)},
        "test_loglik_per_play": round(model / len(test), 4),
        "uniform_loglik_per_play": round(uniform / len(test), 4),
        "test_top1": round(hits / len(test), 4),
        "uniform_top1": round(sum(1 / len(rows) for _, rows, _ in test) / len(test), 4),
        "final_weights": [round(x, 4) for x in w],
    }, indent=1))


if __name__ == "__main__":
    main()
