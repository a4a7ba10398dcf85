"""Structured logs (structlog): JSON lines for machines, colours for people.

Records from the standard ``logging`` module (all of ours) keep their ``extra=`` fields as
keys of the line, and an exception's traceback is rendered as text, so a log search finds
both.
"""

from __future__ import annotations

import logging

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
