"""The prompt hook's path (issue 24): JSON read and written without ``json`` (which imports
``re``), the ask's checks without regular expressions, and what the hook imports."""

from __future__ import annotations

import json
import math
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lean_memory import _jsonc, agents

values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a):
        return math.isnan(b)
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def _outcome(text: str) -> tuple[str, Any]:
    try:
        return "ok", json.loads(text)
    except Exception as exc:  # the same type and message, or the same value
        return type(exc).__name__, str(exc)


def _mine(text: str) -> tuple[str, Any]:
    try:
        return "ok", _jsonc.loads(text)
    except Exception as exc:
        return type(exc).__name__, str(exc)


@settings(max_examples=500, deadline=None)
@given(values, st.sampled_from(["", " ", "\n", " \t\r\n "]), st.booleans(), st.booleans())
def test_loads_is_json_loads_on_documents(value: Any, pad: str, ascii_only: bool,
                                          indent: bool) -> None:
    text = pad + json.dumps(value, ensure_ascii=ascii_only, indent=1 if indent else None) + pad
    kind, got = _mine(text)
    assert kind == "ok" and _same(got, json.loads(text))


@settings(max_examples=800, deadline=None)
@given(st.one_of(
    st.text(alphabet=st.sampled_from('{}[]",:0123456789.eE+-tfnulrsaINfiy \t\r\n\\x\ufeff'),
            max_size=40),
    st.text(max_size=20),
    values.map(json.dumps).flatmap(lambda s: st.tuples(
        st.just(s), st.integers(0, len(s)), st.text(max_size=3)))
    .map(lambda t: t[0][: t[1]] + t[2] + t[0][t[1]:])))
def test_loads_accepts_and_refuses_what_json_loads_does(text: str) -> None:
    mine, theirs = _mine(text), _outcome(text)
    assert mine[0] == theirs[0]
    if mine[0] == "ok":
        assert _same(mine[1], theirs[1])
    else:
        assert mine[1] == theirs[1]


def test_loads_constants() -> None:
    for text in ("NaN", "[Infinity, -Infinity]", '{"a": NaN}', "1e400", "-0", "0.5"):
        assert _same(_jsonc.loads(text), json.loads(text))
    assert math.isnan(_jsonc.loads("NaN"))


@settings(max_examples=500, deadline=None)
@given(st.text(), st.booleans())
def test_string_is_json_dumps(text: str, ascii_only: bool) -> None:
    assert _jsonc.string(text, ascii_only) == json.dumps(text, ensure_ascii=ascii_only)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(["UserPromptSubmit", "SessionStart"]), st.text())
def test_the_answer_is_json_dumps(name: str, text: str) -> None:
    want = json.dumps({"hookSpecificOutput": {"hookEventName": name,
                                              "additionalContext": text}},
                      ensure_ascii=True) + "\n"
    assert agents.answer(name, text) == want


@pytest.mark.parametrize("data", ['{"prompt": "x"}', b'{"prompt": "\xc3\xa9"}', " [1] "])
def test_read_input(data: str | bytes) -> None:
    import io

    stream = io.BytesIO(data) if isinstance(data, bytes) else io.StringIO(data)
    text = data.decode() if isinstance(data, bytes) else data
    assert agents._read_input(stream) == json.loads(text)


# -- the ask's checks, in str methods: the regular expressions they replace are the oracle --

AT = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z")
PLAIN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,63}")
FILE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")


@settings(max_examples=1000, deadline=None)
@given(st.one_of(
    st.text(alphabet=st.sampled_from("0123456789-TZ:\u0663\u00b2\uff11 x\n"), min_size=18,
            max_size=22),
    st.datetimes().map(lambda d: d.strftime("%Y-%m-%dT%H:%M:%SZ")).flatmap(
        lambda s: st.tuples(st.just(s), st.integers(0, 19), st.sampled_from(
            ["", "1", "\u0663", "\u00b2", "a", "Z", "\n", "-", ":"]), st.booleans())).map(
        lambda t: t[0][: t[1]] + t[2] + t[0][t[1] + (1 if t[3] else 0):]),
    st.text(max_size=22)))
def test_is_time_is_the_regular_expression(text: str) -> None:
    from lean_memory._askrecord import is_time

    assert is_time(text) == bool(AT.fullmatch(text))


