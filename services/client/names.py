"""Display names for the account ids that servers send (events, records and views carry
ids only: names change, and a deleted account's must disappear).

Screens ask ``name(id)``, which only reads what is known; the loops call ``learn(ids)``
before they draw, which asks the account service (GetDisplayNames) once per id and a
hundred ids a call. A name is never worth a failed screen: when the service does not answer
the ids are shown, and asked again a little later. Without an account service (``--player``)
the directory in use is ``PLAIN``, which shows the ids as they are."""

from __future__ import annotations

import time
from typing import Callable, Iterable

from .api import ApiError

BATCH = 100
RETRY_AFTER = 30.0  # seconds before ids the service did not answer for are asked again
SHORT = 8  # ids longer than this, with no name, are shown shortened: "player 3f9a…"

Lookup = Callable[[list[str]], dict[str, str]]


def short(player_id: str) -> str:
    return player_id if len(player_id) <= SHORT else f"player {player_id[:4]}…"


class Names:
    def __init__(self, lookup: Lookup | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        self.lookup = lookup
        self.clock = clock
        self.known: dict[str, str | None] = {}  # None: the service answered, without a name
        self.failed: dict[str, float] = {}  # id -> when the service last failed to answer for it

    def name(self, player_id: str) -> str:
        """The display name; the short id when it has none; the id itself when it was not
        found out (no account service, or it did not answer)."""
        if player_id in self.known:
            found = self.known[player_id]
            return found if found else short(player_id)
        return player_id

    def learn(self, ids: Iterable[str]) -> None:
        if self.lookup is None:
            return
        now = self.clock()
        wanted = sorted({i for i in ids if i and not i.startswith("bot:") and i not in self.known
                         and now - self.failed.get(i, -RETRY_AFTER) >= RETRY_AFTER})
        for start in range(0, len(wanted), BATCH):
            batch = wanted[start:start + BATCH]
            try:
                found = self.lookup(batch)
            except ApiError:
                self.failed.update((i, now) for i in wanted[start:])
                return
            for player_id in batch:
                self.known[player_id] = found.get(player_id) or None
                self.failed.pop(player_id, None)

    def set(self, player_id: str, name: str) -> None:
        """A name known without asking (the player's own, after they changed it)."""
        self.known[player_id] = name


PLAIN = Names()
_directory = PLAIN


def use(directory: Names) -> Names:
    """Makes ``directory`` the one every screen reads (the client has one player at a time)."""
    global _directory
    _directory = directory
    return directory


def name(player_id: str) -> str:
    return _directory.name(player_id)


def learn(ids: Iterable[str]) -> None:
    _directory.learn(ids)
