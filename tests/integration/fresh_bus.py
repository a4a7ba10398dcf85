"""A clean JetStream for one test: the stream and the relay's bucket deleted, then made again
with every consumer as the admin's setup (`domino nats setup`) makes them; services never
create them."""

from __future__ import annotations

import nats

from services.common import bus, consumers


async def fresh_bus(js, bot_ack_wait: float = 30.0) -> None:
    for delete, name in ((js.delete_stream, bus.STREAM), (js.delete_key_value, bus.RELAY_BUCKET),
                         (js.delete_stream, bus.WITNESS_STREAM)):
        try:
            await delete(name)
        except nats.js.errors.NotFoundError:
            pass
    await bus.ensure_stream(js)
    await consumers.ensure_consumers(js, consumers.every(bot_ack_wait))
