"""Import statements inside function bodies across the package (issue 37 item 3).

    python bench/imports/count.py [--by-module] [--list]

An ``ast`` walk of every ``lean_memory/**/*.py``: each ``Import``/``ImportFrom`` that is not
at a module's top level (inside a ``def``/``lambda`` body, at any depth) counts once; imports
under ``if TYPE_CHECKING:`` at module level do not count. tests/test_import_count.py holds
the package to :data:`LIMIT`.
"""

from __future__ import annotations

import ast
import sys
from collections import Counter
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent.parent / "lean_memory"
LIMIT = 150


def inner_imports(source: str) -> list[int]:
    """The line numbers of the import statements inside function bodies of ``source``."""
    found: list[int] = []

    def walk(node: ast.AST, inside: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.Import, ast.ImportFrom)) and inside:
                found.append(child.lineno)
            walk(child, inside or isinstance(
                child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))

    walk(ast.parse(source), False)
    return found


def count(package: Path = PACKAGE) -> Counter[str]:
    """Each module (its path below the package's parent) and its inner imports."""
    return Counter({str(p.relative_to(package.parent)): len(inner_imports(
        p.read_text(encoding="utf-8"))) for p in sorted(package.rglob("*.py"))})


def main() -> None:
    per = count()
    if "--list" in sys.argv:
        for path in sorted(PACKAGE.rglob("*.py")):
            for line in inner_imports(path.read_text(encoding="utf-8")):
                print(f"{path.relative_to(PACKAGE.parent)}:{line}")
    if "--by-module" in sys.argv:
        for name, n in per.most_common():
            if n:
                print(f"{n:4d}  {name}")
    print(f"{sum(per.values())} imports inside function bodies (limit {LIMIT})")


if __name__ == "__main__":
    main()
