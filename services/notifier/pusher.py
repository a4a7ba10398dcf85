"""A stored notification to the recipient's phones: claimed from the social service (which
decides once whether it may buzz them: opt-outs, quiet hours, the per-minute limit, read or
expired), then sent to every phone it names through its provider, each phone on its own.

A token the provider calls dead is forgotten through the social service. A provider that
is off (no credentials in this deployment) counts its phones as provider_off: not a
failure, so `domino up` runs without Apple's or Google's accounts. The claim is the one
call whose failure asks for the message again: once claimed, a notification is never sent
twice, so a send that fails is counted, not retried through the bus."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Callable, Protocol

from domino.social.v1 import social_service_pb2 as pb
from services.common.logs import Warnings

from . import delivery, metrics
from .delivery import Answer, Retrying
from .payloads import Push, from_claim

log = logging.getLogger("domino.notifier")
ENVIRONMENTS = {pb.APNS_ENVIRONMENT_SANDBOX: "sandbox", pb.APNS_ENVIRONMENT_PRODUCTION: "production"}


class Provider(Protocol):
    provider: str

    async def send(self, token: str, environment: str, push: Push) -> Answer: ...


class Turns(Protocol):
    async def still_to_act(self, match_id: str, version: int) -> bool: ...


class Claims(Protocol):
    async def claim(self, notification_id: str, claim_id: str = "") -> pb.ClaimPushResponse: ...

    async def forget(self, platform: pb.PushPlatform, token: str) -> bool: ...


def decision_name(decision: int) -> str:
    return pb.PushDecision.Name(decision).removeprefix("PUSH_DECISION_").lower()


class Pusher:
    def __init__(self, social: Claims, providers: dict[int, Provider | None], retrying: Retrying = Retrying(),
                 on_sent: Callable[[str, Push, str], None] = lambda provider, push, outcome: None,
                 clock: Callable[[], float] = time.monotonic, turns: Turns | None = None) -> None:
        self.social = social
        self.turns = turns
        self.providers = providers
        self.retrying = retrying
        self.on_sent = on_sent
        self.clock = clock
        self.warnings = Warnings(log)  # a provider down fails every phone's push: one line in ten seconds

    async def push(self, notification_id: str, claim_id: str = "") -> str:
        """Claim and send; the claim's decision (its failure raises, for the bus to redeliver:
        the redelivery claims again under the same ``claim_id`` and is answered as the claim
        that took it was, so a reply lost to the deadline does not lose the push)."""
        reply = await self.social.claim(notification_id, claim_id)
        decision = decision_name(reply.decision)
        metrics.CLAIMS.labels(decision).inc()
        if reply.decision != pb.PUSH_DECISION_SEND:
            return decision
        push = from_claim(reply)
        if not await self._still_to_act(push):
            return "moved"
        await asyncio.gather(*(self._send(target, push) for target in reply.targets))
        return decision

    async def _still_to_act(self, push: Push) -> bool:
        """A "your turn" goes only while the turn is still to play: the player may have moved
        between the post and the claim (a backlog of notices, a redelivery). Asked once more of
        the match service; when it cannot say, the push goes (the phone collapses it into the
        next "your turn" of that match anyway)."""
        version = push.args.get("version", "")
        if self.turns is None or not push.your_turn or not push.about.get("match_id") or not version.isdigit():
            return True
        try:
            return await self.turns.still_to_act(push.about["match_id"], int(version))
        except Exception as e:  # the claim is made: redelivery would answer ALREADY_CLAIMED
            self.warnings.warn("attention", "cannot ask whether a turn is still to play; pushing it",
                               error=type(e).__name__)
            return True

    async def _send(self, target: pb.PushTarget, push: Push) -> None:
        provider = self.providers.get(target.platform)
        name = {pb.PUSH_PLATFORM_APNS: "apns", pb.PUSH_PLATFORM_FCM: "fcm"}.get(target.platform, "unknown")
        if provider is None:
            self._count(name, push, delivery.PROVIDER_OFF)
            return
        environment = ENVIRONMENTS.get(target.apns_environment, "production")
        started = self.clock()
        try:
            answer = await delivery.with_retries(
                lambda: provider.send(target.token, environment, push), self.retrying,
                on_retry=lambda a: metrics.RETRIES.labels(name, str(a.status or a.reason)).inc())
        except Exception:  # a fault of ours must not lose the other phones' pushes
            log.exception("a push could not be sent", extra={"provider": name})
            answer = Answer(delivery.FAILED, 0, "error")
        metrics.SEND_SECONDS.labels(name).observe(self.clock() - started)
        if answer.outcome == delivery.UNREGISTERED:
            await self._forget(name, target)
        elif answer.outcome in (delivery.DROPPED, delivery.FAILED):
            self.warnings.warn(f"undelivered:{name}", "a push was not delivered", provider=name,
                               outcome=answer.outcome, status=answer.status, reason=answer.reason[:100],
                               notification_id=push.notification_id)
        self._count(name, push, answer.outcome)

    async def _forget(self, name: str, target: pb.PushTarget) -> None:
        try:
            await self.social.forget(target.platform, target.token)
            metrics.FORGOTTEN.labels(name).inc()
        except Exception as e:  # the provider will say so again at the next push, and we try again then
            self.warnings.warn("forget", "a dead push token could not be forgotten", provider=name,
                               error=type(e).__name__)

    def _count(self, name: str, push: Push, outcome: str) -> None:
        metrics.SENDS.labels(name, outcome).inc()
        self.on_sent(name, push, outcome)
