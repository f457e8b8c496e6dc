"""The hook reads and writes JSON without importing ``json``: the same values, the same errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lean_memory
from lean_memory import agents

VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20)


@settings(max_examples=300, deadline=None)
@given(VALUES, st.sampled_from(["", " ", "\n", "\t\r\n "]), st.booleans())
def test_reading_matches_json_loads(value: Any, space: str, indent: bool) -> None:
    text = space + json.dumps(value, indent=2 if indent else None, ensure_ascii=False) + space
    assert agents._json_loads(text) == json.loads(text)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=30))
def test_bad_input_raises_what_json_loads_raises(text: str) -> None:
    try:
        want: Any = json.loads(text)
    except ValueError as exc:
        with pytest.raises(type(exc)) as got:
            agents._json_loads(text)
        assert str(got.value) == str(exc)
    else:
        assert agents._json_loads(text) == want or want != want  # NaN is not equal to itself


@pytest.mark.parametrize("text", ["NaN", "[Infinity, -Infinity]", "\ufeff{}", "{} {}", "",
                                  '{"a": 1,}', "[1, 2", '"\\ud800"'])
def test_edge_cases(text: str) -> None:
    try:
        want: Any = json.loads(text)
    except ValueError as exc:
        with pytest.raises(type(exc)):
            agents._json_loads(text)
    else:
        assert repr(agents._json_loads(text)) == repr(want)


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_writing_matches_json_dumps(text: str) -> None:
    assert agents._json_string(text) == json.dumps(text, ensure_ascii=True)


def test_the_hook_imports_neither_json_nor_threading(tmp_path: Path) -> None:
    mem = lean_memory.Memory(tmp_path)
    mem.init()
    mem.put_entry("conventions", "Always run ruff before a commit.")
    mem.put_entry("failures", "The deploy failed: the socket timeout was too short.")
    payload = json.dumps({"cwd": str(tmp_path), "hook_event_name": "UserPromptSubmit",
                          "prompt": "why did the deploy fail"})
    code = ("import io, sys; from lean_memory import agents; out = io.StringIO(); "
            f"agents.run_hook('user-prompt-submit', None, io.StringIO({payload!r}), out); "
            "print(sorted(m for m in ('json', 'threading') if m in sys.modules)); "
            "print(out.getvalue())")
    # -S: no site, which imports threading itself; the package from its own folder
    package_root = str(Path(agents.__file__).resolve().parent.parent)
    env = {**os.environ, "PYTHONPATH": package_root}
    out = subprocess.run([sys.executable, "-S", "-c", code], cwd=tmp_path, capture_output=True,
                         text=True, check=True, env=env).stdout
    modules, printed = out.split("\n", 1)
    assert modules == "[]"
    assert "socket timeout" in json.loads(printed)["hookSpecificOutput"]["additionalContext"]
