"""How many rows a page of a social list holds: the friends' lists (use_cases.py) and the
inbox (inbox.py) check a request's page size alike."""

from __future__ import annotations

from .errors import InvalidRequest

DEFAULT_PAGE = 50
MAX_PAGE = 100


def check_page_size(page_size: int) -> int:
    if not 0 <= page_size <= MAX_PAGE:
        raise InvalidRequest(f"page_size must be 1 to {MAX_PAGE} (0: {DEFAULT_PAGE})", "page_size")
    return page_size or DEFAULT_PAGE
