"""Search through the public API: ranking, the cache, retriever plugins and fusion."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import textwrap
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

import lean_memory
from lean_memory import BM25, Entry, Memory, QueryError, UnknownShard
from lean_memory import format as fmt
from lean_memory import search as search_module
from lean_memory.fsutil import CACHE_PREFIX, write_cache
from lean_memory.search import _CACHE_NAME, rrf

from .conftest import ROOT, Stuck


@pytest.fixture
def filled(mem: Memory) -> Memory:
    mem.put_entry("failures", "test_upload is flaky on Windows: the temp file is still open "
                  "when shutil.rmtree runs", date="2026-01-10", tags=["ci", "windows"])
    mem.put_entry("quirks", "ECONNREFUSED on port 5432 means postgres is not up yet",
                  date="2026-01-11")
    mem.put_entry("insights", "parseConfig in lib/config.js caches per process",
                  date="2026-01-12")
    mem.put_entry("conventions", "Run the linters before every commit", date="2026-01-13")
    return mem


def ids(hits: Sequence[lean_memory.Hit]) -> list[str]:
    return [h.entry.title for h in hits]


def test_finds_the_right_entry_across_shards(filled: Memory) -> None:
    hits = filled.search("why is test_upload flaky on windows?")
    assert hits[0].entry.title == "test_upload is flaky on Windows"
    assert hits[0].shard == "failures" and hits[0].score > 0
    assert ids(filled.search("connection refused postgres"))[0].startswith("ECONNREFUSED")
    assert ids(filled.search("parse_config"))[0].startswith("parseConfig")


def test_query_errors_and_limits(filled: Memory) -> None:
    with pytest.raises(QueryError):
        filled.search("   ")
    with pytest.raises(QueryError):
        filled.search("the of and")
    with pytest.raises(UnknownShard):
        filled.search("windows", shards=["../x"])
    assert filled.search("windows !!! ??? (((") != []  # punctuation never raises
    assert [h.shard for h in filled.search("windows postgres linters", shards=["quirks"])] == [
        "quirks"]
    assert len(filled.search("the windows postgres linters commit", k=2)) == 2


def test_get_memory_query_renders_markdown(filled: Memory) -> None:
    text = filled.get_memory(query="postgres port", k=1)
    assert text.startswith("## ECONNREFUSED")
    assert "shard: quirks" in text and "date: 2026-01-11" in text


def test_ties_go_to_the_newer_entry(mem: Memory) -> None:
    mem.put_entry("insights", "alpha beta", title="same words", date="2026-01-01")
    mem.put_entry("quirks", "alpha beta", title="same words", date="2026-03-01")
    mem.put_entry("failures", "alpha beta", title="same words", date="2026-02-01")
    assert [h.entry.date for h in mem.search("alpha")] == ["2026-03-01", "2026-02-01",
                                                          "2026-01-01"]


def test_title_weighs_more_than_body(mem: Memory) -> None:
    """Catches: the title counted once, like the body (then the entry that says "cache"
    twice in its body outranks the one titled "cache"). Not three times in the body: that
    outweighs a title under b = 0.5 (ADR 0049), and at 0.75 it tied within 0.001."""
    mem.put_entry("insights", "the cache lives here. " * 2 + "other words",
                  title="unrelated title", date="2026-01-01")
    mem.put_entry("insights", "other words and more words to balance length",
                  title="cache", date="2026-01-01")
    assert mem.search("cache")[0].entry.title == "cache"


def test_cache_is_used_rebuilt_when_stale_and_when_corrupt(filled: Memory) -> None:
    cache = filled.cache_dir / _CACHE_NAME
    filled.search("windows")
    assert cache.exists()
    stamp = cache.stat().st_mtime_ns
    filled.search("postgres")
    assert cache.stat().st_mtime_ns == stamp  # fresh: read, not rewritten
    filled.put_entry("quirks", "Windows paths need pathlib, never string joins",
                     date="2026-02-01")
    assert "Windows paths need pathlib" in ids(filled.search("windows pathlib"))[0]
    cache.write_bytes(b"\x00garbage")
    assert ids(filled.search("windows pathlib"))[0].startswith("Windows paths")
    # a hand edit of a shard is seen too
    path = filled.shard_path("seed")
    path.write_text(path.read_text() + "\n## Hand note about zeppelins\nairships\n")
    assert ids(filled.search("zeppelins")) == ["Hand note about zeppelins"]
    # deleting the whole cache loses nothing
    for p in filled.cache_dir.iterdir():
        p.unlink()
    filled.cache_dir.rmdir()
    assert ids(filled.search("zeppelins")) == ["Hand note about zeppelins"]


def _hits(m: Memory, query: str) -> list[tuple[str, str, float, int]]:
    return [(h.entry.id, h.shard, h.score, h.entry.line) for h in m.search(query, k=10)]


def test_a_put_retokenises_only_the_new_entry(filled: Memory,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    filled.search("windows")
    calls: list[str] = []
    real = search_module.documents_terms

    def counting(docs: list[tuple[str, str]], **kw: float) -> list[search_module.TermCounts]:
        calls.extend(title for title, _ in docs)
        return real(docs, **kw)

    monkeypatch.setattr(search_module, "documents_terms", counting)
    filled.put_entry("quirks", "Windows paths need pathlib, never string joins",
                     date="2026-02-01")
    after_put = _hits(filled, "windows postgres pathlib linters")
    assert calls == ["Windows paths need pathlib, never string joins"]
    assert filled.search("pathlib")[0].entry.title.startswith("Windows paths")
    # identical to a build from scratch
    _drop_index(filled)
    assert _hits(filled, "windows postgres pathlib linters") == after_put
    assert len(calls) == 6


def _drop_index(m: Memory) -> None:
    (m.cache_dir / _CACHE_NAME).unlink(missing_ok=True)
    for part in m.cache_dir.glob("search-*.idx"):
        part.unlink()


def _rewrite_part(path: Path, change: Callable[[list[Any]], None]) -> None:
    """Change a part's header as this user's own process could (tagged with the key)."""
    import marshal

    data = path.read_bytes()[CACHE_PREFIX:]
    size = int.from_bytes(data[:8], "little")
    meta = marshal.loads(data[8:8 + size])
    change(meta)
    new = marshal.dumps(meta)
    assert write_cache(path, len(new).to_bytes(8, "little") + new + data[8 + size:],
                       covered=8 + len(new))


def test_cache_from_another_tokenizer_or_garbled_part_is_rebuilt(filled: Memory) -> None:
    import marshal

    expected = _hits(filled, "windows postgres")
    part = filled.cache_dir / "search-live-quirks.idx"

    def old_tokenizer(meta: list[Any]) -> None:
        meta[1][1] = "lean_memory.tokenize/0"

    _rewrite_part(part, old_tokenizer)
    assert _hits(filled, "windows postgres") == expected
    data = part.read_bytes()[CACHE_PREFIX:]
    size = int.from_bytes(data[:8], "little")
    assert marshal.loads(data[8:8 + size])[1][1] == search_module.TOKENIZER_VERSION
    for garble in (lambda meta: meta.__setitem__(11, "garbage\nterms"),  # dictionary
                   lambda meta: meta.__setitem__(5, meta[5] + 1),  # entry count
                   lambda meta: meta.__setitem__(10, meta[10][:-1])):  # regions
        _rewrite_part(part, garble)
        assert _hits(filled, "windows postgres") == expected
    # a byte of the body changed (the tag covers the meta only; the meta's digests the
    # body): found out when the query reads that chunk
    for at in (-1, CACHE_PREFIX + 8 + int.from_bytes(part.read_bytes()[CACHE_PREFIX:][:8],
                                                     "little")):
        data = bytearray(part.read_bytes())
        data[at] ^= 0x55
        part.write_bytes(bytes(data))
        assert _hits(filled, "windows postgres") == expected
        if at > 0:  # the lengths, which every query reads: the part was rebuilt
            assert part.read_bytes() != bytes(data)
    # postings cut short: found out while the query reads them
    data = part.read_bytes()
    size = int.from_bytes(data[CACHE_PREFIX:][:8], "little")
    part.write_bytes(data[:CACHE_PREFIX + 8 + size + 8])
    assert _hits(filled, "windows postgres") == expected
    part.write_bytes(b"\x00garbage")
    assert _hits(filled, "windows postgres") == expected


def test_a_snapshot_changed_during_the_build_is_not_cached(
        filled: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    real = search_module._build_part
    seed = filled.shard_path("seed")

    def racing(*args: object) -> tuple[list[object], object]:
        part = real(*args)  # type: ignore[arg-type]
        if args[1] == "seed" and "zeppelins" not in seed.read_text():
            # another process writes while this one builds
            seed.write_text(seed.read_text() + "\n## Hand note about zeppelins\nairships\n")
        return part

    monkeypatch.setattr(search_module, "_build_part", racing)
    _drop_index(filled)
    filled.search("windows")
    assert not (filled.cache_dir / _CACHE_NAME).exists()
    assert not (filled.cache_dir / "search-live-seed.idx").exists()
    assert (filled.cache_dir / "search-live-quirks.idx").exists()  # the others are kept
    assert ids(filled.search("zeppelins")) == ["Hand note about zeppelins"]
    assert (filled.cache_dir / _CACHE_NAME).exists()


def test_a_shard_dropped_from_the_config_no_longer_hides_entries(filled: Memory) -> None:
    [old] = filled.search("linters")
    filled.put_entry("quirks", "Linters run in CI", supersedes=old.entry.id, date="2026-03-01")
    assert [h.shard for h in filled.search("linters commit")] == ["quirks"]
    (filled.agents_dir / "config.toml").write_text(
        '[memory]\nshards = ["seed", "failures", "corrections", "insights", "conventions"]\n')
    assert [h.entry.id for h in Memory(filled.root).search("linters commit")] == [old.entry.id]


def test_superseded_entries_are_hidden(filled: Memory) -> None:
    [old] = filled.search("linters")
    new = filled.put_entry("corrections", "Linters run in CI; no need before every commit",
                           supersedes=old.entry.id, date="2026-03-01")
    assert [h.entry.id for h in filled.search("linters commit")] == [new.id]
    # from a warm cache too, and the archive is searched only on request
    assert [h.entry.id for h in filled.search("linters commit")] == [new.id]


class Fixed:
    """A retriever that always returns the same ranking (e.g. an embedder's)."""

    def __init__(self, name: str, order: list[str]) -> None:
        self.name = name
        self.order = order
        self.calls = 0

    def rank(self, query: str, entries: Sequence[Entry], k: int) -> list[tuple[str, float]]:
        self.calls += 1
        titles = {e.title: e.id for e in entries}
        return [(titles[t], 1.0 / (i + 1)) for i, t in enumerate(self.order) if t in titles][:k]


class Broken:
    name = "broken"

    def rank(self, query: str, entries: Sequence[Entry], k: int) -> list[tuple[str, float]]:
        raise RuntimeError("model weights not found")


class Slow:
    """A retriever stuck until released (conftest.Stuck)."""

    name = "slow"

    def __init__(self) -> None:
        self.stuck = Stuck()

    def rank(self, query: str, entries: Sequence[Entry], k: int) -> list[tuple[str, float]]:
        self.stuck()
        return [(entries[0].id, 1.0)]


class Garbage:
    name = "garbage"

    def rank(self, query: str, entries: Sequence[Entry], k: int) -> object:
        return 42


def test_rrf_formula() -> None:
    fused = rrf([["a", "b", "c"], ["b", "a"]], k=60)
    assert [d for d, _ in fused] == ["a", "b", "c"]  # a and b tie; a appeared first
    assert fused[0][1] == pytest.approx(1 / 61 + 1 / 62)
    assert fused[2][1] == pytest.approx(1 / 63)


def test_plugins_are_fused_with_rrf(filled: Memory) -> None:
    semantic = Fixed("semantic", ["Run the linters before every commit",
                                  "test_upload is flaky on Windows"])
    m = Memory(filled.root, retrievers=[BM25(), semantic])
    hits = m.search("windows flaky upload", k=3)
    assert semantic.calls == 1
    assert hits[0].entry.title == "test_upload is flaky on Windows"  # first for both
    assert "Run the linters before every commit" in ids(hits)  # only the plugin found it
    only = Memory(filled.root, retrievers=[semantic])
    assert ids(only.search("anything at all", k=1)) == ["Run the linters before every commit"]


def test_failing_and_slow_plugins_are_skipped(filled: Memory, caplog: pytest.LogCaptureFixture
                                              ) -> None:
    (filled.agents_dir / "config.toml").write_text("[memory]\nretriever_timeout_ms = 200\n")
    expected = ids(Memory(filled.root).search("windows flaky"))
    caplog.set_level(logging.DEBUG, logger="lean_memory.search")
    slow = Slow()
    m = Memory(filled.root, retrievers=[Broken(), slow, Garbage(), BM25()])
    try:
        assert ids(m.search("windows flaky")) == expected
        assert not slow.stuck.finished.is_set()  # answered while the slow one was stuck
    finally:
        slow.stuck.release.set()
    assert "broken" in caplog.text and "timed out" in caplog.text and "garbage" in caplog.text
    # every retriever failing still answers, with the built-in BM25
    assert ids(Memory(filled.root, retrievers=[Broken()]).search("windows flaky")) == expected


def test_plugin_from_an_entry_point(filled: Memory, tmp_path: Path) -> None:
    site = tmp_path / "site"
    (site / "lm_plugin").mkdir(parents=True)
    (site / "lm_plugin" / "__init__.py").write_text(textwrap.dedent("""
        class Reverse:
            name = "reverse"
            def rank(self, query, entries, k):
                return [(e.id, 1.0) for e in reversed(entries)][:k]
    """))
    dist = site / "lm_plugin-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: lm-plugin\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(
        "[lean_memory.retrievers]\nreverse = lm_plugin:Reverse\n")
    (filled.agents_dir / "config.toml").write_text(
        '[memory]\nretrievers = ["reverse"]\n')
    script = textwrap.dedent(f"""
        import lean_memory
        m = lean_memory.Memory({str(filled.root)!r})
        print([h.entry.title for h in m.search("linters", k=1)][0])
    """)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(site)])}
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env=env, check=True).stdout.strip()
    # entries reach retrievers newest first; "reverse" puts the oldest on top, where BM25
    # would have put the linters entry
    assert out == "test_upload is flaky on Windows"
    # an unknown name in config falls back to BM25 rather than failing
    (filled.agents_dir / "config.toml").write_text('[memory]\nretrievers = ["missing"]\n')
    assert ids(Memory(filled.root).search("windows"))[0] == "test_upload is flaky on Windows"


