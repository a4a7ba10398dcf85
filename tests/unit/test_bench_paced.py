"""bench/paced.py's pure parts: the think-time distribution a person's moves follow, the chat
gaps, the ramp's steps, the services' stream caps for the phones, and the shared channels."""

from __future__ import annotations

import math
import random
import statistics

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domino.match.v1 import match_service_pb2 as pb
from tests.support.benches import load_bench

paced = load_bench("paced.py")


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32), median=st.floats(1.0, 10.0), sigma=st.floats(0.0, 3.0))
def test_a_think_time_never_leaves_its_clip(seed, median, sigma):
    think = paced.ThinkTime(median=median, sigma=sigma, low=1.0, high=20.0)
    rng = random.Random(seed)
    assert all(1.0 <= think.draw(rng) <= 20.0 for _ in range(50))


def test_the_default_think_time_has_a_median_of_three_seconds_and_a_long_right_tail():
    think = paced.ThinkTime()
    rng = random.Random(7)
    draws = [think.draw(rng) for _ in range(20001)]
    assert statistics.median(draws) == pytest.approx(3.0, abs=0.1)
    assert statistics.mean(draws) == pytest.approx(3.0 * math.exp(0.6**2 / 2), rel=0.05)  # log-normal's mean
    assert min(draws) == 1.0  # about 3% fall below 1 s and are clipped up to it
    assert max(draws) <= 20.0


def test_the_same_seed_draws_the_same_think_times():
    think = paced.ThinkTime()
    one, two = random.Random("0:5:think"), random.Random("0:5:think")
    assert [think.draw(one) for _ in range(10)] == [think.draw(two) for _ in range(10)]


def test_a_person_hurries_to_a_share_of_the_turn_left_and_takes_their_time_without_a_clock():
    think = paced.ThinkTime(median=10.0, sigma=0.0, low=1.0, high=20.0)
    rng = random.Random(1)
    assert think.before_move(rng, 5.0, 0.8) == pytest.approx(4.0)
    assert think.before_move(rng, None, 0.8) == pytest.approx(10.0)
    assert think.before_move(rng, 5.0, 0.0) == pytest.approx(10.0)  # hurry 0: the clock is ignored
    assert think.before_move(rng, -1.0, 0.8) == 0.0  # already late: at once


def test_a_think_time_refuses_a_median_outside_its_clip():
    with pytest.raises(ValueError):
        paced.ThinkTime(median=0.5, low=1.0)
    with pytest.raises(ValueError):
        paced.ThinkTime(sigma=-1)


def test_chat_gaps_are_exponential_with_the_given_mean_and_never_without_one():
    rng = random.Random(3)
    gaps = [paced.chat_gap(rng, 120.0) for _ in range(20000)]
    assert statistics.mean(gaps) == pytest.approx(120.0, rel=0.05)
    assert paced.chat_gap(rng, 0) == math.inf


def test_turn_left_reads_the_views_deadline():
    view = pb.MatchView()
    assert paced.turn_left(view, 100.0) is None  # no clock
    view.turn_deadline.seconds, view.turn_deadline.nanos = 145, 500_000_000
    assert paced.turn_left(view, 100.0) == pytest.approx(45.5)


def test_ramp_steps_are_positive_and_rising():
    assert paced.parse_steps("50,100, 200") == [50, 100, 200]
    for bad in ("", "100,50", "0,10", "10,10"):
        with pytest.raises(ValueError):
            paced.parse_steps(bad)


def test_stream_caps_are_raised_only_past_the_configured_bound_and_leave_room_for_calls():
    assert paced.stream_caps(1000, 2000) == {}
    caps = paced.stream_caps(4000, 2000)
    assert int(caps["DOMINO_STREAMS_PER_PROCESS"]) >= 4000
    assert int(caps["DOMINO_GRPC_MAX_CONCURRENT_CALLS"]) > int(caps["DOMINO_STREAMS_PER_PROCESS"])


def test_a_step_is_held_when_most_of_its_matches_are_in_play_on_average():
    assert paced.held(100, 95.0)
    assert not paced.held(100, 80.0)
    assert not paced.held(100, None)


def test_phones_share_a_channel_per_target_in_groups_of_the_given_size():
    made: list[str] = []

    def make(target):
        made.append(target)
        return object()

    pool = paced.ChannelPool(make, per_channel=40)
    assert pool.get("match", 0) is pool.get("match", 39)
    assert pool.get("match", 40) is not pool.get("match", 0)
    assert pool.get("accounts", 0) is not pool.get("match", 0)
    assert made == ["match", "match", "accounts"]
    with pytest.raises(ValueError):
        paced.ChannelPool(make, per_channel=0)


def test_the_waiting_alone_is_the_idle_window_less_its_commands_at_the_measured_cost():
    lib = type("Lib", (), {"rnd": staticmethod(lambda v, d=2: round(v, d))})
    window = {"idle_open_streams": 1000, "idle_seconds": 10.0, "idle_stream_cpu_ms_per_s": 0.03,
              "idle_window_commands": 20, "cpu_ms_per_command": {"match": 2.0, "match-2": 3.0, "bots": 9.0}}
    # 30 ms/s in all, of which 20 commands x 5 ms over 10 s = 10 ms/s were commands
    assert paced.waiting_alone(lib, window) == {"idle_commands_cpu_ms_per_s": 10.0,
                                                "idle_stream_cpu_ms_per_s_waiting": 0.02}


def test_a_move_refused_out_of_turn_as_its_timer_ran_out_is_late_and_one_with_time_left_is_not():
    import time

    import grpc

    load = load_bench("load.py")

    class Refusal(grpc.aio.AioRpcError):
        def __init__(self, code):
            self._c = code

        def code(self):
            return self._c

    def view(left: float) -> pb.MatchView:
        v = pb.MatchView()
        v.turn_deadline.FromNanoseconds(int((time.time() + left) * 1e9))
        return v

    now = time.monotonic()
    assert load.late_move(Refusal(grpc.StatusCode.FAILED_PRECONDITION), view(0.3), now)
    assert not load.late_move(Refusal(grpc.StatusCode.FAILED_PRECONDITION), view(10.0), now)
    assert not load.late_move(Refusal(grpc.StatusCode.INVALID_ARGUMENT), view(0.3), now)
