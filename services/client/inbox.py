"""One queue for everything the client waits on: lines the player typed and items the
servers streamed. Each source runs in a daemon thread and only ever puts into the queue,
so the loops stay single-threaded and a test can put events in by hand."""

from __future__ import annotations

import codecs
import os
import queue
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, overload

import grpc

from .api import ApiError, TokenExpired


class InputClosed(Exception):
    """The player's input ended (Ctrl-D, or the end of a script)."""


@dataclass(frozen=True)
class Event:
    kind: str  # "line", "eof", or a stream's kind ("view", "room", "ticket", "link", "stream-error", ...)
    value: Any = None
    source: object = None  # the Pump that sent it (loops ignore pumps they have stopped)
    # When it arrived (time.monotonic), not when a loop took it: a countdown counts from here.
    at: float = field(default_factory=time.monotonic)


class Inbox:
    def __init__(self) -> None:
        self.queue: queue.Queue[Event] = queue.Queue()

    def put(self, kind: str, value: Any = None, source: object = None) -> None:
        self.queue.put(Event(kind, value, source))

    @overload
    def get(self) -> Event: ...
    @overload
    def get(self, timeout: float | None) -> Event | None: ...

    def get(self, timeout: float | None = None) -> Event | None:
        """The next event; None when ``timeout`` seconds pass without one."""
        try:
            return self.queue.get(timeout=timeout)
        except queue.Empty:
            return None

    def line(self) -> str:
        """The next typed line, whatever streams bring meanwhile (InputClosed at the end)."""
        while True:
            event = self.get()
            if event.kind == "line":
                return event.value
            if event.kind == "eof":
                raise InputClosed()

    def pending(self) -> list[Event]:
        out = []
        while True:
            try:
                out.append(self.queue.get_nowait())
            except queue.Empty:
                return out

    # ---- typed lines ----------------------------------------------------------------

    def read_lines(self, stream) -> threading.Thread:
        """Feed the stream's lines in as "line" events, then "eof". A real file descriptor
        is read with os.read, so the thread never holds the stdin object's lock (which
        would upset the interpreter's shutdown while the thread waits for a line)."""
        try:
            fd = stream.fileno()
        except (AttributeError, OSError, ValueError):
            fd = None
        target = self._read_fd if fd is not None else self._read_stream
        thread = threading.Thread(target=target, args=(fd if fd is not None else stream,), daemon=True,
                                  name="domino-input")
        thread.start()
        return thread

    def _read_fd(self, fd: int) -> None:
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        buffer = ""
        while True:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                chunk = b""
            if not chunk:
                if buffer:
                    self.put("line", buffer)
                self.put("eof")
                return
            buffer += decoder.decode(chunk)
            while "\n" in buffer:
                line, buffer = buffer.split("\n", 1)
                self.put("line", line.rstrip("\r"))

    def _read_stream(self, stream) -> None:
        for line in iter(stream.readline, ""):
            self.put("line", line.rstrip("\r\n"))
        self.put("eof")


class Pump:
    """Streams a server call into the inbox, opening it again after a lost connection.

    ``open_call(last)`` opens the stream given the last item seen (None at first), so a
    reconnect resumes where it stopped; each item goes in as ``(kind, item)``. Lost
    connections put ``("link", "lost")`` and then ``("link", "back")``; other errors
    ``("stream-error", ApiError-like message)``; a stream the server ended, ``(kind + "-end")``.
    A stream ended because its token expired is opened again with the renewed token and
    puts nothing: the player never sees a session being renewed.
    """

    def __init__(self, inbox: Inbox, kind: str, open_call: Callable[[Any], Any], max_pause: float = 5.0,
                 reopen_when_done: Callable[[Any], bool] = lambda last: False) -> None:
        self.inbox = inbox
        self.kind = kind
        self.open_call = open_call
        self.max_pause = max_pause
        self.reopen_when_done = reopen_when_done
        self.stopped = threading.Event()
        self.call: Any = None  # the streaming call open now
        self.last = None
        self.thread = threading.Thread(target=self._run, daemon=True, name=f"domino-{kind}")

    def start(self) -> "Pump":
        self.thread.start()
        return self

    def stop(self) -> None:
        self.stopped.set()
        call = self.call
        if call is not None:
            call.cancel()

    def _run(self) -> None:
        pause = 0.25
        lost = False
        renewals = 0  # expiries since the last item: a second one in a row waits, as after an outage
        while not self.stopped.is_set():
            try:
                self.call = self.open_call(self.last)
                if self.stopped.is_set():
                    self.call.cancel()
                    return
                for item in self.call:
                    if lost:
                        self.inbox.put("link", "back", self)
                        lost = False
                    pause = 0.25
                    renewals = 0
                    self.last = item
                    self.inbox.put(self.kind, item, self)
                if lost:
                    self.inbox.put("link", "back", self)
                    lost = False
                if not self.reopen_when_done(self.last):
                    self.inbox.put(self.kind + "-end", self.last, self)
                    return
                self.stopped.wait(pause)  # the server ended it early (a restart): open it again
            except TokenExpired:
                renewals += 1
                if renewals > 1:
                    self.stopped.wait(pause)
                    pause = min(self.max_pause, pause * 2)
            except (ApiError, grpc.RpcError) as e:  # ApiError: no token to open it with (accounts away)
                code, message = _status(e)
                if self.stopped.is_set() or code == grpc.StatusCode.CANCELLED:
                    return
                if code in LINK_LOST:
                    if not lost:
                        self.inbox.put("link", "lost", self)
                        lost = True
                    self.stopped.wait(pause)
                    pause = min(self.max_pause, pause * 2)
                    continue
                self.inbox.put("stream-error", message, self)
                return
            except Exception as e:  # noqa: BLE001 - a broken pump must not pass silently
                if self.stopped.is_set():
                    return
                self.inbox.put("stream-error", str(e), self)
                return


#: A stream that ends with one of these lost its link: it is opened again, with a pause.
LINK_LOST = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.INTERNAL,
             grpc.StatusCode.UNKNOWN)


def _status(error: ApiError | grpc.RpcError) -> tuple[grpc.StatusCode, str]:
    if isinstance(error, ApiError):
        return error.code, str(error)
    return error.code(), error.details() or error.code().name
