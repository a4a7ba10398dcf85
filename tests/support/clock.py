"""An injected clock: tests move time instead of sleeping."""

from __future__ import annotations


class Clock:
    """Pass as ``clock=``; ``advance`` moves it on."""

    def __init__(self, now: float = 1_800_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds
