"""`domino token`: mint a bearer token for local use."""

from __future__ import annotations

import click

from services.common.auth import ROLES, mint_token
from services.common.config import Settings


@click.command()
@click.option("--player", "subject", required=True, help="The token's subject: a player id, bot id or service name.")
@click.option("--role", type=click.Choice(ROLES), default="player", show_default=True)
@click.option("--ttl", type=int, default=24 * 3600, show_default=True, help="Lifetime in seconds.")
def token(subject: str, role: str, ttl: int) -> None:
    """Print a JWT signed with DOMINO_JWT_SECRET (the development secret when unset)."""
    click.echo(mint_token(subject, Settings().jwt_secret, role, ttl))
