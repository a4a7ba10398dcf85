"""The shape every server interceptor of ours shares: it wraps a method's handler once and
hands grpc the same wrapped handler on every later call (grpc asks per call; wrapping per
call would cost a closure each). Subclasses say which handlers they wrap and how."""

from __future__ import annotations

import grpc


class WrappingInterceptor(grpc.aio.ServerInterceptor):
    def __init__(self) -> None:
        self._wrapped: dict[str, tuple[object, object]] = {}  # method -> (its handler, the wrapped one)

    def wraps(self, handler, method: str) -> bool:
        """Whether this interceptor wraps ``method``'s handler (its full name, "/pkg.Service/Rpc")."""
        return True

    def _wrap(self, handler, method: str):
        raise NotImplementedError

    async def intercept_service(self, continuation, details):
        handler = await continuation(details)
        if handler is None or not self.wraps(handler, details.method):
            return handler
        known = self._wrapped.get(details.method)
        if known is not None and known[0] is handler:
            return known[1]
        wrapped = self._wrap(handler, details.method)
        self._wrapped[details.method] = (handler, wrapped)
        return wrapped
