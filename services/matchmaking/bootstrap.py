"""Wires matchmaking: store, application, the match service's clients (matches and ratings),
the account and social services' clients, gRPC server, the bot fill and start-again timers, the NATS consumer of match ends, metrics,
signals."""

from __future__ import annotations

import asyncio
import contextlib
import logging

from prometheus_client import Counter, start_http_server

from domino.matchmaking.v1 import matchmaking_service_pb2, matchmaking_service_pb2_grpc
from services.common.auth import KeyRing
from services.common.limits import RateLimit, StreamLimits, limits_of
from services.common.config import Settings
from services.common.grpc_metrics import RpcMetrics
from services.common.grpc_server import drain, mark_serving, new_server
from services.common.lifecycle import run_service, stop_on_signals
from services.common.change_tail import tail_for
from services.common.changes import ChangeFeed
from services.common.revocation_polling import poll_revocations
from services.common.revocations import Revocations

from .application import MatchmakingApplication
from .grpc_adapter import MatchmakingServicer
from .account_client import GrpcStandings
from .match_client import GrpcMatchCreator, GrpcRatings
from .social_client import GrpcSocial
from .metrics import PrometheusObserver
from .settings import matchmaking_persistence_env

log = logging.getLogger("domino.matchmaking")
SERVICE_NAME = matchmaking_service_pb2.DESCRIPTOR.services_by_name["MatchmakingService"].full_name


def create_server(address: str, app: MatchmakingApplication, keys: KeyRing, changes: ChangeFeed | None = None,
                  metrics: RpcMetrics | None = None, watch_poll_seconds: float = 1.0,
                  limits: tuple[StreamLimits, RateLimit] | None = None, settings: Settings | None = None,
                  revocations: Revocations | None = None):
    """(server, port): MatchmakingService on the common gRPC server (health, reflection,
    metrics; ``settings``: its connection policy, reflection and TLS). Pass the same
    ChangeFeed the application reports its changes to, so watchers wake at once. A token of
    a session ``revocations`` lists is refused, and its streams end."""
    servicer = MatchmakingServicer(app.rooms, app.tables, app.players, keys, changes or ChangeFeed(),
                                   watch_poll_seconds, limits, app.clock, revocations, app.invites, app.rematches)
    return new_server(
        address, SERVICE_NAME,
        lambda server: matchmaking_service_pb2_grpc.add_MatchmakingServiceServicer_to_server(servicer, server), metrics,
        settings)


async def run_timers(app: MatchmakingApplication, stopping: asyncio.Event, poll_seconds: float = 1.0) -> None:
    """Fill long-waiting public tables with bots; start matches whose start was interrupted;
    post the invite notifications the social service has not stored yet; start the rematch
    rooms whose invites have all been answered or run out."""
    while not stopping.is_set():
        try:
            await asyncio.to_thread(app.pending_starts.follow_store)  # first: it names what changed
            await asyncio.to_thread(app.tables.fill_waiting_tables)
            await asyncio.to_thread(app.pending_starts.step)
            await asyncio.to_thread(app.notices.step)
            await asyncio.to_thread(app.rematches.start_unanswered)
        except Exception:  # a fault in one pass must not stop the next
            log.exception("matchmaking timer pass failed")
        try:
            await asyncio.wait_for(stopping.wait(), poll_seconds)
        except asyncio.TimeoutError:
            pass


