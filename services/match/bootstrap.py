"""Wires the match service: store, application, gRPC server, timers, metrics, signals."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import socket

from typing import Any, Callable

from prometheus_client import REGISTRY, CollectorRegistry, Counter, Gauge, start_http_server

from domino.admin.v1 import match_admin_service_pb2, match_admin_service_pb2_grpc
from domino.match.v1 import match_service_pb2, match_service_pb2_grpc
from services.common import logs
from services.common.change_tail import ChangeTail, OwnWrites, tail_for
from services.common.changes import ChangeFeed
from services.common.auth import ROLES, KeyRing, MissingKeys
from services.common.limits import RateLimit, StreamLimits, limits_of
from services.common.config import Settings, persistence_env
from services.common.grpc_metrics import RpcMetrics
from services.common.grpc_server import drain, mark_serving, new_server
from services.common.gc_pauses import observe_pauses
from services.common.lifecycle import run_service, stop_on_signals
from services.common.revocations import Revocations
from services.common.revocation_polling import poll_revocations

from services.history.view import View

from .application import MatchApplication
from .blocks import Blocks, KeptBlocks, NoBlocks
from .grpc_adapter import MatchAdminServicer, MatchServicer, admin_authentication, authentication
from .head_keys import HeadKeys
from .heads import BadHead, Signer, load_signer
from .history_projection import HistoryProjection
from .in_play_metrics import InPlayCollector
from .open_streams import OpenStreams
from .rules_servicer import serve_rules
from .social_client import GrpcRelations
from .store import FROZEN, EmbeddedStore, NetworkStore
from .stream_record import StreamRecord
from .talk_rpcs import TalkRpcs
from .timers import TurnTimer
from .watching import Watching

log = logging.getLogger("domino.match")
SERVICE_NAME = match_service_pb2.DESCRIPTOR.services_by_name["MatchService"].full_name
ADMIN_SERVICE_NAME = match_admin_service_pb2.DESCRIPTOR.services_by_name["MatchAdminService"].full_name


def create_server(address: str, app: MatchApplication, keys: KeyRing, changes: ChangeFeed | None = None,
                  metrics: RpcMetrics | None = None, watch_safety_seconds: float = 30.0,
                  limits: tuple[StreamLimits, RateLimit] | None = None, settings: Settings | None = None,
                  signer: Signer | None = None, history: View | None = None, tail: ChangeTail | None = None,
                  on_wake: Callable[[str], None] | None = None, keys_dir: str | None = None,
                  revocations: Revocations | None = None, open_streams: OpenStreams | None = None,
                  blocks: Blocks | None = None):
    """(server, port): MatchService on the common gRPC server (health, reflection, metrics;
    ``settings``: its connection policy, reflection and TLS). Its streams learn of changes
    stored by other processes from ``tail`` (by default one made for the app's store), which
    follows the store from the first stream until the server stops. GetHeadKeys serves
    ``keys_dir``'s published head keys (None: the signer's own key). A token of a session
    ``revocations`` lists is refused, and its streams end. Seated players' streams are
    recorded in ``open_streams`` (None: in this process's memory alone). WatchMatch asks
    ``blocks`` who blocks whom at the table (None: nobody does). The staff's MatchAdminService
    (admin_rpcs.py) is served beside MatchService, behind the same interceptors and limits,
    answering from ``history``."""
    streams, rates = limits or (None, None)
    changes = changes or ChangeFeed()
    tail = tail or change_tail(app, changes, watch_safety_seconds)
    revocations = revocations or Revocations()
    open_streams = open_streams or OpenStreams()
    talk = TalkRpcs(app, changes)
    watching = Watching(app, changes, tail, talk_sent=talk.sent, streams=streams, open_streams=open_streams,
                        blocks=blocks, revocations=revocations, on_wake=on_wake)
    servicer = MatchServicer(app, changes, watching, talk, signer=signer, history=history, open_streams=open_streams)
    serve_rules(servicer, HeadKeys(keys_dir, servicer.signer))
    admin = MatchAdminServicer(app, history)

    def add_servicers(server) -> None:
        match_service_pb2_grpc.add_MatchServiceServicer_to_server(servicer, server)
        match_admin_service_pb2_grpc.add_MatchAdminServiceServicer_to_server(admin, server)

    server, port = new_server(address, SERVICE_NAME, add_servicers, metrics, settings,
                              interceptors=[authentication(keys, rates, revocations),
                                            admin_authentication(keys, rates, revocations)],
                              also_serves=[ADMIN_SERVICE_NAME])
    tail.stop_with(server.wait_for_termination)
    return server, port


def change_tail(app: MatchApplication, changes: ChangeFeed, safety_seconds: float = 30.0,
                **counters: Any) -> ChangeTail:
    """The tail that tells ``changes`` what other processes store: LISTEN on PostgreSQL, a
    cheap poll on an embedded store, which reports this process's own appends to it."""
    own = OwnWrites()
    if isinstance(app.store, EmbeddedStore) and not isinstance(app.store, NetworkStore):
        app.store.on_stored = own.note
    return tail_for(app.recorder, changes, own, safety_seconds=safety_seconds, **counters)


async def serve(settings: Settings, ready: asyncio.Event | None = None) -> None:
    env = persistence_env(settings)
    app = MatchApplication(env=env, round_pause_seconds=settings.round_pause_seconds)
    history = View.for_env(env)
    try:
        history.create()  # the relay's projection fills it; created here too so reads never find it missing
    except Exception as error:  # noqa: BLE001 - history is not worth refusing to serve matches
        log.error("the history view could not be created", extra={"error": str(error)[:300]})
    changes = ChangeFeed()
    metrics = RpcMetrics("match")
    tail = change_tail(app, changes, settings.watch_safety_seconds, **tail_counters())
    active = Gauge("domino_match_active_matches", "Matches started and not yet ended")
    keys = KeyRing.load(settings.keys_dir, accepts=ROLES)  # verifies every kind of token (blocks_of: its own)
    signer = head_signer(settings)
    limits = limits_of(settings)
    count_open_streams(limits[0])
    revocations, read_revocations = poll_revocations(settings)  # the account service's list, once a second
    open_streams = open_streams_of(env, settings)
    await open_streams.start()
    relations, blocks = blocks_of(settings)
    Gauge("domino_match_blocks_unanswered", "WatchMatch streams opened without knowing who blocks whom at the "
          "table: the social service did not answer CheckRelations in time, since this process started (they "
          "open as if no block stood)").set_function(lambda: getattr(blocks, "unanswered", 0))
    Gauge("domino_match_open_streams_record_failures", "Writes, reads and lease renewals of the record of open "
          "streams that failed, since this process started (GetTurnAttention's `streaming` may be wrong until "
          "the next renewal rewrites it)").set_function(lambda: open_streams.failures)
    server, port = create_server(settings.match_address, app, keys, changes, metrics, limits=limits,
                                 settings=settings, signer=signer, history=history, tail=tail,
                                 on_wake=count_wakes(), keys_dir=settings.keys_dir, revocations=revocations,
                                 open_streams=open_streams, blocks=blocks)
    timer = TurnTimer(app, on_expired=changes.publish, abandon_after_seconds=settings.abandon_after_seconds)
    active.set_function(lambda: len(timer.active))
    Gauge("domino_match_timer_overdue_seconds", "How long the earliest turn deadline has been due without being "
          "played (0 when none is)").set_function(timer.overdue_seconds)
    Gauge("domino_match_turns_expired", "Turns this process played because their timer ran out, since it "
          "started").set_function(lambda: timer.expired)
    Gauge("domino_match_timer_reads", "Matches the turn timer read because a deadline it armed had passed, since "
          "this process started (a deadline a move superseded is dropped unread)").set_function(lambda: timer.reads)
    Gauge("domino_match_timer_failed_passes", "Timer passes that failed (store away...), since this process "
          "started").set_function(lambda: timer.failed_passes)
    Gauge("domino_match_frozen_matches", "Matches whose stored log replay refuses (frozen, answering DATA_LOSS), "
          "seen by this process since it started").set_function(lambda: len(FROZEN))
    start_http_server(settings.match_metrics_port)
    await server.start()
    await revocations.step()  # what was revoked before it started, unless the account service is away
    await mark_serving(server)
    log.info("match service listening", extra={"port": port, "metrics_port": settings.match_metrics_port,
                                               "tls": bool(settings.tls_cert_file),
                                               "reflection": settings.grpc_reflection})
    stopping = stop_on_signals()
    await tail.started()  # the timer follows the store when the tail hears of an append
    timers = asyncio.create_task(timer.run(stopping, settings.timer_poll_seconds, tail.stored))
    polls = asyncio.create_task(revocations.run(stopping, settings.revocation_poll_seconds))
    leases = asyncio.create_task(open_streams.run(stopping))
    if ready is not None:
        ready.set()
    await stopping.wait()
    log.info("match service stopping: finishing in-flight commands")
    await drain(server, settings.shutdown_grace_seconds, changes)
    await timers
    await polls
    await leases
    await open_streams.aclose()
    if relations is not None:
        await relations.close()
    await read_revocations.close()
    await tail.aclose()
    await app.aclose()
    app.close()
    log.info("match service stopped")


def blocks_of(settings: Settings) -> tuple[GrpcRelations | None, Blocks]:
    """(the social service's client, to close at the end; who blocks whom at a table, asked
    of it with this service's own `service` token: service.key in DOMINO_KEYS_DIR, without
    which the process refuses to start). DOMINO_SOCIAL_ADDRESS empty: no social service, no
    block checked."""
    if not settings.social_address:
        return None, NoBlocks()
    keys = KeyRing.load(settings.keys_dir, issues=("service",))
    relations = GrpcRelations(settings.social_address, keys, settings.match_blocks_call_seconds)
    return relations, KeptBlocks(relations.blocked, settings.match_blocks_cache_seconds)


def open_streams_of(env: dict[str, str], settings: Settings) -> OpenStreams:
    """The record of open streams every replica of the store shares (in memory for a store
    in memory). A replica is named by its host and metrics port, so one restarted in the same
    place (a pod's worker) clears what it recorded before."""
    if not env.get("PERSISTENCE_MODULE"):
        return OpenStreams()
    return OpenStreams(StreamRecord.for_env(env), f"{socket.gethostname()}:{settings.match_metrics_port}")


def count_open_streams(streams: StreamLimits, registry: CollectorRegistry = REGISTRY) -> Gauge:
    """The gauge of the open WatchMatch streams by kind, read from the limits that count them:
    how much of the spectators' share (DOMINO_SPECTATOR_STREAMS_PER_PROCESS) is in use."""
    gauge = Gauge("domino_match_open_streams", "WatchMatch streams open on this process, by kind: seated "
                  "(players, bots, services, auditors) or spectator", ["kind"], registry=registry)
    gauge.labels("seated").set_function(lambda: streams.seated)
    gauge.labels("spectator").set_function(lambda: streams.spectators)
    return gauge


def tail_counters(registry: CollectorRegistry = REGISTRY) -> dict[str, Any]:
    """The change tail's counters, as the callbacks ``change_tail`` passes it."""
    reads = Counter("domino_match_change_tail_reads_total", "Reads of what changed in the store made by this "
                    "process's change tail, by why: connect (after (re)connecting), gap (a notification "
                    "missing or without ids), safety (DOMINO_WATCH_SAFETY_SECONDS without one), poll (an "
                    "embedded store's tail found something new)", ["why"], registry=registry)
    errors = Counter("domino_match_change_tail_errors_total", "Failures of the change tail (its LISTEN connection "
                     "lost, a read that failed); streams learn of changes made elsewhere once it is back",
                     registry=registry)
    return {"on_read": lambda why: reads.labels(why).inc(), "on_error": errors.inc}


def count_wakes(registry: CollectorRegistry = REGISTRY) -> Callable[[str], None]:
    """The callback a servicer counts its streams' wakes with."""
    wakes = Counter("domino_match_watch_wakes_total", "WatchMatch stream wakes on this process, by cause: local (a "
                    "change made through this process), push (one another process stored, told by the change "
                    "tail), safety (found by the tail's safety-net read: a lost notification). Streams never wake "
                    "on a timer", ["cause"], registry=registry)
    for cause in ("local", "push", "safety"):
        wakes.labels(cause)
    return lambda cause: wakes.labels(cause).inc()


def head_signer(settings: Settings) -> Signer:
    """The head signing key, beside the token keys in DOMINO_KEYS_DIR (heads.key, published
    in heads-keys.json); a process without it refuses to start and says so."""
    if not settings.keys_dir:
        raise MissingKeys("DOMINO_KEYS_DIR is not set; it must hold heads.key and heads-keys.json "
                          "(`domino up` makes development keys under var/keys)")
    try:
        return load_signer(settings.keys_dir)
    except BadHead as e:
        raise MissingKeys(str(e)) from None


def main() -> None:
    settings = Settings()
    logs.configure(settings.log_format, settings.log_level)
    observe_pauses()  # before the fork: each worker observes its own collections
    workers = []
    for worker in range(1, settings.match_workers):
        # Fork before any gRPC server or event loop exists, as gRPC requires.
        pid = os.fork()
        if pid == 0:
            worker_settings = settings.model_copy(update={"match_metrics_port": settings.match_metrics_port + worker})
            asyncio.run(serve(worker_settings))
            os._exit(0)
        workers.append(pid)
    try:
        asyncio.run(serve(settings))
    finally:
        for pid in workers:  # the first process got the signal; the others stop with it
            os.kill(pid, signal.SIGTERM)
        for pid in workers:
            os.waitpid(pid, 0)


async def serve_relay(settings: Settings, ready: asyncio.Event | None = None) -> None:
    from services.common import bus
    from prometheus_client import Counter

    from .relay import Relay
    from .store_listener import listener_for

    signer = head_signer(settings)
    env = persistence_env(settings)
    app = MatchApplication(env=env)
    refused = Counter("domino_history_result_mismatch_total", "Matches whose stored end replay refuses (a stored "
                      "result that disagrees with the replay, or another edit): not recorded in history or ratings")
    projection = HistoryProjection(app, View.for_env(env), on_refused=refused.inc)
    await asyncio.to_thread(projection.start)
    nc = await bus.connect(settings, "relay")
    published = Counter("domino_relay_published_total", "Events published to JetStream", ["duplicate"])
    relay = Relay(app, nc.jetstream(), on_publish=lambda duplicate: published.labels(str(duplicate).lower()).inc(),
                  signer=signer)
    Gauge("domino_relay_witnessed", "Final heads of finished matches the witness stream stored, since this "
          "process started").set_function(lambda: relay.witnessed)
    Gauge("domino_relay_witness_failures", "Final heads the witness stream did not store (full or away), since "
          "this process started").set_function(lambda: relay.witness_failures)
    await relay.start()
    Gauge("domino_relay_lag_events", "Stored events not yet published").set_function(lambda: relay.stats.lag_events)
    Gauge("domino_relay_lag_seconds", "Age of the newest event when it was published").set_function(
        lambda: relay.stats.lag_seconds)
    Gauge("domino_history_lag_events", "Stored events the history projection has not applied yet").set_function(
        lambda: projection.lag_events)
    REGISTRY.register(InPlayCollector(projection.view.tables_in_play))
    start_http_server(settings.relay_metrics_port)
    log.info("relay started", extra={"position": relay.position, "history_position": projection.position,
                                     "nats": settings.nats_url})
    stopping = stop_on_signals()
    if ready is not None:
        ready.set()
    history = asyncio.create_task(projection.run(stopping, moved=relay.moved))
    await relay.run(stopping, listener=listener_for(app.recorder))
    await history
    await nc.drain()
    app.close()
    log.info("relay stopped")


def relay_main() -> None:
    run_service(serve_relay)
