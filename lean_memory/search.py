"""Search: the retriever protocol, Reciprocal Rank Fusion, and the cached BM25 index.

The built-in BM25 ranks from ``.cache/search.marshal``, which keeps one part per shard file
(live and archive): the entries' ids, dates and spans and a BM25 index of raw term frequencies,
each checked against its file's size, mtime and inode. A part whose file changed is rebuilt,
re-tokenising only the entries whose indexed text changed; the parts are then scored as one
index, so the global BM25 statistics are always those of the whole memory. The file is written
atomically and only from an unchanged snapshot, so concurrent processes at worst build twice.
Deleting it loses nothing (ADR 0004).

An entry that holds a credential (ADR 0011) is indexed as an empty document, so none of its
words reach the cache, and is never a hit; a query says how many such entries it would have
returned, scoring them on the fly (they are rare).
"""

from __future__ import annotations

import marshal
from array import array
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from itertools import accumulate, chain, compress
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from . import format as fmt
from .bm25 import (
    BM25,
    TOKENIZER_VERSION,
    BM25Index,
    TermCounts,
    documents_terms,
    gc_paused,
    tokenize,
)
from .errors import QueryError, UnknownShard
from .fsutil import read_cache, write_cache
from .retrievers import RRF_K, Fusion, Job, Retriever, fuse, jobs, rrf

if TYPE_CHECKING:
    from .store import Memory
    from .withhold import Verdicts


def _debug(message: str, *args: object) -> None:
    """Log on ``lean_memory.search``; logging is imported only when there is news."""
    import logging

    logging.getLogger("lean_memory.search").debug(message, *args)


__all__ = ["RRF_K", "Found", "Hit", "Retriever", "find", "render_hits", "rrf", "search"]

_CACHE_NAME = "search.marshal"
_CACHE_VERSION = "lean_memory.search/3"
# The built-in retriever's title weight; the cache is built with it.
_TITLE_WEIGHT = BM25().title_weight


@dataclass(frozen=True)
class Hit:
    """One search result: the entry, its shard and its score (higher is better)."""

    entry: fmt.Entry
    shard: str
    score: float
    archived: bool = False


@dataclass(frozen=True)
class Found:
    """What a query found: the hits, and how many entries that hold a credential would
    have been among them (withheld, never returned)."""

    hits: list[Hit]
    withheld: int = 0
    notes: tuple[str, ...] = ()  # retrievers searched without, and why (one line each)


# -- the corpus and its cache -------------------------------------------------------------

# A part is what one shard file contributes, as marshal-ready builtins:
# [shard name, archived, file signature, ids, dates, supersedes, spans (array "q" bytes:
#  start, end of each entry's raw text), entry keys, BM25 index state, withheld (the
#  numbers, in the part, of the entries that hold a credential)].
_NAME, _ARCHIVED, _SIG, _IDS, _DATES, _SUPERSEDES, _SPANS, _KEYS, _STATE, _WITHHELD = range(10)


