"""The `domino` command: one entry point for players, operators and auditors."""

from __future__ import annotations

import click

from services.common import family_plugins

from .admin import admin
from .audit import audit
from .bots import bots
from .demo import demo
from .nats_setup import nats
from .play import play
from .projections import projections
from .serve import serve
from .token import token
from .up import up


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="domino")
def cli() -> None:
    """Online dominoes backend: services, tools and the auditor."""
    try:
        family_plugins.load()
    except family_plugins.BadFamilyModule as e:
        raise click.UsageError(str(e)) from None


cli.add_command(admin)
cli.add_command(audit)
cli.add_command(bots)
cli.add_command(demo)
cli.add_command(nats)
cli.add_command(play)
cli.add_command(projections)
cli.add_command(serve)
cli.add_command(token)
cli.add_command(up)


def main() -> None:
    cli(prog_name="domino")
