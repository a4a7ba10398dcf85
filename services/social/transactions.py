"""A social use case's transaction, run again when it loses a race (services/common/sql.py's
Conflict) and Busy after a few losses.

The friends' use cases (use_cases.py), the inbox's (inbox.py) and the push tokens'
(push_tokens.py) all run this way, through the retry the other services' threaded use cases
share (services/common/unit_of_work.py); it lives apart so that none imports another for it."""

from __future__ import annotations

import functools
import logging
from typing import Any, Callable, TypeVar

from services.common.sql import Conflict
from services.common.unit_of_work import ThreadedUnits

from .errors import Busy

log = logging.getLogger("domino.social")
ATTEMPTS = 4
F = TypeVar("F", bound=Callable[..., Any])

_units = ThreadedUnits(lambda: Busy("too many changes at once; try again", retry_after=0.1), ATTEMPTS,
                       first_pause=0.005, conflicts=(Conflict,))


def retried_on_conflict(use_case: F) -> F:
    @functools.wraps(use_case)
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            return _units.run(lambda: use_case(*args, **kwargs))
        except Busy:
            log.warning("a social transaction kept losing races", extra={"use_case": use_case.__name__})
            raise
    return run  # type: ignore[return-value]
