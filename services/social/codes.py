"""Friend codes: eight characters of an alphabet without look-alikes, random, shown as
XXXX-XXXX and read in any case, with or without the hyphen or spaces.

The alphabet leaves out 0 and O, 1, I and L, and U (which reads as V): 30 characters, so
30^8 (6.5e11) codes, guessed at 20 tries an hour at most (docs/social.md)."""

from __future__ import annotations

import secrets

ALPHABET = "23456789ABCDEFGHJKMNPQRSTVWXYZ"
LENGTH = 8
_SEPARATORS = str.maketrans("", "", "- ")
MAX_TYPED = 32  # characters of a typed code, separators included


def new_code() -> str:
    """A random code in its stored form (8 characters, no hyphen)."""
    return "".join(secrets.choice(ALPHABET) for _ in range(LENGTH))


def shown(code: str) -> str:
    return f"{code[:4]}-{code[4:]}"


def normalized(typed: str) -> str | None:
    """The stored form of a code as a player typed it; None when it cannot be one."""
    if len(typed) > MAX_TYPED:
        return None
    code = typed.translate(_SEPARATORS).upper()
    if len(code) != LENGTH or any(ch not in ALPHABET for ch in code):
        return None
    return code
