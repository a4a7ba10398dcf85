"""The NATS subjects and the JetStream stream: the one place they are defined.

    domino.v1.match.<match_id>.<event>   every stored match event, public fields only
                                         (event: match_started, round_dealt, tile_played,
                                         tile_drawn, turn_passed, round_ended, match_ended,
                                         seat_away, seat_returned, seat_left, seed_submitted,
                                         seeds_closed)
    domino.v1.turn.<match_id>            a bot's seat is to act: {match_id, version, seat,
                                         player_id, round, turn_no, deadline} (the bots
                                         are its only reader; a person's turn goes on
                                         seat_turn, below)

    domino.v1.seat_turn.<match_id>       a person's seat is to act: the same payload as a
                                         bot's turn; the notifier's only ("your turn" pushes
                                         to a player whose app is closed)
    domino.v1.notice.<kind>              a notification the social service stored:
                                         {notification_id, player_id, kind} (the notifier
                                         claims it from the social service, which holds the
                                         rest); kind is NotificationKind's name, lower case

    domino.witness.v1.<match_id>         the signed chain head of a finished match
                                         (services/match/heads.py), in its own stream

All but the last live in the JetStream stream DOMINO; the witness heads live in
DOMINO_WITNESS, which denies deleting and purging and refuses (not forgets) what would
not fit, so what it holds stays, outside the database (docs/security.md). Every message carries `Nats-Msg-Id`
(`<match>:<version>` for events, `<match>:turn:<version>` for a bot's turn,
`<match>:seat_turn:<version>` for a person's), so a relay that
publishes again after a crash is de-duplicated by the server, and
`Domino-Notification-Id`, the store position it was published from, from which a
restarted relay resumes. Payloads are JSON. The `v1` is the version of this contract.
"""

from __future__ import annotations

import json
import logging
import re
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, NoReturn, TypeVar

if TYPE_CHECKING:
    from nats.js import JetStreamContext
    from nats.js.kv import KeyValue

T = TypeVar("T")

STREAM = "DOMINO"
RELAY_BUCKET = "DOMINO_RELAY"  # key-value bucket where the relay keeps its position (only it writes there)
RELAY_POSITION_KEY = "position"
STREAM_SUBJECTS = ["domino.v1.>"]
DUPLICATE_WINDOW_SECONDS = 120
MAX_AGE_SECONDS = 7 * 24 * 3600  # consumers that are away longer than a week start afresh
NOTIFICATION_HEADER = "Domino-Notification-Id"
WITNESS_STREAM = "DOMINO_WITNESS"
WITNESS_SUBJECTS = ["domino.witness.v1.>"]
WITNESS_MAX_BYTES = 8 * 1024**3  # ~20 million heads; when full, new heads are refused and the relay says so
WITNESS_DUPLICATE_WINDOW_SECONDS = 3600
ALL_MATCH_EVENTS = "domino.v1.match.>"
ALL_TURNS = "domino.v1.turn.>"
ALL_SEAT_TURNS = "domino.v1.seat_turn.>"
ALL_NOTICES = "domino.v1.notice.>"


def match_event_subject(match_id, event: str) -> str:
    return f"domino.v1.match.{match_id}.{event}"


def turn_subject(match_id) -> str:
    return f"domino.v1.turn.{match_id}"


def seat_turn_subject(match_id) -> str:
    return f"domino.v1.seat_turn.{match_id}"


def seat_turn_msg_id(match_id, version: int) -> str:
    return f"{match_id}:seat_turn:{version}"


def notice_subject(kind: str) -> str:
    return f"domino.v1.notice.{kind}"


def notice_msg_id(notification_id) -> str:
    return f"notice:{notification_id}"


def event_msg_id(match_id, version: int) -> str:
    return f"{match_id}:{version}"


def turn_msg_id(match_id, version: int) -> str:
    return f"{match_id}:turn:{version}"


def witness_subject(match_id) -> str:
    return f"domino.witness.v1.{match_id}"


def witness_msg_id(match_id, version: int) -> str:
    return f"witness:{match_id}:{version}"


