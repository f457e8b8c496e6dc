"""A cold query judges its hits, not the whole memory (issue 36, ADR 0051).

With no ``.cache`` (a fresh clone) the search index is built without scanning every entry;
the query judges its candidates best first, and a background warm-up judges the rest. The
oracles here do not read the index: the same query after the warm-up (every verdict known),
the secret strings themselves (never in any output or cache file), and hand-built memories
whose best matches hold credentials.
"""

from __future__ import annotations

import itertools
import json
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lean_memory
from lean_memory import digest, search, withhold
from lean_memory import format as fmt
from lean_memory.mcp_server import Server

from .conftest import run_cli
from .test_hook_warmup import _warmed
from .test_readside import SECRETS, _absent, _append, _entry, json_hits

WORDS = ["redis", "deploy", "windows", "socket", "port", "timeout", "cache", "docker",
         "token", "key"]
_COUNTER = itertools.count()


def _leak(n: int) -> str:
    """A sentence holding credential ``n`` as the scanner finds it (as test_readside's
    ``test_the_credentials_are_real_findings`` checks: the password needs its key)."""
    secret = SECRETS[n]
    return f' db_password = "{secret}"' if n == 3 else f" uses {secret} here."


def _cold(mem: lean_memory.Memory) -> None:
    shutil.rmtree(mem.cache_dir, ignore_errors=True)


def _no_secret_in_cache(mem: lean_memory.Memory) -> None:
    for path in sorted(mem.cache_dir.rglob("*")):
        if path.is_file():
            _absent(f"cache file {path.name}", path.read_bytes())


