"""Index layout 2 (fixed regions read by offset, every chunk checked) and MaxScore: a part
round-trips exactly, a damaged, truncated, old or foreign part is never believed and never
crashes a query, and the pruned top k is the exhaustive top k, bit for bit."""

from __future__ import annotations

import marshal
from array import array
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lean_memory
from lean_memory import fsutil
from lean_memory import search as search_module
from lean_memory.bm25 import BM25Index, documents_terms, tokenize
from lean_memory.fsutil import CACHE_PREFIX, write_cache
from lean_memory.index import PART_FORMAT, Corrupt, Part, read_part, write_part

PARAMS = {"k1": 1.2, "b": 0.75, "title_weight": 2.0}
HEADER: list[Any] = ["test-header", 1]
WORDS = ["cache", "flaky", "windows", "docker", "retry", "parse_config", "os.path.join",
         "deploy", "lock", "timeout", "E0502", "linux", "build", "merge", "caché", "naïve"]
text = st.lists(st.sampled_from(WORDS), min_size=0, max_size=10).map(" ".join)
name_text = st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=12)


@st.composite
def parts(draw: st.DrawFn) -> Part:
    docs = draw(st.lists(st.tuples(text, text), min_size=0, max_size=30))
    n = len(docs)
    counts = documents_terms(docs)
    index = BM25Index.from_counts(counts, **PARAMS)
    withheld = sorted(draw(st.sets(st.integers(0, n - 1), max_size=n))) if n else []
    # every entry has its key, withheld or not (ADR 0051: withheld is a mask)
    keys = [draw(st.binary(min_size=16, max_size=16)) for _ in range(n)]
    starts = sorted(draw(st.lists(st.integers(0, 1 << 40), min_size=n, max_size=n)))
    spans = array("q", [x for s in starts for x in (s, s + 7)])
    lines = array("i", draw(st.lists(st.integers(1, 1 << 30), min_size=n, max_size=n)))
    base = draw(st.none() | st.tuples(st.integers(0, 99), st.integers(0, 99),
                                      st.integers(0, 99)))
    return Part(draw(st.sampled_from(["quirks", "seed"])), draw(st.booleans()), (n, 2, 3),
                draw(st.lists(name_text, min_size=n, max_size=n)),
                draw(st.lists(st.sampled_from(["", "2026-01-02", "2025-12-31"]), min_size=n,
                              max_size=n)),
                draw(st.lists(name_text.map(lambda s: s.replace("\n", "")), min_size=n,
                              max_size=n)),
                spans, lines, withheld, index, keys, digest=draw(st.binary(max_size=16)),
                base=base)


def _terms(part: Part) -> list[str]:
    return sorted({t for tf, _ in part.index.counts() for t in tf})


