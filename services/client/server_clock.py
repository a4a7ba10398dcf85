"""The server's time as this client knows it, for every countdown it shows.

Turn deadlines and round starts are times on the server's clock. Counting them down with the
device's own clock showed a 30 s turn as 26 s on a device 4 s ahead (and one behind kept a
round's summary on screen into the next turn). Every view and stream message carries the
server's time when it was sent (``server_time``), so the client reads the server's time as
that time plus how long ago the message arrived, by its own monotonic clock, which no
setting of the wall clock moves. Of messages that agree within a couple of seconds the one
that took least time to arrive wins (any delay on the way only makes a reading early); a
reading far from the last one (the server's clock was set) replaces it.
"""

from __future__ import annotations

import time
from typing import Callable

from google.protobuf.timestamp_pb2 import Timestamp

AGREE_SECONDS = 2.0  # readings closer than this are the same clock, seen with different delays


class ServerClock:
    """``clock`` (the device's time) until the first message with a server time arrives."""

    def __init__(self, clock: Callable[[], float] = time.time,
                 monotonic: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.monotonic = monotonic
        self.offset: float | None = None  # server time - monotonic time, when known

    def observe(self, server_time: Timestamp, arrived: float | None = None) -> None:
        """A message sent at ``server_time`` arrived at ``arrived`` (monotonic; None: now)."""
        if not server_time.seconds and not server_time.nanos:
            return  # a server from before server_time
        offset = server_time.ToNanoseconds() / 1e9 - (self.monotonic() if arrived is None else arrived)
        if self.offset is None or abs(offset - self.offset) > AGREE_SECONDS:
            self.offset = offset
        else:
            self.offset = max(self.offset, offset)

    def __call__(self) -> float:
        if self.offset is None:
            return self.clock()
        return self.monotonic() + self.offset
