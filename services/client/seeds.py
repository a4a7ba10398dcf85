"""The wait before the first deal, in words: whose seed the match still waits for.

Before the first deal every seated person adds a seed of their own to the server's committed
one (SubmitSeed; docs/record.md, "Fair deals"), so nobody, the server included, chooses the
deal. Until then the match has no round, no hand and no turn: a screen of "round 0", an empty
hand and "Between rounds…" tells the player nothing, so this names who is being waited for.
"""

from __future__ import annotations

from rich.text import Text

from domino.match.v1 import match_service_pb2 as pb

from . import view_reading


def waiting(view: pb.MatchView) -> bool:
    """The match waits for seeds before its first deal."""
    return view.status == pb.MATCH_STATUS_WAITING_FOR_SEEDS


def _listed(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def waiting_text(view: pb.MatchView) -> Text:
    """``Waiting for Ana and Bo to send their seed…`` and why the deal waits for them."""
    seats = [s for s, seat in enumerate(view.seats) if seat.awaiting_seed]
    names = [view_reading.seat_name(view, s) for s in seats]
    if not names:
        text = Text("Every seed is in: dealing…", style="bold")
    elif names == ["you"]:
        text = Text("Waiting for your seed…", style="bold")
    else:
        text = Text(f"Waiting for {_listed(names)} to send their seed…", style="bold")
    text.append("\nEach player adds a seed of their own before the first deal, so nobody (the server included) "
                "chooses the deal; it follows once every seed is in, or after a few seconds without the missing "
                "ones.", style="dim")
    return text