async def follow_match_ends(app: MatchmakingApplication, settings: Settings, stopping: asyncio.Event) -> None:
    """Consume match_ended from JetStream until stopping; (re)connects while NATS is away, so
    seating players never waits for NATS."""
    from services.common import bus
    from services.common.bus_metrics import BusMetrics

    from .match_end_consumer import MatchEndConsumer

    handled = Counter("domino_matchmaking_match_ends_total", "match_ended messages handled, by outcome", ["outcome"])
    bus_metrics = BusMetrics()

    nc = consumer = None
    while not stopping.is_set() and consumer is None:
        try:
            nc = nc or await bus.connect(settings, "matchmaking")
            consumer = MatchEndConsumer(nc.jetstream(), app,
                                        on_message=bus_metrics.outcomes("matchmaking",
                                                                        lambda outcome: handled.labels(outcome).inc()),
                                        on_mismatch=bus_metrics.on_mismatch)
            await consumer.start(stopping)
        except Exception as e:
            if consumer is not None:  # bound to one of its consumers, perhaps: let go before trying again
                with contextlib.suppress(Exception):
                    await consumer.stop()
            consumer = None
            log.warning("cannot consume match ends yet; retrying", extra={"nats": settings.nats_url, "error": str(e)})
            try:
                await asyncio.wait_for(stopping.wait(), 2.0)
            except asyncio.TimeoutError:
                pass
    if consumer is not None:
        log.info("consuming match ends", extra={"nats": settings.nats_url})
        await stopping.wait()
        await consumer.stop()
    if nc is not None:
        await nc.drain()


async def serve(settings: Settings, ready: asyncio.Event | None = None) -> None:
    changes = ChangeFeed()
    keys = KeyRing.load(settings.keys_dir, issues=("service",), accepts=("player",))
    creator = GrpcMatchCreator(settings.match_address, keys, seed_wait_seconds=settings.seed_wait_seconds)
    standings = GrpcStandings(settings.account_address, creator.token)
    social = GrpcSocial(settings.social_address, creator.token)
    app = MatchmakingApplication(env=matchmaking_persistence_env(settings), matches=creator,
                                 table_wait_seconds=settings.table_wait_seconds,
                                 table_bot_strength=settings.table_bot_strength, observer=PrometheusObserver(),
                                 on_change=changes.publish, ratings=GrpcRatings(creator),
                                 table_rating_spread=settings.table_rating_spread, standings=standings,
                                 practice_rated=settings.practice_rated, social=social,
                                 invite_ttl_seconds=settings.invite_ttl_seconds)
    revocations, read_revocations = poll_revocations(settings)  # the account service's list, once a second
    server, port = create_server(settings.matchmaking_address, app, keys, changes, limits=limits_of(settings),
                                 metrics=RpcMetrics("matchmaking"), watch_poll_seconds=settings.watch_poll_seconds,
                                 settings=settings, revocations=revocations)
    # What other replicas store wakes this one's WatchRoom and WatchTicket streams (LISTEN on
    # PostgreSQL), so a stream re-reads on a change, and on a timer only every
    # DOMINO_WATCH_POLL_SECONDS as a safety net.
    tail = tail_for(app.recorder, changes, safety_seconds=settings.watch_safety_seconds)
    tail.stop_with(server.wait_for_termination)
    start_http_server(settings.matchmaking_metrics_port)
    await server.start()
    await tail.started()
    await revocations.step()  # what was revoked before it started, unless the account service is away
    await mark_serving(server)
    log.info("matchmaking listening", extra={"port": port, "metrics_port": settings.matchmaking_metrics_port,
                                             "match": settings.match_address, "tls": bool(settings.tls_cert_file),
                                             "reflection": settings.grpc_reflection})
    stopping = stop_on_signals()
    timers = asyncio.create_task(run_timers(app, stopping, settings.matchmaking_poll_seconds))
    ends = asyncio.create_task(follow_match_ends(app, settings, stopping))
    polls = asyncio.create_task(revocations.run(stopping, settings.revocation_poll_seconds))
    if ready is not None:
        ready.set()
    await stopping.wait()
    log.info("matchmaking stopping: finishing in-flight requests")
    await drain(server, settings.shutdown_grace_seconds, changes)
    await asyncio.gather(timers, ends, polls, return_exceptions=True)
    await read_revocations.close()
    await tail.aclose()
    creator.close()
    standings.close()
    social.close()
    app.close()
    log.info("matchmaking stopped")


def main() -> None:
    run_service(serve)
