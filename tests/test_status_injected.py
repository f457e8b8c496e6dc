"""``status``'s "injected" line: the digest of the last ask remembered, never trusted stale.

At 100k entries that digest (a whole search) was most of what ``status`` cost (issue 36
item 5): every ``status`` searched again for the same ask in the same memory.
"""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import lean_memory
from lean_memory import digest, learn
from lean_memory.cli import main
from lean_memory.errors import quoted
from lean_memory.globalstore import global_memory
from lean_memory.recall import hook_budget
from lean_memory.search import find as search_find
from lean_memory.tokens import estimate_tokens

from .test_hot_imports import _loaded

ASK = "why does the deploy fail with ECONNREFUSED after the upgrade"


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv("LEAN_MEMORY_GLOBAL", raising=False)
    monkeypatch.delenv("LEAN_MEMORY_DIGEST_TOKENS", raising=False)
    root = tmp_path / "proj"
    mem = lean_memory.Memory(root)
    mem.init()
    for i in range(12):
        mem.put_entry("failures", f"The deploy {i} failed with ECONNREFUSED: port {8000 + i} "
                                  "was closed after the upgrade.", date="2026-01-02")
    learn.record(mem, "s1", ASK, "2026-01-05T09:00:00Z")
    monkeypatch.chdir(root)
    return root


@pytest.fixture
def searches(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The queries the digest searched for (a spy on its search)."""
    seen: list[str] = []

    def spy(mem: Any, query: str, *args: Any, **kwargs: Any) -> Any:
        seen.append(query)
        return search_find(mem, query, *args, **kwargs)

    monkeypatch.setattr(digest, "find", spy)
    return seen


def status() -> str:
    out = io.StringIO()
    assert main(["status"], out) == 0
    return out.getvalue()


def expected(root: Path) -> str:
    """The line as the full context works it out, nothing remembered (the oracle)."""
    parts = learn.context(lean_memory.Memory(root), None, hook_budget())
    start, before = (sum(estimate_tokens(b.text) for b in blocks)
                     for _, blocks in parts)
    return f"injected: ~{start:,} tokens at session start, ~{before:,} before the last prompt"


def injected(text: str) -> str:
    line = next(ln for ln in text.splitlines() if ln.startswith("injected:"))
    return line.split(" (see", 1)[0]


def test_a_second_status_does_not_search_again(root: Path, searches: list[str]) -> None:
    """Catches: every `status` running the last ask's whole search again (most of its
    cost at 100k entries) while nothing it reads changed."""
    first = status()
    assert searches, "the first status works the digest out"
    assert injected(first) == expected(root) and "~0 before" not in first
    assert status() == first  # (the first one's search calibrated the gate meanwhile)
    searches.clear()
    assert status() == first
    assert searches == []


def test_a_changed_memory_config_or_global_store_is_searched_again(
        root: Path, searches: list[str]) -> None:
    """Catches: a remembered figure shown after a shard, the config or the global store
    changed (the digest it counted is not the one that would ride now)."""
    status()
    mem = lean_memory.Memory(root)
    mem.put_entry("failures", "ECONNREFUSED after the upgrade: the deploy's proxy port "
                              "moved to 9443 and the health check still dials 8443.",
                  date="2026-01-03")
    searches.clear()
    assert injected(status()) == expected(root) and searches
    config = root / ".agents" / "config.toml"
    config.write_text("[memory]\ndigest_min_coverage = 0.9\n", encoding="utf-8")
    searches.clear()
    assert injected(status()) == expected(root) and searches
    g = global_memory(create=True)
    g.put_entry("conventions", "Deploys retry ECONNREFUSED three times before failing.")
    searches.clear()
    assert injected(status()) == expected(root) and searches


def test_a_tampered_memo_is_not_trusted(root: Path, searches: list[str]) -> None:
    """Catches: a memo file another process wrote or damaged taken as the figure."""
    status()
    line = injected(status())  # remembered now
    memo = root / ".agents" / "memory" / ".cache" / "injected.marshal"
    data = bytearray(memo.read_bytes())
    data[-2] ^= 0x01
    memo.write_bytes(bytes(data))
    searches.clear()
    assert injected(status()) == line and searches


def test_a_status_with_an_ask_loads_no_regex_engine(
        root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Catches: `status` importing `re` (and `enum`, ~5 ms) to quote the name "bm25", or
    for the last ask's search."""
    monkeypatch.setenv("XDG_DATA_HOME", str(root / "data"))  # where _loaded's asks are
    learn.record(lean_memory.Memory(root), "s1", ASK, "2026-01-05T09:00:00Z")
    _loaded(root, "status")  # the memo and the caches a warm status expects
    modules, out = _loaded(root, "status")
    assert "before the last prompt" in out and "~0 before" not in out
    assert not {"re", "enum"}.intersection(modules), sorted({"re", "enum"} & set(modules))


@given(st.text(max_size=12))
def test_quoted_keeps_a_plain_name_as_it_is(value: str) -> None:
    """Catches: the plain-name shortcut of `quoted` (a set, not `re`) no longer keeping
    what the pattern `[A-Za-z0-9_.-]{0,8}` kept as it is."""
    if re.fullmatch(r"[A-Za-z0-9_.-]{0,8}", value):
        assert quoted(value) == value
