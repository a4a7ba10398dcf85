"""A bare HTTP/2 client over a socket: just enough frames to open gRPC calls the way an
attacker does (HEADERS and nothing after), and to read what the server answers.

grpc's own clients never open a call without sending its message, and honour the server's
SETTINGS; this one does neither unless asked, so the tests and bench/h2_flood.py can check
what the server does with half-open calls. Frames (RFC 9113) and header blocks (HPACK,
RFC 7541: literal fields without indexing, no Huffman) are written by hand; the server's
header blocks are not decoded, only counted."""

from __future__ import annotations

import socket
import struct
import threading
from collections import Counter
from dataclasses import dataclass, field

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

DATA, HEADERS, RST_STREAM, SETTINGS, PING, GOAWAY, WINDOW_UPDATE = 0x0, 0x1, 0x3, 0x4, 0x6, 0x7, 0x8
END_STREAM, ACK, END_HEADERS = 0x1, 0x1, 0x4

SETTINGS_MAX_CONCURRENT_STREAMS = 0x3
REFUSED_STREAM, ENHANCE_YOUR_CALM = 0x7, 0xB  # RST_STREAM codes: not taken, taken as abuse

GET_MATCH = "/domino.match.v1.MatchService/GetMatch"


def frame(kind: int, flags: int, stream: int, payload: bytes = b"") -> bytes:
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", stream) + payload


def _hpack_int(value: int, prefix_bits: int, first: int = 0) -> bytes:
    limit = (1 << prefix_bits) - 1
    if value < limit:
        return bytes([first | value])
    out = bytearray([first | limit])
    value -= limit
    while value >= 128:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def header_block(headers: list[tuple[str, str]]) -> bytes:
    """HPACK: every field a literal without indexing, with a literal name (0x00 prefix)."""
    out = bytearray()
    for name, value in headers:
        out += b"\x00" + _hpack_int(len(name), 7) + name.encode() + _hpack_int(len(value), 7) + value.encode()
    return bytes(out)


def grpc_call_headers(path: str = GET_MATCH, authority: str = "localhost") -> bytes:
    return header_block([(":method", "POST"), (":scheme", "http"), (":path", path), (":authority", authority),
                         ("content-type", "application/grpc"), ("te", "trailers")])


@dataclass
class ServerFrames:
    """What the server sent, by kind: its SETTINGS, RST_STREAMs by error code, the streams it
    answered (HEADERS) and ended (END_STREAM), and whether it sent GOAWAY or closed."""

    settings: dict[int, int] = field(default_factory=dict)
    settings_seen: threading.Event = field(default_factory=threading.Event)
    resets: Counter = field(default_factory=Counter)  # error code -> count
    reset_streams: set[int] = field(default_factory=set)
    refused_streams: set[int] = field(default_factory=set)  # reset before the server took them as calls
    answered: set[int] = field(default_factory=set)  # streams with a HEADERS frame from the server
    ended: set[int] = field(default_factory=set)  # streams the server ended (END_STREAM)
    goaway: int | None = None  # its error code
    closed: threading.Event = field(default_factory=threading.Event)


class RawH2Connection:
    """One client connection. ``ack_settings``: answer the server's SETTINGS (a well-behaved
    peer does; an attacker may not); ``answer_pings``: keep the connection alive as a real
    client would, so the server's keepalive does not end it."""

    def __init__(self, host: str, port: int, ack_settings: bool = True, answer_pings: bool = True,
                 timeout: float = 10.0) -> None:
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.ack_settings = ack_settings
        self.answer_pings = answer_pings
        self.frames = ServerFrames()
        self.next_stream = 1
        self._write_lock = threading.Lock()
        self.send(PREFACE + frame(SETTINGS, 0, 0))
        self._reader = threading.Thread(target=self._read_loop, daemon=True)
        self._reader.start()

    def send(self, data: bytes) -> None:
        with self._write_lock:
            self.sock.sendall(data)

    def open_calls(self, count: int, path: str = GET_MATCH, batch: int = 200) -> list[int]:
        """``count`` calls: a HEADERS frame each (END_HEADERS, never END_STREAM) and no DATA.
        Returns their stream ids."""
        block = grpc_call_headers(path)
        streams: list[int] = []
        while len(streams) < count:
            chunk = []
            for _ in range(min(batch, count - len(streams))):
                streams.append(self.next_stream)
                chunk.append(frame(HEADERS, END_HEADERS, self.next_stream, block))
                self.next_stream += 2
            self.send(b"".join(chunk))
        return streams

    def open_streams(self) -> int:
        """Streams this client opened that the server neither reset nor ended."""
        f = self.frames
        return (self.next_stream - 1) // 2 - len(f.reset_streams | f.ended)

    def close(self) -> None:
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()
        self._reader.join(5)

    def __enter__(self) -> "RawH2Connection":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _recv_exactly(self, n: int) -> bytes:
        data = bytearray()
        while len(data) < n:
            chunk = self.sock.recv(n - len(data))
            if not chunk:
                raise ConnectionError("closed")
            data += chunk
        return bytes(data)

    def _read_loop(self) -> None:
        f = self.frames
        try:
            while True:
                head = self._recv_exactly(9)
                length = int.from_bytes(head[:3], "big")
                kind, flags = head[3], head[4]
                stream = int.from_bytes(head[5:9], "big") & 0x7FFFFFFF
                payload = self._recv_exactly(length) if length else b""
                if kind == SETTINGS and not flags & ACK:
                    for i in range(0, len(payload), 6):
                        ident, value = struct.unpack(">HI", payload[i:i + 6])
                        f.settings[ident] = value
                    f.settings_seen.set()
                    if self.ack_settings:
                        self.send(frame(SETTINGS, ACK, 0))
                elif kind == RST_STREAM:
                    code = struct.unpack(">I", payload[:4])[0]
                    f.resets[code] += 1
                    f.reset_streams.add(stream)
                    if code in (REFUSED_STREAM, ENHANCE_YOUR_CALM):
                        f.refused_streams.add(stream)
                elif kind == HEADERS:
                    f.answered.add(stream)
                    if flags & END_STREAM:
                        f.ended.add(stream)
                elif kind == DATA and flags & END_STREAM:
                    f.ended.add(stream)
                elif kind == PING and not flags & ACK and self.answer_pings:
                    self.send(frame(PING, ACK, 0, payload))
                elif kind == GOAWAY:
                    f.goaway = struct.unpack(">I", payload[4:8])[0]
        except (OSError, ConnectionError):
            pass
        finally:
            f.settings_seen.set()
            f.closed.set()