@pytest.fixture
def no_spawn(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Every unknown verdict left to the query (as past ``_SCAN_NOW`` in a large memory);
    the warm-up recorded, not started (the test runs it in-process)."""
    started: list[object] = []
    monkeypatch.setattr(search, "_SCAN_NOW", 0)
    monkeypatch.setattr(search, "_LAZY_LOOKUPS", 3)  # both ways of gathering postings
    monkeypatch.setattr(search, "_start_warming",
                        lambda mem, then=True: started.append(then) or True)
    return started


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(["quirks", "failures"]), st.integers(-1, 3),
                          st.lists(st.sampled_from(WORDS), min_size=1, max_size=8)),
                min_size=1, max_size=16),
       st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=3), min_size=1,
                max_size=3),
       st.integers(1, 6))
def test_the_cold_query_answers_as_the_warm_one_and_never_shows_a_credential(
        tmp_path_factory: pytest.TempPathFactory, no_spawn: list[object],
        rows: list[tuple[str, int, list[str]]], queries: list[list[str]], k: int) -> None:
    """Catches: a cold query ranking with other statistics than the warm one, a withheld
    entry returned because its verdict was unknown, the withheld count taken from a
    different ranking, an unjudged part (its words may be a credential) written to the
    cache, the warm-up not started after a cold query."""
    mem = lean_memory.Memory(tmp_path_factory.mktemp(f"m{next(_COUNTER)}"))
    mem.init()
    leaky = set()
    for i, (shard, leak, words) in enumerate(rows):
        text = " ".join(words) + (_leak(leak) if leak >= 0 else ".")
        if leak >= 0:
            leaky.add(f"cccc{i:04d}")
        _append(mem, shard, _entry(shard, f"cccc{i:04d}", f"Note {i} {words[0]}", text))
    for words in queries:
        q = " ".join(words)
        _cold(mem)
        del no_spawn[:]
        cold = search.find(mem, q, k=k)
        assert no_spawn  # the warm-up judges the rest
        _no_secret_in_cache(mem)
        search._warm(mem)
        warm = search.find(mem, q, k=k)
        _no_secret_in_cache(mem)
        assert [h.entry.id for h in cold.hits] == [h.entry.id for h in warm.hits]
        assert [h.score for h in cold.hits] == [h.score for h in warm.hits]
        assert cold.withheld == warm.withheld
        for found in (cold, warm):
            assert not any(h.entry.id in leaky for h in found.hits)
            for h in found.hits:
                _absent("a hit", repr(h))


def _ranked_memory(root: Path) -> lean_memory.Memory:
    """Three entries that match "redis deploy" best, each holding a credential, then four
    clean ones that match it less."""
    mem = lean_memory.Memory(root)
    mem.init()
    for i, secret in enumerate(SECRETS[:3]):
        _append(mem, "quirks", _entry("quirks", f"aaaa000{i}", f"Redis deploy {i}",
                                      f"redis deploy redis deploy uses {secret} as its key."))
    for i in range(4):
        _append(mem, "failures", _entry("failures", f"bbbb000{i}", f"Note {i}",
                                        f"the redis cache {i} is cleared on start."))
    return mem


def test_a_cold_query_whose_best_hits_are_withheld_returns_the_next_clean_ones(
        tmp_path: Path, no_spawn: list[object]) -> None:
    """Catches: a cold query returning the unjudged best hits, returning fewer than k when
    the first k were withheld, or miscounting them."""
    mem = _ranked_memory(tmp_path)
    for k, withheld, shown in ((2, 2, 2), (4, 3, 4), (7, 3, 4)):
        _cold(mem)
        found = search.find(mem, "redis deploy", k=k)
        assert found.withheld == withheld
        assert len(found.hits) == shown
        assert all(h.entry.id.startswith("bbbb") for h in found.hits)
        _no_secret_in_cache(mem)


def _large_leaky(root: Path) -> lean_memory.Memory:
    """A fresh clone past ``_SCAN_NOW`` entries (so the real cold path runs), whose best
    matches for "redis deploy windows" hold credentials."""
    mem = _ranked_memory(root)
    path = mem.shard_path("quirks")  # with the credentials: their part is left unjudged
    filler = "".join(_entry("quirks", f"f{i:07d}", f"Filler {i}",
                            f"about gardening and the weather, note {i}.")
                     for i in range(search._SCAN_NOW + 20))
    path.write_text(path.read_text() + filler)
    mem.put_entry("failures", "Redis deploy failed on windows: the port was taken.",
                  date="2026-01-03")
    _cold(mem)
    return mem


def test_a_fresh_clone_shows_no_credential_on_any_read_path(tmp_path: Path) -> None:
    """Catches: a fresh clone's `get --query` (plain, --json), digest, prompt hook or MCP
    search showing an entry whose verdict was not known yet, or writing its words into the
    cache; and the warm-up not completing the verdicts (a second cold-free query differs)."""
    mem = _large_leaky(tmp_path)
    query = "redis deploy windows"
    corpus = search._load(mem)  # in memory only: nothing written, no warm-up started
    try:
        # the cold path runs: the part of the credentials is left unjudged
        assert corpus.lazy and not corpus.parts[mem.shards.index("quirks")].complete
    finally:
        corpus.close()
    try:
        hits, stderr = json_hits(mem.root, query, "-k", "5")
        assert b"3 entries withheld" in stderr
        _warmed(mem)
        _no_secret_in_cache(mem)
        assert json_hits(mem.root, query, "-k", "5") == (hits, stderr)
        for run in (("get", "--query", query), ("get", "--digest", query)):
            _cold(mem)
            r = run_cli(*run, cwd=mem.root)
            assert r.returncode == 0
            _absent(" ".join(run[:2]), r.stdout + r.stderr)
            assert b"withheld" in r.stdout + r.stderr
            _warmed(mem)
        _cold(mem)
        r = run_cli("hook", "user-prompt-submit", cwd=mem.root, stdin=json.dumps({
            "hook_event_name": "UserPromptSubmit", "cwd": str(mem.root),
            "prompt": "why does the redis deploy fail on windows?"}).encode())
        assert r.returncode == 0
        _absent("hook stdout", r.stdout)
        _absent("hook stderr", r.stderr)
        _warmed(mem)
        _cold(mem)
        reply = Server(lambda: lean_memory.Memory(mem.root)).handle({
            "jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "memory_search", "arguments": {"query": query}}})
        assert reply is not None
        _absent("MCP search", json.dumps(reply))
        assert "withheld" in json.dumps(reply)
        _warmed(mem)
        _no_secret_in_cache(mem)
    finally:
        _warmed(mem)


class _Everything:
    """A plugin retriever that ranks every entry it is given, the leaky ones first if it
    could see them: fusion must never give it one."""

    name = "all"

    def __init__(self) -> None:
        self.seen: list[str] = []

    def rank(self, query: str, entries: Sequence[fmt.Entry], k: int) -> list[tuple[str, float]]:
        self.seen += [e.id for e in entries]
        ordered = sorted(entries, key=lambda e: not e.id.startswith("aaaa"))
        return [(e.id, 1.0 / (i + 1)) for i, e in enumerate(ordered[:k])]


def test_fusion_on_a_cold_memory_never_sees_or_returns_a_withheld_entry(
        tmp_path: Path, no_spawn: list[object]) -> None:
    """Catches: the fused path taking the unjudged mask (a plugin retriever given, or
    returning, an entry that holds a credential), or counting withheld ones otherwise than
    the BM25 path does."""
    from lean_memory.bm25 import BM25

    _ranked_memory(tmp_path)
    for k in (2, 4):
        plugin = _Everything()
        mem = lean_memory.Memory(tmp_path, retrievers=[BM25(), plugin])
        _cold(mem)
        found = search.find(mem, "redis deploy", k=k)
        assert plugin.seen and not any(i.startswith("aaaa") for i in plugin.seen)
        assert found.hits and all(h.entry.id.startswith("bbbb") for h in found.hits)
        assert found.withheld == min(k, 3)
        for h in found.hits:
            _absent("a fused hit", repr(h))


def test_fusion_without_withheld_entries_ranks_the_memory_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With no eligible entry withheld, the fused path's withheld count is 0 without a second
    BM25 ranking of the whole memory (it doubled the semantic extra's cost at 100k, ADR
    0054); with one, the count still comes from BM25's own first k."""
    from lean_memory.bm25 import BM25, BM25Index

    mem = lean_memory.Memory(tmp_path)
    mem.init()
    for i in range(6):
        mem.put_entry("insights", f"Redis deploy note {i}: restart the worker after the flush.")
    calls: list[int] = []
    real = BM25Index.top

    def counted(self: BM25Index, *args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(BM25Index, "top", counted)
    found = search.find(lean_memory.Memory(tmp_path, retrievers=[BM25(), _Everything()]),
                        "redis deploy", k=3)
    assert len(found.hits) == 3 and found.withheld == 0
    assert len(calls) == 1


def test_the_gate_calibration_of_a_fresh_clone_judges_its_candidates_alone(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The gate's calibration ran its probes over the whole memory's mask, which judged
    every entry: a fresh 100k clone's session start paid the whole scan again (5 s). It
    walks the ranking as a query does: the same bar as after every verdict is known, with
    a fraction of the entries scanned."""
    mem = _large_leaky(tmp_path)
    n_entries = sum(1 for _ in mem.entries())
    scanned: list[int] = []
    real = withhold.Verdicts.holding

    def holding(self: withhold.Verdicts, texts: Sequence[str]) -> list[bool]:
        scanned.append(len(texts))
        return real(self, texts)

    monkeypatch.setattr(withhold.Verdicts, "holding", holding)
    monkeypatch.setattr(search, "_start_warming", lambda mem, then=True: True)
    cold = digest._probe_coverages(lean_memory.Memory(mem.root))
    assert 0 < sum(scanned) < n_entries // 2
    search._warm(lean_memory.Memory(mem.root))  # every verdict known
    assert digest._probe_coverages(lean_memory.Memory(mem.root)) == cold