class Corpus:
    """Every entry of the memory (live and archived), numbered part by part in file order,
    with one BM25 index over all of them.

    Only what ranking needs is kept (ids, dates, and each entry's span in its file); the few
    entries a query returns are read back from the shards, which the parts' signatures
    guarantee unchanged. Score ties go to the newer entry, then the lower number (file order).
    """

    def __init__(self, mem: Memory, parts: list[list[Any]], hidden: set[str],
                 indexes: list[BM25Index]) -> None:
        self.mem = mem
        self.parts = parts
        self.bases = list(accumulate((len(p[_IDS]) for p in parts), initial=0))
        self.ids: list[str] = list(chain.from_iterable(p[_IDS] for p in parts))
        self.dates: list[str] = list(chain.from_iterable(p[_DATES] for p in parts))
        if len(self.dates) != len(self.ids):
            raise ValueError("inconsistent search cache")
        self.hidden = hidden
        self.index = BM25Index.merge(indexes)
        if len(self.index) != len(self.ids):
            raise ValueError("inconsistent search cache")
        self.withheld = [base + local for part, base in zip(parts, self.bases, strict=False)
                         for local in part[_WITHHELD]]
        self._spans: dict[int, array[int]] = {}
        self._texts: dict[int, str] = {}

    def where(self, number: int) -> tuple[str, bool]:
        """(shard, archived) of an entry."""
        part = self.parts[bisect_right(self.bases, number) - 1]
        return part[_NAME], bool(part[_ARCHIVED])

    def entry(self, number: int) -> fmt.Entry:
        """The entry, read back from its file."""
        i = bisect_right(self.bases, number) - 1
        part = self.parts[i]
        text = self._texts.get(i)
        if text is None:
            from .store import file_signature

            path = self.mem.shard_path(part[_NAME], archive=part[_ARCHIVED])
            text = self.mem.read_text(path)
            if file_signature(path) != tuple(part[_SIG]):  # a writer replaced it meanwhile
                raise _Stale
            self._texts[i] = text
        spans = self._spans.get(i)
        if spans is None:
            spans = self._spans[i] = array("q")
            spans.frombytes(part[_SPANS])
        local = number - self.bases[i]
        start, end = spans[2 * local], spans[2 * local + 1]
        [entry] = fmt.parse(text[start:end], part[_NAME]).entries
        return replace(entry, id=self.ids[number], line=text.count("\n", 0, start) + 1)

    def allowed(self, shards: Sequence[str], include_archive: bool) -> bytearray:
        """A mask over entry numbers: in ``shards``, archived only if asked, not superseded,
        not withheld."""
        mask = self.eligible(shards, include_archive)
        for n in self.withheld:
            mask[n] = 0
        return mask

    def eligible(self, shards: Sequence[str], include_archive: bool) -> bytearray:
        """The same mask with the withheld entries left in."""
        wanted = set(shards)
        mask = bytearray(len(self.ids))
        hidden = self.hidden
        for part, start, end in zip(self.parts, self.bases, self.bases[1:], strict=False):
            if part[_NAME] not in wanted or (part[_ARCHIVED] and not include_archive):
                continue
            mask[start:end] = b"\x01" * (end - start)
            if hidden and not hidden.isdisjoint(part[_IDS]):
                for local, entry_id in enumerate(part[_IDS]):
                    if entry_id in hidden:
                        mask[start + local] = 0
        return mask


class _Stale(Exception):
    """A shard file changed between indexing it and reading an entry back."""


def _header(mem: Memory) -> list[Any]:
    from .withhold import header

    c = mem.config
    return [_CACHE_VERSION, TOKENIZER_VERSION, c.bm25_k1, c.bm25_b, _TITLE_WEIGHT, header(mem)]


def _sources(mem: Memory) -> list[tuple[str, bool, Path]]:
    return [(name, archived, mem.shard_path(name, archive=archived))
            for archived in (False, True) for name in mem.shards]


def _build_part(mem: Memory, name: str, archived: bool, path: Path, sig: tuple[int, int, int],
                previous: list[Any] | None,
                verdicts: Verdicts) -> tuple[list[Any], BM25Index, str]:
    """The part of one shard file; entries whose indexed text ``previous`` has seen are not
    tokenised again (their term counts are read back from its index). Entries that hold a
    credential count as empty documents."""
    from hashlib import blake2b

    from .dedup import MARKER, main_text

    text = mem.read_text(path)
    shard = fmt.parse(text, name)
    flags = verdicts.holding([e.raw for e in shard.entries])
    known: dict[bytes, TermCounts] = {}
    if previous is not None:
        known = dict(zip(previous[_KEYS], BM25Index.from_state(previous[_STATE]).counts(),
                         strict=True))
    c = mem.config
    keys: list[bytes] = []
    reused: list[TermCounts | None] = []
    todo: list[tuple[str, str]] = []
    spans = array("q")
    start = len(shard.preamble)
    for e, withheld in zip(shard.entries, flags, strict=True):
        spans.extend((start, start + len(e.raw)))
        start += len(e.raw)
        if withheld:  # no key: nothing else may take these (empty) counts
            keys.append(b"")
            reused.append(({}, 0.0))
            continue
        # The substring test spares most entries main_text's regex search.
        body = (main_text(e.text) if MARKER in e.text else e.text) + _tag_text(e)
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
    index = BM25Index.from_counts(counts, k1=c.bm25_k1, b=c.bm25_b, title_weight=_TITLE_WEIGHT)
    entries = shard.entries
    part = [name, archived, sig, [e.id for e in entries], [e.date or "" for e in entries],
            [e.supersedes or "" for e in entries], spans.tobytes(), keys, index.to_state(),
            [i for i, withheld in enumerate(flags) if withheld]]
    return part, index, text


def _tag_text(e: fmt.Entry) -> str:
    return "\n" + " ".join(e.tags) if e.tags else ""


