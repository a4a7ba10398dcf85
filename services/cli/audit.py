"""`domino audit`: verify and simulate match records (docs/record.md).

Every file these commands read may come from an attacker: whatever it holds, a malformed
one ends with exit status 2 and one line on stderr (untrusted_json.py), never a traceback
and never the status that means "invalid"."""

from __future__ import annotations

import json
import sys
from typing import NoReturn

import click

from services.audit.report import render, shown
from services.audit.simulate import simulate as simulate_match
from services.audit.verify import verify as verify_record
from services.cli.choices import Registered
from services.cli import audit_store
from services.cli.audit_store import fail as _fail
from services.cli.tls import credentials_of, tls_options
from services.match import record as record_format
from services.match.heads import BadHead, PublishedKeys, read_heads
from services.rules.errors import BadOptions
from services.rules.registry import families, family as family_named, names
from services.match.untrusted_json import parse as parse_untrusted


@click.group()
def audit() -> None:
    """Check and produce domino-record/1 match records."""


@audit.command()
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object (docs/record.md) instead of a table.")
@click.option("--heads", "heads_files", multiple=True, type=click.Path(dir_okay=False),
              help="A player's kept heads (domino-heads/1, written by `domino play`); may be repeated.")
@click.option("--key", "key_file", type=click.Path(dir_okay=False),
              help="The published head keys (domino-keys/1) or one PEM public key, to authenticate FILE: "
                   "without a good signed head over its content it is invalid.")
@click.option("--keys-from", "keys_from", default=None, metavar="HOST:PORT",
              help="Authenticate FILE as --key does, with the head keys the match service at HOST:PORT publishes "
                   "(MatchService.GetHeadKeys; no token needed).")
@tls_options
def verify(file: str, as_json: bool, heads_files: tuple[str, ...], key_file: str | None, keys_from: str | None,
           tls: bool, ca) -> None:
    """Replay FILE through the rules engine and report what it found; with a chain in
    FILE, --heads, --key or --keys-from, also whether FILE is the log that was played.

    Exit status: 0 valid, 1 an illegal deal or action, or a broken chain, signature or
    head (its position is printed), or with --key a record that is not authenticated,
    2 a malformed file (any of them).
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
    if key_file is not None and keys_from is not None:
        raise click.UsageError("give the keys once: --key FILE or --keys-from HOST:PORT")
    keys = None
    kept: list | None = None
    try:
        if key_file is not None:
            keys = PublishedKeys.load(key_file)
        if keys_from is not None:
            keys = PublishedKeys.from_json(_fetched_keys(keys_from, credentials_of(tls, ca)))
        if heads_files:
            kept = []
            for path in heads_files:
                with open(path, "rb") as fh:
                    kept += read_heads(parse_untrusted(fh.read()))
    except OSError as e:
        _fail_malformed(f"cannot read {e.filename}: {e.strerror}")
    except (BadHead, ValueError) as e:
        _fail_malformed(str(e))
    verdict = verify_record(record, keys, kept)
    if as_json:
        click.echo(json.dumps(verdict.to_json()))
    else:
        click.echo(render(record, verdict))
    sys.exit(0 if verdict.valid else 1)


def _fetched_keys(address: str, credentials=None) -> dict:
    """GetHeadKeys' answer as a domino-keys/1 document (ClickException when it cannot be had)."""
    import grpc

    from domino.match.v1 import match_service_pb2 as pb
    from domino.match.v1 import match_service_pb2_grpc as pb_grpc
    from services.client.api import open_channel
    from services.client.head_keys import keys_document

    with open_channel(address, credentials) as channel:
        try:
            answer = pb_grpc.MatchServiceStub(channel).GetHeadKeys(pb.GetHeadKeysRequest(), timeout=30)
        except grpc.RpcError as e:
            raise click.ClickException(f"cannot fetch the head keys from {address}: {e.code().name}: "
                                       f"{e.details()}") from None
    return keys_document(answer)


def _fail_malformed(message: str) -> NoReturn:
    click.echo(f"domino audit verify: {shown(message)}", err=True)
    sys.exit(2)


@audit.command()
@click.option("--rules", "family", type=Registered(names), default="egyptian", show_default=True,
              help="Rule family.")
@click.option("--variant", default=None,
              help="; ".join(f"{f.name}: {', '.join(f.variants)}" for f in families() if f.variants) + ".")
@click.option("--seats", type=int, default=None, help="Players, where the family lets the host choose (2-4).")
@click.option("--teams/--solo", default=None, help="Four players in two teams (0+2 against 1+3), or each for itself.")
@click.option("--option", "options", multiple=True, metavar="NAME=VALUE",
              help="A host option: " + "; ".join(
                  f"{f.name}: " + ", ".join(f"{o.name}={'|'.join(str(v).lower() for v in o.values)}" for o in f.options)
                  for f in families() if f.options) + ".")
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
    variants = family_named(family).variants
    if variants and variant is None:
        raise click.UsageError(f"{family} needs --variant ({', '.join(variants)})")
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
@tls_options
@click.option("--unfinished", is_flag=True, help="Export a match that has not ended (shows every hand; logged).")
@click.option("-o", "--output", type=click.File("w"), default="-", help="Where to write the record (default: stdout).")
def export(match_id: str, address: str | None, token: str | None, tls: bool, ca, unfinished: bool, output) -> None:
    """Export a finished match's domino-record/1, with its hash chain and signed head
    (ExportMatch, auditor role)."""
    from services.common.config import Settings

    record_json = _exported(Settings(), match_id, address, token, unfinished, credentials_of(tls, ca))
    output.write(json.dumps(json.loads(record_json), indent=2) + "\n")


