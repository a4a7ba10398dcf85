"""Structured logs (structlog): JSON lines for machines, colours for people.

Records from the standard ``logging`` module (all of ours) keep their ``extra=`` fields as
keys of the line, and an exception's traceback is rendered as text, so a log search finds
both.
"""

from __future__ import annotations

import logging
import time
from typing import Any, Callable

import structlog
from structlog.typing import Processor


def configure(fmt: str = "json", level: str = "INFO") -> None:
    renderer = structlog.processors.JSONRenderer() if fmt == "json" else structlog.dev.ConsoleRenderer()
    shared: list[Processor] = [structlog.contextvars.merge_contextvars, structlog.processors.add_log_level,
              structlog.processors.TimeStamper(fmt="iso", utc=True)]
    structlog.configure(
        processors=[*shared, structlog.stdlib.ProcessorFormatter.wrap_for_formatter],
        logger_factory=structlog.stdlib.LoggerFactory(),
        cache_logger_on_first_use=True,
    )
    tracebacks: list[Processor] = [structlog.processors.format_exc_info] if fmt == "json" else []
    handler = logging.StreamHandler()
    handler.setFormatter(structlog.stdlib.ProcessorFormatter(
        processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, *tracebacks, renderer],
        foreign_pre_chain=[*shared, structlog.stdlib.ExtraAdder()],
    ))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    # httpx logs every request at INFO: the console's scrapes, the notifier's pushes would
    # drown the services' own lines (their failures are logged and counted where they happen)
    for chatty in ("httpx", "httpcore"):
        logging.getLogger(chatty).setLevel(max(logging.WARNING, root.level))


class Warnings:
    """Log a repeated warning at most once every ``seconds`` per kind, with how many were
    held back: a flood of bad messages must not flood the log."""

    def __init__(self, log: logging.Logger, seconds: float = 10.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.log = log
        self.seconds = seconds
        self.clock = clock
        self._last: dict[str, float] = {}
        self._held: dict[str, int] = {}

    def warn(self, kind: str, message: str, **extra: Any) -> bool:
        now = self.clock()
        if now - self._last.get(kind, -self.seconds) < self.seconds:
            self._held[kind] = self._held.get(kind, 0) + 1
            return False
        self._last[kind] = now
        held = self._held.pop(kind, 0)
        self.log.warning(message, extra={**extra, "kind": kind, "held_back": held})
        return True