def test_archive_is_searched_by_default_live_first_on_a_tie(mem: Memory) -> None:
    from lean_memory.compaction import archive_preamble

    live = mem.put_entry("insights", "alpha beta", title="same words", date="2026-01-01")
    old = Entry(id="0000aaaa", shard="insights", title="same words", text="alpha beta",
                date="2026-05-01")  # newer, but archived: the live one wins the tie
    gone = Entry(id="0000bbbb", shard="insights", title="alpha gamma", text="alpha gamma",
                 date="2026-01-02")
    fix = Entry(id="0000cccc", shard="insights", title="alpha delta", text="alpha delta",
                date="2026-01-03", supersedes="0000bbbb")
    path = mem.shard_path("insights", archive=True)
    path.parent.mkdir(exist_ok=True)
    path.write_text(archive_preamble("insights") + "".join(
        fmt.render_entry(e) for e in (old, gone, fix)), encoding="utf-8")
    hits = mem.search("alpha beta", k=10)
    assert [(h.entry.id, h.archived) for h in hits[:2]] == [(live.id, False),
                                                            ("0000aaaa", True)]
    assert "0000bbbb" not in {h.entry.id for h in mem.search("alpha gamma", k=10)}
    assert "0000cccc" in {h.entry.id for h in mem.search("alpha delta", k=10)}
    assert [h.entry.id for h in mem.search("alpha beta", include_archive=False)] == [live.id]
    assert "shard: insights (archive)" in search_module.render_hits(hits)
    (mem.agents_dir / "config.toml").write_text("[memory]\nsearch_archive = false\n")
    again = Memory(mem.root)
    assert [h.entry.id for h in again.search("alpha beta", k=10)] == [live.id]
    assert {h.entry.id for h in again.search("alpha beta", k=10, include_archive=True)} == {
        live.id, "0000aaaa", "0000cccc"}  # "alpha" alone matches the correction
