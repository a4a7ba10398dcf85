"""Reading a NATS payload raises BadMessage or returns values in range, whatever the bytes:
anything else would escape a consumer's checks and be redelivered instead of dropped."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from services.common import bus

MATCH = "00000000-0000-0000-0000-0000000000aa"

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20)
turn_like = st.fixed_dictionaries({}, optional={
    "match_id": st.just(MATCH) | st.text(max_size=40), "version": json_values | st.integers(),
    "seat": json_values | st.integers(), "player_id": st.text(max_size=250) | json_values})


def read_all(data: bytes) -> None:
    for read in (bus.read_turn, bus.read_match_event):
        try:
            result = read(data)
        except bus.BadMessage:
            continue
        if isinstance(result, bus.Turn):
            assert 1 <= result.version <= bus.MAX_VERSION and 0 <= result.seat < bus.MAX_SEATS
            result.player_id.encode("utf-8")
        else:
            assert 1 <= result[1] <= bus.MAX_VERSION


@given(st.binary(max_size=300))
def test_any_bytes_are_read_or_refused_as_bad(data):
    read_all(data)


@given(turn_like)
def test_any_json_object_is_read_in_range_or_refused_as_bad(obj):
    read_all(json.dumps(obj).encode())


BOTH = (bus.read_turn, bus.read_match_event)


@pytest.mark.parametrize("data, readers", [
    (b"[" * 10_000 + b"]" * 10_000, BOTH),
    (b'{"a":' * 10_000 + b"1" + b"}" * 10_000, BOTH),
    (f'{{"match_id": "{MATCH}", "version": {"9" * 5000}, "seat": 0, "player_id": "p"}}'.encode(), BOTH),
    (json.dumps({"match_id": MATCH, "version": 2**70, "seat": 0, "player_id": "p"}).encode(), BOTH),
    (b'{"match_id": "' + MATCH.encode() + b'", "version": 1e400, "seat": 0, "player_id": "p"}', BOTH),
    (json.dumps({"match_id": MATCH, "version": 1, "seat": 2**70, "player_id": "p"}).encode(), (bus.read_turn,)),
    (json.dumps({"match_id": MATCH, "version": 1, "seat": 0, "player_id": "\ud800"}).encode(), (bus.read_turn,)),
], ids=["nested arrays", "nested objects", "5000 digits", "version 2**70", "1e400", "seat 2**70", "lone surrogate"])
def test_what_the_red_team_sent_is_refused_as_bad(data, readers):
    for read in readers:
        with pytest.raises(bus.BadMessage):
            read(data)
