"""A fresh clone's first prompt is never silent (issue 36.5, ADR 0036): the rules need the
correction links, which a clone without ``.cache`` used to work out by parsing every shard
file (5 s at 100k entries: the hook failed open and printed nothing). Only the files that
can matter are parsed now: those where an entry supersedes another, and those holding a
superseded id."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lean_memory
from lean_memory import agents, putstate
from lean_memory import format as fmt
from lean_memory.summaries import hidden_ids

from .test_hook_warmup import PROMPT, RULE, _memory


def _oracle(mem: lean_memory.Memory) -> set[str]:
    """The superseded ids from every entry of every shard file (live and archived)."""
    links = []
    for archive in (False, True):
        for name in mem.shards:
            path = mem.shard_path(name, archive=archive)
            if path.exists():
                links += [(e.id, e.date or "", e.supersedes or "")
                          for e in fmt.parse(path.read_text(), name).entries]
    return hidden_ids(links)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["failures", "quirks", "insights", "conventions"]),
                          st.integers(1, 28), st.integers(-1, 30)), min_size=1, max_size=12))
def test_the_links_read_from_fewer_files_hide_the_same_entries(
        tmp_path_factory: pytest.TempPathFactory, plan: list[tuple[str, int, int]]) -> None:
    """Guards the shortcut (parse only the files that supersede or are superseded) hiding
    another set of entries than a parse of every file: dates decide between conflicting
    corrections, across files."""
    mem = lean_memory.Memory(tmp_path_factory.mktemp("links"))
    mem.init()
    ids: list[str] = []
    for shard, day, target in plan:
        supersedes = ids[target] if 0 <= target < len(ids) else None
        e = mem.put_entry(shard, f"entry {len(ids)} about {shard}", date=f"2026-01-{day:02d}",
                          supersedes=supersedes)
        ids.append(e.id)
    for p in mem.cache_dir.iterdir():  # a fresh clone: no summary, no put state
        p.unlink()
    fresh = lean_memory.Memory(mem.root)
    assert fresh.superseded_ids() == _oracle(fresh)


def test_a_memory_with_no_correction_parses_no_shard_for_the_links(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Guards the fresh clone's cost: every shard file parsed (twice) before the rules."""
    mem = lean_memory.Memory(tmp_path)
    mem.init()
    for i in range(30):
        mem.put_entry("failures", f"the release job {i} timed out", date="2026-01-03")
    for p in mem.cache_dir.iterdir():
        p.unlink()
    parsed: list[str] = []
    monkeypatch.setattr(putstate, "_parsed_links",
                        lambda text, name: parsed.append(name) or [])  # type: ignore[func-returns-value]
    fresh = lean_memory.Memory(mem.root)
    assert fresh.superseded_ids() == set() and fresh.correction_links() == ()
    assert parsed == []


def test_a_fresh_clone_prints_the_rules_at_the_first_prompt(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Guards a fresh clone's first prompt getting nothing: the index cannot be built in
    the hook's time (forced: a build rate of one byte a second, so no timing), the rules
    come anyway, the index is built in the background (spawn.detached) for prompt 2."""
    import lean_memory.search as search

    mem = _memory(tmp_path)
    for p in mem.cache_dir.iterdir():
        p.unlink()
    started: list[tuple[Any, ...]] = []
    monkeypatch.setattr(search, "_BUILD_BYTES_PER_S", 1)
    monkeypatch.setattr("lean_memory.spawn.detached",
                        lambda *args, **kw: started.append(args) or True)
    payload = {"hook_event_name": "UserPromptSubmit", "prompt": PROMPT, "cwd": str(mem.root)}
    out = agents.hook_output("user-prompt-submit", None, payload)
    text = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    assert RULE in text and "Memory matching" not in text
    assert any("search.warming" in args for args in started)
    # what the background process does, then prompt 2 has its matches
    monkeypatch.undo()
    monkeypatch.setattr("lean_memory.spawn.detached", lambda *args, **kw: False)
    search._warm(lean_memory.Memory(mem.root))
    out = agents.hook_output("user-prompt-submit", None, payload)
    text = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    assert RULE in text and "flaky on Windows" in text.split("Memory matching")[1]
    assert "fail on Linux" not in text


def test_one_text_is_scanned_rather_than_every_verdict_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Guards `status` (its overview's one text) reading every entry's verdict (2 MB at 100k
    entries): with a large verdicts cache a text or two is scanned instead, with the same
    answer as the cache gives."""
    from lean_memory import withhold
    from lean_memory.withhold import Verdicts

    mem = lean_memory.Memory(tmp_path)
    mem.init()
    key = "AKIA" + "Z7VRSQ5TJN2XMPLE"  # built from parts: no literal credential
    texts = [f"the deploy key is {key}", "the deploy uses the staging profile"]
    v = Verdicts(mem)
    cached = v.holding(texts)
    v.save()
    assert cached == [True, False]
    loaded: list[bool] = []
    monkeypatch.setattr(withhold, "_LARGE", 0)
    monkeypatch.setattr(Verdicts, "_entries",
                        lambda self: loaded.append(True) or {})  # type: ignore[func-returns-value]
    assert [Verdicts(mem).holding([t])[0] for t in texts] == cached
    assert loaded == []
