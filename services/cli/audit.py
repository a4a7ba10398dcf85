"""`domino audit`: verify and simulate match records (docs/record.md)."""

from __future__ import annotations

import json
import sys

import click

from services.audit.report import render
from services.audit.simulate import simulate as simulate_match
from services.audit.verify import verify as verify_record
from services.match import record as record_format
from services.match.rules.errors import BadOptions
from services.match.rules.rulesets import EGYPTIAN_VARIANTS, FAMILY_NAMES


@click.group()
def audit() -> None:
    """Check and produce domino-record/1 match records."""


@audit.command()
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object (docs/record.md) instead of a table.")
def verify(file: str, as_json: bool) -> None:
    """Replay FILE through the rules engine and report what it found.

    Exit status: 0 valid, 1 an illegal deal or action (its position is printed),
    2 a malformed file.
    """
    try:
        if file == "-":
            text = sys.stdin.buffer.read()
        else:
            with open(file, "rb") as fh:
                text = fh.read()
    except OSError as e:
        _fail_malformed(f"cannot read {file}: {e.strerror}")
    try:
        record = record_format.loads(text)
    except record_format.MalformedRecord as e:
        _fail_malformed(str(e))
    verdict = verify_record(record)
    if as_json:
        click.echo(json.dumps(verdict.to_json()))
    else:
        click.echo(render(record, verdict))
    sys.exit(0 if verdict.valid else 1)


def _fail_malformed(message: str) -> None:
    click.echo(f"domino audit verify: {message}", err=True)
    sys.exit(2)


@audit.command()
@click.option("--rules", "family", type=click.Choice(FAMILY_NAMES), default="egyptian", show_default=True,
              help="Rule family.")
@click.option("--variant", default=None, help="egyptian: draw-2, block-3 or block-4; goat: gamezz or koza.")
@click.option("--seats", type=int, default=None, help="Players, where the family lets the host choose (2-4).")
@click.option("--teams/--solo", default=None, help="Four players in two teams (0+2 against 1+3), or each for itself.")
@click.option("--option", "options", multiple=True, metavar="NAME=VALUE",
              help="A goat option: zero_zero=0|10|25, redeal=true|false, remembered=true|false, fish=all|one.")
@click.option("--target", type=int, default=None, help="Match target (default: the rule set's).")
@click.option("--seed", type=int, required=True, help="Seed for the deals and the bots.")
@click.option("--bots", default="greedy", show_default=True,
              help="Comma-separated strategies, assigned to seats in turn (random, greedy).")
@click.option("-o", "--output", type=click.File("w"), default="-", help="Where to write the record (default: stdout).")
def simulate(family, variant, seats, teams, options, target, seed, bots, output) -> None:
    """Play a whole match between simple bots and write its record."""
    strategies = tuple(s.strip() for s in bots.split(","))
    for s in strategies:
        if s not in ("random", "greedy"):
            raise click.BadParameter(f"unknown strategy {s!r}; choose random or greedy", param_hint="--bots")
    if family == "egyptian" and variant is None:
        raise click.UsageError(f"egyptian needs --variant ({', '.join(EGYPTIAN_VARIANTS)})")
    try:
        record, _ = simulate_match(variant, seed, teams, target, strategies, family, seats, _options(options))
    except BadOptions as e:
        raise click.UsageError(str(e)) from None
    output.write(record_format.dumps(record) + "\n")


def _options(pairs: tuple[str, ...]) -> dict | None:
    """NAME=VALUE pairs, with true/false (or on/off) read as booleans and digits as numbers."""
    if not pairs:
        return None
    options: dict = {}
    for pair in pairs:
        name, sep, text = pair.partition("=")
        if not sep or not name:
            raise click.BadParameter(f"{pair!r} is not NAME=VALUE", param_hint="--option")
        value: object = text
        if text.lower() in ("true", "on", "false", "off"):
            value = text.lower() in ("true", "on")
        elif text.isdigit():
            value = int(text)
        options[name.strip()] = value
    return options


@audit.command()
@click.argument("match_id")
@click.option("--address", default=None, help="The match service (default: DOMINO_MATCH_ADDRESS, the local run).")
@click.option("--token", default=None, envvar="DOMINO_TOKEN",
              help="An auditor's bearer token (default: one minted with the auditor key in DOMINO_KEYS_DIR, or "
                   "the local run's var/keys).")
@click.option("-o", "--output", type=click.File("w"), default="-", help="Where to write the record (default: stdout).")
def export(match_id: str, address: str | None, token: str | None, output) -> None:
    """Export a finished match's domino-record/1 (ExportMatch, auditor role)."""
    import grpc

    from domino.match.v1 import match_service_pb2 as pb
    from domino.match.v1 import match_service_pb2_grpc as pb_grpc
    from services.common.auth import KeyRing, MissingKeys, mint_token
    from services.common.config import client_keys_dir
    from services.common.config import Settings

    settings = Settings()
    if not token:
        try:
            token = mint_token("domino-audit", KeyRing.load(client_keys_dir(settings), issues=("auditor",)), "auditor",
                               ttl_seconds=300)
        except MissingKeys as e:
            raise click.ClickException(f"{e}; or pass --token") from None
    with grpc.insecure_channel(address or settings.match_address) as channel:
        try:
            reply = pb_grpc.MatchServiceStub(channel).ExportMatch(
                pb.ExportMatchRequest(match_id=match_id), metadata=(("authorization", f"Bearer {token}"),), timeout=30)
        except grpc.RpcError as e:
            raise click.ClickException(f"{e.code().name}: {e.details()}") from None
    output.write(json.dumps(json.loads(reply.record_json), indent=2) + "\n")
