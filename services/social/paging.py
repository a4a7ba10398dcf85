"""Pages of a social list: how many rows one holds, and the token that names where the next
begins. The friends' lists (use_cases.py) and the inbox (inbox.py) page alike.

A token is the last row's key and time, with the list's kind so that one list's token is
refused by another, as base64 JSON: opaque to clients, and checked field by field when read
(a client may send anything)."""

from __future__ import annotations

import base64
import binascii
import json

from .errors import InvalidRequest

DEFAULT_PAGE = 50
MAX_PAGE = 100
MAX_TOKEN = 512


def check_page_size(page_size: int) -> int:
    if not 0 <= page_size <= MAX_PAGE:
        raise InvalidRequest(f"page_size must be 1 to {MAX_PAGE} (0: {DEFAULT_PAGE})", "page_size")
    return page_size or DEFAULT_PAGE


def next_page_token(kind: str, key_field: str, key: str, at: float) -> str:
    """The token of the page after the row (``key``, ``at``) of list ``kind``; ``key_field``:
    the name the list gives the key in its tokens."""
    token = json.dumps({"k": kind, key_field: key, "a": at}, separators=(",", ":"))
    return base64.urlsafe_b64encode(token.encode()).decode().rstrip("=")


def page_start(page_token: str, kind: str, key_field: str) -> tuple[str, float] | None:
    """(key, time) of the row a page of list ``kind`` begins after; None: the first page."""
    if not page_token:
        return None
    try:
        if len(page_token) > MAX_TOKEN:
            raise ValueError
        found = json.loads(base64.urlsafe_b64decode(page_token.encode("ascii") + b"=="))
        if found["k"] != kind or not isinstance(found[key_field], str) or not isinstance(found["a"], (int, float)):
            raise ValueError
        return found[key_field], float(found["a"])
    except (ValueError, KeyError, TypeError, UnicodeError, binascii.Error):
        raise InvalidRequest("page_token is not one this list gave out", "page_token") from None
