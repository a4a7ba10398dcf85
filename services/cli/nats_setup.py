"""`domino nats setup`: the admin's one job on NATS, creating the stream and the relay's bucket."""

from __future__ import annotations

import asyncio

import click

from services.common import bus
from services.common.config import Settings


@click.group()
def nats() -> None:
    """NATS administration (needs the admin user: DOMINO_NATS_USER=admin, DOMINO_NATS_PASSWORD)."""


@nats.command()
def setup() -> None:
    """Create the DOMINO stream and the relay's key-value bucket; existing ones are kept."""

    async def run() -> None:
        nc = await bus.connect(Settings(), "setup", max_reconnect_attempts=3)
        try:
            await bus.ensure_stream(nc.jetstream())
        finally:
            await nc.close()

    try:
        asyncio.run(run())
    except Exception as e:  # noqa: BLE001 - one line for the operator, whatever NATS said
        raise click.ClickException(f"NATS setup failed: {e}") from None
    click.echo(f"stream {bus.STREAM} and bucket {bus.RELAY_BUCKET} are ready")
