"""`domino token`: mint a bearer token for local use."""

from __future__ import annotations

import click

from services.common.auth import MAX_LIFETIME, ROLES, KeyRing, MissingKeys, mint_token
from services.common.config import Settings, client_keys_dir


@click.command()
@click.option("--player", "subject", required=True, help="The token's subject: a player id, bot id or service name.")
@click.option("--role", type=click.Choice(ROLES), default="player", show_default=True)
@click.option("--ttl", type=int, default=None, help="Lifetime in seconds (default and at most: the role's longest, "
                                                    + ", ".join(f"{r} {s // 60} min" for r, s in MAX_LIFETIME.items())
                                                    + ").")
def token(subject: str, role: str, ttl: int | None) -> None:
    """Print a JWT signed with the role's private key from DOMINO_KEYS_DIR (the local run's
    var/keys when unset)."""
    try:
        keys = KeyRing.load(client_keys_dir(Settings()), issues=(role,))
    except MissingKeys as e:
        raise click.ClickException(str(e)) from None
    click.echo(mint_token(subject, keys, role, ttl))
