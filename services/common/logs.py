"""Structured logs (structlog): JSON lines for machines, colours for people."""

from __future__ import annotations

import logging

import structlog


def configure(fmt: str = "json", level: str = "INFO") -> None:
    renderer = structlog.processors.JSONRenderer() if fmt == "json" else structlog.dev.ConsoleRenderer()
    shared = [structlog.contextvars.merge_contextvars, structlog.processors.add_log_level,
              structlog.processors.TimeStamper(fmt="iso", utc=True)]
    structlog.configure(
        processors=[*shared, structlog.stdlib.ProcessorFormatter.wrap_for_formatter],
        logger_factory=structlog.stdlib.LoggerFactory(),
        cache_logger_on_first_use=True,
    )
    handler = logging.StreamHandler()
    handler.setFormatter(structlog.stdlib.ProcessorFormatter(
        processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, renderer],
        foreign_pre_chain=shared,
    ))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
