"""`domino demo`: one whole bot-only match of any family on a running system, then its record."""

from __future__ import annotations

import json
import time
import uuid

import click
import grpc
import tenacity

from domino.match.v1 import match_service_pb2 as pb
from domino.match.v1 import match_service_pb2_grpc as pb_grpc
from services.audit.report import render
from services.audit.verify import verify
from services.cli.choices import Registered
from services.cli.tls import credentials_of, tls_options
from services.client.api import open_channel
from services.common import bot_strengths
from services.common.auth import KeyRing, MissingKeys, mint_token
from services.common.config import Settings, client_keys_dir
from services.common.error_details import details_of
from services.match import record as record_format
from services.rules.errors import BadOptions
from services.rules import registry
from services.rules.family import Family
from services.rules.rulesets import rule_set


def _variant(chosen: Family) -> str:
    """The variant a demo plays when none is named."""
    return chosen.bots_variant or chosen.default_variant


@click.command()
@click.option("--rules", "family", type=Registered(registry.names), default="egyptian", show_default=True)
@click.option("--variant", default=None, help="; ".join(f"{f.name}: {', '.join(f.variants)} (default {_variant(f)})"
                                                        for f in registry.families() if f.variants) + ".")
@click.option("--seats", type=click.IntRange(2, 4), default=None, help="Players, where the family lets it vary.")
@click.option("--teams/--solo", default=None, help="Four seats in two teams (0+2 against 1+3), or each for itself.")
@click.option("--target", type=int, default=None, help="Match target (default: the rule set's).")
@click.option("--bots", "strength", type=click.Choice(bot_strengths.NAMES), default="greedy",
              show_default=True, help=f"Strength of every seat: {bot_strengths.described(bot_strengths.NAMES)}.")
@click.option("--address", default=None, help="The match service (default: DOMINO_MATCH_ADDRESS, the local run).")
@tls_options
@click.option("--timeout", type=float, default=300, show_default=True, help="Seconds to wait for the match to end.")
@click.option("--json", "as_json", is_flag=True, help="Print the exported domino-record/1 only.")
def demo(family, variant, seats, teams, target, strength, address, tls, ca, timeout, as_json) -> None:
    """Play one whole match of any family with every seat a bot, wait for its end, print its record."""
    chosen = registry.family(family)
    variant = variant or _variant(chosen)
    try:
        ruleset = rule_set(family, variant, teams, chosen.seats_to_build(seats))
    except BadOptions as e:
        raise click.UsageError(str(e)) from None
    settings = Settings()
    address = address or settings.match_address
    try:
        keys = KeyRing.load(client_keys_dir(settings), issues=("service", "auditor"))
    except MissingKeys as e:
        raise click.ClickException(str(e)) from None
    service = (("authorization", f"Bearer {mint_token('domino-demo', keys, 'service')}"),)
    auditor = (("authorization", f"Bearer {mint_token('domino-demo', keys, 'auditor')}"),)
    players = [pb.SeatSpec(player_id=f"bot:{strength}:{i}", client_seed=uuid.uuid4().hex)
               for i in range(ruleset.seats)]
    request = pb.CreateMatchRequest(request_id=f"demo:{uuid.uuid4()}", rules=family, variant=variant, seats=players,
                                    turn_timer_seconds=0)
    if teams is not None:
        request.teams = teams
    if target:
        request.target = target
    deadline = time.monotonic() + timeout
    # A service that is briefly away (a restart, a replica failing over) is waited for, call
    # by call, until the overall --timeout; CreateMatch's request id makes its retry safe.
    patient = tenacity.retry(retry=tenacity.retry_if_exception(_passing), reraise=True,
                             wait=tenacity.wait_exponential(multiplier=0.2, max=2),
                             stop=tenacity.stop_before_delay(max(1.0, deadline - time.monotonic())))
    with open_channel(address, credentials_of(tls, ca)) as channel:
        stub = pb_grpc.MatchServiceStub(channel)
        try:
            match_id = patient(stub.CreateMatch)(request, metadata=service, timeout=10).match_id
            if not as_json:
                click.echo(f"match {match_id} started; bots are playing...", err=True)
            get = patient(stub.GetMatch)
            while get(pb.GetMatchRequest(match_id=match_id), metadata=service,
                      timeout=10).view.status not in (pb.MATCH_STATUS_ENDED, pb.MATCH_STATUS_ABANDONED):
                if time.monotonic() > deadline:
                    raise click.ClickException(f"match {match_id} did not end within {timeout:.0f} s "
                                               "(is the bot service running?)")
                time.sleep(0.25)
            exported = patient(stub.ExportMatch)(pb.ExportMatchRequest(match_id=match_id), metadata=auditor,
                                                 timeout=10)
        except grpc.RpcError as e:
            reason = details_of(e).reason
            if not reason and e.code() == grpc.StatusCode.UNAVAILABLE:  # no server answered
                raise click.ClickException(f"no match service at {address}; start the system with `domino up`") from None
            if reason in ("INVALID_REQUEST", "INVALID_OPTIONS"):
                raise click.UsageError(e.details() or "invalid argument") from None
            raise click.ClickException(f"{e.code().name}: {e.details()}") from None
    if as_json:
        click.echo(json.dumps(json.loads(exported.record_json), indent=2))
        return
    record = record_format.loads(exported.record_json)
    click.echo(render(record, verify(record)))


def _passing(error: BaseException) -> bool:
    """An error worth waiting out: the service away for a moment, not a refusal."""
    return isinstance(error, grpc.RpcError) and error.code() in (grpc.StatusCode.UNAVAILABLE,
                                                                 grpc.StatusCode.DEADLINE_EXCEEDED)
