"""StreamLimits: open streams per caller and per process, and the spectators' share of them
(per process and per match), so spectators never take the room seated players need."""

from __future__ import annotations

import pytest
from hypothesis import given, strategies as st
from pydantic import ValidationError

from services.common.config import Settings
from services.common.limits import StreamLimits, TooMany, limits_of


def test_spectators_take_a_quarter_of_the_process_by_default():
    limits = StreamLimits(per_process=2000)
    assert limits.spectators_per_process == 500 and limits.spectators_per_match == 200


def test_the_settings_give_spectators_a_quarter_and_200_a_match_unless_told_and_never_the_whole_process():
    streams, _ = limits_of(Settings())
    assert (streams.per_process, streams.spectators_per_process, streams.spectators_per_match) == (10000, 2500, 200)
    streams, _ = limits_of(Settings(streams_per_process=100, spectator_streams_per_process=10,
                                    spectator_streams_per_match=5))
    assert (streams.spectators_per_process, streams.spectators_per_match) == (10, 5)
    with pytest.raises(ValidationError, match="DOMINO_SPECTATOR_STREAMS_PER_PROCESS"):
        Settings(streams_per_process=100, spectator_streams_per_process=100)


def test_a_share_as_large_as_the_process_is_refused():
    with pytest.raises(ValueError, match="below the process's 10 open streams"):
        StreamLimits(per_process=10, spectators_per_process=10)


def test_spectators_fill_only_their_share_and_seated_streams_the_rest():
    limits = StreamLimits(per_caller=100, per_process=10, spectators_per_process=3, spectators_per_match=10)
    for n in range(3):
        limits.acquire(f"fan{n}", spectating="final")
    with pytest.raises(TooMany, match="3 open spectator streams"):
        limits.acquire("fan9", spectating="semi")
    for n in range(7):
        limits.acquire(f"player{n}")
    with pytest.raises(TooMany, match="10 open streams"):
        limits.acquire("player9")
    assert (limits.seated, limits.spectators, limits.total) == (7, 3, 10)


def test_one_match_has_only_so_many_spectators_and_another_is_not_affected():
    limits = StreamLimits(per_caller=100, per_process=100, spectators_per_process=50, spectators_per_match=2)
    limits.acquire("fan1", spectating="final")
    limits.acquire("fan2", spectating="final")
    with pytest.raises(TooMany, match="this match has 2 spectator streams"):
        limits.acquire("fan3", spectating="final")
    limits.acquire("fan3", spectating="semi")
    limits.release("fan1", spectating="final")
    limits.acquire("fan3", spectating="final")  # a closed stream frees its place
    assert limits.watching == {"final": 2, "semi": 1}


def test_a_refused_stream_counts_nothing():
    limits = StreamLimits(per_caller=1, per_process=10, spectators_per_process=5, spectators_per_match=5)
    limits.acquire("fan", spectating="final")
    with pytest.raises(TooMany, match="1 open streams"):
        limits.acquire("fan", spectating="final")
    assert (limits.total, limits.spectators, limits.watching, limits.open) == (1, 1, {"final": 1}, {"fan": 1})


# Opening (True) or closing (False) a stream of a caller, spectating a match (or seated: None).
STEPS = st.lists(st.tuples(st.booleans(), st.sampled_from(["ann", "bob", "cat"]),
                           st.sampled_from([None, "final", "semi"])), max_size=200)


@given(STEPS, st.integers(1, 12), st.integers(0, 11), st.integers(0, 6))
def test_whatever_opens_and_closes_no_count_passes_its_limit_and_seated_keep_the_rest(steps, process, share,
                                                                                       per_match):
    share = min(share, process - 1)
    limits = StreamLimits(per_caller=5, per_process=process, spectators_per_process=share,
                          spectators_per_match=per_match)
    held: list[tuple[str, str | None]] = []
    for opening, caller, spectating in steps:
        if opening:
            try:
                limits.acquire(caller, spectating)
            except TooMany:
                assert limits.total == process or spectating is not None or limits.open.get(caller) == 5
                continue
            held.append((caller, spectating))
        elif (caller, spectating) in held:
            held.remove((caller, spectating))
            limits.release(caller, spectating)
        assert limits.total == len(held) <= process
        assert limits.spectators == sum(1 for _, s in held if s) <= share
        assert all(count <= per_match for count in limits.watching.values())
        assert limits.seated + limits.spectators == limits.total
        if limits.seated < process - share:  # however many spectators, a seated player finds room
            limits.acquire("dan")
            limits.release("dan")
    for caller, spectating in held:
        limits.release(caller, spectating)
    assert (limits.total, limits.spectators, limits.open, limits.watching) == (0, 0, {}, {})