names = st.one_of(
    st.text(alphabet=st.sampled_from("aZ09._:-/ \n\u00e9\u0663x"), max_size=70),
    st.text(max_size=70))


@settings(max_examples=1000, deadline=None)
@given(names)
def test_plain_name_is_the_regular_expression(text: str) -> None:
    from lean_memory._askrecord import plain_name

    assert plain_name(text) == bool(PLAIN_ID.fullmatch(text))
    assert plain_name(text, "_-") == bool(FILE_NAME.fullmatch(text))


def test_plain_name_lengths() -> None:
    from lean_memory._askrecord import plain_name

    for n in (0, 1, 63, 64, 65):
        text = "a" * n
        assert plain_name(text) == bool(PLAIN_ID.fullmatch(text)) == (0 < n <= 64)


# -- the rules' cache: the correction links are read only when a shard file changed --------


def test_the_rules_cache_reads_no_links_while_no_shard_file_changed(
        tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    import lean_memory
    from lean_memory.digest import digest
    from lean_memory.putstate import Summarized

    mem = lean_memory.Memory(tmp_path)
    mem.init()
    rule = mem.put_entry("conventions", "Always run ruff before a commit.")
    mem.put_entry("failures", "The deploy failed: the socket timeout was too short.")
    first = digest(lean_memory.Memory(tmp_path), "why did the deploy fail")
    reads: list[int] = []
    real = Summarized.correction_links

    def counted(self: Any) -> Any:
        reads.append(1)
        return real(self)

    monkeypatch.setattr(Summarized, "correction_links", counted)
    assert digest(lean_memory.Memory(tmp_path), "why did the deploy fail") == first
    assert reads == []  # nothing changed: the links were not read
    mem.put_entry("failures", "The build failed: the cache was cold.")
    assert "ruff" in digest(lean_memory.Memory(tmp_path), "why did the build fail")
    assert reads == [1]  # read once after the put (the same links) ...
    digest(lean_memory.Memory(tmp_path), "why did the build fail")
    assert reads == [1]  # ... and not again
    mem.put_entry("failures", "Use black, not ruff.", supersedes=rule.id)
    assert "ruff before" not in digest(lean_memory.Memory(tmp_path), "why did the build fail")


def test_the_prompt_hook_imports_neither_json_nor_the_matcher(tmp_path: Any) -> None:
    """The hook keeps the prompt as an ask and answers in JSON with neither ``json`` (it
    imports ``re``) nor the asks matcher (``lean_memory.asks``: its tables and patterns)."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    import lean_memory

    project, data = tmp_path / "p", tmp_path / "data"
    mem = lean_memory.Memory(project)
    mem.init()
    mem.put_entry("conventions", "Always run ruff before a commit.")
    mem.put_entry("failures", "The deploy failed: the socket timeout was too short.")
    mem.search("deploy")
    mem.status()
    payload = json.dumps({"cwd": str(project), "hook_event_name": "UserPromptSubmit",
                          "session_id": "s-1", "prompt": "why did the deploy fail"})
    code = ("import io, sys; from lean_memory import agents; out = io.StringIO(); "
            f"agents.run_hook('user-prompt-submit', None, io.StringIO({payload!r}), out); "
            "print(sorted(m for m in ('json', 're', 'enum', 'lean_memory.asks') "
            "if m in sys.modules)); "
            "print(out.getvalue())")
    package_root = str(Path(agents.__file__).resolve().parent.parent)
    env = {**os.environ, "PYTHONPATH": package_root, "XDG_DATA_HOME": str(data),
           "LEAN_MEMORY_GLOBAL": str(tmp_path / "global")}
    out = subprocess.run([sys.executable, "-S", "-c", code], cwd=project, capture_output=True,
                         text=True, check=True, env=env).stdout
    modules, printed = out.split("\n", 1)
    assert modules == "[]"
    assert "socket timeout" in json.loads(printed)["hookSpecificOutput"]["additionalContext"]
    kept = [line for f in data.rglob("*.jsonl") if "asks" in f.parts
            for line in f.read_text().splitlines()]
    assert [json.loads(line)["text"] for line in kept] == ["why did the deploy fail"]
