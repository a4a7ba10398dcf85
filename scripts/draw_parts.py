"""The picture of the parts in docs/design.md ("The parts"), drawn from the code's imports:
which part of services/ imports which, in layers, as a mermaid diagram and a table.

    .venv/bin/python scripts/draw_parts.py            # print the picture
    .venv/bin/python scripts/draw_parts.py --write    # rewrite it in docs/design.md
    .venv/bin/python scripts/draw_parts.py --check    # exit 1 if docs/design.md's is stale

A part is a package of services/ (services/match, services/rules, ...); one part imports
another when any of its modules does, at any depth, under TYPE_CHECKING too (grimp's graph,
the one import-linter checks the `parts-in-layers` contract on). Parts that import each
other in a circle cannot be drawn in layers: the script names the imports that close the
circle and fails. `make test` runs the check (tests/unit/test_parts_picture.py): after a
part gains or loses a dependency, run `--write`.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from generated_section import REPO, GeneratedSection  # noqa: E402

DOC = REPO / "docs" / "design.md"
SECTION = GeneratedSection("parts-picture", "scripts/draw_parts.py", "picture of the parts")
BEGIN, END = SECTION.begin, SECTION.end
PACKAGE = "services"

Edges = dict[str, set[str]]


class Circle(Exception):
    """Parts that import each other: the message names the imports on the way round."""


def imports() -> tuple[Edges, dict[tuple[str, str], tuple[str, str]]]:
    """(each part's imported parts, one module import behind each of those edges)."""
    sys.path.insert(0, str(REPO))
    import grimp

    graph = grimp.build_graph(PACKAGE, include_external_packages=False)
    edges: Edges = {}
    example: dict[tuple[str, str], tuple[str, str]] = {}
    for module in sorted(graph.modules):
        if module.count(".") < 1:
            continue
        part = module.split(".")[1]
        edges.setdefault(part, set())
        for imported in sorted(graph.find_modules_directly_imported_by(module)):
            other = imported.split(".")[1] if imported.count(".") >= 1 else part
            if other != part:
                edges[part].add(other)
                example.setdefault((part, other), (module, imported))
    return edges, example


def layers(edges: Edges, example: dict[tuple[str, str], tuple[str, str]] | None = None) -> list[list[str]]:
    """The parts from the top down, each as high as it can be: one layer below the lowest
    part that imports it; Circle when some parts import each other."""
    importers: Edges = {part: {p for p, others in edges.items() if part in others} for part in edges}
    depth: dict[str, int] = {}
    path: list[str] = []

    def up(part: str) -> int:
        if part in path:
            loop = path[path.index(part):] + [part]
            named = [f"{b} -> {a} ({' imports '.join((example or {}).get((b, a), ('?', '?')))})"
                     for a, b in zip(loop, loop[1:])]
            raise Circle("parts import each other: " + "; ".join(named[::-1]))
        if part not in depth:
            path.append(part)
            depth[part] = 1 + max((up(other) for other in sorted(importers[part])), default=-1)
            path.pop()
        return depth[part]

    for part in sorted(edges):
        up(part)
    return [sorted(p for p in depth if depth[p] == d) for d in range(max(depth.values(), default=-1) + 1)]


def shortcuts(edges: Edges) -> Edges:
    """The edges a reader sees: an import that a longer way down already implies is left out."""
    def reachable(start: str, skip: str) -> set[str]:
        seen: set[str] = set()
        todo = [o for o in edges.get(start, ()) if o != skip]
        while todo:
            part = todo.pop()
            if part not in seen:
                seen.add(part)
                todo.extend(edges.get(part, ()))
        return seen

    return {part: {o for o in others if o not in reachable(part, o)} for part, others in edges.items()}


def picture() -> str:
    edges, example = imports()
    drawn = shortcuts(edges)
    lines = ["```mermaid", "flowchart TD"]
    levels = layers(edges, example)
    for level in levels:
        for part in level:
            lines.extend(f"  {part} --> {other}" for other in sorted(drawn[part]))
            if not edges[part] and not any(part in o for o in edges.values()):
                lines.append(f"  {part}")
    lines += ["```", "", "| level | part | imports (directly) |", "|---|---|---|"]
    for number, level in enumerate(levels, 1):
        for part in level:
            lines.append(f"| {number} | `{PACKAGE}/{part}/` | {', '.join(sorted(edges[part])) or '(nothing)'} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    try:
        return SECTION.main(argv, DOC, picture, __doc__.split("\n\n")[0])
    except Circle as circle:
        print(f"cannot draw the parts in layers: {circle}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
