"""Search: the cached BM25 index, and a query run through the configured retrievers.

The retriever protocol, loading retrievers by name, their time limit and the fusion of
their rankings (``rerank`` by default, or ``rrf``) are :mod:`lean_memory.retrievers`'s;
this module ranks with BM25 and hands the rankings to it.

The built-in BM25 ranks from the on-disk index (``lean_memory.index``, ADR 0016): one part
file per shard file (live and archive) with the entries' ids, dates and byte spans and a
BM25 index of raw term frequencies, each checked against its file's size, mtime and inode;
``.cache/search.marshal`` keeps the superseded entries of one set of parts. A part whose
file changed is rebuilt, re-tokenising only the entries whose indexed text changed; the parts
are then scored as one index, so the global BM25 statistics are always those of the whole
memory. Files are written atomically and only from an unchanged snapshot, so concurrent
processes at worst build twice. Deleting them loses nothing (ADR 0004).

An entry that holds a credential (ADR 0011) is never a hit. Every entry is indexed with its
real counts and "withheld" is a mask applied at query time (ADR 0051): a part built without
every verdict known (a fresh clone) says so, and a query over it judges its candidates best
first, more as needed, through ``withhold.Verdicts``; the warm-up completes the verdicts.
Either way the hits, their order and the count of withheld entries a query would have
returned are the same.
"""

from __future__ import annotations

import _thread
import os
import time
from bisect import bisect_right
from itertools import accumulate, chain, compress

from . import format as fmt
from ._hash import blake2b
from ._record import Record, SequenceBase, array, contextmanager, replace, suppress
from .bm25 import (
    BM25,
    TOKENIZER_VERSION,
    BM25Index,
    LazySegment,
    TermCounts,
    _Segment,
    documents_terms,
    gc_paused,
    tokenize,
)
from .errors import QueryError, ShardError, UnknownShard
from .fsutil import (
    MAX_FILE_BYTES,
    dump_record,
    file_signature,
    load_record,
    open_bounded,
    read_bounded,
)
from .index import Corrupt, Part, read_part, write_part
from .summaries import grown_from, hidden_ids
from .withhold import Verdicts, header

# Inside functions on purpose: the retriever plugins (retrievers, logging, importlib), a
# warm-up (spawn) and dedup load only when a query needs them (the digest hands its typo
# mending in: `find(mend=)`)
# (tests/test_query_path.py, test_hot_lines.py).
TYPE_CHECKING = False  # typing's own costs an import; so does .retrievers (typing, Protocol)
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Mapping, Sequence
    from typing import Any, BinaryIO

    from ._protocols import MemoryLike
    from .retrievers import RRF_K, Job, Retriever, rrf
    from .withhold import Verdicts


def _debug(message: str, *args: object) -> None:
    """Log on ``lean_memory.search``; logging is imported only when there is news."""
    import logging

    logging.getLogger("lean_memory.search").debug(message, *args)


__all__ = ["RRF_K", "Found", "Hit", "Retriever", "find", "render_hits", "rrf", "search"]


