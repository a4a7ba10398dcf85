"""The durable JetStream consumers: what each one is, made by the admin alone, and bound by
the services only as made.

A service that may create its consumer may also change it: NATS treats a create with the
same name and another configuration as an update. A stolen bots password once re-pointed
the bots' consumer at another deliver subject; the bots then got nothing, failed on every
start until an admin deleted the consumer, and a new password did not help. So:

- `domino nats setup` (the admin) creates every consumer here and puts back one that
  differs (`ensure_consumers`); the service users may only read their consumer's info and
  acknowledge its messages (services/common/bus.py `NATS_PERMISSIONS`).
- A service reads its consumer before subscribing and binds only to the configuration
  written here (`bind`); one that is missing or differs is refused, logged as an error and
  shown by the gauge `domino_bus_consumer_config_mismatch`, and asked again every few
  seconds (`bind_when_ready`), so running the setup again is the whole repair.

Push consumers with a fixed deliver subject, not pull consumers: a pull request's reply
subject is wherever the requester says, nats-server checks no permission on it, and
JetStream then publishes the stream's messages there, into the witness stream if asked
(docs/security.md, "NATS").
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from dataclasses import dataclass
from typing import Any, Awaitable, Callable

from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy, ReplayPolicy
from nats.js.errors import APIError, NotFoundError

from . import bus

log = logging.getLogger("domino.bus")

MAX_ACK_PENDING = 256
#: What a service checks of its consumer: where its messages go, which ones, whole or not,
#: how fast, and how they are acknowledged and retried. Where it started (deliver_policy,
#: opt_start_seq) is not checked: the setup keeps it when it puts a consumer back.
CHECKED = ("durable_name", "deliver_subject", "deliver_group", "filter_subject", "filter_subjects", "ack_policy",
           "ack_wait", "max_deliver", "max_ack_pending", "backoff", "headers_only", "replay_policy",
           "rate_limit_bps", "sample_freq", "flow_control", "idle_heartbeat", "inactive_threshold", "mem_storage")


@dataclass(frozen=True)
class ConsumerSpec:
    name: str
    filter_subject: str
    ack_wait: float = 30.0

    @property
    def deliver_subject(self) -> str:
        return bus.deliver_subject(self.name)

    def config(self, start_seq: int = 0) -> ConsumerConfig:
        """The consumer as the setup creates it (from ``start_seq`` when one is put back)."""
        policy = DeliverPolicy.BY_START_SEQUENCE if start_seq > 0 else DeliverPolicy.ALL
        return ConsumerConfig(name=self.name, durable_name=self.name, deliver_subject=self.deliver_subject,
                              deliver_group=self.name, filter_subject=self.filter_subject,
                              ack_policy=AckPolicy.EXPLICIT, ack_wait=self.ack_wait, max_deliver=bus.MAX_DELIVER,
                              max_ack_pending=MAX_ACK_PENDING, replay_policy=ReplayPolicy.INSTANT,
                              deliver_policy=policy, opt_start_seq=start_seq or None)


def bots(ack_wait: float) -> ConsumerSpec:
    """The bots' turns; ``ack_wait`` is DOMINO_BOT_ACK_WAIT_SECONDS, the setup's and the bots' alike."""
    return ConsumerSpec(bus.BOTS_CONSUMER, bus.ALL_TURNS, ack_wait)


MATCH_ENDED = ConsumerSpec(bus.MATCH_ENDED_CONSUMER, bus.match_event_subject("*", "match_ended"))
SEAT_LEFT = ConsumerSpec(bus.SEAT_LEFT_CONSUMER, bus.match_event_subject("*", "seat_left"))


NOTICES = ConsumerSpec(bus.NOTICES_CONSUMER, bus.ALL_NOTICES)
SEAT_TURNS = ConsumerSpec(bus.SEAT_TURNS_CONSUMER, bus.ALL_SEAT_TURNS)
NOTIFIER_ENDS = ConsumerSpec(bus.NOTIFIER_ENDS_CONSUMER, bus.match_event_subject("*", "match_ended"))


def every(bot_ack_wait: float) -> tuple[ConsumerSpec, ...]:
    return (bots(bot_ack_wait), MATCH_ENDED, SEAT_LEFT, NOTICES, SEAT_TURNS, NOTIFIER_ENDS)


def _same(field: str, actual: Any, expected: Any) -> bool:
    """NATS answers a default as absent (None) or as its value (False, 0, [], "instant")."""
    actual = getattr(actual, "value", actual)  # an enum, or the string NATS answered
    expected = getattr(expected, "value", expected)
    if field == "replay_policy":
        actual, expected = actual or ReplayPolicy.INSTANT.value, expected or ReplayPolicy.INSTANT.value
    if isinstance(actual, float) or isinstance(expected, float):
        return abs(float(actual or 0) - float(expected or 0)) < 1e-3
    return (actual or None) == (expected or None)


