"""The on-disk search index (ADR 0016): same ranking as an in-memory BM25Index, postings
read by offset, a time budget that keeps finished work, and the prompt hook when the index
is not ready."""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lean_memory
from lean_memory import agents
from lean_memory import search as search_module
from lean_memory.bm25 import BM25Index, documents_terms, tokenize
from lean_memory.index import read_part, write_part
from lean_memory.search import _build_part, _header, _part_path

WORDS = ["cache", "flaky", "windows", "docker", "retry", "parse_config", "os.path.join",
         "deploy", "lock", "timeout", "E0502", "linux", "build", "merge"]

text = st.lists(st.sampled_from(WORDS), min_size=1, max_size=12).map(" ".join)
# (a title is at most 120 characters: longer is a put error, not a ranking case)


def _textbook(docs: list[tuple[dict[str, float], float]], query: list[str], k1: float,
              b: float) -> dict[int, float]:
    """BM25 as written in the README (Lucene's IDF, no (k1 + 1) factor), one document at a
    time: no code of the package scores here."""
    n = len(docs)
    avgdl = sum(length for _, length in docs) / n
    scores: dict[int, float] = {}
    for term in dict.fromkeys(query):
        df = sum(1 for tf, _ in docs if tf.get(term))
        if not df:
            continue
        idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
        for d, (tf, length) in enumerate(docs):
            f = tf.get(term, 0.0)
            if f:
                w = idf * f / (f + k1 * (1 - b + b * length / avgdl))
                scores[d] = scores.get(d, 0.0) + query.count(term) * w
    return scores


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(docs=st.lists(st.tuples(text.filter(lambda t: len(t) <= 100), text,
                                st.sampled_from(["2026-01-01", "2026-02-01", ""])),
                     min_size=1, max_size=25),
       query=st.lists(st.sampled_from(WORDS), min_size=1, max_size=5).map(" ".join),
       k=st.integers(1, 8))
def test_parts_read_from_disk_rank_exactly_as_one_in_memory_index(
        tmp_path_factory: pytest.TempPathFactory, docs: list[tuple[str, str, str]], query: str,
        k: int) -> None:
    """The parts on disk rank as one in-memory index, and both score as the textbook
    formula. Catches: statistics taken per part instead of over the corpus, and (through
    the textbook scores) a changed IDF or length normalisation, which the in-memory index
    shares and so cannot notice."""
    root = tmp_path_factory.mktemp("m")
    mem = lean_memory.Memory(root)
    mem.init()
    shards = list(mem.shards)
    for i, (title, body, date) in enumerate(docs):
        mem.put_entry(shards[i % len(shards)], f"{body} n{i}", title=f"{title} t{i}",
                      date=date or None, new=True)
    found = mem.search(query, k=k, shards=shards)
    # The reference: one index built in memory from the live entries in corpus order.
    corpus = search_module._load(mem)
    try:
        entries = [corpus.entry(n) for n in range(len(corpus.ids))]
        counts = documents_terms([(e.title, search_module._indexed_body(e)) for e in entries])
        reference = BM25Index.from_counts(counts, k1=mem.config.bm25_k1, b=mem.config.bm25_b)
        textbook = _textbook(counts, tokenize(query), mem.config.bm25_k1, mem.config.bm25_b)
        assert corpus.index.score(query) == pytest.approx(textbook, rel=1e-9, abs=0)
        allowed = corpus.allowed(shards, False)
        expected = reference.top(query, k, allowed=allowed, newer=[e.date or "" for e in entries])
        assert corpus.index.top(query, k, allowed=allowed, newer=corpus.dates) == expected
    finally:
        corpus.close()
    assert [(h.entry.id, h.score) for h in found] == [(entries[n].id, s) for n, s in expected]


def test_a_part_round_trips_and_reads_only_the_postings_asked_for(mem: lean_memory.Memory) -> None:
    from lean_memory.search import _Judge

    mem.put_entry("quirks", "Docker builds are flaky on Windows", date="2026-01-02")
    mem.put_entry("quirks", "Retry the deploy lock after a timeout", date="2026-01-03")
    from lean_memory.fsutil import file_signature

    path = mem.shard_path("quirks")
    sig = file_signature(path)
    built, _ = _build_part(mem, "quirks", False, path, sig, None, _Judge(mem, True))
    where = _part_path(mem, "quirks", False)
    header = _header(mem)
    assert write_part(where, mem.agents_dir, header, built)
    params = {"k1": mem.config.bm25_k1, "b": mem.config.bm25_b, "title_weight": 2.0}
    lazy = read_part(where, mem.agents_dir, header, **params)
    full = read_part(where, mem.agents_dir, header, full=True, **params)
    assert lazy is not None and full is not None
    try:
        assert lazy.ids == full.ids == built.ids and lazy.dates == built.dates
        assert lazy.supersedes == built.supersedes and full.keys == built.keys
        assert list(lazy.spans) == list(built.spans) and list(lazy.lines) == list(built.lines)
        for q in ("docker windows", "deploy timeout", "nothing"):
            assert lazy.index.top(q, 5) == built.index.top(q, 5) == full.index.top(q, 5)
        assert lazy.index.counts() == built.index.counts()
        # another header (tokenizer, parameters, scanner rules) is refused
        assert read_part(where, mem.agents_dir, [*header[:-1], "other"], **params) is None
    finally:
        lazy.close()


