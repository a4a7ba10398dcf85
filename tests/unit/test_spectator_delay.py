"""The spectator's one-turn delay takes each event once, however the batches it is fed
overlap: a stream that read the held events again once handed them in a second time, and
the spectator's stream applied one event twice."""

from __future__ import annotations

from hypothesis import given, strategies as st

from services.match.domainmodel import Match
from services.match.spectators import SpectatorDelay


def event(kind: str, version: int, seat: int | None = None):
    """A stand-in for a stored event: its class and the fields the delay reads."""
    made = object.__new__(getattr(Match, kind))
    made.__dict__.update(originator_version=version)
    if seat is not None:
        made.__dict__["seat"] = seat
    return made


def versions(events) -> list[int]:
    return [e.originator_version for e in events]


def test_a_batch_holding_events_already_held_hands_out_each_once():
    delay = SpectatorDelay()
    played, drawn = event("TilePlayed", 3, 0), event("TileDrawn", 4, 1)
    assert delay.visible([played]) == []
    assert versions(delay.visible([played, drawn])) == [3]  # read again from the version shown
    assert delay.visible([drawn]) == []  # seat 1's turn, held and not taken twice
    assert versions(delay.visible([drawn, event("TilePlayed", 5, 2)])) == [4]


def test_a_batch_holding_events_already_shown_skips_them():
    delay = SpectatorDelay()
    first = [event("TilePlayed", 1, 0), event("TilePlayed", 2, 1)]
    assert versions(delay.visible(first)) == [1]
    ended = event("MatchEnded", 3)
    assert versions(delay.visible(first + [ended])) == [2, 3]
    assert delay.visible(first + [ended]) == []


ACTIONS = ("TilePlayed", "TileDrawn", "TurnPassed")
STEPS = st.one_of(st.tuples(st.sampled_from(ACTIONS), st.integers(0, 3)),
                  st.tuples(st.sampled_from(["RoundDealt", "RoundEnded"]), st.none()))


@st.composite
def matches_and_batches(draw):
    """A match's events, as (kind, seat) (perhaps ended), and the batches a stream might
    read of them, as (start, end): each begins at or before where the one before ended, none
    skips an event."""
    steps = draw(st.lists(STEPS, min_size=1, max_size=40))
    if draw(st.booleans()):
        steps.append(("MatchEnded", None))
    bounds, end = [], 0
    while end < len(steps):
        start = draw(st.integers(0, end))
        end = draw(st.integers(end + 1, len(steps)))
        bounds.append((start, end))
    return steps, bounds


@given(matches_and_batches())
def test_overlapping_batches_show_what_the_same_events_once_each_would(case):
    steps, bounds = case
    events = [event(kind, v, seat) for v, (kind, seat) in enumerate(steps, start=1)]
    batches = [events[start:end] for start, end in bounds]
    overlapping, once = SpectatorDelay(), SpectatorDelay()
    shown = [e for batch in batches for e in overlapping.visible(batch)]
    taken = 0
    expected = []
    for batch in batches:
        expected += once.visible([e for e in batch if e.originator_version > taken])
        taken = batch[-1].originator_version
    assert versions(shown) == versions(expected)
    assert versions(shown) == versions(events)[:len(shown)]  # each once, in order, none skipped
    if steps[-1][0] == "MatchEnded":
        assert versions(shown) == versions(events)  # an ended match is shown whole
