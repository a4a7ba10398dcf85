"""Reading JSON anyone may have written (a match record, a player's heads file, a key file)
so that whatever it holds ends in a one-line reason, never in a crash of the reader.

Python's parser is exact but not made for hostile files: nesting a few thousand levels deep
exhausts its recursion limit (RecursionError), an integer of more than 4300 digits is
refused with a bare ValueError, and a lone surrogate escape (``"\\ud800"``) decodes to a
string that cannot be encoded again, so it fails later, far from the file, when the string
is hashed or printed. The files the audit tools read are a few levels deep and hold small
integers and text; limits far above what they need turn each of those into a fault named
at once (docs/security.md, "Hostile files").
"""

from __future__ import annotations

import json
from typing import Any

MAX_DEPTH = 32  # a record nests 5 levels (record, rounds, round, hands, hand)
MAX_DIGITS = 16  # every integer of I-JSON's exact range (|n| <= 2**53) has at most 16 digits


class UntrustedJson(ValueError):
    """The text is not JSON these tools read: the message says why, on one line."""


def parse(text: str | bytes) -> Any:
    try:
        data = json.loads(text, parse_int=_integer, parse_constant=_constant)
    except UntrustedJson:
        raise
    except RecursionError:
        raise UntrustedJson(f"not JSON these tools read: nested deeper than {MAX_DEPTH} levels") from None
    except UnicodeDecodeError as e:
        raise UntrustedJson(f"not JSON: not UTF-8 text ({e.reason} at byte {e.start})") from None
    except ValueError as e:  # json.JSONDecodeError, and anything else the parser refuses
        raise UntrustedJson(f"not JSON: {_one_line(str(e))}") from None
    _check(data)
    return data


def _integer(digits: str) -> int:
    if len(digits.lstrip("-")) > MAX_DIGITS:
        raise UntrustedJson(f"a number of {len(digits.lstrip('-'))} digits; these files hold no number "
                            f"beyond {MAX_DIGITS} digits")
    return int(digits)


def _constant(name: str) -> Any:
    raise UntrustedJson(f"not JSON: {name} is not a JSON number")


def _check(data: Any) -> None:
    """Depth and strings, walked without recursion so no nesting can exhaust the stack."""
    pending: list[tuple[Any, str, int]] = [(data, "", 1)]
    while pending:
        value, path, depth = pending.pop()
        if isinstance(value, (dict, list)) and depth > MAX_DEPTH:
            raise UntrustedJson(f"not JSON these tools read: nested deeper than {MAX_DEPTH} levels")
        if isinstance(value, dict):
            for key, item in value.items():
                _check_text(key, f"{path}.{_printable(key)}" if path else _printable(key), "a key")
                pending.append((item, f"{path}.{_printable(key)}" if path else _printable(key), depth + 1))
        elif isinstance(value, list):
            pending.extend((item, f"{path}[{i}]", depth + 1) for i, item in enumerate(value))
        elif isinstance(value, str):
            _check_text(value, path, "a string")


def _check_text(text: str, path: str, what: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:
        where = path if len(path) <= 60 else "..." + path[-57:]
        raise UntrustedJson(f"{what} at {where or 'the top'} holds a lone surrogate "
                            f"(\\u{ord(text[e.start]):04x}), which is not Unicode text") from None


def _printable(key: str) -> str:
    """A key as it may be shown in a message: no surrogates, no line breaks, not too long."""
    shown = json.dumps(key)[1:-1]  # ASCII, with every control and surrogate escaped
    return shown if len(shown) <= 40 else shown[:37] + "..."


def _one_line(message: str) -> str:
    return " ".join(message.split())
