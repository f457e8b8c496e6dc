"""Search: the retriever protocol, Reciprocal Rank Fusion, and the cached BM25 index.

The built-in BM25 ranks from an index kept in ``.cache/search.marshal``. The cache is
checked against each shard's size, mtime and inode, rebuilt when stale, corrupt or
from another version, and written atomically, so concurrent processes at worst build
it twice. Deleting it loses nothing (ADR 0004).
"""

from __future__ import annotations

import marshal
import threading
from array import array
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from . import format as fmt
from .bm25 import BM25, BM25Index, tokenize
from .errors import QueryError
from .fsutil import write_cache

if TYPE_CHECKING:
    from .store import Memory



def _debug(message: str, *args: object) -> None:
    """Log on ``lean_memory.search``; logging is imported only when there is news."""
    import logging

    logging.getLogger("lean_memory.search").debug(message, *args)

RRF_K = 60
_CACHE_NAME = "search.marshal"
_CACHE_VERSION = "lean_memory.search/1"


@dataclass(frozen=True)
class Hit:
    """One search result: the entry, its shard and its score (higher is better)."""

    entry: fmt.Entry
    shard: str
    score: float
    archived: bool = False


@runtime_checkable
class Retriever(Protocol):
    """Anything with a ``name`` that ranks entries for a query."""

    name: str

    def rank(self, query: str, entries: Sequence[fmt.Entry], k: int) -> list[tuple[str, float]]:
        """The best ``(entry id, score)`` pairs, best first, at most ``k``."""
        ...


# -- the corpus and its cache -------------------------------------------------------------


class Corpus:
    """Where every entry of the memory (live and archived) lives, with a BM25 index.

    Only what ranking needs is kept (ids, shards, dates, and each entry's span in its
    file); the few entries a query returns are read back from the shards, which the
    cache signature guarantees unchanged. Documents are numbered newest first (then file
    order), so the index's tie-break on the lower number gives "newer first".
    """

    def __init__(self, mem: Memory, columns: list[Any], hidden: set[str],
                 index: BM25Index) -> None:
        self.mem = mem
        self.ids: list[str] = columns[0]
        self.shards: list[str] = columns[1]
        self.archived: bytes = columns[2]
        self.spans: Sequence[int] = columns[3]  # (start, end) of each entry's raw text
        self.hidden = hidden
        self.index = index
        self._texts: dict[tuple[str, bool], str] = {}

    def entry(self, number: int) -> fmt.Entry:
        """The entry, read back from its file."""
        key = (self.shards[number], bool(self.archived[number]))
        text = self._texts.get(key)
        if text is None:
            text = self._texts[key] = self.mem.read_text(
                self.mem.shard_path(key[0], archive=key[1]))
        start, end = self.spans[2 * number], self.spans[2 * number + 1]
        [entry] = fmt.parse(text[start:end], key[0]).entries
        return replace(entry, id=self.ids[number], line=text.count("\n", 0, start) + 1)

    def allowed(self, shards: Sequence[str], include_archive: bool) -> set[int]:
        wanted = set(shards)
        hidden = self.hidden
        archived = self.archived
        return {n for n, (i, s) in enumerate(zip(self.ids, self.shards, strict=True))
                if s in wanted and (include_archive or not archived[n]) and i not in hidden}


def _sources(mem: Memory) -> list[tuple[str, bool, str]]:
    return [(name, archived, str(mem.shard_path(name, archive=archived)))
            for archived in (False, True) for name in mem.shards]


def _signature(mem: Memory) -> list[Any]:
    from .store import file_signature

    c = mem.config
    return [_CACHE_VERSION, c.bm25_k1, c.bm25_b,
            [(name, archived, file_signature(Path(path)))
             for name, archived, path in _sources(mem)]]


def _build(mem: Memory) -> Corpus:
    from .dedup import main_text

    found: list[tuple[fmt.Entry, bool, int, int]] = []
    live: list[fmt.Entry] = []
    for archived in (False, True):
        for name in mem.shards:
            shard = mem.read_shard(name, archive=archived)
            start = len(shard.preamble)
            for e in shard.entries:
                found.append((e, archived, start, start + len(e.raw)))
                start += len(e.raw)
            if not archived:
                live.extend(shard.entries)
    hidden = mem.superseded_ids(live)
    # Newest first; sorted() is stable, so file order (live before archive) breaks ties.
    found.sort(key=lambda item: item[0].date or "", reverse=True)
    spans = array("q")
    for _, _, start, end in found:
        spans.extend((start, end))
    columns = [[e.id for e, *_ in found], [e.shard for e, *_ in found],
               bytes(a for _, a, _, _ in found), spans]
    c = mem.config
    index = BM25Index.build(((e.title, main_text(e.text) + _tag_text(e)) for e, *_ in found),
                            k1=c.bm25_k1, b=c.bm25_b)
    return Corpus(mem, columns, hidden, index)


def _tag_text(e: fmt.Entry) -> str:
    return "\n" + " ".join(e.tags) if e.tags else ""


def _pack(corpus: Corpus) -> list[Any]:
    """The corpus as builtins for marshal; number arrays travel as raw bytes."""
    return [corpus.ids, corpus.shards, corpus.archived, array("q", corpus.spans).tobytes(),
            sorted(corpus.hidden), corpus.index.to_state()]


def _unpack(mem: Memory, data: list[Any]) -> Corpus:
    spans = array("q")
    spans.frombytes(data[3])
    if len(spans) != 2 * len(data[0]) or len(data[1]) != len(data[0]) != len(data[2]):
        raise ValueError("inconsistent search cache")
    return Corpus(mem, [data[0], data[1], data[2], spans], set(data[4]),
                  BM25Index.from_state(data[5]))