def _auditor_token(settings, token: str | None) -> str:
    from services.common.auth import KeyRing, MissingKeys, mint_token
    from services.common.config import client_keys_dir

    if token:
        return token
    try:
        return mint_token("domino-audit", KeyRing.load(client_keys_dir(settings), issues=("auditor",)), "auditor",
                          ttl_seconds=300)
    except MissingKeys as e:
        raise click.ClickException(f"{e}; or pass --token") from None


def _exported(settings, match_id: str, address: str | None, token: str | None, unfinished: bool,
              credentials=None) -> str:
    import grpc

    from domino.match.v1 import match_service_pb2 as pb
    from domino.match.v1 import match_service_pb2_grpc as pb_grpc
    from services.client.api import open_channel

    with open_channel(address or settings.match_address, credentials) as channel:
        try:
            reply = pb_grpc.MatchServiceStub(channel).ExportMatch(
                pb.ExportMatchRequest(match_id=match_id, unfinished=unfinished),
                metadata=(("authorization", f"Bearer {_auditor_token(settings, token)}"),), timeout=30)
        except grpc.RpcError as e:
            raise click.ClickException(f"{e.code().name}: {e.details()}") from None
    return reply.record_json


def _nats_settings(settings):
    """The auditor's NATS user: DOMINO_NATS_USER/PASSWORD, else the local run's (var/)."""
    import os

    if settings.nats_user:
        return settings
    path = os.path.join(settings.var_dir, "nats-users.json")
    try:
        with open(path) as fh:
            password = json.load(fh)["auditor"]
    except (OSError, ValueError, KeyError):
        return settings  # a NATS without users (tests)
    return settings.model_copy(update={"nats_user": "auditor", "nats_password": password})


@audit.command()
@click.argument("match_id")
@click.option("--record", "record_file", type=click.Path(dir_okay=False),
              help="Compare this export instead of asking the match service for one.")
@click.option("--key", "key_file", type=click.Path(dir_okay=False),
              help="The published head keys (domino-keys/1) or one PEM public key, to check the heads' signatures.")
@click.option("--address", default=None, help="The match service (default: DOMINO_MATCH_ADDRESS).")
@click.option("--token", default=None, envvar="DOMINO_TOKEN", help="An auditor's bearer token.")
@tls_options
@click.option("--publish", is_flag=True,
              help="Operators: store the export's signed final head in the witness, for a match the relay could "
                   "not witness (needs a NATS user allowed to publish there).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def witness(match_id, record_file, key_file, address, token, tls, ca, publish, as_json) -> None:
    """Compare MATCH's stored log with the heads the witness stream took when it ended.

    Exit status: 0 they agree, 1 they do not (or the witness has no head), 2 nothing to
    compare (unreadable record or keys, NATS or the match service away).
    """
    import asyncio

    from services.audit.witness import compare, publish as publish_head, witness_heads
    from services.common import bus
    from services.common.config import Settings

    settings = Settings()
    try:
        text: str | bytes
        if record_file:
            with open(record_file, "rb") as fh:
                text = fh.read()
        else:
            text = _exported(settings, match_id, address, token, True, credentials_of(tls, ca))
        record = record_format.loads(text)
        keys = PublishedKeys.load(key_file) if key_file else None
    except OSError as e:
        _fail("witness", f"cannot read {e.filename}: {e.strerror}")
    except (record_format.MalformedRecord, BadHead) as e:
        _fail("witness", str(e))

    ignored: list[int] = []  # sequences of messages on the match's witness subject that are not heads

    async def read():
        nc = await bus.connect(_nats_settings(settings), "audit-witness", max_reconnect_attempts=2)
        try:
            js = nc.jetstream()
            if publish:
                head = (record.chain or {}).get("head")
                if head is None or record.fairness is None or record.fairness.server_seed is None:
                    raise click.ClickException("the export has no signed final head of an ended match to publish")
                from services.match.heads import Head
                await publish_head(js, Head.from_json(head))
            return await witness_heads(js, match_id, ignored=ignored)
        finally:
            await nc.close()

    try:
        heads = asyncio.run(read())
    except click.ClickException:
        raise
    except BadHead as e:
        _fail("witness", str(e))
    except Exception as e:  # noqa: BLE001 - one line for the auditor, whatever NATS said
        _fail("witness", f"cannot read the witness stream: {e}")
    finding = compare(record, heads, keys)
    if as_json:
        click.echo(json.dumps({"match": match_id, "witness_heads": len(heads), "ignored_sequences": ignored,
                               **finding.to_json()}))
    else:
        click.echo(f"witness for {match_id}: {len(heads)} head(s); {finding.status}"
                   + (f": {shown(finding.message)}" if finding.message else ""))
        if ignored:
            click.echo(f"ignored {len(ignored)} message(s) on its witness subject that are not heads "
                       f"(sequences {', '.join(map(str, ignored[:10]))}{' …' if len(ignored) > 10 else ''})")
    sys.exit(0 if finding.status == "ok" else 1)


# The operator's commands on the match store and the head key (audit_store.py).
for _command in audit_store.COMMANDS:
    audit.add_command(_command)
