"""`domino demo`: one whole bot-only match on a running system, then its record."""

from __future__ import annotations

import json
import time
import uuid

import click
import grpc

from domino.match.v1 import match_service_pb2 as pb
from domino.match.v1 import match_service_pb2_grpc as pb_grpc
from services.audit.report import render
from services.audit.verify import verify
from services.common.auth import mint_token
from services.common.config import Settings
from services.match import record as record_format
from services.match.rules.rulesets import EGYPTIAN_VARIANTS, TARGETS

SEATS = {"draw-2": 2, "block-3": 3, "block-4": 4}


@click.command()
@click.option("--variant", type=click.Choice(EGYPTIAN_VARIANTS), default="block-4", show_default=True)
@click.option("--teams/--solo", default=None, help="block-4 only: teams (default) or solo.")
@click.option("--target", type=click.Choice([str(t) for t in TARGETS]), default=None)
@click.option("--bots", "strength", type=click.Choice(["random", "greedy", "strong"]), default="greedy",
              show_default=True, help="Strength of every seat.")
@click.option("--address", default=None, help="The match service (default: DOMINO_MATCH_ADDRESS, the local run).")
@click.option("--timeout", type=float, default=300, show_default=True, help="Seconds to wait for the match to end.")
@click.option("--json", "as_json", is_flag=True, help="Print the exported domino-record/1 only.")
def demo(variant, teams, target, strength, address, timeout, as_json) -> None:
    """Play one whole match with every seat a bot, wait for its end, print its record."""
    settings = Settings()
    address = address or settings.match_address
    service = (("authorization", f"Bearer {mint_token('domino-demo', settings.jwt_secret, 'service')}"),)
    auditor = (("authorization", f"Bearer {mint_token('domino-demo', settings.jwt_secret, 'auditor')}"),)
    seats = [pb.SeatSpec(player_id=f"bot:{strength}:{i}", client_seed=uuid.uuid4().hex) for i in range(SEATS[variant])]
    request = pb.CreateMatchRequest(request_id=f"demo:{uuid.uuid4()}", rules="egyptian", variant=variant, seats=seats,
                                    turn_timer_seconds=0)
    if teams is not None:
        request.teams = teams
    if target:
        request.target = int(target)
    with grpc.insecure_channel(address) as channel:
        stub = pb_grpc.MatchServiceStub(channel)
        try:
            match_id = stub.CreateMatch(request, metadata=service, timeout=10).match_id
            if not as_json:
                click.echo(f"match {match_id} started; bots are playing...", err=True)
            deadline = time.monotonic() + timeout
            while stub.GetMatch(pb.GetMatchRequest(match_id=match_id), metadata=service,
                                timeout=10).view.status != pb.MATCH_STATUS_ENDED:
                if time.monotonic() > deadline:
                    raise click.ClickException(f"match {match_id} did not end within {timeout:.0f} s "
                                               "(is the bot service running?)")
                time.sleep(0.25)
            exported = stub.ExportMatch(pb.ExportMatchRequest(match_id=match_id), metadata=auditor, timeout=10)
        except grpc.RpcError as e:
            if e.code() == grpc.StatusCode.UNAVAILABLE:
                raise click.ClickException(f"no match service at {address}; start the system with `domino up`") from None
            raise click.ClickException(f"{e.code().name}: {e.details()}") from None
    if as_json:
        click.echo(json.dumps(json.loads(exported.record_json), indent=2))
        return
    record = record_format.loads(exported.record_json)
    click.echo(render(record, verify(record)))