def load_corpus(mem: Memory) -> Corpus:
    """The corpus from the cache when it is fresh, else built (and cached) anew."""
    path = mem.cache_dir / _CACHE_NAME
    signature = _signature(mem)
    try:
        # loads() of the whole file: load() on a file object reads it in small pieces
        data = marshal.loads(path.read_bytes())
        if data[0] == signature:
            return _unpack(mem, data[1])
    except (OSError, EOFError, ValueError, TypeError, IndexError, KeyError):
        pass  # missing, corrupt or from another version: rebuild
    corpus = _build(mem)
    unchanged = _signature(mem) == signature  # nobody wrote meanwhile: safe to cache
    if unchanged and not write_cache(path, marshal.dumps([signature, _pack(corpus)])):
        _debug("search cache not written to %s", path)
    return corpus


# -- retrievers and fusion ----------------------------------------------------------------


def configured_retrievers(mem: Memory) -> list[Any]:
    """The retrievers named in config: ``bm25`` built in, others by entry point."""
    c = mem.config
    out: list[Any] = []
    plugins: dict[str, Any] | None = None
    for name in c.retrievers:
        if name == "bm25":
            out.append(BM25(k1=c.bm25_k1, b=c.bm25_b))
            continue
        if plugins is None:
            from importlib.metadata import entry_points

            plugins = {ep.name: ep for ep in entry_points(group="lean_memory.retrievers")}
        ep = plugins.get(name)
        if ep is None:
            _debug("retriever %r is not installed; skipped", name)
            continue
        try:
            obj = ep.load()
            out.append(obj() if isinstance(obj, type) else obj)
        except Exception as exc:
            _debug("retriever %r failed to load: %s", name, exc)
    return out or [BM25(k1=c.bm25_k1, b=c.bm25_b)]


def _call_with_timeout(retriever: Any, query: str, entries: Sequence[fmt.Entry], k: int,
                       timeout: float) -> list[tuple[str, float]] | None:
    """``retriever.rank`` in a daemon thread; None when it raises or runs out of time."""
    box: list[Any] = []

    def run() -> None:
        try:
            box.append(list(retriever.rank(query, entries, k)))
        except BaseException as exc:
            box.append(exc)

    worker = threading.Thread(target=run, daemon=True, name=f"retriever-{retriever.name}")
    worker.start()
    worker.join(timeout)
    if not box:
        _debug("retriever %r timed out after %.0f ms; skipped", retriever.name, timeout * 1e3)
        return None
    result = box[0]
    if isinstance(result, BaseException):
        _debug("retriever %r failed: %r; skipped", retriever.name, result)
        return None
    try:
        return [(str(i), float(s)) for i, s in result]
    except (TypeError, ValueError):
        _debug("retriever %r returned a malformed ranking; skipped", retriever.name)
        return None


def rrf(rankings: Sequence[Sequence[str]], k: int = RRF_K) -> list[tuple[str, float]]:
    """Reciprocal Rank Fusion: sum of ``1 / (k + rank)``; ties by first appearance."""
    scores: dict[str, float] = {}
    first: dict[str, int] = {}
    for ranking in rankings:
        for rank, doc in enumerate(ranking, start=1):
            scores[doc] = scores.get(doc, 0.0) + 1.0 / (k + rank)
            first.setdefault(doc, len(first))
    return sorted(scores.items(), key=lambda item: (-item[1], first[item[0]]))


def _is_cached_bm25(r: Any, mem: Memory) -> bool:
    c = mem.config
    return (type(r) is BM25 and r.k1 == c.bm25_k1 and r.b == c.bm25_b
            and r.title_weight == BM25().title_weight)


def search(mem: Memory, query: str, *, k: int = 5, shards: Sequence[str] | None = None,
           include_archive: bool = False) -> list[Hit]:
    """The ``k`` best live entries for ``query``; superseded entries never appear."""
    if not isinstance(query, str) or not tokenize(query):
        raise QueryError("the query has no searchable words (empty, or only stop words)")
    if k < 1:
        raise QueryError("k must be at least 1")
    mem._require_init()
    names = tuple(shards) if shards else mem.shards
    for name in names:
        mem.shard_path(name)  # validates the name
    corpus = load_corpus(mem)
    allowed = corpus.allowed(names, include_archive)
    retrievers = mem._retrievers if mem._retrievers is not None else configured_retrievers(mem)
    depth = k if len(retrievers) == 1 else max(4 * k, 20)
    number_of = {corpus.ids[n]: n for n in allowed}
    rankings: list[list[tuple[str, float]]] = []
    entries: list[fmt.Entry] | None = None
    timeout = mem.config.retriever_timeout_ms / 1000
    for r in retrievers:
        if _is_cached_bm25(r, mem):
            rankings.append([(corpus.ids[n], s)
                             for n, s in corpus.index.top(query, depth, allowed=allowed)])
            continue
        if entries is None:
            entries = [corpus.entry(n) for n in sorted(allowed)]
        ranked = _call_with_timeout(r, query, entries, depth, timeout)
        if ranked is not None:
            rankings.append([(i, s) for i, s in ranked if i in number_of][:depth])
    if len(rankings) == 1:
        fused = rankings[0]
    elif rankings:
        fused = rrf([[i for i, _ in ranking] for ranking in rankings])
    else:  # every retriever failed: fall back to the built-in BM25
        fused = [(corpus.ids[n], s) for n, s in corpus.index.top(query, k, allowed=allowed)]
    hits = []
    for entry_id, score in fused[:k]:
        n = number_of[entry_id]
        hits.append(Hit(corpus.entry(n), corpus.shards[n], score, bool(corpus.archived[n])))
    return hits


def render_hits(hits: Sequence[Hit]) -> str:
    """Hits as Markdown ready for a prompt: title, where it lives, the body."""
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