def _same(read: Part, built: Part) -> None:
    """Everything a query or a rebuild reads of ``read`` is what ``built`` holds."""
    assert read.n == built.n and read.name == built.name and read.archived == built.archived
    assert read.sig == built.sig and read.base == built.base and read.digest == built.digest
    assert list(read.ids) == list(built.ids) and list(read.dates) == list(built.dates)
    assert [read.ids[i] for i in range(read.n)] == list(built.ids)
    assert [read.dates[-1 - i] for i in range(read.n)] == list(built.dates)[::-1]
    assert list(read.spans) == list(built.spans) and list(read.lines) == list(built.lines)
    assert [read.spans[i] for i in range(2 * read.n)] == list(built.spans)
    # an entry's start and end in one read (ADR 0039), and any other slice, as a list's
    spans = list(built.spans)
    for lo, hi, step in [(2 * i, 2 * i + 2, None) for i in range(read.n)] + [
            (0, None, None), (1, -1, None), (None, None, 2), (-3, None, None), (5, 2, None)]:
        assert list(read.spans[lo:hi:step]) == spans[lo:hi:step]
    assert [read.lines[i] for i in range(read.n)] == list(built.lines)
    assert read.withheld == built.withheld and read.supersedes == built.supersedes
    segment, reference = read.index._segments[0], built.index._segments[0]
    for term in [*_terms(built), "absent", "", "zzz", "\uffff"]:
        got, want = segment.postings(term), reference.postings(term)
        assert (got is None and want is None) or (
            got is not None and want is not None
            and list(got[0]) == list(want[0]) and list(got[1]) == list(want[1]))
    # a withheld entry's own terms are written hashed (no credential in a cache, ADR 0051)
    for i, (got, want) in enumerate(zip(read.index.counts(), built.index.counts(),
                                        strict=True)):
        if i in built.withheld:
            assert got[1] == want[1] and sorted(got[0].values()) == sorted(want[0].values())
            assert all(t in want[0] or t.startswith("\x01") for t in got[0])
        else:
            assert got == want
    assert list(segment.lengths) == list(reference.lengths)
    assert read.index.avgdl == built.index.avgdl
    for query in ("docker windows cache", "caché naïve", "nothing", "deploy deploy lock"):
        if tokenize(query):
            assert read.index.top(query, 3) == built.index.top(query, 3)


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(built=parts())
def test_a_part_round_trips_exactly_lazy_and_full(tmp_path: Path, built: Part) -> None:
    """Catches: a region misplaced or mis-sized, a dictionary block boundary missed (the
    terms are few here, so BLOCK is made small below), ids or dates of non-ASCII text or
    empty, keys of withheld entries, whether the verdicts are complete, a tail's base
    signature lost."""
    where = tmp_path / "search-live-x.idx"
    assert write_part(where, tmp_path, HEADER, built)
    lazy = read_part(where, tmp_path, HEADER, **PARAMS)
    full = read_part(where, tmp_path, HEADER, full=True, **PARAMS)
    assert lazy is not None and full is not None
    try:
        assert full.file is None
        for i, (got, want) in enumerate(zip(full.keys or (), built.keys or (), strict=True)):
            # a withheld entry's counts may hold hashed terms: never reused by key
            assert got == want or (i in built.withheld and got == b"")
        _same(lazy, built)
        _same(full, built)
    finally:
        lazy.close()


@pytest.fixture(autouse=True, params=["by chunk", "whole"])
def _small_blocks(monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> None:
    """Blocks of 3 terms and chunks of 64 bytes: every boundary case occurs in small parts;
    bodies read by chunk, or whole (as small parts are)."""
    from lean_memory import index

    monkeypatch.setattr(index, "BLOCK", 3)
    monkeypatch.setattr(index, "CHUNK", 64)
    monkeypatch.setattr(index, "_SMALL", 0 if request.param == "by chunk" else 1 << 18)


def _built(tmp_path: Path, n: int = 40) -> Part:
    docs = [(f"t{i} {WORDS[i % len(WORDS)]}", " ".join(WORDS[(i * j) % len(WORDS)]
                                                       for j in range(1, 6)))
            for i in range(n)]
    index = BM25Index.from_counts(documents_terms(docs), **PARAMS)
    return Part("quirks", False, (n, 2, 3), [f"id{i}" for i in range(n)],
                ["2026-01-02"] * n, [""] * n, array("q", range(2 * n)), array("i", range(n)),
                [], index, [bytes(16)] * n)


def _answers(part: Part) -> list[Any]:
    """Everything a query and a rebuild read, in one list."""
    return [list(part.ids), list(part.dates), list(part.spans), list(part.lines),
            part.supersedes, part.index.counts(),
            [part.index.top(q, 5) for q in ("docker", "cache windows", "retry lock merge")]]


@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cut=st.integers(0, 1 << 20), flip=st.integers(0, 1 << 20), xor=st.integers(1, 255),
       how=st.sampled_from(["truncate", "flip", "both"]))
def test_a_damaged_part_is_refused_or_caught_never_believed(tmp_path: Path, cut: int,
                                                           flip: int, xor: int,
                                                           how: str) -> None:
    """A part cut short or with any byte changed is refused when read (None), or the read
    that meets the damage raises Corrupt (the query then rebuilds): it never answers
    differently and never raises anything else. Catches: regions read without their
    digests checked (layout 1 trusted its postings), a length believed before the size."""
    built = _built(tmp_path)
    where = tmp_path / "search-live-quirks.idx"
    assert write_part(where, tmp_path, HEADER, built)
    expected = _answers(built)
    data = bytearray(where.read_bytes())
    if how in ("flip", "both"):
        data[flip % len(data)] ^= xor
    if how in ("truncate", "both"):
        del data[cut % len(data):]
    where.write_bytes(bytes(data))
    part = read_part(where, tmp_path, HEADER, **PARAMS)
    if part is None:
        return
    try:
        assert _answers(part) == expected
    except Corrupt:
        pass
    finally:
        part.close()


