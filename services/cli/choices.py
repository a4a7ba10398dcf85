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


class Described(click.Option):
    """An option whose help is ``described()`` as it is when the help is shown: help naming the
    families, built from the registry like the choices above."""

    def __init__(self, *args, described: Callable[[], str], **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._described = described

    def get_help_record(self, ctx: click.Context) -> tuple[str, str] | None:
        self.help = self._described()
        return super().get_help_record(ctx)
