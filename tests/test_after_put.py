"""The search right after a put (issue 36, ADR 0040): the put leaves what the search needs to
index only the appended entry (its verdict, the chain of appends in the stats tail); a
shard changed any other way is still hashed, scanned and indexed anew."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lean_memory import Memory, search, summaries, withhold
from lean_memory import format as fmt
from lean_memory._hash import blake2b

from .conftest import ROOT


def _filled(mem: Memory, n: int = 12) -> Memory:
    for i in range(n):
        mem.put_entry("insights", f"Note {i}: the cache of worker {i} is rebuilt nightly "
                      f"by job{i}.", date="2026-01-01")
    return mem


def test_the_query_after_a_put_loads_no_scanner(mem: Memory, tmp_path: Path) -> None:
    """Guards the recorded verdict: without it, the query that indexes the new entry
    loaded the scanner and read and rewrote the verdicts cache (~5 ms at 10k entries)."""
    _filled(mem)
    mem.search("worker cache")  # the index, with every entry
    mem.put_entry("insights", "The zephyrine queue drains before the deploy.",
                  date="2026-01-02")
    code = ("import sys; sys.path.insert(0, sys.argv[1]); from lean_memory.cli import main; "
            "main(['get', '--query', 'zephyrine queue']); "
            "print('MODULES', *sorted(m for m in sys.modules if m.startswith('lean_memory')))")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "LEAN_MEMORY"))}
    done = subprocess.run([sys.executable, "-I", "-c", code, str(ROOT)], cwd=mem.root,
                          env=env, capture_output=True, text=True, check=True, timeout=120)
    out, _, modules = done.stdout.rpartition("MODULES ")
    assert "zephyrine queue drains" in out  # the new entry was indexed and found
    assert "lean_memory.search" in modules.split()
    assert "lean_memory.secrets" not in modules.split()


def test_the_put_records_the_verdict_the_scanner_gives(mem: Memory) -> None:
    """Guards the recorded verdict's key and value: the entry's text as the shard file holds
    it (the text the search scans), judged as the search judges it."""
    _filled(mem, 3)
    entry = mem.put_entry("quirks", "Pipelines pin the runner image by digest.")
    raws = [e.raw for e in fmt.parse(mem.read_text(mem._shard_file("quirks")), "quirks").entries]
    recent = withhold._read_recent(mem, withhold.header(mem))
    key = withhold.content_key(raws[-1])
    assert entry.id in raws[-1] and key in recent
    assert recent[key] is withhold._batch_findings([raws[-1]], mem.allowlist)[0] is False


def test_a_verdict_of_another_scanner_or_allowlist_is_not_used(mem: Memory) -> None:
    """Guards the recorded verdicts' key: they hold under the verdicts' header only."""
    _filled(mem, 3)
    mem.put_entry("quirks", "Pipelines pin the runner image by digest.")
    assert withhold._read_recent(mem, withhold.header(mem))
    assert withhold._read_recent(mem, [*withhold.header(mem)[:-1], ["fp:another"]]) == {}


def test_the_appended_shard_is_not_hashed_again(mem: Memory,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Guards the chain of appends: the bytes indexed before were hashed again at every
    query after a put (8 MB at 100k entries: ~25 ms)."""
    _filled(mem)
    mem.search("worker cache")
    mem.put_entry("insights", "The zephyrine queue drains before the deploy.")
    size = os.path.getsize(mem._shard_file("insights"))
    hashed: list[int] = []

    def counting(data: bytes = b"", *, digest_size: int = 64) -> object:
        hashed.append(len(data))
        return blake2b(data, digest_size=digest_size)

    monkeypatch.setattr(search, "blake2b", counting)
    assert mem.search("zephyrine")[0].entry.title.startswith("The zephyrine queue")
    assert hashed and max(hashed) < size // 2  # the new entry's keys, not the shard