def _indexed_body(e: fmt.Entry) -> str:
    """The body BM25 indexes, as ``_build_part`` makes it."""
    from .dedup import main_text

    return main_text(e.text) + _tag_text(e)


def _hidden(parts: list[list[Any]]) -> set[str]:
    """Superseded ids, by the store's rule: archived corrections count too."""
    from .store import hidden_ids

    return hidden_ids(chain.from_iterable(zip(p[_IDS], p[_DATES], p[_SUPERSEDES], strict=True)
                                          for p in parts))


def _load(mem: Memory, cached: Any) -> Corpus:
    from .store import file_signature
    from .withhold import Verdicts

    header = _header(mem)
    verdicts = Verdicts(mem)
    old: dict[tuple[str, bool], list[Any]] = {}
    if isinstance(cached, list) and len(cached) == 3 and cached[0] == header:
        old = {(p[_NAME], bool(p[_ARCHIVED])): p for p in cached[1]}
    parts: list[list[Any]] = []
    indexes: list[BM25Index] = []
    texts: dict[int, str] = {}  # what rebuilt parts were built from: entries read back from it
    sources = _sources(mem)
    # A shard dropped from the config leaves a part behind: the superseded ids and the file
    # must then be recomputed even if no part is rebuilt.
    rebuilt = set(old) != {(name, archived) for name, archived, _ in sources}
    with gc_paused():
        for name, archived, path in sources:
            sig = file_signature(path)  # before reading: a later change then shows as stale
            part = old.get((name, archived))
            if part is None or part[_SIG] != sig:
                part, index, texts[len(parts)] = _build_part(mem, name, archived, path, sig,
                                                             part, verdicts)
                rebuilt = True
            else:
                index = BM25Index.from_state(part[_STATE])
            parts.append(part)
            indexes.append(index)
    verdicts.save()
    hidden = _hidden(parts) if rebuilt else set(cached[2])
    corpus = Corpus(mem, parts, hidden, indexes)
    corpus._texts.update(texts)
    # Cache only a snapshot no writer touched meanwhile; otherwise the next query rebuilds.
    if rebuilt and all(file_signature(path) == p[_SIG]
                       for (_, _, path), p in zip(sources, parts, strict=True)):
        path = mem.cache_dir / _CACHE_NAME
        if not write_cache(path, marshal.dumps([header, parts, sorted(hidden)])):
            _debug("search cache not written to %s", path)
    return corpus


def load_corpus(mem: Memory) -> Corpus:
    """The corpus from the cache, with the parts of changed shard files rebuilt.

    A missing, corrupt or other-version cache is rebuilt silently.
    """
    try:
        # loads() of the whole file: load() on a file object reads it in small pieces
        raw = read_cache(mem.cache_dir / _CACHE_NAME, mem.agents_dir)
        cached = marshal.loads(raw) if raw is not None else None
    except (EOFError, ValueError, TypeError):
        cached = None
    if cached is not None:
        try:
            return _load(mem, cached)
        except (ValueError, TypeError, IndexError, KeyError, AttributeError) as exc:
            _debug("search cache unusable (%r); rebuilt", exc)
    return _load(mem, None)


# -- retrievers and fusion ----------------------------------------------------------------


def _is_cached_bm25(r: Any, mem: Memory) -> bool:
    c = mem.config
    return (type(r) is BM25 and r.k1 == c.bm25_k1 and r.b == c.bm25_b
            and r.title_weight == _TITLE_WEIGHT)


def search(mem: Memory, query: str, *, k: int = 5, shards: Sequence[str] | None = None,
           include_archive: bool | None = None) -> list[Hit]:
    """The ``k`` best entries for ``query``, live and archived ranked together (the archive
    left out with ``include_archive=False``; None means the config's ``search_archive``,
    true by default); a live entry goes first on a tie. Superseded entries, and entries
    that hold a credential, never appear."""
    return find(mem, query, k=k, shards=shards, include_archive=include_archive).hits


