"""Why each action of a round was made: by the seat, or by the server for it, and why.

A move the server made on a timeout looked like the player's own on their screen ("you
played 6|5", "you went out"): the stored events say only ``timeout``, which is also true of
an away seat's turns and of a seat that left. What the seat was when the action was applied
tells them apart, so the aggregate keeps one cause per action of the round as it applies
them (``Match.round_causes``), for old matches too: nothing new is stored.
"""

from __future__ import annotations

SEAT = "seat"  # the seat's own player or bot chose it
TIMEOUT = "timeout"  # its time ran out: the server moved for it (docs/rules.md §1.6)
AWAY = "away"  # marked away after two timeouts in a row: the server plays its turns at once
LEFT = "left"  # its player left the match: the server plays it to the end
FORCED_PASS = "forced_pass"  # nothing fitted and nothing could be drawn: the server passed for it


def cause_of(timeout: bool, forced: bool, left: bool, away: bool) -> str:
    """The cause of an action applied with these flags, the seat's state as it was applied
    (a timed-out seat is marked away only after the move made for it)."""
    if forced:
        return FORCED_PASS
    if not timeout:
        return SEAT
    if left:
        return LEFT
    return AWAY if away else TIMEOUT
