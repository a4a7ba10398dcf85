"""May this player play? Asked of the account service before a player enters a room, a
table queue or a practice match, so a ban or a deletion takes effect at once (an access
token may live up to 15 minutes more). The Standings port; the gRPC side is account_client.py."""

from __future__ import annotations

from typing import Protocol


class Standings(Protocol):
    def check(self, player_id: str) -> None:
        """Returns when the player may play; Barred or AccountsUnavailable otherwise."""


class AnyoneMayPlay:
    """No account service (tests of matchmaking alone)."""

    def check(self, player_id: str) -> None:
        pass