def test_a_part_of_another_key_format_or_header_is_not_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    built = _built(tmp_path)
    where = tmp_path / "search-live-quirks.idx"
    assert write_part(where, tmp_path, HEADER, built)
    assert read_part(where, tmp_path, ["other"], **PARAMS) is None
    data = where.read_bytes()[CACHE_PREFIX:]
    size = int.from_bytes(data[:8], "little")
    meta = marshal.loads(data[8:8 + size])
    assert meta[0] == PART_FORMAT
    meta[0] = "lean_memory.index/1"
    new = marshal.dumps(meta)
    assert write_cache(where, len(new).to_bytes(8, "little") + new + data[8 + size:], tmp_path,
                       covered=8 + len(new))
    assert read_part(where, tmp_path, HEADER, **PARAMS) is None
    # sealed with someone else's key
    monkeypatch.setattr(fsutil, "cache_key", lambda: bytes(range(32)))
    assert write_part(where, tmp_path, HEADER, built)
    monkeypatch.undo()
    assert read_part(where, tmp_path, HEADER, **PARAMS) is None


def _rewrite(path: Path, change: Any) -> None:
    data = path.read_bytes()[CACHE_PREFIX:]
    size = int.from_bytes(data[:8], "little")
    meta = marshal.loads(data[8:8 + size])
    body = change(meta, bytearray(data[8 + size:]))
    new = marshal.dumps(meta)
    assert write_cache(path, len(new).to_bytes(8, "little") + new + bytes(body),
                       covered=8 + len(new))


def test_a_memory_with_old_or_damaged_parts_answers_as_without_them(
        mem: lean_memory.Memory) -> None:
    """Through the whole query: a layout-1 part, a part whose postings were changed and
    resealed without their digests (as a bug or an editor could), a part cut after its
    lengths: each is rebuilt, the answers stay those of a fresh index."""
    for i in range(30):
        mem.put_entry(["quirks", "failures"][i % 2],
                      f"docker build {WORDS[i % len(WORDS)]} retry {i}", date="2026-01-02")
    query = "docker windows retry"

    def answers() -> list[tuple[str, float]]:
        return [(h.entry.id, h.score) for h in mem.search(query, k=8)]

    expected = answers()
    part = mem.cache_dir / "search-live-quirks.idx"

    def old(meta: list[Any], body: bytearray) -> bytearray:
        meta[0] = "lean_memory.index/1"
        return body

    def postings(meta: list[Any], body: bytearray) -> bytearray:
        start, end = meta[10][7:9]  # the docs region
        body[start:end] = bytes(x ^ 0x5A for x in body[start:end])
        return body

    for change in (old, postings):
        _rewrite(part, change)
        assert answers() == expected
        meta = marshal.loads(part.read_bytes()[CACHE_PREFIX + 8:])
        assert meta[0] == PART_FORMAT
    data = part.read_bytes()
    part.write_bytes(data[:len(data) - 10])
    assert answers() == expected
    assert len(part.read_bytes()) == len(data)  # rebuilt


def test_the_search_cache_format_is_layout_2(mem: lean_memory.Memory) -> None:
    mem.put_entry("quirks", "Docker builds are flaky on Windows", date="2026-01-02")
    mem.search("docker")
    data = (mem.cache_dir / "search-live-quirks.idx").read_bytes()
    meta = marshal.loads(data[CACHE_PREFIX + 8:])
    assert meta[0] == PART_FORMAT == "lean_memory.index/5"
    corpus = search_module._load(mem)
    try:
        assert corpus.index.n_docs == 1
    finally:
        corpus.close()


def _meta_and_body(path: Path) -> tuple[list[Any], bytes]:
    data = path.read_bytes()[CACHE_PREFIX:]
    size = int.from_bytes(data[:8], "little")
    return marshal.loads(data[8:8 + size]), data[8 + size:]


