"""Process lifecycle shared by every service: stop cleanly on SIGTERM or Ctrl-C."""

from __future__ import annotations

import asyncio
import signal

from .gc_pauses import freeze_what_started
from .loop_lag import watch_loop_lag


def stop_on_signals() -> asyncio.Event:
    """An event set by SIGTERM/SIGINT, so a service can finish in-flight work and drain.
    Every service calls it once, when it has started: what starting made is frozen out of
    the garbage collector's passes then (gc_pauses.py), and its loop's lag observed from
    then on (loop_lag.py)."""
    freeze_what_started()
    watch_loop_lag()
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stopping.set)
    return stopping


def run_service(serve) -> None:
    """The body of every service's `main`: settings from the environment, logs, then
    ``serve(settings)`` until a signal stops it."""
    from . import logs
    from .config import from_environment
    from .gc_pauses import observe_pauses

    settings = from_environment()
    logs.configure(settings.log_format, settings.log_level)
    observe_pauses()
    asyncio.run(serve(settings))
