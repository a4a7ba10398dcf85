"""Authentication as a server interceptor: a service's handlers find their caller already
verified, instead of each asking for it.

Every RPC of the services it guards reads the caller's bearer token (services/common/auth.py)
before its handler runs; a call without a valid one ends UNAUTHENTICATED and the handler
never sees it, so a new RPC cannot forget the check; so is a player token of a session the
account service has revoked (``revocations``: services/common/revocations.py). A service may
add its own admission
(``admit``: rate limits, which kinds of token it takes at all), whose errors it maps to
statuses as its adapter does. What each RPC asks of the caller's role stays in its handler.

The caller reaches the handler through a context variable: grpc's aio server runs each call
in a task of its own, the interceptor's wrapper inside it, so no call sees another's caller.
Health checks and reflection are not guarded.
"""

from __future__ import annotations

import inspect
from contextvars import ContextVar
from typing import Any, Callable, Iterable, Sequence

import grpc

from .auth import AuthError, Identity, KeyRing, bearer_identity
from .grpc_status import ErrorStatuses
from .grpc_wrapping import WrappingInterceptor
from .revocations import Revocations

# Set by the interceptor for the call it admitted (and by tests that call a handler directly).
CALLER: ContextVar[Identity] = ContextVar("caller")

Statuses = Sequence[tuple[type[BaseException], grpc.StatusCode]]


def caller() -> Identity:
    """The caller of this RPC, verified and admitted; AuthError (UNAUTHENTICATED) in a handler
    served without the interceptor, so a wiring mistake refuses every call rather than none."""
    who = CALLER.get(None)
    if who is None:
        raise AuthError("this call's credentials were not checked; the service refuses it")
    return who


def _anyone(who: Identity, method: str) -> None:
    """Admits every verified caller."""


_HANDLER_KINDS: dict[str, Callable[..., Any]] = {
    "unary_unary": grpc.unary_unary_rpc_method_handler, "unary_stream": grpc.unary_stream_rpc_method_handler,
    "stream_unary": grpc.stream_unary_rpc_method_handler, "stream_stream": grpc.stream_stream_rpc_method_handler,
}


class AuthInterceptor(WrappingInterceptor):
    """Verifies, then admits, the caller of every RPC of ``services`` (full names,
    `domino.match.v1.MatchService`) before its handler runs; ``admit(identity, method)``
    raises to refuse, ``statuses`` maps what it raises; a token of a session ``revocations``
    lists is refused first."""

    def __init__(self, services: Iterable[str], keys: KeyRing, admit: Callable[[Identity, str], None] = _anyone,
                 statuses: Statuses = (), domain: str = "domino", revocations: Revocations | None = None) -> None:
        super().__init__()
        self.domain = domain
        self.prefixes = tuple(f"/{name}/" for name in services)
        self.keys = keys
        self.admit = admit
        self.revocations = revocations or Revocations()
        self.statuses: Statuses = [(AuthError, grpc.StatusCode.UNAUTHENTICATED), *statuses]

    def wraps(self, handler, method: str) -> bool:
        return method.startswith(self.prefixes)

    def identify(self, metadata, method: str) -> Identity:
        """The caller of ``method`` (its short name): AuthError without a valid token, or
        whatever ``admit`` refuses it with."""
        who = bearer_identity(metadata, self.keys)
        self.revocations.check(who)
        self.admit(who, method)
        return who

    async def _enter(self, context, method: str) -> None:
        async with ErrorStatuses(context, self.statuses, self.domain):
            CALLER.set(self.identify(context.invocation_metadata(), method))

    def _wrap(self, handler, full_method: str):
        method = full_method.rsplit("/", 1)[-1]
        for kind, make in _HANDLER_KINDS.items():
            inner = getattr(handler, kind)
            if inner is not None:
                return make(self._guarded(inner, method), handler.request_deserializer, handler.response_serializer)
        raise TypeError(f"{method} has no handler the interceptor knows")

    def _guarded(self, inner: Callable, method: str) -> Callable:
        enter = self._enter
        if inspect.isasyncgenfunction(inner):
            async def replies(request, context):
                await enter(context, method)
                async for reply in inner(request, context):
                    yield reply

            return replies
        if not inspect.iscoroutinefunction(inner):
            # Refused at the call (UNKNOWN) rather than served unchecked.
            raise TypeError(f"{method}'s handler is neither a coroutine nor an async generator")

        async def reply(request, context):
            await enter(context, method)
            return await inner(request, context)

        return reply