@pytest.mark.parametrize(("title_weight", "body", "codes"), [
    (2.0, "docker cache", "BBB"),  # whole numbers under 256: a byte each
    (2.0, "docker " * 300, "HBH"),  # a frequency of 300, a length of 300: two bytes
    (1.5, "docker cache", "dBd"),  # a title weight of 1.5: lengths and frequencies f64
])
def test_lengths_docs_and_tfs_are_stored_in_the_narrowest_exact_type(
        tmp_path: Path, title_weight: float, body: str, codes: str) -> None:
    """Format 5 (ADR 0053): each of lengths, docs and tfs in the narrowest unsigned type
    that holds every one of its numbers exactly, else f64; read back, the postings, the
    lengths, the counts (floats, as built) and every score are the built ones, bit for bit.
    Catches: a frequency or length rounded or wrapped into a narrow type, a width taken
    from the wrong region, counts reused as ints."""
    docs = [("note", f"{body} w{i % 7} windows" if i % 3 else "retry lock")
            for i in range(40)]
    params = {**PARAMS, "title_weight": title_weight}
    index = BM25Index.from_counts(documents_terms(docs, title_weight=title_weight),
                                  **params)
    n = len(docs)
    built = Part("quirks", False, (n, 2, 3), [f"id{i}" for i in range(n)], [""] * n,
                 [""] * n, array("q", range(2 * n)), array("i", range(n)), [], index,
                 [bytes(16)] * n)
    where = tmp_path / "search-live-quirks.idx"
    assert write_part(where, tmp_path, HEADER, built)
    meta, _ = _meta_and_body(where)
    assert meta[0] == PART_FORMAT and meta[17] == codes
    for full in (False, True):
        part = read_part(where, tmp_path, HEADER, full=full, **params)
        assert part is not None
        try:
            _same(part, built)
            counts = part.index.counts()
            assert counts == built.index.counts()
            assert all(type(f) is float for tf, length in counts
                       for f in (*tf.values(), length))
            for query in ("docker", "windows retry", "w3 cache lock", "note"):
                assert part.index.top(query, 50) == built.index.top(query, 50)
                assert part.index.score(query) == built.index.score(query)
        finally:
            part.close()


@pytest.mark.parametrize("region", ["lengths", "docs", "tfs", "dict"])
def test_a_byte_changed_in_a_narrow_region_is_caught_not_believed(
        tmp_path: Path, region: str) -> None:
    """A byte flipped (the seal left intact) in the lengths (read at open), the postings'
    documents or frequencies or a dictionary block (read when a query looks a term up):
    the part is refused, or the read raises Corrupt; it never answers. Catches: a narrow
    region read without its chunks' digests checked."""
    from lean_memory import index as index_module

    built = _built(tmp_path, 300)
    where = tmp_path / "search-live-quirks.idx"
    assert write_part(where, tmp_path, HEADER, built)
    meta, body = _meta_and_body(where)
    assert meta[17] == "BHB"
    at = index_module._REGIONS.index(region)
    start, end = meta[10][at:at + 2]
    assert end > start
    data = bytearray(where.read_bytes())
    offset = len(data) - len(body) + (start + end) // 2
    data[offset] ^= 0x01
    where.write_bytes(bytes(data))
    part = read_part(where, tmp_path, HEADER, **PARAMS)
    if region == "lengths":
        assert part is None  # every query reads them: checked at open
        return
    assert part is not None
    try:
        with pytest.raises(Corrupt):
            for word in WORDS:
                part.index.top(word, 5)
            part.index.counts()
    finally:
        part.close()


def test_a_meta_whose_first_terms_are_misplaced_is_refused(tmp_path: Path) -> None:
    """The meta names where each dictionary block's first term starts (format 5): offsets
    that do not end where the first terms do are refused, even under a valid seal."""
    built = _built(tmp_path)
    where = tmp_path / "search-live-quirks.idx"
    assert write_part(where, tmp_path, HEADER, built)
    assert read_part(where, tmp_path, HEADER, **PARAMS) is not None

    def shifted(meta: list[Any], body: bytearray) -> bytearray:
        offsets = array("I")
        offsets.frombytes(meta[18])
        offsets[-1] += 1
        meta[18] = offsets.tobytes()
        return body

    _rewrite(where, shifted)
    assert read_part(where, tmp_path, HEADER, **PARAMS) is None