# The durable consumers (services/common/consumers.py says what each one is). Each pushes
# to its own deliver subject, outside every stream's subjects, that only its user may read.
BOTS_CONSUMER = "bots"
MATCH_ENDED_CONSUMER = "matchmaking"
SEAT_LEFT_CONSUMER = "matchmaking-leaves"
NOTICES_CONSUMER = "notifier"  # domino.v1.notice.>: push what the social service stored
SEAT_TURNS_CONSUMER = "notifier-turns"  # domino.v1.seat_turn.>: "your turn" to a closed app
NOTIFIER_ENDS_CONSUMER = "notifier-ends"  # match_ended: results and rating changes to the inbox


def deliver_subject(consumer: str) -> str:
    return f"domino.deliver.v1.{consumer}"


# NATS users and what each may do (nats-server `authorization`): only the relay publishes
# events and turns; matchmaking and bots only consume what they read, through their own
# durable consumers, which they may read (INFO) and acknowledge, never create, change or
# delete: only `admin` (`domino nats setup`) creates or changes streams and consumers, so a
# stolen service password cannot re-point a consumer. Every JetStream client also needs its
# replies, each user on its own inbox prefix.
def _consumer(durable: str) -> list[str]:
    return [f"$JS.API.CONSUMER.INFO.{STREAM}.{durable}", f"$JS.ACK.{STREAM}.{durable}.>"]


_READ_STREAM = ["$JS.API.INFO", f"$JS.API.STREAM.INFO.{STREAM}", "$JS.API.STREAM.NAMES"]
_READ_WITNESS = [f"$JS.API.STREAM.INFO.{WITNESS_STREAM}", f"$JS.API.STREAM.MSG.GET.{WITNESS_STREAM}",
                 f"$JS.API.DIRECT.GET.{WITNESS_STREAM}.>"]
NATS_USERS = ("admin", "relay", "matchmaking", "bots", "auditor", "social", "notifier")
def inbox_prefix(user: str) -> str:
    """Each user's replies come to its own inboxes: no user may read another's (a bots
    process cannot listen to what matchmaking pulls from its consumer)."""
    return f"_INBOX_{user}"


NATS_PERMISSIONS: dict[str, dict[str, list[str]]] = {
    "admin": {"publish": [">"], "subscribe": [">"]},
    "relay": {"publish": ["domino.v1.match.>", "domino.v1.turn.>", ALL_SEAT_TURNS, *_READ_STREAM,
                          f"$JS.API.STREAM.MSG.GET.{STREAM}", f"$JS.API.DIRECT.GET.{STREAM}.>", f"$JS.API.STREAM.INFO.KV_{RELAY_BUCKET}",
                          f"$KV.{RELAY_BUCKET}.>", f"$JS.API.STREAM.MSG.GET.KV_{RELAY_BUCKET}",
                          f"$JS.API.DIRECT.GET.KV_{RELAY_BUCKET}.>", "domino.witness.v1.>", *_READ_WITNESS],
              "subscribe": [f"{inbox_prefix('relay')}.>"]},
    # `domino audit witness`: reads the witness stream, nothing else
    "auditor": {"publish": ["$JS.API.INFO", *_READ_WITNESS], "subscribe": [f"{inbox_prefix('auditor')}.>"]},
    "matchmaking": {"publish": [*_consumer(MATCH_ENDED_CONSUMER), *_consumer(SEAT_LEFT_CONSUMER)],
                    "subscribe": [f"{inbox_prefix('matchmaking')}.>", deliver_subject(MATCH_ENDED_CONSUMER),
                                  deliver_subject(SEAT_LEFT_CONSUMER)]},
    "bots": {"publish": _consumer(BOTS_CONSUMER),
             "subscribe": [f"{inbox_prefix('bots')}.>", deliver_subject(BOTS_CONSUMER)]},
    # the social service publishes the notifications it stored, nothing else, and hears them
    # (a core subscription, no consumer) to wake its replicas' WatchNotifications streams
    "social": {"publish": [ALL_NOTICES, *_READ_STREAM], "subscribe": [f"{inbox_prefix('social')}.>", ALL_NOTICES]},
    "notifier": {"publish": [*_consumer(NOTICES_CONSUMER), *_consumer(SEAT_TURNS_CONSUMER),
                             *_consumer(NOTIFIER_ENDS_CONSUMER)],
                 "subscribe": [f"{inbox_prefix('notifier')}.>", deliver_subject(NOTICES_CONSUMER),
                               deliver_subject(SEAT_TURNS_CONSUMER), deliver_subject(NOTIFIER_ENDS_CONSUMER)]},
}


