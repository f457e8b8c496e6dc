"""The public surface: every exported name resolves, and importing the package is cheap."""

from __future__ import annotations

import subprocess
import sys

import pytest

import lean_memory

from .conftest import ROOT


def test_every_exported_name_resolves() -> None:
    for name in lean_memory.__all__:
        assert getattr(lean_memory, name) is not None, name
    assert set(lean_memory.__all__) <= set(dir(lean_memory))


def test_import_loads_nothing_heavy() -> None:
    code = ("import sys, lean_memory; "
            "print(sorted(m for m in sys.modules if m.startswith('lean_memory')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, check=True).stdout
    assert out.strip() == "['lean_memory']"


def test_values_are_frozen() -> None:
    import dataclasses

    for cls in (lean_memory.Entry, lean_memory.Hit, lean_memory.Status):
        assert dataclasses.is_dataclass(cls) and cls.__dataclass_params__.frozen  # type: ignore[attr-defined]
    # Finding is a plain class with __slots__ (no dataclasses import on `put`), as immutable.
    f = lean_memory.Finding("github-pat", 1, "ghp_\u2026", "0" * 64)
    with pytest.raises(AttributeError):
        f.line = 2  # type: ignore[misc]


def test_errors_share_one_base() -> None:
    for name in ("SecretFound", "UnknownShard", "InvalidEntry", "ConfigError", "QueryError",
                 "ShardError", "NotInitialized"):
        assert issubclass(getattr(lean_memory, name), lean_memory.LeanMemoryError)


def test_scan_text_and_estimate_tokens_are_plain_functions() -> None:
    assert lean_memory.scan_text("nothing to see here") == []
    assert lean_memory.estimate_tokens("") == 0
    assert lean_memory.estimate_tokens("hello world") >= 1
