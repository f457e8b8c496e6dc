"""Imports inside function bodies stay few (issue 37 item 3): a reader learns what a
module depends on from its top; laziness comes from the CLI's dispatch table, and the few
that a hot-path pin needs say why where they stand."""

from __future__ import annotations

import importlib.util
from pathlib import Path

_SPEC = importlib.util.spec_from_file_location(
    "bench_inner_imports",
    Path(__file__).resolve().parent.parent / "bench" / "imports" / "count.py")
assert _SPEC is not None and _SPEC.loader is not None
counter = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(counter)
LIMIT: int = counter.LIMIT
count = counter.count
inner_imports = counter.inner_imports


def test_the_counter_counts_what_it_should() -> None:
    """Guards the counter itself: module-level and TYPE_CHECKING imports do not count;
    imports in a function, a method, a nested function or a lambda's default do."""
    source = ("import os\nif TYPE_CHECKING:\n    import typing\n"
              "def f():\n    import json\n    def g():\n        from . import x\n"
              "class C:\n    import re\n    def m(self):\n        import ast, dis\n")
    assert inner_imports(source) == [5, 7, 11]


def test_the_package_keeps_imports_inside_functions_under_the_limit() -> None:
    """Fails when a change puts the package back over the limit (186 when issue 37 was
    filed): move the import to the module's top, or past a hot-path pin, say why."""
    per = count()
    total = sum(per.values())
    assert total <= LIMIT, f"{total} > {LIMIT}: " + ", ".join(
        f"{name} {n}" for name, n in per.most_common(8))
