"""Search: the retriever protocol, Reciprocal Rank Fusion, and the cached BM25 index.

The built-in BM25 ranks from an index kept in ``.cache/search.marshal``. The cache is
checked against each shard's size, mtime and inode, rebuilt when stale, corrupt or
from another version, and written atomically, so concurrent processes at worst build
it twice. Deleting it loses nothing (ADR 0004).
"""

from __future__ import annotations

import logging
import marshal
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from . import format as fmt
from .bm25 import BM25, BM25Index, tokenize
from .errors import QueryError

if TYPE_CHECKING:
    from .store import Memory

log = logging.getLogger("lean_memory.search")

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


def _entry_row(e: fmt.Entry, archived: bool) -> tuple[Any, ...]:
    return (e.id, e.shard, e.title, e.text, e.date, e.tags, e.supersedes, e.meta, e.line,
            archived)


def _row_entry(row: Sequence[Any]) -> fmt.Entry:
    return fmt.Entry(id=row[0], shard=row[1], title=row[2], text=row[3], date=row[4],
                     tags=tuple(row[5]), supersedes=row[6], meta=tuple(map(tuple, row[7])),
                     line=row[8])


class Corpus:
    """Every entry of the memory (live and archived) with a BM25 index over them.

    Documents are numbered newest first (then file order), so the index's tie-break
    on the lower number gives "newer first, then file order".
    """

    def __init__(self, rows: list[tuple[Any, ...]], hidden: set[str], index: BM25Index) -> None:
        self.rows = rows
        self.hidden = hidden
        self.index = index

    def entry(self, number: int) -> fmt.Entry:
        return _row_entry(self.rows[number])

    def allowed(self, shards: Sequence[str], include_archive: bool) -> set[int]:
        wanted = set(shards)
        return {n for n, row in enumerate(self.rows)
                if row[1] in wanted and (include_archive or not row[9])
                and row[0] not in self.hidden}


def _sources(mem: Memory) -> list[tuple[str, bool, str]]:
    return [(name, archived, str(mem.shard_path(name, archive=archived)))
            for archived in (False, True) for name in mem.shards]


def _signature(mem: Memory) -> list[Any]:
    sig: list[Any] = []
    for name, archived, path in _sources(mem):
        try:
            st = os.stat(path)
            sig.append((name, archived, st.st_size, st.st_mtime_ns, st.st_ino))
        except FileNotFoundError:
            sig.append((name, archived, -1, 0, 0))
    c = mem.config
    return [_CACHE_VERSION, c.bm25_k1, c.bm25_b, sig]


def _build(mem: Memory) -> Corpus:
    from .dedup import main_text

    live: list[fmt.Entry] = []
    archived: list[fmt.Entry] = []
    for name in mem.shards:
        live.extend(mem.read_shard(name).entries)
        archived.extend(mem.read_shard(name, archive=True).entries)
    hidden = mem.superseded_ids(live)
    tagged = [(e, False) for e in live] + [(e, True) for e in archived]
    # Newest first; sorted() is stable, so file order (live before archive) breaks ties.
    tagged.sort(key=lambda pair: pair[0].date or "", reverse=True)
    rows = [_entry_row(e, a) for e, a in tagged]
    c = mem.config
    index = BM25Index.build(((e.title, main_text(e.text) + _tag_text(e)) for e, _ in tagged),
                            k1=c.bm25_k1, b=c.bm25_b)
    return Corpus(rows, hidden, index)


def _tag_text(e: fmt.Entry) -> str:
    return "\n" + " ".join(e.tags) if e.tags else ""


def load_corpus(mem: Memory) -> Corpus:
    """The corpus from the cache when it is fresh, else built (and cached) anew."""
    path = mem.cache_dir / _CACHE_NAME
    signature = _signature(mem)
    try:
        with open(path, "rb") as fh:
            data = marshal.load(fh)
        if data[0] == signature:
            return Corpus(data[1], set(data[2]), BM25Index.from_state(data[3]))
    except (OSError, EOFError, ValueError, TypeError, IndexError, KeyError):
        pass  # missing, corrupt or from another version: rebuild
    corpus = _build(mem)
    if _signature(mem) == signature:  # nobody wrote meanwhile: safe to cache
        _save(path, [signature, corpus.rows, sorted(corpus.hidden), corpus.index.to_state()])
    return corpus


def _save(path: os.PathLike[str] | str, data: Any) -> None:
    from pathlib import Path

    target = Path(path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        with open(tmp, "wb") as fh:
            marshal.dump(data, fh)
        os.replace(tmp, target)
    except OSError as exc:  # a read-only checkout still searches, just slower
        log.debug("search cache not written: %s", exc)


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
            log.debug("retriever %r is not installed; skipped", name)
            continue
        try:
            obj = ep.load()
            out.append(obj() if isinstance(obj, type) else obj)
        except Exception as exc:
            log.debug("retriever %r failed to load: %s", name, exc)
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
        log.debug("retriever %r timed out after %.0f ms; skipped", retriever.name, timeout * 1e3)
        return None
    result = box[0]
    if isinstance(result, BaseException):
        log.debug("retriever %r failed: %r; skipped", retriever.name, result)
        return None
    try:
        return [(str(i), float(s)) for i, s in result]
    except (TypeError, ValueError):
        log.debug("retriever %r returned a malformed ranking; skipped", retriever.name)
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
    number_of = {row[0]: n for n, row in enumerate(corpus.rows) if n in allowed}
    rankings: list[list[tuple[str, float]]] = []
    entries: list[fmt.Entry] | None = None
    timeout = mem.config.retriever_timeout_ms / 1000
    for r in retrievers:
        if _is_cached_bm25(r, mem):
            rankings.append([(corpus.rows[n][0], s)
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
        fused = [(corpus.rows[n][0], s) for n, s in corpus.index.top(query, k, allowed=allowed)]
    hits = []
    for entry_id, score in fused[:k]:
        n = number_of[entry_id]
        hits.append(Hit(corpus.entry(n), corpus.rows[n][1], score, bool(corpus.rows[n][9])))
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
