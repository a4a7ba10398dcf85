"""The table of every error reason in docs/api.md, generated from the ErrorReason enum of
proto/domino/errors/v1/error_reason.proto and the comments above its values.

    .venv/bin/python scripts/error_table.py            # print the table
    .venv/bin/python scripts/error_table.py --write    # rewrite it in docs/api.md
    .venv/bin/python scripts/error_table.py --check    # exit 1 if docs/api.md's is stale

`make test` runs the check (tests/unit/test_error_reasons.py): after adding a reason, run
`--write`. The table lives between SECTION's markers (scripts/generated_section.py).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from generated_section import REPO, GeneratedSection  # noqa: E402

DOC = REPO / "docs" / "api.md"
PROTO = REPO / "proto" / "domino" / "errors" / "v1" / "error_reason.proto"
SECTION = GeneratedSection("error-table", "scripts/error_table.py", "error table")
PREFIX = "ERROR_REASON_"
_VALUE = re.compile(rf"^\s*{PREFIX}([A-Z0-9_]+)\s*=\s*(\d+);")
_SECTION = re.compile(r"^\s*// ---- (.+?) -*$")


def reasons() -> list[tuple[str, str, str]]:
    """(reason, its API, what it means) of each value but UNSPECIFIED, in the file's order."""
    found, comment, section = [], [], "any API"
    for line in PROTO.read_text().splitlines():
        heading = _SECTION.match(line)
        if heading:
            section, comment = heading.group(1), []
            continue
        value = _VALUE.match(line)
        if value:
            if value.group(1) != "UNSPECIFIED":
                found.append((value.group(1), section, " ".join(comment)))
            comment = []
        elif line.strip().startswith("//"):
            comment.append(line.strip()[2:].strip())
        elif not line.strip():
            comment = []
    return found


def table() -> str:
    lines = ["| reason | API | means |", "|---|---|---|"]
    for reason, api, meaning in reasons():
        lines.append(f"| `{reason}` | {api} | {meaning.replace('|', '/') or '(as named)'} |")
    return "\n".join(lines)


def documented(text: str) -> str:
    """The table as docs/api.md has it."""
    return SECTION.read(text)


def main(argv: list[str] | None = None) -> int:
    return SECTION.main(argv, DOC, table, __doc__.split("\n\n")[0])


if __name__ == "__main__":
    raise SystemExit(main())
