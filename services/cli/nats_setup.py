"""`domino nats setup`: the admin's one job on NATS, creating the streams, the relay's bucket
and every durable consumer (services/common/consumers.py). The services may create none of
them: a service user that could create its consumer could also re-point it."""

from __future__ import annotations

import asyncio

import click

from services.common import bus, consumers
from services.common.config import Settings


@click.group()
def nats() -> None:
    """NATS administration (needs the admin user: DOMINO_NATS_USER=admin, DOMINO_NATS_PASSWORD)."""


@nats.command()
def setup() -> None:
    """Create the DOMINO stream, the relay's key-value bucket and the consumers; existing
    streams are kept, and a consumer that differs from its configuration is put back."""
    settings = Settings()

    async def run() -> dict[str, str]:
        nc = await bus.connect(settings, "setup", max_reconnect_attempts=3)
        try:
            js = nc.jetstream()
            await bus.ensure_stream(js)
            return await consumers.ensure_consumers(js, consumers.every(settings.bot_ack_wait_seconds))
        finally:
            await nc.close()

    try:
        done = asyncio.run(run())
    except Exception as e:  # noqa: BLE001 - one line for the operator, whatever NATS said
        raise click.ClickException(f"NATS setup failed: {e}") from None
    click.echo(f"stream {bus.STREAM} and bucket {bus.RELAY_BUCKET} are ready; consumers: "
               + ", ".join(f"{name} {what}" for name, what in done.items()))
