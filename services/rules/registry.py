"""Every rule family the server plays, by name: the one place that lists them.

The rest of the house asks ``family(name)`` (or iterates ``families()``) and never imports
a family module or compares a family's name; a sixth family is its module plus one line in
``_BUILT_IN``. ``register`` adds one from elsewhere (a test's, or a plugin module the
services load at start, docs/design.md "Adding a family").
"""

from __future__ import annotations

from .errors import BadOptions, shown
from .families import all_fives, classic, egyptian, goat, sports
from .family import Family

_BUILT_IN: tuple[Family, ...] = (egyptian.FAMILY, all_fives.FAMILY, goat.FAMILY, classic.FAMILY, sports.FAMILY)
_FAMILIES: dict[str, Family] = {f.name: f for f in _BUILT_IN}


def register(new: Family) -> Family:
    """Adds a family (idempotent for the same object); a different one of a taken name is refused."""
    known = _FAMILIES.get(new.name)
    if known is not None and known is not new:
        raise ValueError(f"a family named {new.name!r} is already registered")
    _FAMILIES[new.name] = new
    return new


def unregister(name: str) -> None:
    """Removes a family added by ``register`` (tests); built-in families stay."""
    if any(f.name == name for f in _BUILT_IN):
        raise ValueError(f"{name!r} is built in")
    _FAMILIES.pop(name, None)


def families() -> tuple[Family, ...]:
    return tuple(_FAMILIES.values())


def names() -> tuple[str, ...]:
    return tuple(_FAMILIES)


def family(name: str) -> Family:
    """The family of that name; BadOptions lists the families played otherwise."""
    found = _FAMILIES.get(name)
    if found is None:
        raise BadOptions(f"unknown rules {shown(name)}; this server plays: {', '.join(_FAMILIES)}")
    return found


def find(name: str) -> Family | None:
    return _FAMILIES.get(name)
