"""Which fields of a match event anyone may see, marked where the field is declared.

An event's field is hidden from the public stream (spectators, the other seats, NATS) unless
its declaration says ``Public[...]``: a field added later stays secret until someone decides
it is not, so a new hand, seed or request key cannot leak by being forgotten in a list.
"""

from __future__ import annotations

import dataclasses
import typing
from typing import Annotated, TypeVar

T = TypeVar("T")


class _PublicMark:
    def __repr__(self) -> str:
        return "PUBLIC"


PUBLIC = _PublicMark()

Public = Annotated[T, PUBLIC]
"""A field anyone may see: ``seat: Public[int]``."""


def public_fields(event_class: type) -> tuple[str, ...]:
    """The fields of ``event_class`` marked ``Public``, in their declared order."""
    hints = typing.get_type_hints(event_class, include_extras=True)
    return tuple(field.name for field in dataclasses.fields(event_class)
                 if PUBLIC in getattr(hints[field.name], "__metadata__", ()))
