"""The library's layers point down: no import cycle among its modules (function-local imports included), and
the low layers know nothing of the chapters. Read from the source with ``ast``; nothing is imported."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import graphrepro

ROOT = Path(graphrepro.__file__).parent


def module_name(path: Path) -> str:
    """``graphrepro.a.b`` for ``graphrepro/a/b.py`` and for ``graphrepro/a/b/__init__.py``."""
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    """Every library module and the library modules it imports anywhere in its body (by ``import`` or ``from``;
    ``from package import module`` counts as importing the module, not the package's ``__init__``)."""
    paths = {module_name(p): p for p in ROOT.rglob("*.py")}

    def owner(name: str) -> str:
        while name and name not in paths:
            name = name.rpartition(".")[0]
        return name

    graph: dict[str, set[str]] = {}
    for name, path in paths.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        found = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                found |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(up + ([base] if base else []))
                named = {f"{base}.{a.name}" for a in node.names}
                # ``from package import module`` names the module; ``from module import name`` the module
                found |= {n for n in named if n in paths} or {base}
        graph[name] = {owner(t) for t in found if t.startswith("graphrepro")} - {name, ""}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = [stack.pop()]
            while component[-1] != v:
                component.append(stack.pop())
            if len(component) > 1:
                found.append(sorted(component))

    for v in graph:
        if v not in index:
            visit(v)
    return found


def below(graph: dict[str, set[str]], start: str) -> set[str]:
    """Every module ``start`` reaches through its imports."""
    seen, todo = set(), [start]
    while todo:
        for w in graph[todo.pop()] - seen:
            seen.add(w)
            todo.append(w)
    return seen


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_module_of_the_library_imports_one_that_imports_it_back():
    assert cycles(import_graph()) == []


@pytest.mark.parametrize("low", ["graphrepro.paths", "graphrepro.store", "graphrepro.verdicts", "graphrepro.metrics",
                                 "graphrepro.pages", "graphrepro.vocabulary", "graphrepro.experiments", "graphrepro.models"])
def test_the_low_layers_know_nothing_of_the_chapters_or_the_book(low):
    reached = below(import_graph(), low)
    upper = {m for m in reached if m.startswith(("graphrepro.chapters", "graphrepro.collate", "graphrepro.runner",
                                                  "graphrepro.build", "graphrepro.catalog", "graphrepro.grid"))}
    assert not upper, f"{low} imports {sorted(upper)}"