def test_the_chain_may_start_at_the_last_tail(mem: Memory,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Guards the chain's start: after a put the chain does not cover (a correction, which
    rewrites the shard's stats), the tail part the next search hashed for stands for the
    file indexed; before, every later query hashed the shard again."""
    _filled(mem)
    mem.search("worker cache")
    indexed = _sig(mem)
    first = mem.entries("insights")[0]
    mem.put_entry("insights", "Worker caches are rebuilt weekly.", supersedes=first.id)
    mem.put_entry("insights", "The amberline queue fills after the deploy.")
    mem.search("worker cache")  # hashes the indexed bytes once: the chain began after them
    mem.put_entry("insights", "The zephyrine queue drains before the deploy.")
    grown = summaries.grown_from(mem._cache, mem._agents, "insights", _sig(mem))
    assert grown and indexed not in grown  # the chain holds the last tail's file only
    size = os.path.getsize(mem._shard_file("insights"))
    hashed: list[int] = []

    def counting(data: bytes = b"", *, digest_size: int = 64) -> object:
        hashed.append(len(data))
        return blake2b(data, digest_size=digest_size)

    monkeypatch.setattr(search, "blake2b", counting)
    assert mem.search("zephyrine")[0].entry.title.startswith("The zephyrine queue")
    assert hashed and max(hashed) < size // 2


def test_a_longer_tail_is_the_tail_rebuilt(mem: Memory,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Guards the incremental tail: each query after a put indexed every entry appended
    since the shard's part was built (~0.15 ms each, up to 64 at 1k entries); now only the
    new ones, and the answers (ids, lines, scores, the withheld) are a rebuild's."""
    _filled(mem)
    mem.search("worker cache")
    for i in range(4):  # a tail of several entries, each query growing it
        mem.put_entry("insights", f"Queue {i} of the zephyrine pool drains before deploy {i}.",
                      tags=["queues"] if i % 2 else ())
        mem.search("zephyrine")
    mem.put_entry("insights", "The amberline queue fills after the deploy.")
    indexed: list[int] = []
    real = search._index_entries

    def spy(*args: object, **kw: object) -> object:
        indexed.append(len(args[4]))  # type: ignore[arg-type]
        return real(*args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(search, "_index_entries", spy)
    queries = ("zephyrine queue deploy", "amberline", "worker cache job3", "queues drains")
    got = [[(h.entry.id, h.entry.line, round(h.score, 9)) for h in mem.search(q, k=20)]
           for q in queries]
    assert [n for n in indexed if n] == [1]  # the amberline entry alone
    monkeypatch.undo()
    shutil.rmtree(mem._cache)
    fresh = Memory(mem.root)
    assert got == [[(h.entry.id, h.entry.line, round(h.score, 9)) for h in fresh.search(q, k=20)]
                   for q in queries]


def test_a_hand_edit_before_a_put_is_indexed(mem: Memory) -> None:
    """Guards the chain against a stale index: an entry edited by hand (same size, so only
    the signature's time tells), then a put; the search must see the edited word."""
    _filled(mem)
    mem.search("worker cache")
    path = mem._shard_file("insights")
    text = mem.read_text(path)
    edited = text.replace("job3.", "qux3.")  # title and text
    assert edited != text and len(edited) == len(text)
    st = os.stat(path)
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(edited)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    mem.put_entry("insights", "The zephyrine queue drains before the deploy.")
    hits = mem.search("qux3")
    assert hits and hits[0].entry.text.endswith("by qux3.")  # a stale index has no qux3
    assert mem.search("zephyrine")[0].entry.title.startswith("The zephyrine queue")


def test_grown_from_needs_the_chain(mem: Memory) -> None:
    """Guards grown_from: only the signatures the puts passed through, for the file's
    present one."""
    _filled(mem, 3)
    mem.put_entry("insights", "The zephyrine queue drains before the deploy.")
    sig1 = _sig(mem)
    mem.put_entry("insights", "The amberline queue fills after the deploy.")
    sig2 = _sig(mem)
    assert sig1 in summaries.grown_from(mem._cache, mem._agents, "insights", sig2)
    assert sig2 not in summaries.grown_from(mem._cache, mem._agents, "insights", sig2)
    # not the file now: nothing
    assert summaries.grown_from(mem._cache, mem._agents, "insights", sig1) == frozenset()
    assert summaries.grown_from(mem._cache, mem._agents, "quirks", sig2) == frozenset()


def _sig(mem: Memory) -> tuple[int, int, int]:
    st = os.stat(mem._shard_file("insights"))
    return (st.st_size, st.st_mtime_ns, st.st_ino)
