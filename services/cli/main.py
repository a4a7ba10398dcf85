"""The `domino` command: one entry point for players, operators and auditors."""

from __future__ import annotations

import click

from services.common import family_plugins
from services.common.config import BadSetting, from_environment

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
        family_plugins.load(from_environment().family_modules)
    except (BadSetting, family_plugins.BadFamilyModule) as e:
        click.echo(f"domino: {e}", err=True)  # one line: the first an operator reads of a pod that will not start
        click.get_current_context().exit(2)


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
