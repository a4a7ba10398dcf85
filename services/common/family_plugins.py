"""Families from outside the built-in five: the modules ``DOMINO_FAMILY_MODULES`` names
(``Settings.family_modules``).

Each named module defines ``FAMILY``, a ``Family`` (services/rules/family.py);
every process that plays, checks or records matches (the services, the auditor's command
line) registers them at start, so they all agree on what the family is (docs/design.md,
"Adding a family"). A name that does not import, holds no family, or a family without the
strong bot's tuning, stops the process with one line saying so: a service that silently lacked
a family would refuse its matches, and one whose bots refused it would fail their turns.
"""

from __future__ import annotations

import importlib

from services.rules.family import Family
from services.rules.registry import register

from .bad_settings import variable
from .config import Settings

VARIABLE = variable(Settings, "family_modules")


class BadFamilyModule(Exception):
    pass


def load(names: str) -> list[str]:
    """Registers the families of the comma-separated module names (a process's
    ``Settings.family_modules``); returns the families' names."""
    loaded = []
    for name in filter(None, (n.strip() for n in names.split(","))):
        try:
            module = importlib.import_module(name)
        except Exception as e:
            raise BadFamilyModule(f"{VARIABLE}: cannot import {name!r}: {e}") from None
        family = getattr(module, "FAMILY", None)
        if not isinstance(family, Family):
            raise BadFamilyModule(f"{VARIABLE}: {name!r} defines no FAMILY (a Family)")
        if family.bot_tuning is None:  # else its strong and expert seats fail every turn, redelivered forever
            raise BadFamilyModule(f"{VARIABLE}: {name!r}: family {family.name!r} has no bot_tuning (a BotTuning; "
                                  "BotTuning() is the strong bot's plain search)")
        try:
            register(family)
        except ValueError as e:
            raise BadFamilyModule(f"{VARIABLE}: {name!r}: {e}") from None
        loaded.append(family.name)
    return loaded