def authorization_conf(passwords: dict[str, str]) -> str:
    """The nats-server `authorization` block for these users (user -> password; a value of
    the form `$NAME` is left for nats-server to read from its environment)."""
    def quoted(items: list[str]) -> str:
        return "[" + ", ".join(json.dumps(i) for i in items) + "]"

    users = []
    for user in NATS_USERS:
        password = passwords[user]
        secret = password if password.startswith("$") else json.dumps(password)
        perms = NATS_PERMISSIONS[user]
        users.append(f'    {{user: {json.dumps(user)}, password: {secret}, permissions: {{'
                     f'publish: {quoted(perms["publish"])}, subscribe: {quoted(perms["subscribe"])}}}}}')
    return "authorization {\n  users = [\n" + ",\n".join(users) + "\n  ]\n}\n"


async def connect(settings, name: str, **options):
    """A NATS connection with this service's credentials (none for a server without
    authorization, as in tests); nats-py reconnects by itself."""
    import nats

    credentials = {"user": settings.nats_user, "password": settings.nats_password,
                   "inbox_prefix": inbox_prefix(settings.nats_user)} if settings.nats_user else {}
    return await nats.connect(settings.nats_url, **{"name": name, "max_reconnect_attempts": -1, **credentials,
                                                    **options})


async def wait_for_stream(js, stopping=None, seconds: float = 2.0) -> None:
    """Wait until the admin has created the stream (services never create or change it)."""
    import asyncio

    from nats.js.errors import NotFoundError

    while True:
        try:
            await js.stream_info(STREAM)
            return
        except NotFoundError:
            logging.getLogger("domino.bus").warning("the stream does not exist yet; run `domino nats setup`",
                                                    extra={"stream": STREAM})
        if stopping is not None and stopping.is_set():
            return
        await asyncio.sleep(seconds)


MAX_DELIVER = 5  # a message no consumer could handle in this many tries is given up (and counted)
MAX_PAYLOAD = 64 * 1024  # our largest payload is a few kB; anything bigger is not ours
MAX_ID = 200  # characters of a player id in a payload
MAX_VERSION = 2**31 - 1  # a match has far fewer events; the gRPC API carries versions as 32-bit numbers
MAX_SEATS = 4  # no rule family seats more (docs/rules.md)


class BadMessage(ValueError):
    """A payload that can never be handled: it is terminated, never redelivered."""


@dataclass(frozen=True)
class Turn:
    match_id: str
    version: int
    seat: int
    player_id: str
    round: int = 0  # with turn_no, names the turn: a draw adds a version, not a turn
    turn_no: int = 0


def _object(data: bytes) -> dict:
    if len(data) > MAX_PAYLOAD:
        raise BadMessage(f"payload of {len(data)} bytes is over {MAX_PAYLOAD}")
    obj = json.loads(data)
    if not isinstance(obj, dict):
        raise BadMessage("payload is not a JSON object")
    return obj


def _match_id(obj: dict) -> str:
    value = obj.get("match_id")
    try:
        return str(uuid.UUID(value)) if isinstance(value, str) else _bad("match_id")
    except ValueError:
        return _bad("match_id")


def _whole(obj: dict, key: str, low: int, high: int) -> int:
    value = obj.get(key)
    if type(value) is not int or not low <= value <= high:
        _bad(key)
    return value


def _bad(key: str) -> NoReturn:
    raise BadMessage(f"{key!r} is missing or not valid")


def _checked(read: Callable[[bytes], T], data: bytes) -> T:
    """``read(data)``, or BadMessage whatever the payload made it raise. Reading a payload is
    pure, so any error is the payload's fault and trying again cannot help: 10,000 nested
    brackets raise RecursionError, a number of 5,000 digits ValueError, a lone surrogate
    UnicodeError. Each must end as a dropped, counted message, not as an exception that
    escapes the consumer and comes back five times."""
    try:
        return read(data)
    except BadMessage:
        raise
    except Exception as e:  # noqa: BLE001 - see above: whatever a payload raises, it is not ours
        raise BadMessage(f"payload cannot be read ({type(e).__name__})") from None


