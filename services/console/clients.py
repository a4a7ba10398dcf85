"""The console's gRPC clients, and the operator token each call carries for the member of staff making it.

A token is minted per member of staff (their roles and name in it, so the services check and
record who acted) and reused for about four minutes of its five; every call has a deadline.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import grpc

from domino.admin.v1.match_admin_service_pb2_grpc import MatchAdminServiceStub
from domino.admin.v1.player_admin_service_pb2_grpc import PlayerAdminServiceStub
from domino.match.v1.match_service_pb2_grpc import MatchServiceStub
from services.common.auth import KeyRing, mint_token

from .staff import Staff

TOKEN_SECONDS = 300
REUSE_SECONDS = 240
_MAX_CACHED = 1000


class Clients:
    def __init__(self, account_target: str, match_target: str, keys: KeyRing, deadline: float = 5.0,
                 clock: Callable[[], float] = time.time) -> None:
        self.deadline = deadline
        self.keys, self.clock = keys, clock
        self.account_channel = grpc.aio.insecure_channel(account_target)
        self.match_channel = grpc.aio.insecure_channel(match_target)
        self.player_admin = PlayerAdminServiceStub(self.account_channel)
        self.match_admin = MatchAdminServiceStub(self.match_channel)
        self.match = MatchServiceStub(self.match_channel)
        self._tokens: dict[Staff, tuple[str, float]] = {}

    def metadata(self, staff: Staff) -> tuple[tuple[str, str], ...]:
        """``authorization: Bearer <operator token>`` for ``staff``'s calls."""
        now = self.clock()
        cached = self._tokens.get(staff)
        if cached is None or now - cached[1] > REUSE_SECONDS:
            if len(self._tokens) >= _MAX_CACHED:
                self._tokens.clear()
            token = mint_token(staff.subject, self.keys, role="operator", ttl_seconds=TOKEN_SECONDS, now=now,
                               staff_roles=tuple(sorted(staff.roles)), staff_name=staff.name)
            cached = self._tokens[staff] = (token, now)
        return (("authorization", f"Bearer {cached[0]}"),)

    def call_options(self, staff: Staff) -> dict[str, object]:
        """Keyword arguments for one stub call: ``await stub.Method(request, **clients.call_options(staff))``."""
        return {"metadata": self.metadata(staff), "timeout": self.deadline}

    async def close(self) -> None:
        await self.account_channel.close()
        await self.match_channel.close()
