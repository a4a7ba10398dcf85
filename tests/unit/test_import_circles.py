"""No import circle of more than one module in services/ (issue 37, "Done when"): a module
that imports itself through others cannot be read, tested or moved alone. None is allowed,
the client's screens included: they ask the session for what they need through a port
(services/client/screen_host.py), not by naming the App that builds them.

The graph is the one import-linter checks the parts' layers with (pyproject.toml), built by
grimp from the code, imports under TYPE_CHECKING included: a reader follows those too."""

from __future__ import annotations

import grimp

def circles(graph: grimp.ImportGraph, package: str = "services") -> list[list[str]]:
    """Each set of modules of ``package`` that import each other in a circle (Tarjan's
    strongly connected components, of more than one module), sorted."""
    inside = sorted(m for m in graph.modules if m.startswith(package + "."))
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in inside:
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            module, imported = work[-1]
            for other in imported:
                if not other.startswith(package + "."):
                    continue
                if other not in index:
                    index[other] = low[other] = len(index)
                    stack.append(other)
                    on_stack.add(other)
                    work.append((other, iter(sorted(graph.find_modules_directly_imported_by(other)))))
                    break
                if other in on_stack:
                    low[module] = min(low[module], index[other])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[module])
                if low[module] == index[module]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == module:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return sorted(found)


def one_loop(graph: grimp.ImportGraph, circle: list[str]) -> str:
    """One way round ``circle``, to name in a failure: its first module back to itself."""
    first = circle[0]
    step = next(m for m in sorted(graph.find_modules_directly_imported_by(first)) if m in circle)
    back = graph.find_shortest_chain(importer=step, imported=first) or (step, first)
    return " -> ".join((first, *back))


def test_no_module_of_services_imports_itself_through_others():
    graph = grimp.build_graph("services", include_external_packages=False)
    found = circles(graph)
    assert not found, "import circles in services/ (break each: move what both need into a module of its own):\n" \
        + "\n".join(f"{len(c)} modules: {one_loop(graph, c)}" for c in found)


def test_the_check_finds_a_circle_and_names_a_way_round_it():
    graph = grimp.ImportGraph()
    for module in ("services", "services.a", "services.b", "services.c", "services.d"):
        graph.add_module(module)
    graph.add_import(importer="services.a", imported="services.b")
    graph.add_import(importer="services.b", imported="services.c")
    graph.add_import(importer="services.c", imported="services.a")
    graph.add_import(importer="services.d", imported="services.a")
    assert circles(graph) == [["services.a", "services.b", "services.c"]]
    assert one_loop(graph, ["services.a", "services.b", "services.c"]) == \
        "services.a -> services.b -> services.c -> services.a"
