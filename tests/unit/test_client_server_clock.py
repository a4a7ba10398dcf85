"""The client's reading of the server's clock (services/client/server_clock.py)."""

from __future__ import annotations

from google.protobuf.timestamp_pb2 import Timestamp

from services.client.server_clock import ServerClock


def at(seconds: float) -> Timestamp:
    ts = Timestamp()
    ts.FromNanoseconds(int(seconds * 1e9))
    return ts


class Monotonic:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_servers_time_runs_on_from_a_message_by_the_monotonic_clock_whatever_the_device_clock_says():
    mono = Monotonic()
    clock = ServerClock(clock=lambda: 5_000.0, monotonic=mono)
    assert clock() == 5_000.0  # no message yet: the device's clock
    clock.observe(at(1_000.0), arrived=100.0)
    mono.now = 102.5
    assert clock() == 1_002.5


def test_of_readings_that_agree_the_one_that_came_fastest_wins():
    mono = Monotonic()
    clock = ServerClock(monotonic=mono)
    clock.observe(at(1_000.0), arrived=100.0)
    clock.observe(at(1_000.5), arrived=101.0)  # half a second on the way
    assert clock() == 1_000.0


def test_a_reading_far_from_the_last_one_is_the_servers_clock_set_again_and_replaces_it():
    mono = Monotonic()
    clock = ServerClock(monotonic=mono)
    clock.observe(at(1_000.0), arrived=100.0)
    clock.observe(at(900.0), arrived=101.0)
    mono.now = 101.0
    assert clock() == 900.0


def test_a_message_from_a_server_without_its_time_changes_nothing():
    clock = ServerClock(clock=lambda: 42.0)
    clock.observe(Timestamp())
    assert clock() == 42.0
