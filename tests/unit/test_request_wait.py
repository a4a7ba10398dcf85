"""The request wait (services/common/grpc_server.py RequestWaitInterceptor) with one sweeper
for every call reading its request: a call whose message comes is served, one whose message
does not is ended DEADLINE_EXCEEDED after the wait (and not much later), one cancelled by
its client stays cancelled, and nothing of any of them is left behind.
tests/service/test_half_open_calls.py checks the same against a real server."""

from __future__ import annotations

import asyncio

import grpc
from google.rpc import error_details_pb2, status_pb2
import pytest

from services.common.grpc_server import RequestWaitInterceptor


class Aborted(Exception):
    pass


class Call:
    """A call's context: its message arrives when ``send`` is called, if ever."""

    def __init__(self) -> None:
        self.message: asyncio.Future = asyncio.get_running_loop().create_future()
        self.status: tuple[grpc.StatusCode, str] | None = None

    def send(self, message) -> None:
        self.message.set_result(message)

    async def read(self):
        return await self.message

    async def abort(self, code: grpc.StatusCode, details: str, trailing_metadata=()):
        self.status = (code, details)
        self.trailers = dict(trailing_metadata)
        raise Aborted


def test_a_call_whose_message_comes_is_served_and_leaves_nothing_behind():
    async def scenario():
        wait = RequestWaitInterceptor(0.2)
        call = Call()
        reading = asyncio.create_task(wait._request(call, "/m"))
        await asyncio.sleep(0.05)
        call.send("hello")
        assert await reading == "hello"
        await asyncio.sleep(0.1)  # the sweeper's next look finds nobody reading, and ends
        return wait

    wait = asyncio.run(scenario())
    assert not wait._reading and not wait._expired and wait._sweeper is None


def test_a_call_without_its_message_is_ended_deadline_exceeded_after_the_wait():
    async def scenario():
        wait = RequestWaitInterceptor(0.2)
        loop = asyncio.get_running_loop()
        calls = [Call() for _ in range(50)]
        began = loop.time()
        results = await asyncio.gather(*(wait._request(c, "/m") for c in calls), return_exceptions=True)
        return wait, calls, results, loop.time() - began

    wait, calls, results, took = asyncio.run(scenario())
    assert all(isinstance(r, Aborted) for r in results)
    assert {c.status[0] for c in calls if c.status} == {grpc.StatusCode.DEADLINE_EXCEEDED}
    assert "no request message within 0.2 s" in calls[0].status[1]
    details = status_pb2.Status.FromString(calls[0].trailers["grpc-status-details-bin"])
    info = error_details_pb2.ErrorInfo()
    details.details[0].Unpack(info)
    assert info.reason == "DEADLINE_EXCEEDED"
    # Not before the wait; and by a sweep soon after it, not at some far later moment (the
    # bound is loose on purpose: a loaded machine delays the sweeper's look, not its period).
    assert 0.2 <= took < 5
    assert not wait._reading and not wait._expired


def test_a_call_its_client_cancels_while_it_waits_stays_cancelled():
    async def scenario():
        wait = RequestWaitInterceptor(0.2)
        call = Call()
        reading = asyncio.create_task(wait._request(call, "/m"))
        await asyncio.sleep(0.05)
        reading.cancel()
        with pytest.raises(asyncio.CancelledError):
            await reading
        return wait, call

    wait, call = asyncio.run(scenario())
    assert call.status is None and not wait._reading and not wait._expired


def test_one_sweeper_times_every_call_reading_at_once():
    async def scenario():
        wait = RequestWaitInterceptor(0.2)
        calls = [Call() for _ in range(100)]
        tasks = [asyncio.create_task(wait._request(c, "/m")) for c in calls]
        await asyncio.sleep(0)
        sweepers = {wait._sweeper}
        for n, call in enumerate(calls):
            call.send(n)
        assert await asyncio.gather(*tasks) == list(range(100))
        return sweepers

    sweepers = asyncio.run(scenario())
    assert len(sweepers) == 1 and None not in sweepers