def find(mem: Memory, query: str, *, k: int = 5, shards: Sequence[str] | None = None,
         include_archive: bool | None = None) -> Found:
    """:func:`search`, and how many withheld entries the query would have returned."""
    if not isinstance(query, str) or not tokenize(query):
        raise QueryError("the query has no searchable words (empty, or only stop words)")
    if not isinstance(k, int) or isinstance(k, bool) or k < 1:
        raise QueryError("k must be a whole number, at least 1")
    mem._require_init()
    if include_archive is None:
        include_archive = mem.config.search_archive
    if isinstance(shards, str):
        shards = (shards,)
    elif shards is not None and not isinstance(shards, Iterable):
        raise UnknownShard("shards must be a list of shard names")
    names = tuple(shards) if shards else mem.shards
    for name in names:
        mem.shard_path(name)  # validates the name
    try:
        return _search(mem, load_corpus(mem), query, k, names, include_archive)
    except _Stale:
        # A writer replaced a shard after it was indexed: index every file anew from one
        # read of each, so every entry is read back from the text it was indexed from.
        return _search(mem, _load(mem, None), query, k, names, include_archive)


def _search(mem: Memory, corpus: Corpus, query: str, k: int, names: Sequence[str],
            include_archive: bool) -> Found:
    allowed = corpus.allowed(names, include_archive)
    index = corpus.index
    order = cast(Sequence[str], _LiveFirst(corpus)) if include_archive else corpus.dates
    c = mem.config
    notes: list[str] = []
    # (name, job): job None is the cached built-in BM25
    sources: list[tuple[str, Job | None]]
    if mem._retrievers is not None:
        sources = [(getattr(r, "name", "?"), None if _is_cached_bm25(r, mem) else _given(r))
                   for r in mem._retrievers]
    else:
        sources, notes = jobs(c.retrievers, mem)
    if not any(job for _, job in sources):  # BM25 alone: the hot path, nothing else
        fused = index.top(query, k, allowed=allowed, newer=order)
        return _found(corpus, fused, k, query, allowed, names, include_archive, notes)

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
        out.sort(key=corpus.dates.__getitem__, reverse=True)
        return out

    fused, more = fuse(query, k, sources, Fusion.of(c, [name for name, _ in sources]),
                       bm25=bm25, numbers=numbers, entries=lambda ns: [corpus.entry(n) for n in ns],
                       timeout_ms=c.retriever_timeout_ms)
    return _found(corpus, fused, k, query, allowed, names, include_archive, [*notes, *more])


def _given(r: Any) -> Job:
    """A job for a retriever object passed to ``Memory``."""
    return Job(getattr(r, "name", "?"), lambda _deadline: r)


def _found(corpus: Corpus, fused: Sequence[tuple[int, float]], k: int, query: str,
           allowed: bytearray, names: Sequence[str], include_archive: bool,
           notes: Sequence[str]) -> Found:
    hits = []
    for n, score in fused[:k]:
        shard, archived = corpus.where(n)
        hits.append(Hit(corpus.entry(n), shard, score, archived))
    return Found(hits, _withheld_matches(corpus, query, k, allowed, names, include_archive),
                 tuple(dict.fromkeys(notes)))


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


def _withheld_matches(corpus: Corpus, query: str, k: int, allowed: bytearray,
                      names: Sequence[str], include_archive: bool) -> int:
    """How many withheld entries BM25 would have put among the ``k`` best: they are
    tokenised now, in memory, as extra documents of the index."""
    if not corpus.withheld:
        return 0
    eligible = corpus.eligible(names, include_archive)
    extra = [n for n in corpus.withheld if eligible[n]]
    if not extra:
        return 0
    entries = [corpus.entry(n) for n in extra]
    index = corpus.index
    more = BM25Index.from_counts(
        documents_terms([(e.title, _indexed_body(e)) for e in entries],
                        title_weight=_TITLE_WEIGHT),
        k1=index.k1, b=index.b, title_weight=_TITLE_WEIGHT)
    n = len(corpus.ids)
    top = BM25Index.merge([index, more]).top(
        query, k, allowed=allowed + b"\x01" * len(extra),
        newer=[*corpus.dates, *(corpus.dates[m] for m in extra)])
    return sum(1 for m, _ in top if m >= n)


def render_hits(hits: Sequence[Hit]) -> str:
    """Hits as Markdown ready for a prompt: title, where it lives (archived hits marked),
    the body."""
    from .dedup import main_text

    parts = []
    for h in hits:
        e = h.entry
        where = f"{h.shard}{' (archive)' if h.archived else ''}"
        facts = [f"shard: {where}", f"id: {e.id}"]
        if e.date:
            facts.append(f"date: {e.date}")
        if e.tags:
            facts.append(f"tags: {', '.join(e.tags)}")
        body = fmt.escape_body(main_text(e.text)).rstrip("\n")
        parts.append(f"## {e.title}\n_{' · '.join(facts)}_\n\n{body}\n")
    return "\n".join(parts)
