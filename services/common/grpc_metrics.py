"""Prometheus metrics for gRPC services, recorded by a server interceptor so handlers
and the domain never import prometheus_client."""

from __future__ import annotations

import asyncio
import time

import grpc
from prometheus_client import REGISTRY, CollectorRegistry, Counter, Histogram

from .grpc_wrapping import WrappingInterceptor


class RpcMetrics:
    def __init__(self, service: str, registry: CollectorRegistry | None = None) -> None:
        registry = REGISTRY if registry is None else registry
        self.commands = Counter(f"domino_{service}_rpcs_total", "RPCs handled, by method and outcome (status code)",
                                ["method", "code"], registry=registry)
        self.latency = Histogram(f"domino_{service}_rpc_seconds", "Time to handle an RPC (streams: to first reply)",
                                 ["method"], buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5),
                                 registry=registry)
        self._counted: dict[tuple[str, str], Counter] = {}  # labelled children, looked up once
        self._timed: dict[str, Histogram] = {}

    def observe(self, method: str, code: str, seconds: float) -> None:
        counted = self._counted.get((method, code))
        if counted is None:
            counted = self._counted[method, code] = self.commands.labels(method, code)
        timed = self._timed.get(method)
        if timed is None:
            timed = self._timed[method] = self.latency.labels(method)
        counted.inc()
        timed.observe(seconds)


def _code_of(context, error: BaseException | None = None) -> str:
    """The status an RPC ended with. A caller that went away (a closed stream, a cancelled
    call) is CANCELLED, not an error of ours."""
    if isinstance(error, (asyncio.CancelledError, GeneratorExit)) or _cancelled(context):
        return "CANCELLED"
    try:
        code = context.code()
    except Exception:
        code = None
    if isinstance(code, grpc.StatusCode):
        return code.name
    return "UNKNOWN" if code is None else str(code)


def _cancelled(context) -> bool:
    try:
        return bool(context.cancelled())
    except Exception:
        return False


class MetricsInterceptor(WrappingInterceptor):
    def __init__(self, metrics: RpcMetrics) -> None:
        super().__init__()
        self.metrics = metrics

    def _wrap(self, handler, full_method: str):
        method = full_method.rsplit("/", 1)[-1]
        observe = self.metrics.observe
        if handler.unary_unary:
            inner = handler.unary_unary

            async def unary(request, context):
                start = time.perf_counter()
                code = "OK"
                try:
                    return await inner(request, context)
                except BaseException as error:
                    code = _code_of(context, error)
                    raise
                finally:
                    observe(method, code, time.perf_counter() - start)

            return grpc.unary_unary_rpc_method_handler(unary, handler.request_deserializer, handler.response_serializer)
        if handler.unary_stream:
            inner_stream = handler.unary_stream

            async def stream(request, context):
                start = time.perf_counter()
                code = "OK"
                try:
                    async for reply in inner_stream(request, context):
                        yield reply
                except BaseException as error:
                    code = _code_of(context, error)
                    raise
                finally:
                    observe(method, code, time.perf_counter() - start)

            return grpc.unary_stream_rpc_method_handler(stream, handler.request_deserializer,
                                                        handler.response_serializer)
        return handler
