"""The docs name the tests that show each defence holds: every name they cite exists.

A renamed or deleted test would otherwise leave docs/security.md promising a proof that is
no longer run.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
CITED = re.compile(r"\btest_[a-z0-9_]*[a-z0-9]\b(?!\*)")


def _tests_known() -> tuple[set[str], set[str]]:
    functions: set[str] = set()
    modules: set[str] = set()
    for path in (ROOT / "tests").rglob("test_*.py"):
        modules.add(path.stem)
        functions.update(re.findall(r"def (test_[a-z0-9_]+)", path.read_text(encoding="utf-8")))
    return functions, modules


FUNCTIONS, MODULES = _tests_known()


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_every_test_a_doc_cites_exists(doc: Path) -> None:
    cited = set(CITED.findall(doc.read_text(encoding="utf-8")))
    assert cited - FUNCTIONS - MODULES == set()


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_every_test_file_a_doc_cites_exists(doc: Path) -> None:
    cited = set(re.findall(r"tests/[\w/]+\.py", doc.read_text(encoding="utf-8")))
    assert {c for c in cited if not (ROOT / c).is_file()} == set()