def test_hits_are_read_back_by_offset_with_their_line(mem: lean_memory.Memory) -> None:
    mem.put_entry("quirks", "Ünïcode first: caché naïve", date="2026-01-01")
    mem.put_entry("quirks", "Second entry\n\nabout the docker cache", date="2026-01-02")
    expected = {e.id: e for e in mem.entries("quirks")}
    for _ in range(2):  # built now, then read from the part file
        for hit in mem.search("cache", k=5):
            assert hit.entry == expected[hit.entry.id]


def test_a_time_budget_keeps_the_parts_it_finished(mem: lean_memory.Memory,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    mem.put_entry("quirks", "Docker builds are flaky on Windows", date="2026-01-02")
    mem.put_entry("failures", "The docker daemon times out", date="2026-01-03")
    for p in mem.cache_dir.glob("search-*"):
        p.unlink()
    # Too much to index in the time left: nothing is built, nothing found, not an error.
    monkeypatch.setattr(search_module, "_BUILD_BYTES_PER_S", 1)
    found = search_module.find(mem, "docker", budget_s=60)
    assert found.hits == [] and not found.ready
    assert not list(mem.cache_dir.glob("search-*.idx"))
    # Time runs out after the first part: that part is kept, the next call goes on. The
    # clock is the test's: building a part takes one second of it, and nothing else does
    # (with the real clock, a slow machine could pass the deadline before the first part).
    monkeypatch.setattr(search_module, "_BUILD_BYTES_PER_S", 1 << 40)
    real = search_module._build_part
    now = [1000.0]

    class Clock:
        monotonic = staticmethod(lambda: now[0])

        def __getattr__(self, name: str) -> object:
            return getattr(time, name)

    def slow(*args: object) -> object:
        out = real(*args)  # type: ignore[arg-type]
        now[0] += 1.0
        return out

    monkeypatch.setattr(search_module, "time", Clock())
    monkeypatch.setattr(search_module, "_build_part", slow)
    assert not search_module.find(mem, "docker", budget_s=0.5).ready
    assert len(list(mem.cache_dir.glob("search-*.idx"))) == 1
    monkeypatch.setattr(search_module, "time", time)
    monkeypatch.setattr(search_module, "_build_part", real)
    found = search_module.find(mem, "docker", budget_s=60)
    assert found.ready and len(found.hits) == 2
    assert found == search_module.find(mem, "docker")


def _prompt(root: Path, prompt: str) -> str:
    payload = {"hook_event_name": "UserPromptSubmit", "prompt": prompt, "cwd": str(root)}
    out = agents.hook_output("user-prompt-submit", None, payload)
    return str(json.loads(out)["hookSpecificOutput"]["additionalContext"]) if out else ""


def test_the_prompt_hook_answers_before_the_index_is_ready_and_warms_it(
        mem: lean_memory.Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    mem.put_entry("conventions", "Always run the linters before committing", date="2026-01-01")
    mem.put_entry("quirks", "Docker builds are flaky on Windows hosts", date="2026-01-02")
    for p in mem.cache_dir.glob("search*"):
        p.unlink()
    monkeypatch.setattr(search_module, "_BUILD_BYTES_PER_S", 1)  # as if the memory were huge
    first = _prompt(mem.root, "why is the docker build flaky")
    assert "Always run the linters" in first  # the standing rules
    assert "Memory matching this prompt" not in first
    # A background process indexes the memory meanwhile (a real one).
    marker = mem.cache_dir / "search.warming"
    for _ in range(600):
        if not marker.exists() and list(mem.cache_dir.glob("search-live-quirks.idx")):
            break
        time.sleep(0.1)
    assert not marker.exists()
    second = _prompt(mem.root, "why is the docker build flaky")
    assert "Docker builds are flaky on Windows hosts" in second.split(
        "Memory matching this prompt")[1]


def _fresh_hits(m: lean_memory.Memory, query: str, tmp: Path) -> list[tuple[str, str, float, int]]:
    """The same query on a copy of the memory without any index."""
    import shutil

    copy = tmp / "copy"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(m.root, copy, ignore=shutil.ignore_patterns(".cache"))
    return [(h.entry.id, h.shard, h.score, h.entry.line)
            for h in lean_memory.Memory(copy).search(query, k=10, include_archive=True)]


@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(st.tuples(st.sampled_from(["put", "hand", "edit", "supersede"]),
                                st.sampled_from(["quirks", "failures"]), text),
                      min_size=1, max_size=8))
def test_appends_keep_a_tail_that_ranks_as_a_fresh_index(
        tmp_path_factory: pytest.TempPathFactory, steps: list[tuple[str, str, str]]) -> None:
    tmp = tmp_path_factory.mktemp("t")
    mem = lean_memory.Memory(tmp / "m")
    mem.init()
    for i in range(3):
        mem.put_entry("quirks", f"docker cache base note {i}", date="2026-01-01", new=True)
        mem.put_entry("failures", f"flaky windows build {i}", date="2026-01-02", new=True)
    query = "docker flaky windows cache build deploy"
    mem.search(query)
    for i, (kind, shard, words) in enumerate(steps):
        path = mem.shard_path(shard)
        if kind == "put":
            mem.put_entry(shard, f"{words} put{i}", date="2026-02-01", new=True)
        elif kind == "hand":  # a hand-written entry appended: also a tail
            path.write_text(path.read_text() + f"\n## hand {i}\n{words} hand{i}\n")
        elif kind == "edit":  # a change in the middle: the part is rebuilt whole
            path.write_text(path.read_text().replace("base note", f"note {words}", 1)
                            .replace("flaky windows build", f"windows {words}", 1))
        else:
            old = mem.search(words, k=1)
            if old:
                mem.put_entry(shard, f"{words} fixed{i}", supersedes=old[0].entry.id,
                              date="2026-03-01")
        got = [(h.entry.id, h.shard, h.score, h.entry.line)
               for h in mem.search(query, k=10, include_archive=True)]
        assert got == _fresh_hits(mem, query, tmp)


def test_a_put_writes_a_small_tail_and_a_long_one_is_merged(mem: lean_memory.Memory) -> None:
    for i in range(20):
        mem.put_entry("quirks", f"docker note number {i}", date="2026-01-01", new=True)
    mem.search("docker")
    base = mem.cache_dir / "search-live-quirks.idx"
    tail = mem.cache_dir / "search-live-quirks.tail.idx"
    stamp = base.stat().st_mtime_ns
    mem.put_entry("quirks", "docker appended later", date="2026-01-02")
    assert mem.search("appended")[0].entry.text.startswith("docker appended later")
    assert tail.exists() and base.stat().st_mtime_ns == stamp  # the part was not rewritten
    for i in range(80):
        mem.put_entry("quirks", f"more docker words {i}", date="2026-01-03", new=True)
    assert len(mem.search("docker", k=200)) == 101
    assert base.stat().st_mtime_ns != stamp  # merged once the tail grew past the limit


def test_the_parsed_config_is_cached_by_its_exact_bytes(mem: lean_memory.Memory) -> None:
    from lean_memory.config import load_config

    config = mem.agents_dir / "config.toml"
    cache = mem.cache_dir / "config.marshal"
    config.write_text("[memory]\ntoken_budget = 1234\n")
    assert load_config(config, cache).token_budget == 1234
    assert cache.exists()
    # the cache is used only for the very same bytes, and what it holds is validated
    # (written here as this user's own cache: an untagged one is never read, see
    # test_hostile_cache.py)
    import marshal

    from lean_memory.fsutil import write_cache

    write_cache(cache, marshal.dumps([config.read_bytes(), {"memory": {"token_budget": 999}}]))
    assert load_config(config, cache).token_budget == 999
    config.write_text("[memory]\ntoken_budget = 4321\n")
    assert load_config(config, cache).token_budget == 4321
    write_cache(cache, marshal.dumps([config.read_bytes(), {"memory": {"bogus": 1}}]))
    with pytest.raises(lean_memory.ConfigError):
        load_config(config, cache)
    cache.write_bytes(b"garbage")
    assert load_config(config, cache).token_budget == 4321
    config.write_text("[memory]\ntoken_budget = 5\nwhen = 2026-01-01\n")  # not marshallable
    with pytest.raises(lean_memory.ConfigError):
        load_config(config, cache)


def test_the_fast_put_checks_fences_from_the_last_entry_only(mem: lean_memory.Memory) -> None:
    from lean_memory.errors import ShardError

    mem.put_entry("quirks", "First note", date="2026-01-01")
    mem.put_entry("quirks", "Code:\n\n```\n## not a heading\n## nor this\n```\n\nafter",
                  date="2026-01-02")
    mem.put_entry("quirks", "Third note after the fenced one", date="2026-01-03")
    assert [e.title for e in mem.entries("quirks")] == ["First note", "Code:",
                                                        "Third note after the fenced one"]
    # The last entry keeps its metadata line but gains a fence it never closes; once
    # summarised (status), the next put takes the fast path and must still refuse.
    path = mem.shard_path("quirks")
    path.write_text(path.read_text().rstrip("\n") + "\n\n```\nunclosed\n")
    mem.status()
    before = path.read_bytes()
    with pytest.raises(ShardError, match="code fence open"):
        mem.put_entry("quirks", "Swallowed?", date="2026-01-04")
    assert path.read_bytes() == before
