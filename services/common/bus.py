"""The NATS subjects and the JetStream stream: the one place they are defined.

    domino.v1.match.<match_id>.<event>   every stored match event, public fields only
                                         (event: match_started, round_dealt, tile_played,
                                         tile_drawn, turn_passed, round_ended, match_ended,
                                         seat_away, seat_returned)
    domino.v1.turn.<match_id>            a seat is to act: {match_id, version, seat,
                                         player_id, round, turn_no, deadline}

All of them live in the JetStream stream DOMINO. Every message carries `Nats-Msg-Id`
(`<match>:<version>` for events, `<match>:turn:<version>` for turns), so a relay that
publishes again after a crash is de-duplicated by the server, and
`Domino-Notification-Id`, the store position it was published from, from which a
restarted relay resumes. Payloads are JSON. The `v1` is the version of this contract.
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from dataclasses import dataclass

STREAM = "DOMINO"
RELAY_BUCKET = "DOMINO_RELAY"  # key-value bucket where the relay keeps its position (only it writes there)
RELAY_POSITION_KEY = "position"
STREAM_SUBJECTS = ["domino.v1.>"]
DUPLICATE_WINDOW_SECONDS = 120
MAX_AGE_SECONDS = 7 * 24 * 3600  # consumers that are away longer than a week start afresh
NOTIFICATION_HEADER = "Domino-Notification-Id"
ALL_MATCH_EVENTS = "domino.v1.match.>"
ALL_TURNS = "domino.v1.turn.>"


def match_event_subject(match_id, event: str) -> str:
    return f"domino.v1.match.{match_id}.{event}"


def turn_subject(match_id) -> str:
    return f"domino.v1.turn.{match_id}"


def event_msg_id(match_id, version: int) -> str:
    return f"{match_id}:{version}"


def turn_msg_id(match_id, version: int) -> str:
    return f"{match_id}:turn:{version}"


MAX_DELIVER = 5  # a message no consumer could handle in this many tries is given up (and counted)
MAX_PAYLOAD = 64 * 1024  # our largest payload is a few kB; anything bigger is not ours
MAX_ID = 200  # characters of a player id in a payload


class BadMessage(ValueError):
    """A payload that can never be handled: it is terminated, never redelivered."""


@dataclass(frozen=True)
class Turn:
    match_id: str
    version: int
    seat: int
    player_id: str


def _object(data: bytes) -> dict:
    if len(data) > MAX_PAYLOAD:
        raise BadMessage(f"payload of {len(data)} bytes is over {MAX_PAYLOAD}")
    try:
        obj = json.loads(data)
    except (ValueError, UnicodeDecodeError):
        raise BadMessage("payload is not JSON") from None
    if not isinstance(obj, dict):
        raise BadMessage("payload is not a JSON object")
    return obj


def _match_id(obj: dict) -> str:
    value = obj.get("match_id")
    try:
        return str(uuid.UUID(value)) if isinstance(value, str) else _bad("match_id")
    except ValueError:
        return _bad("match_id")


def _whole(obj: dict, key: str, low: int = 0) -> int:
    value = obj.get(key)
    if type(value) is not int or value < low:
        _bad(key)
    return value


def _bad(key: str):
    raise BadMessage(f"{key!r} is missing or not valid")


def read_turn(data: bytes) -> Turn:
    """A `domino.v1.turn.<match>` payload, checked."""
    obj = _object(data)
    player = obj.get("player_id")
    if not isinstance(player, str) or not 0 < len(player) <= MAX_ID:
        _bad("player_id")
    return Turn(_match_id(obj), _whole(obj, "version", 1), _whole(obj, "seat"), player)


def read_match_event(data: bytes) -> tuple[str, int]:
    """(match id, version) of a `domino.v1.match.<match>.<event>` payload, checked."""
    obj = _object(data)
    return _match_id(obj), _whole(obj, "version", 1)


class Warnings:
    """Log a repeated warning at most once every ``seconds`` per kind, with how many were
    held back: a flood of bad messages must not flood the log."""

    def __init__(self, log: logging.Logger, seconds: float = 10.0, clock=time.monotonic) -> None:
        self.log = log
        self.seconds = seconds
        self.clock = clock
        self._last: dict[str, float] = {}
        self._held: dict[str, int] = {}

    def warn(self, kind: str, message: str, **extra) -> bool:
        now = self.clock()
        if now - self._last.get(kind, -self.seconds) < self.seconds:
            self._held[kind] = self._held.get(kind, 0) + 1
            return False
        self._last[kind] = now
        held = self._held.pop(kind, 0)
        self.log.warning(message, extra={**extra, "kind": kind, "held_back": held})
        return True


async def relay_bucket(js, create: bool = True):
    """The relay's key-value bucket (created when missing and ``create``)."""
    from nats.js.errors import BucketNotFoundError

    try:
        return await js.key_value(RELAY_BUCKET)
    except BucketNotFoundError:
        if not create:
            raise
        return await js.create_key_value(bucket=RELAY_BUCKET, history=1)


async def ensure_stream(js, replicas: int | None = None) -> None:
    """Create the stream, or leave an existing one as it is."""
    from nats.js.errors import NotFoundError

    from .config import Settings

    try:
        await js.stream_info(STREAM)
    except NotFoundError:
        await js.add_stream(name=STREAM, subjects=STREAM_SUBJECTS, duplicate_window=DUPLICATE_WINDOW_SECONDS,
                            num_replicas=replicas or Settings().nats_stream_replicas, max_age=MAX_AGE_SECONDS)
