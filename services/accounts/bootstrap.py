"""Wires the account service: store, ID-token verifier, the match and social services'
clients, gRPC server, metrics, the retry of unfinished erasures, signals."""

from __future__ import annotations

import asyncio
import logging

import grpc
from prometheus_client import Counter, Gauge, start_http_server

from domino.account.v1 import account_service_pb2, account_service_pb2_grpc
from domino.admin.v1 import player_admin_service_pb2, player_admin_service_pb2_grpc
from services.common.auth import KeyRing
from services.common.client_address import trusted_networks
from services.common.config import Settings, persistence_env
from services.common.grpc_metrics import RpcMetrics
from services.common.grpc_server import drain, mark_serving, new_server
from services.common.lifecycle import run_service, stop_on_signals
from services.common.limits import RateLimit

from .admin_grpc_adapter import PlayerAdminServicer
from .application import AccountApplication
from .grpc_adapter import AccountServicer
from .match_client import GrpcHistory
from .metrics import PrometheusObserver
from services.common.oidc import IdTokenVerifier, providers_from_json
from .social_client import GrpcSocial
from .store import AccountStore

log = logging.getLogger("domino.accounts")
SERVICE_NAME = account_service_pb2.DESCRIPTOR.services_by_name["AccountService"].full_name
ADMIN_SERVICE_NAME = player_admin_service_pb2.DESCRIPTOR.services_by_name["PlayerAdminService"].full_name
ERASE_RETRY_SECONDS = 30.0


def create_server(address: str, app: AccountApplication, keys: KeyRing, metrics: RpcMetrics | None = None,
                  settings: Settings | None = None, revocation_reads: RateLimit | None = None):
    """(server, port): AccountService, and PlayerAdminService beside it (the staff's, never
    routed on the players' public host), on the common gRPC server (health, reflection,
    metrics; ``settings``: its connection policy, reflection, TLS and rate limits;
    ``revocation_reads``: the per-client limit of ListRevokedSessions, for tests that read it
    faster than any process does)."""
    settings = settings if settings is not None else Settings.model_construct()
    per_minute = settings.sign_ins_per_minute
    servicer = AccountServicer(app, keys, RateLimit(settings.command_rate, settings.command_burst),
                               RateLimit(per_minute / 60.0, per_minute), trusted_networks(settings.trusted_proxies),
                               revocation_reads=revocation_reads)
    admin = PlayerAdminServicer(app, keys, RateLimit(settings.command_rate, settings.command_burst))

    def add_servicers(server: grpc.aio.Server) -> None:
        account_service_pb2_grpc.add_AccountServiceServicer_to_server(servicer, server)
        player_admin_service_pb2_grpc.add_PlayerAdminServiceServicer_to_server(admin, server)
    return new_server(address, SERVICE_NAME, add_servicers, metrics, settings, also_serves=[ADMIN_SERVICE_NAME])


def verifier_of(settings: Settings) -> IdTokenVerifier | None:
    """The configured issuers (DOMINO_OIDC_PROVIDERS), or None: device sign-in only."""
    providers = providers_from_json(settings.oidc_providers)
    log.info("ID-token issuers", extra={"oidc_providers": [p.name for p in providers]})
    if not providers:
        return None
    fetches = Counter("domino_account_jwks_fetches_total", "Fetches of an issuer's signing keys, by provider and "
                      "outcome", ["provider", "outcome"])
    return IdTokenVerifier(providers, ca_file=settings.oidc_ca_file or None,
                           on_fetch=lambda provider, outcome: fetches.labels(provider, outcome).inc())


def application_of(settings: Settings, keys: KeyRing, store: AccountStore, history: GrpcHistory | None,
                   verifier: IdTokenVerifier | None, observer=None, social: GrpcSocial | None = None
                   ) -> AccountApplication:
    return AccountApplication(store, keys, verifier, history, access_seconds=settings.access_token_seconds,
                              refresh_days=settings.refresh_token_days,
                              name_changes_per_day=settings.display_name_changes_per_day, observer=observer,
                              social=social)


def social_of(settings: Settings, keys: KeyRing) -> GrpcSocial | None:
    """The social service's client (DOMINO_SOCIAL_ADDRESS), or None when the address is empty:
    a deployment without the social service exports and erases no social data (said once)."""
    if not settings.social_address:
        log.warning("no social service configured (DOMINO_SOCIAL_ADDRESS is empty): exports hold no friends "
                    "and deletions erase none")
        return None
    return GrpcSocial(settings.social_address, keys)


async def erase_pending(app: AccountApplication, stopping: asyncio.Event, every: float = ERASE_RETRY_SECONDS) -> None:
    """Deleted accounts whose history the match service, or whose friends, requests and blocks
    the social service, could not erase at once are tried again until both confirm (the deletion itself is never undone); what expired (bans' hashes,
    used ID tokens) is forgotten on the same pass, and the inbox notices (bans, sign-ins) the
    social service did not take at once are posted again."""
    while not stopping.is_set():
        try:
            await asyncio.to_thread(app.erase_pending)
            await asyncio.to_thread(app.post_notices)
            await asyncio.to_thread(app.forget_what_expired)
        except Exception:  # the store away: try again next pass
            log.exception("erasure retry pass failed")
        try:
            await asyncio.wait_for(stopping.wait(), every)
        except asyncio.TimeoutError:
            pass


async def serve(settings: Settings, ready: asyncio.Event | None = None) -> None:
    keys = KeyRing.load(settings.keys_dir, issues=("player", "account"), accepts=("player", "service", "operator"))
    store = AccountStore.for_env(persistence_env(settings))
    store.create()
    history = GrpcHistory(settings.match_address, keys)
    social = social_of(settings, keys)
    app = application_of(settings, keys, store, history, verifier_of(settings), PrometheusObserver(), social)
    app.rekey_names()
    pending = Gauge("domino_account_erasures_pending", "Deleted accounts whose history the match service, or "
                    "whose social rows the social service, has not yet erased (retried every 30 s)")
    pending.set_function(app.pending_erasures)
    Gauge("domino_account_notices_pending", "Inbox notices (bans, their ends, sign-ins with an identity) the social "
          "service has not yet taken (posted again every 30 s)").set_function(app.pending_notices)
    server, port = create_server(settings.account_address, app, keys, RpcMetrics("account"), settings)
    start_http_server(settings.account_metrics_port)
    await server.start()
    await mark_serving(server)
    log.info("account service listening", extra={"port": port, "metrics_port": settings.account_metrics_port,
                                                 "tls": bool(settings.tls_cert_file),
                                                 "reflection": settings.grpc_reflection})
    stopping = stop_on_signals()
    retries = asyncio.create_task(erase_pending(app, stopping))
    if ready is not None:
        ready.set()
    await stopping.wait()
    log.info("account service stopping: finishing in-flight requests")
    await drain(server, settings.shutdown_grace_seconds)
    await asyncio.gather(retries, return_exceptions=True)
    history.close()
    if social is not None:
        social.close()
    store.close()
    log.info("account service stopped")


def main() -> None:
    run_service(serve)