def __getattr__(name: str) -> object:
    """``RRF_K``, ``Retriever`` and ``rrf``, re-exported from :mod:`lean_memory.retrievers`,
    which a query with the built-in BM25 alone never imports."""
    if name in ("RRF_K", "Retriever", "rrf"):
        from . import retrievers

        return getattr(retrievers, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

_CACHE_NAME = "search.marshal"
_CACHE_VERSION = "lean_memory.search/5"  # 5: withheld entries indexed, masked (ADR 0051)
# The built-in retriever's title weight; the cache is built with it.
_TITLE_WEIGHT = BM25().title_weight


class Hit(Record):
    """One search result: the entry, its shard and its score (higher is better).

    ``base`` is the first stage's own score for the entry (BM25's, by default) before
    fusion re-ordered its head: the score itself when nothing was fused, and for an entry
    only another retriever found (the rescue). The digest's gate reads it (ADR 0021): a
    re-rank re-orders what the gate lets in, never changes how much. ``rank`` is the
    entry's place in the first stage's ranking (ties of ``base`` are broken by it; 0 when
    nothing was fused: the hits' own order). Neither is compared.
    """

    _fields = ("entry", "shard", "score", "archived", "base", "rank")
    _hidden = ("base", "rank")
    __slots__ = _fields
    entry: fmt.Entry
    shard: str
    score: float
    archived: bool
    base: float
    rank: int

    def __init__(self, entry: fmt.Entry, shard: str, score: float,
                 archived: bool = False, base: float | None = None, rank: int = 0) -> None:
        self._init(entry, shard, score, archived, score if base is None else base, rank)


class Found(Record):
    """What a query found: the hits, and how many entries that hold a credential would
    have been among them (withheld, never returned). ``ready`` is False when a time budget
    ran out before the index was up to date (then there are no hits)."""

    _fields = ("hits", "withheld", "notes", "ready", "n_docs", "df", "query")
    __slots__ = _fields
    hits: list[Hit]
    withheld: int
    notes: tuple[str, ...]  # retrievers searched without, and why (one line each)
    ready: bool
    # The memory's size and each query term's document frequency (the digest's gate).
    n_docs: int
    df: tuple[tuple[str, int], ...]
    query: str  # the query searched (with ``mend``: its typos mended)

    def __init__(self, hits: list[Hit], withheld: int = 0, notes: tuple[str, ...] = (),
                 ready: bool = True, n_docs: int = 0,
                 df: tuple[tuple[str, int], ...] = (), query: str = "") -> None:
        self._init(hits, withheld, notes, ready, n_docs, df, query)


# -- the corpus and its cache -------------------------------------------------------------


class Corpus:
    """Every entry of the memory (live and archived), numbered part by part in file order,
    with one BM25 index over all of them.

    Only what ranking needs is kept (ids, dates, and each entry's byte span in its file);
    the few entries a query returns are read back by offset from the shards, which the
    parts' signatures guarantee unchanged. Score ties go to the newer entry, then the lower
    number (file order).
    """

    def __init__(self, mem: MemoryLike, parts: list[Part], hidden: list[int]) -> None:
        self.mem = mem
        self.parts = parts
        self.bases = list(accumulate((p.n for p in parts), initial=0))
        self.ids = _Column(self, "ids")
        self.dates = _Column(self, "dates")
        self.hidden = hidden  # numbers of the superseded entries
        self.index = BM25Index.merge([p.index for p in parts])
        if len(self.index) != len(self.ids):
            raise ValueError("inconsistent search cache")
        # the withheld entries known (every one once ``complete``); a query over a corpus
        # that is not judges its candidates (``held``), then starts the warm-up
        self.complete = all(p.complete for p in parts)
        self.lazy = not self.complete  # loaded so: the warm-up completes the parts
        self._withheld = {base + local for part, base in zip(parts, self.bases, strict=False)
                          for local in part.withheld}
        self._held: dict[int, bool] = {}  # verdicts of entries of incomplete parts
        self._verdicts: Verdicts | None = None
        # The bytes a rebuilt part was built from; other parts are read from their files.
        self._data: dict[int, bytes] = {}
        self._files: dict[int, BinaryIO] = {}

    @property
    def withheld(self) -> list[int]:
        """The numbers of every entry that holds a credential (all judged first)."""
        self.judge_all()
        return sorted(self._withheld)

    def held(self, numbers: Sequence[int]) -> list[bool]:
        """For each entry, whether it holds a credential: from its part when the part's
        verdicts are complete, else judged now (its text read back) and remembered."""
        known = self._withheld
        if self.complete:
            return [n in known for n in numbers]
        held = self._held
        todo = [n for n in dict.fromkeys(numbers) if n not in known and n not in held
                and not self.parts[bisect_right(self.bases, n) - 1].complete]
        if todo:
            if self._verdicts is None:
                self._verdicts = Verdicts(self.mem)
            raws = [self._raw(n)[0].decode("utf-8") for n in todo]
            held.update(zip(todo, self._verdicts.holding(raws), strict=True))
        return [n in known or held.get(n, False) for n in numbers]

    def judge_all(self) -> None:
        """Judge every entry of the parts whose verdicts are incomplete (in memory: the
        warm-up rewrites the parts), so that ``_withheld`` is every withheld entry."""
        if self.complete:
            return
        for part, base in zip(self.parts, self.bases, strict=False):
            if not part.complete:
                numbers = range(base, base + part.n)
                part.withheld = [n - base for n, bad in zip(numbers, self.held(numbers),
                                                             strict=True) if bad]
                part.complete = True
                self._withheld.update(base + local for local in part.withheld)
        self.complete = True

    def where(self, number: int) -> tuple[str, bool]:
        """(shard, archived) of an entry."""
        part = self.parts[bisect_right(self.bases, number) - 1]
        return part.name, part.archived

    def entry(self, number: int) -> fmt.Entry:
        """The entry, read back from its file."""
        entry = _parsed(*self._raw(number))
        if entry is None:
            raise _Stale  # the span is not one entry: the file is not what the part indexed
        return entry

    def _raw(self, number: int) -> tuple[bytes, str, int, str]:
        """The entry's raw text as its file holds it (checked against the part), its shard,
        first line and id."""
        i = bisect_right(self.bases, number) - 1
        part = self.parts[i]
        local = number - self.bases[i]
        start, end = part.spans[2 * local:2 * local + 2]
        data = self._data.get(i)
        raw = data[start:end] if data is not None else self._read(i, start, end)
        return raw, part.name, part.lines[local], self.ids[number]

    def reader(self, number: int) -> Callable[[], fmt.Entry]:
        """The entry's text read now (as :meth:`entry` reads it), parsed when called."""
        got = self._raw(number)

        def parse() -> fmt.Entry:
            entry = _parsed(*got)
            if entry is None:  # read from a file that matched its part: not a writer's race
                raise ShardError(f"the search index does not match {got[1]}.md: run "
                                 "`lean-memory index`")
            return entry

        return parse

    def _read(self, i: int, start: int, end: int) -> bytes:
        f = self._files.get(i)
        if f is None:
            part = self.parts[i]
            path = self.mem._shard_file(part.name, archive=part.archived)
            try:
                f = open_bounded(path, MAX_FILE_BYTES, self.mem._agents)
            except FileNotFoundError:
                raise _Stale from None
            except OSError as exc:
                raise ShardError(f"cannot read {path}: {exc.strerror}") from None
            self._files[i] = f
            st = os.fstat(f.fileno())
            # The open file is the version the part was built from, or the read is stale.
            if (st.st_size, st.st_mtime_ns, st.st_ino) != part.sig:
                raise _Stale
        f.seek(start)
        raw = f.read(end - start)
        if len(raw) != end - start:
            raise _Stale
        return raw

    def close(self) -> None:
        """Close the shard files opened to read entries back (and the parts' files); keep
        the verdicts learned."""
        if self._verdicts is not None:
            self._verdicts.save()
        for f in self._files.values():
            f.close()
        self._files.clear()
        for part in self.parts:
            part.close()

    def allowed(self, shards: Sequence[str], include_archive: bool) -> bytearray:
        """A mask over entry numbers: in ``shards``, archived only if asked, not superseded,
        not withheld (every entry judged first)."""
        mask = self.eligible(shards, include_archive)
        for n in self.withheld:
            mask[n] = 0
        return mask

    def eligible(self, shards: Sequence[str], include_archive: bool) -> bytearray:
        """The same mask with the withheld entries left in."""
        wanted = set(shards)
        mask = bytearray(len(self.ids))
        for part, start, end in zip(self.parts, self.bases, self.bases[1:], strict=False):
            if part.name in wanted and (include_archive or not part.archived):
                mask[start:end] = b"\x01" * (end - start)
        for n in self.hidden:
            mask[n] = 0
        return mask


class _Column(SequenceBase[str]):
    """The ids or dates of all entries by number, split from the parts only when asked."""

    def __init__(self, corpus: Corpus, name: str) -> None:
        self._corpus = corpus
        self._name = name

    def __len__(self) -> int:
        return self._corpus.bases[-1]

    def __getitem__(self, number: int) -> str:  # type: ignore[override]
        corpus = self._corpus
        if not 0 <= number < corpus.bases[-1]:
            raise IndexError(number)
        i = bisect_right(corpus.bases, number) - 1
        values: list[str] = getattr(corpus.parts[i], self._name)
        return values[number - corpus.bases[i]]


def _parsed(raw: bytes, shard: str, line: int, entry_id: str) -> fmt.Entry | None:
    entry = fmt.parse_entry(raw.decode("utf-8"), shard, line)
    if entry is None:
        return None
    return entry if entry.id == entry_id else replace(entry, id=entry_id)


class _LazyHit(Hit):
    """A hit whose entry is parsed when first read (its text was read, and checked, by
    :func:`find`): the digest asks for dozens of hits and shows a few (ADR 0039)."""

    __slots__ = ("_parse",)
    _parse: Callable[[], fmt.Entry]

    def __init__(self, parse: Callable[[], fmt.Entry], shard: str, score: float,
                 archived: bool, base: float | None, rank: int) -> None:
        for name, value in (("shard", shard), ("score", score), ("archived", archived),
                            ("base", score if base is None else base), ("rank", rank),
                            ("_parse", parse)):
            object.__setattr__(self, name, value)

    @property
    def entry(self) -> fmt.Entry:  # type: ignore[override]
        try:
            parsed: fmt.Entry = _ENTRY.__get__(self, Hit)
            return parsed
        except AttributeError:
            entry = self._parse()
            _ENTRY.__set__(self, entry)
            return entry

    def __reduce__(self) -> tuple[Any, ...]:  # a plain hit, once parsed
        return Hit, tuple(getattr(self, n) for n in self._fields)


_ENTRY = Hit.__dict__["entry"]  # Hit's slot, which a lazy hit fills on first read
# The hits a lazy find parses at once: what a query shows, and the digest's gate reads.
_EAGER = 10


class _Stale(Exception):
    """A shard file changed between indexing it and reading an entry back."""


class NotReady(Exception):
    """The index could not be brought up to date within the time allowed."""


def _header(mem: MemoryLike) -> list[Any]:
    c = mem.config
    return [_CACHE_VERSION, TOKENIZER_VERSION, c.bm25_k1, c.bm25_b, _TITLE_WEIGHT, header(mem)]


def _sources(mem: MemoryLike) -> list[tuple[str, bool, str]]:
    return [(name, archived, mem._shard_file(name, archive=archived))
            for archived in (False, True) for name in mem.shards]


def _part_path(mem: MemoryLike, name: str, archived: bool, *, tail: bool = False) -> str:
    # Shard names are [a-z0-9_-] (config.SHARD_NAME): safe as part of a file name.
    kind = "archive" if archived else "live"
    return os.path.join(mem._cache, f"search-{kind}-{name}{'.tail' if tail else ''}.idx")


def _build_part(mem: MemoryLike, name: str, archived: bool, path: str, sig: tuple[int, int, int],
                previous: Part | None, verdicts: _Judge) -> tuple[Part, bytes]:
    """The part of one shard file, and the bytes it was built from; entries whose indexed
    text ``previous`` has seen are not tokenised again (their term counts are read back
    from its index). Entries that hold a credential count as empty documents."""
    text = mem.read_text(path)
    data = text.encode("utf-8")
    shard = fmt.parse(text, name)
    part = _index_entries(mem, name, archived, sig, shard.entries, len(shard.preamble.encode()),
                          shard.preamble.count("\n") + 1, previous, verdicts)
    part.digest = blake2b(data, digest_size=16).digest()
    return part, data


def _missing_part(mem: MemoryLike, name: str, archived: bool, sig: tuple[int, int, int],
                  verdicts: _Judge) -> Part:
    """The part of a shard file that does not exist, as :func:`_build_part` builds it
    (from the empty text): built in memory rather than read from its part file."""
    part = _index_entries(mem, name, archived, sig, [], 0, 1, None, verdicts)
    part.digest = blake2b(b"", digest_size=16).digest()
    return part


def _tail_part(mem: MemoryLike, base: Part, data: bytes, sig: tuple[int, int, int],
               previous: Part | None, verdicts: _Judge) -> Part | None:
    """The entries appended to ``base``'s file since it was indexed, as a part of their
    own; None unless the file is the indexed bytes with whole entries after them: known
    when the puts that appended say so (``summaries.grown_from``: from the file indexed,
    or from the one ``previous``, the last tail part, was built of), else by the hash of
    the bytes indexed (8 MB at 100k entries: ~25 ms)."""
    size = base.sig[0]
    if not base.n or len(data) <= size or not base.digest:
        return None
    grown = (frozenset() if base.archived
             else grown_from(mem._cache, mem._agents, base.name, sig))
    if (tuple(base.sig) not in grown and (previous is None or tuple(previous.sig) not in grown)
            and blake2b(data[:size], digest_size=16).digest() != base.digest):
        return None
    if previous is not None and tuple(previous.sig) in grown and previous.n \
            and size < previous.sig[0] < len(data):
        longer = _longer_tail(mem, base, previous, data, sig, verdicts)
        if longer is not None:
            return longer
    appended = _appended(data, base, base.name)
    if appended is None:
        return None
    entries, last_lines = appended
    return _index_entries(mem, base.name, base.archived, sig, entries, size,
                          last_lines, previous, verdicts, base=base.sig)


def _appended(data: bytes, part: Part, name: str) -> tuple[tuple[fmt.Entry, ...], int] | None:
    """The whole entries ``data`` holds after the bytes ``part`` indexed, and the line the
    first of them starts on; None when they are not whole entries after it."""
    size = part.sig[0]
    try:
        tail = data[size:].decode("utf-8")
        last = data[part.spans[-2]:size].decode("utf-8")
    except UnicodeDecodeError:
        return None
    # The last indexed entry parsed with what follows must stay itself (no open fence, no
    # missing line end swallows the new entries), and what follows must be whole entries.
    entries = fmt.parse(last + tail, name).entries
    if not entries or entries[0].raw != last:
        return None
    return entries[1:], part.lines[-1] + last.count("\n")


def _longer_tail(mem: MemoryLike, base: Part, previous: Part, data: bytes,
                 sig: tuple[int, int, int], verdicts: _Judge) -> Part | None:
    """``previous``, the last tail part, with the entries appended to its file since (its
    file, the puts say, begins this one): only those are parsed, judged and tokenised, the
    rest is ``previous``'s, as the whole tail would be rebuilt. None when its last entry did
    not stay itself."""
    size, keys = previous.sig[0], previous.keys
    if keys is None or previous.withheld:  # read without them, or with hashed terms (the
        return None  # withheld entries' own, index.py): rebuilt whole
    appended = _appended(data, previous, base.name)
    if appended is None:
        return None
    entries, last_lines = appended
    new = _index_entries(mem, base.name, base.archived, sig, entries, size,
                         last_lines, None, verdicts, base=base.sig)
    c = mem.config
    index = BM25Index.from_counts([*previous.index.counts(), *new.index.counts()],
                                  k1=c.bm25_k1, b=c.bm25_b, title_weight=_TITLE_WEIGHT)
    spans = array("q", previous.spans)
    spans.extend(new.spans)
    lines = array("i", previous.lines)
    lines.extend(new.lines)
    return Part(base.name, base.archived, sig, [*previous.ids, *new.ids],
                [*previous.dates, *new.dates], [*previous.supersedes, *new.supersedes], spans,
                lines, [*previous.withheld, *(previous.n + i for i in new.withheld)], index,
                [*keys, *(new.keys or ())], base=base.sig,
                complete=previous.complete and new.complete)


def _index_entries(mem: MemoryLike, name: str, archived: bool, sig: tuple[int, int, int],
                   entries: Sequence[fmt.Entry], start: int, line: int, previous: Part | None,
                   verdicts: _Judge, base: tuple[int, int, int] | None = None) -> Part:
    """The part of ``entries``, the first at byte ``start`` and line ``line`` of its file.
    Every entry is indexed with its counts (withheld is a mask: ADR 0051)."""
    withheld, complete = verdicts.judge([e.raw for e in entries])
    known: dict[bytes, TermCounts] = {}
    if previous is not None and previous.keys is not None:
        known = dict(zip(previous.keys, previous.index.counts(), strict=True))
    c = mem.config
    keys: list[bytes] = []
    reused: list[TermCounts | None] = []
    todo: list[tuple[str, str]] = []
    # arrays (compact); a part of no entries, which a query builds for every archive never
    # written, in lists: the query then imports no ``array`` module (ADR 0039)
    spans: array[int] | list[int] = array("q") if entries else []
    lines: array[int] | list[int] = array("i") if entries else []
    for e in entries:
        size = len(e.raw) if e.raw.isascii() else len(e.raw.encode("utf-8"))
        spans.extend((start, start + size))
        lines.append(line)
        start += size
        line += e.raw.count("\n")
        body = _main_text(e.text) + _tag_text(e)
        if not (complete or known):  # never written (ADR 0051): no key needed
            todo.append((e.title, body))
            reused.append(None)
            continue
        # The key of what is indexed: a changed "Said again" part keeps the entry's counts.
        key = blake2b(f"{e.title}\x00{body}".encode("utf-8", "surrogatepass"),
                      digest_size=16).digest()
        keys.append(key)
        found = known.get(key)
        if found is None:
            todo.append((e.title, body))
        reused.append(found)
    fresh = iter(documents_terms(todo, title_weight=_TITLE_WEIGHT))
    counts = [next(fresh) if tc is None else tc for tc in reused]
    index = (BM25Index.from_counts(counts, k1=c.bm25_k1, b=c.bm25_b, title_weight=_TITLE_WEIGHT)
             if complete else _lazy_index(counts, c.bm25_k1, c.bm25_b))
    return Part(name, archived, sig, [e.id for e in entries], [e.date or "" for e in entries],
                [_links(e, archived) for e in entries], spans, lines, withheld, index,
                keys if len(keys) == len(entries) else None, base=base, complete=complete)


def _lazy_index(counts: list[TermCounts], k1: float, b: float) -> BM25Index:
    """The index of a part left unjudged (never written, ADR 0051): a term's postings are
    gathered from the counts when a query first looks it up (a cold query looks up a few),
    the same postings ``BM25Index.from_counts`` builds for every term. Past
    :data:`_LAZY_LOOKUPS` terms (typo mending, the digest's calibration probe many) those
    postings are built once, for every term."""
    docs: list[int] = []
    tfs: list[float] = []
    built: list[_Segment] = []

    def whole() -> _Segment:
        if not built:
            built.append(_Segment.of(counts))
        return built[0]

    def find(term: str) -> tuple[int, int] | None:
        start = len(docs)
        if built or len(looked) >= _LAZY_LOOKUPS:
            got = whole().postings(term)
            if got is not None:
                docs.extend(got[0])
                tfs.extend(got[1])
        else:
            looked.append(term)
            numbers = [n for n, tf in enumerate(dicts) if term in tf]
            docs.extend(numbers)
            tfs.extend([dicts[n][term] for n in numbers])
        return (start, len(docs)) if len(docs) > start else None

    def fetch(start: int, end: int) -> tuple[Sequence[int], Sequence[float]]:
        return docs[start:end], tfs[start:end]

    looked: list[str] = []
    dicts = [tf for tf, _ in counts]
    segment = LazySegment(find, fetch, whole, [length for _, length in counts])
    return BM25Index([segment], k1=k1, b=b, title_weight=_TITLE_WEIGHT)


# An unjudged part's terms gathered one at a time (a pass over its counts each), after which
# it builds every term's postings at once (ADR 0051): a query looks up a dozen.
_LAZY_LOOKUPS = 32


# Unknown verdicts a load scans itself (a put's tail, a compaction, a small merge): its parts
# stay complete. Past that (a fresh clone) a part is left incomplete: a query judges its
# hits, the warm-up the rest (ADR 0051).
_SCAN_NOW = 256


class _Judge:
    """The verdicts a load gives the entries it indexes: those remembered, and a scan of
    the unknown ones while few (all of them with ``scan``, the warm-up)."""

    def __init__(self, mem: MemoryLike, scan: bool) -> None:
        self.verdicts = Verdicts(mem)
        self.scan = scan
        self.left = _SCAN_NOW

    def judge(self, raws: Sequence[str]) -> tuple[list[int], bool]:
        """The numbers of the withheld texts among ``raws`` (those known), and whether
        every verdict is known."""
        if not raws:
            return [], True
        flags = self.verdicts.known(raws)
        unknown = [i for i, flag in enumerate(flags) if flag is None]
        if unknown and (self.scan or len(unknown) <= self.left):
            self.left -= 0 if self.scan else len(unknown)
            found = self.verdicts.holding([raws[i] for i in unknown])
            for i, bad in zip(unknown, found, strict=True):
                flags[i] = bad
            unknown = []
        return [i for i, bad in enumerate(flags) if bad], not unknown


def _links(e: fmt.Entry, archived: bool) -> str:
    """The ids an entry hides from search, one a line: the one it supersedes, and itself
    when it was forgotten (``forget`` archives it with a ``forgotten`` date; compaction's
    archived originals, still true, have none and stay searchable)."""
    own = e.supersedes or ""
    if archived and e.get("forgotten") is not None:
        return f"{own}\n{e.id}" if own else e.id
    return own


def _link_rows(parts: list[Part]) -> Iterator[tuple[str, str, str]]:
    """(id, date, hidden id) of every link of ``parts``; a forgotten entry links to itself,
    which ``hidden_ids`` hides (its date is not newer than its own)."""
    for p in parts:
        for entry_id, date, links in zip(p.ids, p.dates, p.supersedes, strict=True):
            for target in links.split("\n"):
                yield entry_id, date, target


def _tag_text(e: fmt.Entry) -> str:
    return "\n" + " ".join(e.tags) if e.tags else ""


def _indexed_body(e: fmt.Entry) -> str:
    """The body BM25 indexes, as ``_build_part`` makes it."""
    return _main_text(e.text) + _tag_text(e)


_main_text = fmt.main_text


def _hidden(parts: list[Part]) -> list[int]:
    """The numbers of the superseded entries, by the store's rule: archived corrections
    count too."""
    hidden = hidden_ids(_link_rows(parts))
    if not hidden:
        return []
    return [n for n, entry_id in enumerate(chain.from_iterable(p.ids for p in parts))
            if entry_id in hidden]


# Within a deadline, a shard file is indexed in-process only if the time left allows it
# at this many bytes a second (~2-5 MB/s measured, scanning included: 2 MB/s of CPU time
# on the shared 2-core machine, so a fresh clone of 10k entries, 4 MB, gets its matches
# at the first prompt). Each file is checked again before it is indexed, at the pace
# measured so far when slower (a loaded machine), so the deadline is overrun by little.
_BUILD_BYTES_PER_S = 2 << 20
# Parts this process built with verdicts unknown (never written: ADR 0051), by part file:
# a second load in the process (the prompt hook's digest after its query) reuses them.
_UNWRITTEN: dict[str, tuple[list[Any], Part]] = {}
_UNWRITTEN_MAX = 64


def _load(mem: MemoryLike, *, fresh: bool = False, deadline: float | None = None,
          scan: bool = False) -> Corpus:
    """The corpus, every part read from its file or rebuilt (all of them if ``fresh``).
    With ``scan`` (the warm-up) every entry built is judged; without it, a part with many
    unknown verdicts is left incomplete, in memory only (never written: ADR 0051).

    A shard file that only grew by whole entries since it was indexed keeps its part and
    gets a tail part for the new entries (rebuilt whole once the tail outgrows an eighth of
    it). Each part is written as soon as it is built, so work done before a ``deadline``
    (``time.monotonic()``) is kept for the next call. ``NotReady`` when the deadline has
    passed or the shard files left to index are too large for the time left.
    """
    header = _header(mem)
    c = mem.config
    params: dict[str, Any] = {"k1": c.bm25_k1, "b": c.bm25_b, "title_weight": _TITLE_WEIGHT}
    root = mem._agents
    sources = _sources(mem)
    # sig before reading: a later change shows as stale
    sigs = [file_signature(path) for _, _, path in sources]
    found: list[list[Part] | None] = []
    stale: dict[int, Part] = {}  # indexed parts of files changed since: appended to?
    opened: list[Part] = []
    rebuilt = False  # a part built whole: the superseded entries are worked out again
    verdicts = _Judge(mem, scan)
    try:
        for i, ((name, archived, _), sig) in enumerate(zip(sources, sigs, strict=True)):
            if sig[0] < 0:  # no such file (an archive never written): nothing to read
                found.append([_missing_part(mem, name, archived, sig, verdicts)])
                continue
            base = None if fresh else read_part(_part_path(mem, name, archived), root, header,
                                                **params)
            found.append(None)
            if base is None:
                kept = None if fresh or scan else _UNWRITTEN.get(_part_path(mem, name, archived))
                if kept is not None and kept[0] == header and kept[1].sig == sig:
                    found[i] = [kept[1]]  # built unjudged by this process (the hook's
                    # digest loads the corpus again after its query)
                continue
            if _UNWRITTEN:  # written since (the warm-up): the process's copy goes
                _UNWRITTEN.pop(_part_path(mem, name, archived), None)
            opened.append(base)
            if base.sig == sig:
                found[i] = [base]
                continue
            tail = read_part(_part_path(mem, name, archived, tail=True), root, header, **params)
            if tail is not None:
                opened.append(tail)
                if tail.base == base.sig and tail.sig == sig:
                    base.sig = sig  # the file is now the indexed bytes and the tail's entries
                    found[i] = [base, tail]
                    continue
            stale[i] = base
        todo = [max(sig[0], 0) - (stale[i].sig[0] if i in stale else 0)
                if found[i] is None else 0 for i, sig in enumerate(sigs)]
        if deadline is not None and sum(todo) > 0 \
                and sum(todo) > (deadline - time.monotonic()) * _BUILD_BYTES_PER_S:
            raise NotReady
        data: dict[int, bytes] = {}
        began, done = time.monotonic(), 0  # the pace so far, once a file is done
        try:
            with gc_paused():
                for i, ((name, archived, path), sig) in enumerate(zip(sources, sigs,
                                                                       strict=True)):
                    if found[i] is not None:
                        continue
                    if deadline is not None:
                        now = time.monotonic()
                        pace = min(_BUILD_BYTES_PER_S, done / (now - began)) \
                            if done and now > began else _BUILD_BYTES_PER_S
                        if (deadline - now) * pace < max(todo[i], 0):
                            raise NotReady
                    done += max(todo[i], 0)
                    found[i] = _append_part(mem, stale.get(i), path, sig, header, verdicts)
                    if found[i] is not None:
                        continue
                    rebuilt = True
                    where = _part_path(mem, name, archived)
                    previous = None if fresh else read_part(where, root, header, full=True,
                                                            **params)
                    part, data[i] = _build_part(mem, name, archived, path, sig, previous,
                                                verdicts)
                    found[i] = [part]
                    # Store only a snapshot no writer touched meanwhile, and only with every
                    # verdict known (an unjudged entry's words may be a credential).
                    if not part.complete:
                        if len(_UNWRITTEN) >= _UNWRITTEN_MAX:
                            _UNWRITTEN.clear()
                        _UNWRITTEN[where] = (header, part)
                    elif file_signature(path) == sig and not write_part(where, root, header,
                                                                        part):
                        _debug("search index part not written to %s", where)
        finally:
            verdicts.verdicts.save()
        groups = [group or [] for group in found]
        parts = [p for group in groups for p in group]
        for p in opened:
            if p not in parts:
                p.close()
        hidden = _cached_hidden(mem, header, parts, rebuilt)
    except BaseException:
        for p in opened:
            p.close()
        raise
    corpus = Corpus(mem, parts, hidden)
    numbers = list(accumulate((len(group) for group in groups), initial=0))
    corpus._data.update((numbers[i], raw) for i, raw in data.items())
    return corpus


# A tail part is merged into its shard file's part once it holds more entries than this
# or an eighth of the part, whichever is more.
_TAIL_MIN = 64


def _append_part(mem: MemoryLike, base: Part | None, path: str, sig: tuple[int, int, int],
                 header: list[Any], verdicts: _Judge) -> list[Part] | None:
    """``base`` and a tail part of the entries appended since it was built, if the file
    only grew by whole entries and the tail is still small; else None."""
    if base is None:
        return None
    where = _part_path(mem, base.name, base.archived, tail=True)
    c = mem.config
    previous = read_part(where, mem._agents, header, k1=c.bm25_k1, b=c.bm25_b,
                         title_weight=_TITLE_WEIGHT, full=True)
    if previous is not None and previous.base != base.sig:
        previous = None
    try:  # bytes: only the new text is decoded (read_text would decode it all)
        data = read_bounded(path, MAX_FILE_BYTES, mem._agents)
    except OSError:
        return None  # gone or refused: the full rebuild reports it
    if (len(data), *sig[1:]) != sig or len(data) - base.sig[0] > (base.sig[0] >> 3) + 4096:
        return None  # changed while read, or too much new text: rebuilt whole
    tail = _tail_part(mem, base, data, sig, previous, verdicts)
    if tail is None or tail.n > max(_TAIL_MIN, base.n >> 3):
        return None
    if tail.complete and file_signature(path) == sig \
            and not write_part(where, mem._agents, header, tail):
        _debug("search index tail not written to %s", where)
    base.sig = sig
    return [base, tail]


def _cached_hidden(mem: MemoryLike, header: list[Any], parts: list[Part],
                   rebuilt: bool) -> list[int]:
    """The numbers of the superseded entries, from ``search.marshal``: as written when
    the parts are those it was written for, and still when only tails changed, every tail
    entry neither correcting another nor corrected (the usual put), since then every link
    and every corrected entry lies in the unchanged parts."""
    path = os.path.join(mem._cache, _CACHE_NAME)
    idents = _identities(parts)
    key = [[*ident, p.n, list(p.sig)] for ident, p in zip(idents, parts, strict=True)]
    bases = list(accumulate((p.n for p in parts), initial=0))
    cached = None if rebuilt else load_record(path, header, 4, mem._agents)
    if cached is not None:
        old_key, pairs, targets, clean = cached
        moved = _hidden_again(parts, idents, old_key, pairs, targets, clean, old_key == key)
        if moved is not None:
            if old_key != key:
                _write_hidden(mem, path, parts, header, [key, moved, targets, True])
            return [bases[i] + local for i, local in moved]
    numbers = _hidden(parts)
    pairs = []
    for n in numbers:
        i = bisect_right(bases, n) - 1
        pairs.append([i, n - bases[i]])
    targets = sorted({t for p in parts for links in p.supersedes
                      for t in links.split("\n") if t})
    clean = all(_clean_tail(p, set(targets)) for p in parts if p.base is not None)
    _write_hidden(mem, path, parts, header, [key, pairs, targets, clean])
    return numbers


def _identities(parts: list[Part]) -> list[list[Any]]:
    """What names a part across loads: a tail by its shard file, a whole part also by the
    signature it was built at (kept by its tail once one is attached)."""
    out: list[list[Any]] = []
    for i, p in enumerate(parts):
        if p.base is not None:
            out.append([p.name, p.archived, "tail"])
            continue
        tail = parts[i + 1] if i + 1 < len(parts) else None
        built = tail.base if tail is not None and tail.base is not None else p.sig
        out.append([p.name, p.archived, list(built)])
    return out


def _clean_tail(part: Part, targets: set[str]) -> bool:
    return not any(part.supersedes) and targets.isdisjoint(part.ids)


def _hidden_again(parts: list[Part], idents: list[list[Any]], old_key: Any, pairs: Any,
                  targets: Any, clean: Any, same: bool) -> list[list[int]] | None:
    """The cached superseded entries as [part, number in it], if still right."""
    try:
        if same:
            out = [[int(i), int(local)] for i, local in pairs]
        else:
            if clean is not True:
                return None
            new = {repr(ident): i for i, ident in enumerate(idents)}
            old = [repr(row[:3]) for row in old_key]
            wholes = {k for k in old if not k.endswith("'tail']")}
            if wholes != {k for k in new if not k.endswith("'tail']")}:
                return None  # a part rebuilt, added or dropped: links may have changed
            wanted = set(targets)
            if not all(_clean_tail(p, wanted) for p in parts if p.base is not None):
                return None
            out = [[new[old[int(i)]], int(local)] for i, local in pairs]
    except (KeyError, TypeError, ValueError, IndexError):
        return None
    if not all(0 <= i < len(parts) and 0 <= local < parts[i].n for i, local in out):
        return None
    return out


def _write_hidden(mem: MemoryLike, path: str, parts: list[Part], header: list[Any],
                  data: list[Any]) -> None:
    unchanged = all(file_signature(mem._shard_file(p.name, archive=p.archived)) == p.sig
                    for p in parts)
    if unchanged and not dump_record(path, header, data, mem._agents):
        _debug("search cache not written to %s", path)


def load_corpus(mem: MemoryLike, *, deadline: float | None = None) -> Corpus:
    """The corpus from the cache, with the parts of changed shard files rebuilt.

    A missing, corrupt or other-version cache is rebuilt silently.
    """
    return _load(mem, deadline=deadline)


# -- retrievers and fusion ----------------------------------------------------------------


def _is_cached_bm25(r: Any, mem: MemoryLike) -> bool:
    c = mem.config
    return (type(r) is BM25 and r.k1 == c.bm25_k1 and r.b == c.bm25_b
            and r.title_weight == _TITLE_WEIGHT)


# time_limit's limits, by thread (what a ContextVar would hold, without ``contextvars``: an
# import of ~0.5 M instructions a prompt's hook did without; lean_memory runs no asyncio):
# (deadline, warm-up), warm-up False for none, True for the index alone, else the function
# to run after it.
_LIMITS: dict[int, tuple[float, bool | Callable[[Any], None]]] = {}
# A warm-up marker older than this is left over from a crash: another warm-up may start.
_WARMING_STALE_S = 600.0


@contextmanager
def time_limit(seconds: float, *,
               warm: bool | Callable[[Any], None] = False) -> Iterator[None]:
    """Within the block, :func:`find` spends at most ``seconds`` (from now) bringing the
    index up to date; past that it returns ``Found([], ready=False)`` at once, keeping the
    parts it finished. With ``warm``, a background process then finishes the index, so the
    next call finds it ready (the prompt hook: index and rules now, matches next prompt).
    ``warm`` may be a module-level function of lean_memory taking the ``Memory``: that
    process then runs it too, after the index and before it says it is done (the prompt
    hook's other caches: the next prompt then builds nothing). A call that indexed parts
    itself starts that process as well, once it has its answer."""
    if callable(warm) and not _warm_target(warm):
        raise ValueError("warm must be a module-level function of lean_memory")
    thread = _thread.get_ident()
    outer = _LIMITS.get(thread)
    _LIMITS[thread] = (time.monotonic() + max(seconds, 0.0), warm)
    try:
        yield
    finally:
        if outer is None:
            _LIMITS.pop(thread, None)
        else:
            _LIMITS[thread] = outer


def warm_later(mem: MemoryLike) -> bool:
    """Within :func:`time_limit` with a ``warm`` function (the prompt hook), start its
    background warm-up: for a cache the caller could not build in its share of the time
    (the gate's calibration of a large memory), which the warm-up builds without a limit.
    False when no such limit is set or a warm-up runs already."""
    limit = _LIMITS.get(_thread.get_ident())
    if limit is None or not callable(limit[1]):
        return False
    return _start_warming(mem, limit[1])


def _warm_target(fn: Callable[[Any], None]) -> str:
    """``module:name`` of a module-level function of lean_memory ('' for anything else):
    what the warm-up process imports, by name (never code) and only from lean_memory."""
    module = getattr(fn, "__module__", "") or ""
    name = getattr(fn, "__qualname__", "") or ""
    return f"{module}:{name}" if _ours(module, name) else ""


def _ours(module: str, name: str) -> bool:
    """Whether ``module``/``name`` name a module-level function of lean_memory."""
    parts = module.split(".")
    return parts[0] == __name__.split(".")[0] and name.isidentifier() \
        and all(part.isidentifier() for part in parts)


def _start_warming(mem: MemoryLike, then: bool | Callable[[Any], None] = True) -> bool:
    """Start one detached process that brings the index up to date, then runs ``then``
    (a function of ``time_limit``'s ``warm``), unless one runs."""
    from .spawn import detached

    return detached(mem, "search.warming",
                    "from lean_memory.search import _warm; from lean_memory.store import Memory; "
                    "_warm(Memory(sys.argv[1]), *sys.argv[2:])",
                    *([_warm_target(then)] if callable(then) else []), stale_s=_WARMING_STALE_S)


def _warm(mem: MemoryLike, then: str = "") -> None:
    """The warm-up process: index every shard file, run ``then`` (``module:name`` of a
    function of lean_memory, given the memory), then remove the marker. ``then`` is left
    out when the index alone took half the marker's lifetime, so that no second warm-up
    can start while this one runs."""
    start = time.monotonic()
    try:
        _load(mem, scan=True).close()
        module, _, name = then.partition(":")
        if then and time.monotonic() - start < _WARMING_STALE_S / 2 and _ours(module, name):
            import importlib

            getattr(importlib.import_module(module), name)(mem)
    finally:
        with suppress(FileNotFoundError):
            os.unlink(os.path.join(mem._cache, "search.warming"))


def search(mem: MemoryLike, query: str, *, k: int = 5, shards: Sequence[str] | None = None,
           include_archive: bool | None = None) -> list[Hit]:
    """The ``k`` best entries for ``query``, live and archived ranked together (the archive
    left out with ``include_archive=False``; None means the config's ``search_archive``,
    true by default); a live entry goes first on a tie. Superseded entries, and entries
    that hold a credential, never appear."""
    return find(mem, query, k=k, shards=shards, include_archive=include_archive).hits


def find(mem: MemoryLike, query: str, *, k: int = 5, shards: Sequence[str] | None = None,
         include_archive: bool | None = None, budget_s: float | None = None,
         mend: Callable[[str, Callable[[str], int]], str] | None = None,
         lazy: bool = False) -> Found:
    """:func:`search`, and how many withheld entries the query would have returned.

    With ``mend`` (the digest's :func:`lean_memory.digest.mend`, ADR 0030), the query is
    first mended against the memory's words (``mend(query, df)``): a word the memory has
    never seen is replaced by the one a typo away that it holds.

    With ``lazy``, hits past the first :data:`_EAGER` are parsed when their entry is first
    read (their text is read, and checked, here): for a caller that asks for many and reads
    few (the digest).

    With ``budget_s``, index building stops (keeping what it finished) once that many
    seconds have passed, and the result is ``Found([], ready=False)``: for callers with a
    deadline of their own, such as the prompt hook.
    """
    if not isinstance(query, str) or not tokenize(query):
        raise QueryError("the query has no searchable words (empty, or only stop words)")
    if not isinstance(k, int) or isinstance(k, bool) or k < 1:
        raise QueryError("k must be a whole number, at least 1")
    mem._require_init()
    if include_archive is None:
        include_archive = mem.config.search_archive
    if isinstance(shards, str):
        shards = (shards,)
    elif shards is not None and getattr(type(shards), "__iter__", None) is None:  # Iterable
        raise UnknownShard("shards must be a list of shard names")
    names = tuple(shards) if shards else mem.shards
    for name in names:
        mem._shard_file(name)  # validates the name
    warm: bool | Callable[[Any], None] = False
    deadline = None if budget_s is None else time.monotonic() + budget_s
    limit = _LIMITS.get(_thread.get_ident())
    if deadline is None and limit is not None:
        deadline, warm = limit
    try:
        corpus = _load(mem, deadline=deadline)
    except NotReady:
        if warm:
            _start_warming(mem, warm)
        return Found([], 0, ready=False)
    except Corrupt:
        corpus = _load(mem, fresh=True)
    # Parts indexed here (a fresh clone, a shard rewritten): the caches the warm-up builds
    # after the index are likely cold too.
    built = bool(corpus._data)
    if mend is not None:
        query = mend(query, corpus.index.df)
    try:
        return _search(mem, corpus, query, k, names, include_archive, lazy)
    except (_Stale, Corrupt):
        # A writer replaced a shard after it was indexed (or a part file was damaged):
        # index every file anew from one read of each, so every entry is read back from
        # the text it was indexed from.
        corpus.close()
        corpus = _load(mem, fresh=True)
        return _search(mem, corpus, query, k, names, include_archive, lazy)
    finally:
        corpus.close()
        if (warm and built) or corpus.lazy:  # parts built, or left to complete
            _start_warming(mem, warm or True)


def _search(mem: MemoryLike, corpus: Corpus, query: str, k: int, names: Sequence[str],
            include_archive: bool, lazy: bool = False) -> Found:
    index = corpus.index
    order: Sequence[str] = _LiveFirst(corpus) if include_archive else corpus.dates  # type: ignore[assignment]
    c = mem.config
    notes: list[str] = []
    # (name, job): job None is the cached built-in BM25
    sources: list[tuple[str, Job | None]]
    if mem._retrievers is not None:
        sources = [(getattr(r, "name", "?"), None if _is_cached_bm25(r, mem) else _given(r))
                   for r in mem._retrievers]
    elif all(name == "bm25" for name in c.retrievers):
        sources = [("bm25", None)]  # the built-in BM25 alone: .retrievers stays unloaded
    else:
        from .retrievers import jobs

        sources, notes = jobs(c.retrievers, mem)
    eligible = corpus.eligible(names, include_archive)
    if not any(job for _, job in sources):  # BM25 alone: the hot path, nothing else
        fused, withheld = clean_top(corpus, query, k, eligible, order)
        return _found(corpus, fused, k, query, withheld, notes, lazy=lazy)
    allowed = corpus.allowed(names, include_archive)  # every entry judged: fusion needs it

    def bm25(depth: int, among: Sequence[int] | None) -> list[tuple[int, float]]:
        mask = allowed
        if among is not None:
            mask = bytearray(len(allowed))
            for n in among:
                mask[n] = 1
        return index.top(query, depth, allowed=mask, newer=order)

    def numbers() -> list[int]:
        # Plugins get the entries newest first, then in file order (stable sort).
        out = list(compress(range(len(allowed)), allowed))
        dates = [d for part in corpus.parts for d in part.dates]  # one list: 100k in ~10 ms
        out.sort(key=dates.__getitem__, reverse=True)
        return out

    from .retrievers import Fusion, fuse

    base: dict[int, float] = {}
    fused, more = fuse(query, k, sources, Fusion.of(c, [name for name, _ in sources]),
                       bm25=bm25, numbers=numbers, entries=lambda ns: [corpus.entry(n) for n in ns],
                       timeout_ms=c.retriever_timeout_ms, base=base)
    # How many withheld entries BM25 alone would have shown: none when no eligible entry is
    # withheld (almost every memory), without ranking the memory a second time.
    withheld = 0 if allowed == eligible else clean_top(corpus, query, k, eligible, order)[1]
    return _found(corpus, fused, k, query, withheld, [*notes, *more], base, lazy=lazy)


def _given(r: Any) -> Job:
    """A job for a retriever object passed to ``Memory``."""
    from .retrievers import Job

    return Job(getattr(r, "name", "?"), lambda _deadline: r)


def clean_top(corpus: Corpus, query: str, k: int, eligible: bytearray,
              order: Sequence[str]) -> tuple[list[tuple[int, float]], int]:
    """The first ``k`` entries that hold no credential in BM25's ranking of the ``eligible``
    ones (withheld ones included), and how many withheld entries are among its first ``k``.
    The ranking is read ``k`` at first, then twice as deep while too few are clean: the same
    reads and the same answer whether the verdicts were known or judged now (ADR 0051)."""
    index = corpus.index
    depth = k
    while True:
        top = index.top(query, depth, allowed=eligible, newer=order)
        flags = corpus.held([n for n, _ in top])
        clean = [hit for hit, bad in zip(top, flags, strict=True) if not bad]
        if len(clean) >= k or len(top) < depth:
            return clean[:k], sum(flags[:k])
        depth *= 2


def _found(corpus: Corpus, fused: Sequence[tuple[int, float]], k: int, query: str,
           withheld: int, notes: Sequence[str], base: Mapping[int, float] | None = None, *,
           lazy: bool = False) -> Found:
    """The Found of the hits ``fused``: the one place hits become visible, so each is
    checked here once more (a withheld one is dropped: the walk and the masks leave none)."""
    hits: list[Hit] = []
    # the first stage's order (``base`` keeps it); the others' hits after it
    ranks = {n: i for i, n in enumerate(base or ())}
    shown = fused[:k]
    flags = corpus.held([n for n, _ in shown])
    if any(flags):
        shown = [hit for hit, bad in zip(shown, flags, strict=True) if not bad]
    for j, (n, score) in enumerate(shown):
        shard, archived = corpus.where(n)
        first = None if base is None else base.get(n)
        rank = ranks.get(n, len(ranks) + j)
        if lazy and j >= _EAGER:
            hits.append(_LazyHit(corpus.reader(n), shard, score, archived, first, rank))
        else:
            hits.append(Hit(corpus.entry(n), shard, score, archived, first, rank))
    index = corpus.index
    return Found(hits, withheld, tuple(dict.fromkeys(notes)), n_docs=len(index),
                 df=tuple((t, index.df(t)) for t in dict.fromkeys(tokenize(query))),
                 query=query)


class _LiveFirst:
    """The tie order of hits, as ``BM25Index.top`` takes it (greater first): a live entry
    before an archived one, then the newer. Computed only for the entries tied at a score,
    so a query does not build a key for every entry."""

    def __init__(self, corpus: Corpus) -> None:
        self.corpus = corpus

    def __getitem__(self, number: int) -> str:
        archived = self.corpus.where(number)[1]
        return ("0" if archived else "1") + self.corpus.dates[number]

    def __len__(self) -> int:
        return len(self.corpus.dates)


def render_hits(hits: Sequence[Hit]) -> str:
    """Hits as Markdown ready for a prompt: title, where it lives (archived hits marked),
    the body."""
    parts = []
    for h in hits:
        e = h.entry
        where = f"{h.shard}{' (archive)' if h.archived else ''}"
        facts = [f"shard: {where}", f"id: {e.id}"]
        if e.date:
            facts.append(f"date: {e.date}")
        if e.tags:
            facts.append(f"tags: {', '.join(e.tags)}")
        body = fmt.escape_body(_main_text(e.text)).rstrip("\n")
        parts.append(f"## {e.title}\n_{' · '.join(facts)}_\n\n{body}\n")
    return "\n".join(parts)
