"""The match use cases (async) called from plain test code, every call on one event loop.

A PostgreSQL store appends on an asyncio connection bound to the loop it was opened on, so
a test's commands share one loop (``asyncio.Runner``) and the connection is closed on it.
"""

from __future__ import annotations

import asyncio
import inspect
from typing import Any

from services.match.application import MatchApplication, SeatSpec
from services.match.domainmodel import Match
from services.rules.moves import legal_moves
from services.match.timers import TurnTimer

PLAYERS = {"draw-2": ["ann", "bob"], "block-3": ["ann", "bob", "cat"], "block-4": ["ann", "bob", "cat", "dan"]}


class Matches:
    """Wraps a MatchApplication: its coroutine methods return their results; the rest pass
    through. ``app`` is the application itself, for what takes one (a TurnTimer)."""

    def __init__(self, app: MatchApplication, runner: asyncio.Runner | None = None) -> None:
        self.app = app
        self.runner = runner or asyncio.Runner()

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self.app, name)
        if inspect.iscoroutinefunction(attribute):
            return lambda *args, **kwargs: self.runner.run(attribute(*args, **kwargs))
        return attribute

    def run(self, awaitable: Any) -> Any:
        return self.runner.run(awaitable)

    def timer(self, **kwargs: Any) -> "Timer":
        return Timer(TurnTimer(self.app, **kwargs), self.runner)

    def close(self) -> None:
        try:
            self.runner.run(self.app.aclose())
        finally:
            self.runner.close()
            self.app.close()


class Timer:
    """A TurnTimer whose ``step`` runs on the test's loop."""

    def __init__(self, timer: TurnTimer, runner: asyncio.Runner) -> None:
        self.timer = timer
        self.runner = runner

    def follow_store(self) -> int:
        return self.timer.follow_store()

    def step(self) -> int:
        return self.runner.run(self.timer.step())


def create(app: Matches, variant: str = "block-4", timer: int = 0, request_id: str = "m1", **kw: Any) -> Match:
    """An Egyptian match of ``variant`` with PLAYERS' seats and seeds."""
    return app.create_match(request_id, "egyptian", variant, kw.get("teams"), kw.get("target"), timer,
                            [SeatSpec(p, f"seed-{p}") for p in PLAYERS[variant]])


def act(app: Matches, match: Match, n: int, choose: int = 0) -> Match:
    """The seat to act makes its ``choose``-th legal move (request id ``r<n>``)."""
    rnd = match.state.round
    move = legal_moves(rnd)[choose]
    player = match.seats[rnd.turn]
    if move.kind == "draw":
        return app.draw_tile(match.id, player, f"r{n}").match
    return app.play_tile(match.id, player, move.tile, move.end, f"r{n}").match


def random_move(app: Matches, match: Match, rng, request_id: str) -> Match:
    """The seat to act makes a legal move chosen by ``rng`` (its request id: ``request_id``)."""
    rnd = match.state.round
    move = rng.choice(legal_moves(rnd))
    player = match.seats[rnd.turn]
    if move.kind == "draw":
        return app.draw_tile(match.id, player, request_id).match
    return app.play_tile(match.id, player, move.tile, move.end, request_id).match


def played_keeping_heads(app: Matches, match: Match, rng, signer) -> tuple[Match, list]:
    """``match`` played to its end by ``rng``'s legal moves (request ids r1, r2, ...), and the
    head ``signer`` signs after each, as a player's client keeps them."""
    kept = []
    n = 0
    while not match.finished:
        n += 1
        match = random_move(app, match, rng, f"r{n}")
        kept.append(signer.head(str(match.id), match.version, match.chain_entries, match.chain_head))
    return match, kept

