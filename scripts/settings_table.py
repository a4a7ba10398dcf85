"""The table of every setting in docs/operations.md, generated from services/common/config.py's
Settings: each variable's name, type (with what values it allows), default and the field's
description; the event store's variables (StoreSettings, eventsourcing's own names) included.

    .venv/bin/python scripts/settings_table.py            # print the table
    .venv/bin/python scripts/settings_table.py --write    # rewrite it in docs/operations.md
    .venv/bin/python scripts/settings_table.py --check    # exit 1 if docs/operations.md's is stale

`make test` runs the check (tests/unit/test_settings.py): after adding or changing a
setting, run `--write`. The table lives between SECTION's markers (scripts/generated_section.py).
"""

from __future__ import annotations

import sys
import types
import typing
from pathlib import Path
from typing import Any, Iterator

import annotated_types

sys.path.insert(0, str(Path(__file__).resolve().parent))

from generated_section import REPO, GeneratedSection  # noqa: E402

DOC = REPO / "docs" / "operations.md"
SECTION = GeneratedSection("settings-table", "scripts/settings_table.py", "settings table")
BOUNDS = ((annotated_types.Gt, ">"), (annotated_types.Ge, "≥"), (annotated_types.Lt, "<"), (annotated_types.Le, "≤"))


def _kind(annotation: Any) -> str:
    """What a value may be: its type, a closed set spelled out."""
    if typing.get_origin(annotation) is typing.Literal:
        return "one of " + ", ".join(f"`{v}`" if v else '`""`' for v in typing.get_args(annotation))
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        return " or ".join(_kind(a) for a in typing.get_args(annotation) if a is not type(None))
    return {"SecretStr": "str (secret)"}.get(annotation.__name__, annotation.__name__)


def _type(info: Any) -> str:
    bounds = [f"{sign} {getattr(m, next(iter(type(m).__dataclass_fields__)))}"
              for m in info.metadata for cls, sign in BOUNDS if isinstance(m, cls)]
    return ", ".join([_kind(info.annotation), *bounds])


def _default(info: Any) -> str:
    default = info.get_default(call_default_factory=True)
    if hasattr(default, "get_secret_value"):
        default = default.get_secret_value()
    return '`""` (empty)' if default == "" else "(unset)" if default is None else f"`{default}`"


def rows() -> Iterator[tuple[str, str, str, str]]:
    """(variable, type, default, meaning) of every setting, in the order config.py has them."""
    sys.path.insert(0, str(REPO))
    from pydantic import BaseModel

    from services.common.bad_settings import variable
    from services.common.config import Settings

    def of(model: type[BaseModel]) -> Iterator[tuple[str, str, str, str]]:
        for name, info in model.model_fields.items():
            if isinstance(info.annotation, type) and issubclass(info.annotation, BaseModel):
                yield from of(info.annotation)
                continue
            yield variable(model, name), _type(info), _default(info), info.description or ""

    yield from of(Settings)


def table() -> str:
    lines = ["| variable | type | default | meaning |", "|---|---|---|---|"]
    for name, kind, default, meaning in rows():
        cells = [f"`{name}`", kind, default, meaning or "(not described in services/common/config.py)"]
        lines.append("| " + " | ".join(c.replace("|", "\\|").replace("\n", " ").replace("<", "&lt;")
                                       .replace(">", "&gt;") for c in cells) + " |")
    return "\n".join(lines)


def documented(text: str) -> str:
    """The table as docs/operations.md has it."""
    return SECTION.read(text)


def main(argv: list[str] | None = None) -> int:
    return SECTION.main(argv, DOC, table, __doc__.split("\n\n")[0])


if __name__ == "__main__":
    sys.exit(main())
