"""The providers this deployment has credentials for, built from the settings: APNs when a
.p8 key file is set, FCM when a service account file is set; either may be off. The files
are read once at start (Kubernetes Secrets mounted as files, never environment values); a key that cannot sign stops the start, where
`kubectl logs` shows it, rather than failing every push."""

from __future__ import annotations

import logging
from pathlib import Path

from domino.social.v1 import social_service_pb2 as pb
from services.common.config import Settings

from .apns import PRODUCTION, SANDBOX, Apns, ProviderToken
from .fcm import Fcm, ServiceAccount
from .tls import client_context

log = logging.getLogger("domino.notifier")


def providers_of(settings: Settings) -> dict:
    verify = client_context(settings.push_ca_file)
    found: dict = {pb.PUSH_PLATFORM_APNS: None, pb.PUSH_PLATFORM_FCM: None}
    if settings.apns_key_file:
        token = ProviderToken(Path(settings.apns_key_file).read_bytes(), settings.apns_key_id, settings.apns_team_id)
        token.current()  # a key that cannot sign stops the start, not every push
        found[pb.PUSH_PLATFORM_APNS] = Apns(token, settings.apns_topic, {SANDBOX: settings.apns_sandbox_url,
                                                                          PRODUCTION: settings.apns_production_url},
                                            verify, settings.notifier_call_seconds)
    if settings.fcm_service_account_file:
        account = ServiceAccount.parse(Path(settings.fcm_service_account_file).read_text())
        fcm = Fcm(account, settings.fcm_url, verify, settings.notifier_call_seconds)
        fcm.token.assertion()  # likewise
        found[pb.PUSH_PLATFORM_FCM] = fcm
    log.info("push providers", extra={"apns": found[pb.PUSH_PLATFORM_APNS] is not None,
                                      "fcm": found[pb.PUSH_PLATFORM_FCM] is not None})
    return found


async def close(providers: dict) -> None:
    for provider in providers.values():
        if provider is not None:
            await provider.close()
