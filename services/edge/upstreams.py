"""Where each public service is reached: the addresses the services themselves listen on.

A service `domino.<name>.v1.<Service>` is at `DOMINO_<NAME>_ADDRESS` (match, matchmaking,
account, social), so the edge follows the settings every other client of the services uses, the
list of match replicas included (`ipv4:a:1,b:2`, as `domino up` gives its clients).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import grpc

from services.common.config import Settings


def targets_of(settings: Settings, services: Iterable[str]) -> dict[str, str]:
    """{service full name: target}; ValueError for a service no setting names."""
    targets = {}
    for service in services:
        package = service.split(".")
        setting = f"{package[1]}_address" if len(package) > 2 else ""
        target = getattr(settings, setting, None)
        if not isinstance(target, str) or not target:
            raise ValueError(f"no DOMINO_{setting.upper()} setting for {service}: the edge cannot forward it")
        targets[service] = target
    return targets


class Upstreams:
    """One channel per target, opened on first use inside the serving event loop."""

    def __init__(self, targets: Mapping[str, str]) -> None:
        self._targets = dict(targets)
        self._channels: dict[str, grpc.aio.Channel] = {}

    def channel(self, service: str) -> grpc.aio.Channel:
        target = self._targets[service]
        channel = self._channels.get(target)
        if channel is None:
            channel = self._channels[target] = grpc.aio.insecure_channel(target)
        return channel

    async def close(self) -> None:
        channels, self._channels = list(self._channels.values()), {}
        for channel in channels:
            await channel.close()
