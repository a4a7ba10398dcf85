"""The picture of the parts in docs/design.md is drawn from the code's imports by
scripts/draw_parts.py, never by hand, and never stale; parts in a circle cannot be drawn."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _script():
    spec = importlib.util.spec_from_file_location("draw_parts", REPO / "scripts" / "draw_parts.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


draw_parts = _script()


def test_the_picture_in_the_design_is_the_code_s():
    assert draw_parts.main(["--check"]) == 0, \
        "docs/design.md's picture of the parts is stale: run .venv/bin/python scripts/draw_parts.py --write"


def test_a_stale_picture_fails_the_check(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    doc = tmp_path / "design.md"
    doc.write_text(f"# Design\n{draw_parts.BEGIN}\n```mermaid\nflowchart TD\n  rules --> match\n```\n{draw_parts.END}\n")
    monkeypatch.setattr(draw_parts, "DOC", doc)
    assert draw_parts.main(["--check"]) == 1
    assert draw_parts.main(["--write"]) == 0 and draw_parts.main(["--check"]) == 0
    assert "  common --> rules" in doc.read_text() and "rules --> match" not in doc.read_text()


def test_every_part_is_drawn_in_levels_that_only_point_down():
    edges, _ = draw_parts.imports()
    levels = draw_parts.layers(edges)
    level_of = {part: n for n, level in enumerate(levels) for part in level}
    assert set(level_of) == {p.name for p in (REPO / "services").iterdir() if (p / "__init__.py").exists()}
    assert all(level_of[other] > level_of[part] for part, others in edges.items() for other in others)


def test_parts_that_import_each_other_are_named_with_the_imports_that_close_the_circle():
    edges = {"common": {"match"}, "match": {"common", "rules"}, "rules": set()}
    example = {("common", "match"): ("services.common.supervisor", "services.match.heads"),
               ("match", "common"): ("services.match.bootstrap", "services.common.config")}
    with pytest.raises(draw_parts.Circle) as circle:
        draw_parts.layers(edges, example)
    assert "services.common.supervisor imports services.match.heads" in str(circle.value)
    assert "services.match.bootstrap imports services.common.config" in str(circle.value)