def _player(obj: dict) -> str:
    player = obj.get("player_id")
    if not isinstance(player, str) or not 0 < len(player) <= MAX_ID:
        _bad("player_id")
    player.encode("utf-8")  # a lone surrogate would only fail later, in the gRPC call
    return player


@dataclass(frozen=True)
class Notice:
    notification_id: str
    player_id: str
    kind: str


_NOTICE_KIND = re.compile(r"[a-z_]{1,40}")


def _notice(data: bytes) -> Notice:
    obj = _object(data)
    value = obj.get("notification_id")
    if not isinstance(value, str) or len(value) != 36:
        _bad("notification_id")
    try:
        notification_id = str(uuid.UUID(value))
    except ValueError:
        _bad("notification_id")
    player = _player(obj)
    kind = obj.get("kind")
    if not isinstance(kind, str) or not _NOTICE_KIND.fullmatch(kind):
        _bad("kind")
    return Notice(notification_id, player, kind)


def _turn(data: bytes) -> Turn:
    obj = _object(data)
    player = _player(obj)
    return Turn(_match_id(obj), _whole(obj, "version", 1, MAX_VERSION), _whole(obj, "seat", 0, MAX_SEATS - 1), player,
                _whole(obj, "round", 1, MAX_VERSION) if "round" in obj else 0,
                _whole(obj, "turn_no", 0, MAX_VERSION) if "turn_no" in obj else 0)


def _match_event(data: bytes) -> tuple[str, int]:
    obj = _object(data)
    return _match_id(obj), _whole(obj, "version", 1, MAX_VERSION)


def read_turn(data: bytes) -> Turn:
    """A `domino.v1.turn.<match>` payload, checked; BadMessage for anything else."""
    return _checked(_turn, data)


def read_notice(data: bytes) -> Notice:
    """A `domino.v1.notice.<kind>` payload, checked (what the notifier pushes comes from
    ClaimPush, never from the message); BadMessage for anything else."""
    return _checked(_notice, data)


def read_match_event(data: bytes) -> tuple[str, int]:
    """(match id, version) of a `domino.v1.match.<match>.<event>` payload, checked;
    BadMessage for anything else."""
    return _checked(_match_event, data)


async def relay_bucket(js: JetStreamContext, create: bool = False) -> KeyValue:
    """The relay's key-value bucket (created when missing and ``create``)."""
    from nats.js.errors import BucketNotFoundError

    try:
        return await js.key_value(RELAY_BUCKET)
    except BucketNotFoundError:
        if not create:
            raise
        return await js.create_key_value(bucket=RELAY_BUCKET, history=1)


async def ensure_stream(js, replicas: int | None = None) -> None:
    """Create the stream and the relay's bucket, or leave existing ones as they are (the
    admin's setup: `domino nats setup`, and tests)."""
    from nats.js.errors import NotFoundError

    from .config import Settings

    try:
        await js.stream_info(STREAM)
    except NotFoundError:
        await js.add_stream(name=STREAM, subjects=STREAM_SUBJECTS, duplicate_window=DUPLICATE_WINDOW_SECONDS,
                            num_replicas=replicas or Settings().nats_stream_replicas, max_age=MAX_AGE_SECONDS)
    await relay_bucket(js, create=True)
    await ensure_witness_stream(js, replicas)


async def ensure_witness_stream(js, replicas: int | None = None) -> None:
    """The witness stream: append-only (no delete, no purge, no expiry) and bounded by
    refusing new heads when full (DiscardPolicy.NEW), never by dropping old ones."""
    from nats.js.api import DiscardPolicy, StreamConfig
    from nats.js.errors import NotFoundError

    from .config import Settings

    try:
        await js.stream_info(WITNESS_STREAM)
    except NotFoundError:
        await js.add_stream(StreamConfig(
            name=WITNESS_STREAM, subjects=WITNESS_SUBJECTS, deny_delete=True, deny_purge=True,
            discard=DiscardPolicy.NEW, max_bytes=WITNESS_MAX_BYTES, duplicate_window=WITNESS_DUPLICATE_WINDOW_SECONDS,
            num_replicas=replicas or Settings().nats_stream_replicas, allow_direct=True))