def differences(actual: ConsumerConfig, spec: ConsumerSpec) -> list[str]:
    """``field: actual (expected ...)`` for each CHECKED field of ``actual`` that is not as ``spec`` makes it."""
    expected = spec.config()
    return [f"{field}: {getattr(actual, field)!r} (expected {getattr(expected, field)!r})" for field in CHECKED
            if not _same(field, getattr(actual, field), getattr(expected, field))]


def from_stream(msg) -> bool:
    """Whether JetStream delivered ``msg``: it then carries an acknowledgement subject. Only
    the admin may publish on a deliver subject, but any user's JetStream API request may name
    it as its reply subject and have NATS's answer land there."""
    return bool(msg.reply) and msg.reply.startswith(f"$JS.ACK.{bus.STREAM}.")


class ConsumerNotReady(RuntimeError):
    """The consumer is missing, or not as `domino nats setup` makes it: the service does not consume."""

    def __init__(self, spec: ConsumerSpec, problems: list[str]) -> None:
        self.consumer = spec.name
        self.problems = problems
        super().__init__(f"consumer {spec.name}: " + "; ".join(problems))


async def ensure_consumers(js, specs: tuple[ConsumerSpec, ...]) -> dict[str, str]:
    """The admin's part: create each consumer, keep one that is as ``specs`` says, and put
    back one that differs (updated in place where NATS allows it, else made again from the
    first message it had not acknowledged, so nothing is skipped). What was done, by name."""
    done: dict[str, str] = {}
    for spec in specs:
        try:
            info = await js.consumer_info(bus.STREAM, spec.name)
        except NotFoundError:
            await js.add_consumer(bus.STREAM, spec.config())
            done[spec.name] = "created"
            continue
        if not differences(info.config, spec):
            done[spec.name] = "kept"
            continue
        log.warning("consumer differs from its configuration; putting it back",
                    extra={"consumer": spec.name, "differences": differences(info.config, spec)})
        kept = dataclasses.replace(spec.config(), deliver_policy=info.config.deliver_policy,
                                   opt_start_seq=info.config.opt_start_seq, opt_start_time=info.config.opt_start_time)
        try:
            updated = await js.add_consumer(bus.STREAM, kept)
            if differences(updated.config, spec):
                raise APIError(description="the update was not applied in full")
            done[spec.name] = "updated"
        except APIError:
            await js.delete_consumer(bus.STREAM, spec.name)
            await js.add_consumer(bus.STREAM, spec.config(start_seq=info.ack_floor.stream_seq + 1))
            done[spec.name] = "replaced"
    return done


async def bind(js, spec: ConsumerSpec, cb: Callable[..., Awaitable[None]]):
    """Subscribe to ``spec``'s deliver subject once its consumer is exactly as the setup made
    it; ConsumerNotReady otherwise. Never creates or changes the consumer."""
    try:
        info = await js.consumer_info(bus.STREAM, spec.name)
    except NotFoundError:
        raise ConsumerNotReady(spec, ["does not exist: run `domino nats setup`"]) from None
    problems = differences(info.config, spec)
    if problems:
        raise ConsumerNotReady(spec, problems)
    return await js.subscribe_bind(bus.STREAM, spec.config(), spec.name, cb=cb, manual_ack=True)


async def bind_when_ready(js, spec: ConsumerSpec, cb: Callable[..., Awaitable[None]],
                          stopping: asyncio.Event | None = None,
                          on_mismatch: Callable[[str, bool], None] = lambda consumer, mismatched: None,
                          seconds: float = 2.0):
    """``bind``, asked again every ``seconds`` while the consumer is missing or differs (None:
    stopped first). A differing consumer is logged as an error (again when what differs
    changes) and ``on_mismatch(name, True)`` raises the gauge until it is put back."""
    reported: list[str] = []
    while True:
        try:
            subscription = await bind(js, spec, cb)
        except ConsumerNotReady as e:
            on_mismatch(spec.name, True)
            if e.problems != reported:
                reported = e.problems
                log.error("refusing to consume: the consumer is not as `domino nats setup` makes it; run "
                          "`domino nats setup` to put it back", extra={"consumer": spec.name, "problems": e.problems})
        else:
            on_mismatch(spec.name, False)
            return subscription
        if stopping is None:
            await asyncio.sleep(seconds)
            continue
        try:
            await asyncio.wait_for(stopping.wait(), seconds)
            return None
        except asyncio.TimeoutError:
            pass


async def start_when_reachable(start: Callable[[asyncio.Event], Awaitable[Any]], stopping: asyncio.Event,
                               nats_url: str, what: str, seconds: float = 2.0) -> None:
    """``start(stopping)``, asked again every ``seconds`` while NATS is away or answers with an
    error, until ``stopping`` (a consumer missing or not as the setup made it is waited for
    inside ``start``, by ``bind_when_ready``)."""
    while not stopping.is_set():
        try:
            await start(stopping)
            return
        except Exception as e:
            log.warning(f"cannot consume {what} yet; retrying", extra={"nats": nats_url, "error": str(e)})
            try:
                await asyncio.wait_for(stopping.wait(), seconds)
            except asyncio.TimeoutError:
                pass
