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
    import copy
    import pickle

    from lean_memory._record import replace

    # Plain classes with slots (no dataclasses import on the hot commands), as immutable
    # and comparable as the frozen dataclasses they were.
    entry = lean_memory.Entry("3fa9c2d1", "quirks", "A title", "A text", tags=("ci",), raw="x")
    values = [entry, lean_memory.Hit(entry, "quirks", 1.5), lean_memory.Status((), 10, 8000, 6400),
              lean_memory.Finding("github-pat", 1, "ghp_\u2026", "0" * 64)]
    for value in values:
        with pytest.raises(AttributeError):
            value.line = 2  # type: ignore[misc]
        assert copy.deepcopy(value) == value == pickle.loads(pickle.dumps(value))
        assert hash(copy.copy(value)) == hash(value)
    for value in values[:3]:
        assert not hasattr(value, "__dict__")
    assert repr(entry) == ("Entry(id='3fa9c2d1', shard='quirks', title='A title', text='A text', "
                           "date=None, tags=('ci',), supersedes=None, meta=(), line=0)")
    assert entry == replace(entry, raw="other", has_meta=True) != replace(entry, line=3)
    assert replace(entry, line=3).line == 3 and replace(entry, line=3).raw == "x"
    with pytest.raises(TypeError):
        replace(entry, colour="red")


def test_errors_share_one_base() -> None:
    for name in ("SecretFound", "UnknownShard", "InvalidEntry", "ConfigError", "QueryError",
                 "ShardError", "NotInitialized"):
        assert issubclass(getattr(lean_memory, name), lean_memory.LeanMemoryError)


def test_scan_text_and_estimate_tokens_are_plain_functions() -> None:
    assert lean_memory.scan_text("nothing to see here") == []
    assert lean_memory.estimate_tokens("") == 0
    assert lean_memory.estimate_tokens("hello world") >= 1
