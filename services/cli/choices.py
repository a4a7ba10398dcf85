"""Command-line choices read from the registry when a command runs, not when it is imported.

``domino`` registers the families of ``DOMINO_FAMILY_MODULES`` in its group's callback
(services/cli/main.py), after every command module has been imported: a ``click.Choice``
listing the families at import would refuse a registered family the process plays
(docs/design.md, "Adding a family").
"""

from __future__ import annotations

from typing import Callable, Sequence

import click


class Registered(click.Choice):
    """A choice among ``values()`` as they are when the command line is parsed or its help shown."""

    def __init__(self, values: Callable[[], Sequence[str]]) -> None:
        self._values = values
        super().__init__(())

    @property
    def choices(self) -> tuple[str, ...]:
        return tuple(self._values())

    @choices.setter
    def choices(self, _: Sequence[str]) -> None:
        """click.Choice sets its list once; this one is read each time."""
