"""Wrong input never escapes as anything but a LeanMemoryError; the hook never blocks."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

import lean_memory
from lean_memory import LeanMemoryError, Memory
from lean_memory.agents import HOOK_TIMEOUT, MAX_HOOK_TIMEOUT, hook_timeout

from .conftest import run_cli

WRONG: list[Any] = [1, None, b"quirks", ["quirks"], 1.5, {"a": 1}, True, ""]


def _calls(mem: Memory, bad: Any) -> dict[str, Callable[[], object]]:
    text = "the build cache breaks on long windows paths"
    return {
        "put shard": lambda: mem.put_entry(bad, text),
        "put text": lambda: mem.put_entry("quirks", bad),
        "put title": lambda: mem.put_entry("quirks", text, title=bad),
        "put tags": lambda: mem.put_entry("quirks", text + " 1", tags=bad),
        "put date": lambda: mem.put_entry("quirks", text + " 2", date=bad),
        "put supersedes": lambda: mem.put_entry("quirks", text + " 3", supersedes=bad),
        "get shard": lambda: mem.get_memory(bad),
        "get query": lambda: mem.get_memory(query=bad),
        "get k": lambda: mem.get_memory(query="build cache", k=bad),
        "search query": lambda: mem.search(bad),
        "search k": lambda: mem.search("build cache", k=bad),
        "search shards": lambda: mem.search("build cache", shards=bad),
        "entries shard": lambda: mem.entries(bad),
        "digest prompt": lambda: mem.digest(bad),
        "digest budget": lambda: mem.digest("build cache", budget_tokens=bad),
        "root": lambda: Memory(bad).status(),
        "open root": lambda: lean_memory.open(bad).entries(),
    }


# The calls where a value of WRONG is a right one: a default (None; a root of None or ""
# is the current folder's), a valid count (1), a list of names, an empty prompt (an empty
# digest), and a mapping as tags (iterated as its keys, like any iterable of strings).
# Every other call must raise.
ACCEPTED = {
    1: {"get k", "search k", "digest budget"},
    None: {"put title", "put date", "put supersedes", "get shard", "get query",
           "search shards", "entries shard", "root", "open root"},
    "['quirks']": {"put tags", "search shards"},
    "{'a': 1}": {"put tags"},
    "''": {"digest prompt", "root", "open root"},
}


@pytest.mark.parametrize("bad", WRONG, ids=repr)
def test_every_wrong_argument_is_a_lean_memory_error(mem: Memory, bad: Any,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Catches: a wrong type escaping as another exception (TypeError, AttributeError...),
    and a wrong value accepted silently (the call returns instead of raising)."""
    monkeypatch.chdir(mem.root)
    mem.put_entry("quirks", "the build cache breaks on long windows paths", date="2026-01-01")
    accepted = ACCEPTED.get(bad if bad is None or type(bad) is int else repr(bad), set())
    wrong = []
    for name, call in _calls(mem, bad).items():
        try:
            call()
        except LeanMemoryError as exc:
            assert "\n" not in str(exc)
            if name in accepted:
                wrong.append(f"{name}: refused a right value")
        except Exception as exc:  # the finding: what escaped, and as what
            wrong.append(f"{name}: {type(exc).__name__}")
        else:
            if name not in accepted:
                wrong.append(f"{name}: accepted")
    assert wrong == []


def test_get_with_a_broken_config_is_an_error(mem: Memory) -> None:
    (mem.agents_dir / "config.toml").write_text("[memory]\ntoken_budget = 'lots'\n",
                                                encoding="utf-8")
    for args in (("get",), ("get", "quirks"), ("get", "--query", "build"), ("status",)):
        r = run_cli(*args, cwd=mem.root)
        assert r.returncode == 2, args
        assert r.stdout == b"" and r.stderr.count(b"\n") == 1 and b"token_budget" in r.stderr


@pytest.mark.parametrize("value, want", [
    ("", HOOK_TIMEOUT), ("nan", HOOK_TIMEOUT), ("NaN", HOOK_TIMEOUT), ("soon", HOOK_TIMEOUT),
    ("inf", MAX_HOOK_TIMEOUT), ("1e308", MAX_HOOK_TIMEOUT), ("99999999999", MAX_HOOK_TIMEOUT),
    ("-inf", 0.0), ("-3", 0.0), ("0.5", 0.5)])
def test_hook_timeout_falls_back_and_is_clamped(value: str, want: float) -> None:
    assert hook_timeout(value) == want


@pytest.mark.parametrize("value", ["nan", "inf", "1e308", "-inf"])
def test_the_hook_never_blocks_the_prompt_whatever_its_timeout(mem: Memory, value: str) -> None:
    mem.put_entry("quirks", "the build cache breaks on long windows paths", date="2026-01-01")
    prompt = {"session_id": "s", "cwd": str(mem.root), "hook_event_name": "UserPromptSubmit",
              "prompt": "why does the windows build cache break"}
    r = run_cli("hook", "user-prompt-submit", cwd=mem.root, stdin=json.dumps(prompt).encode(),
                env={"LEAN_MEMORY_HOOK_TIMEOUT": value})
    assert r.returncode == 0, r.stderr
    if value != "-inf":  # a zero timeout gives up at once, printing nothing
        assert b"build cache" in r.stdout
