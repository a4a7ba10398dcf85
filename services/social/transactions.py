"""A social use case's transaction, run again when it loses a race (services/common/sql.py's
Conflict) and Busy after a few losses.

The friends' use cases (use_cases.py) and the inbox's (inbox.py) both run this way; it lives
apart from both so that neither has to import the other for it."""

from __future__ import annotations

import functools
import logging
import time
from typing import Any, Callable, TypeVar

from services.common.sql import Conflict

from .errors import Busy

log = logging.getLogger("domino.social")
ATTEMPTS = 4
F = TypeVar("F", bound=Callable[..., Any])


def retried_on_conflict(use_case: F) -> F:
    @functools.wraps(use_case)
    def run(*args: Any, **kwargs: Any) -> Any:
        for attempt in range(ATTEMPTS):
            try:
                return use_case(*args, **kwargs)
            except Conflict as lost:
                if attempt == ATTEMPTS - 1:
                    log.warning("a social transaction kept losing races",
                                extra={"use_case": use_case.__name__, "conflict": lost.kind})
                time.sleep(0.005 * (attempt + 1))
        raise Busy("too many changes at once; try again", retry_after=0.1)
    return run  # type: ignore[return-value]
