"""The package's modules form layers: no module imports, directly or around a loop, one that
imports it back.

Every import counts, a lazy one written inside a function included (Python does not see the
loop then, a reader does); only those under ``if TYPE_CHECKING:`` are left out. Catches a new
import circle, such as a feature importing the ``Memory`` facade that imports it (``search``
-> ``store`` -> ``search`` on 09d408f), ``errors`` <-> ``secrets`` <-> ``scanfiles`` through
the ``secrets.__getattr__`` shim, or ``demo`` importing ``cli``. With type-only imports
counted too, catches a feature naming the facade in a type hint (``if TYPE_CHECKING: from
.store import Memory``: twelve features and ``store`` in one circle until 2026-12-02); a
feature takes ``_protocols.MemoryLike`` instead.
"""

from __future__ import annotations

import ast
from pathlib import Path

from .conftest import ROOT

PKG = ROOT / "lean_memory"


def _name(path: Path) -> str:
    return "lean_memory" if path.stem == "__init__" else f"lean_memory.{path.stem}"


def _type_checking(node: ast.If) -> bool:
    t = node.test
    return (isinstance(t, ast.Name) and t.id == "TYPE_CHECKING") or (
        isinstance(t, ast.Attribute) and t.attr == "TYPE_CHECKING")


def imports_of(path: Path, modules: set[str], *, types: bool = False) -> set[str]:
    """The package's modules ``path`` imports anywhere in it, TYPE_CHECKING blocks aside
    (unless ``types``)."""
    me = _name(path)
    out: set[str] = set()

    def add(target: str) -> None:
        while target and target not in modules:
            target = target.rpartition(".")[0]
        if target and target != me:
            out.add(target)

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _type_checking(child) and not types:
                for c in child.orelse:
                    visit(c)
                continue
            if isinstance(child, ast.Import):
                for a in child.names:
                    add(a.name)
            elif isinstance(child, ast.ImportFrom):
                mod = child.module or ""
                if child.level:  # the package is flat: "." is lean_memory
                    mod = f"lean_memory.{mod}" if mod else "lean_memory"
                for a in child.names:
                    sub = f"{mod}.{a.name}"
                    add(sub if sub in modules else mod)
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8"), str(path)))
    return out


def import_graph(*, types: bool = False) -> dict[str, set[str]]:
    paths = sorted(PKG.glob("*.py"))
    modules = {_name(p) for p in paths}
    return {_name(p): imports_of(p, modules, types=types) for p in paths}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Groups of two or more modules that reach each other (one group per circle)."""
    def reach(start: str) -> set[str]:
        seen: set[str] = set()
        todo = [start]
        while todo:
            for nxt in graph.get(todo.pop(), ()):
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return seen

    reached = {m: reach(m) for m in graph}
    groups = {tuple(sorted(m2 for m2 in reached[m] if m in reached[m2])) for m in graph
              if m in reached[m]}
    return sorted(list(g) for g in groups)


def test_no_import_circle() -> None:
    found = circles(import_graph())
    assert found == [], "import circles (lazy imports included):\n" + "\n".join(
        " <-> ".join(g) for g in found)


def test_no_circle_with_type_only_imports() -> None:
    """A type hint is a dependency for a reader: a feature never names the facade."""
    found = circles(import_graph(types=True))
    assert found == [], "import circles (TYPE_CHECKING imports included):\n" + "\n".join(
        " <-> ".join(g) for g in found)


def test_the_check_sees_a_lazy_import_circle(tmp_path: Path) -> None:
    """The check itself: an import inside a function counts, one under TYPE_CHECKING not."""
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert circles(graph) == [["a", "b", "c"]]
    path = tmp_path / "probe.py"
    path.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                    "    from .store import Memory\n"
                    "def f():\n    from .search import find\n", encoding="utf-8")
    assert imports_of(path, {"lean_memory.store", "lean_memory.search"}) == {
        "lean_memory.search"}
    assert imports_of(path, {"lean_memory.store", "lean_memory.search"}, types=True) == {
        "lean_memory.store", "lean_memory.search"}
