"""``lean-memory embed`` and the vectors line of ``status``: every searchable entry (the
search's corpus, withheld ones left out) given a vector by the ``ollama`` retriever.

It sits above :mod:`lean_memory.search` (it reads the corpus) while :mod:`lean_memory.ollama`
sits below it (the search calls the retriever): kept apart, neither imports the other's layer.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .embedding import Embed, EmbeddingRetriever, content_key, document_text
from .errors import LeanMemoryError, quoted
from .fsutil import UnsafePath, append_line, check_folders, read_bounded
from .ollama import BATCH, OllamaError, canonical, client, legacy_path, prefixes, vectors_path
from .search import load_corpus
from .spawn import EMBEDDING
from .vectors import Vectors

if TYPE_CHECKING:
    from . import format as fmt
    from .store import Memory


def _searchable(mem: Memory) -> list[fmt.Entry]:
    """Every entry a search may return (live and archived), none that holds a credential."""
    corpus = load_corpus(mem)
    try:
        return [corpus.entry(n) for n, ok in enumerate(corpus.allowed(mem.shards, True)) if ok]
    finally:
        corpus.close()  # entries are read back through open shard files


def _offline(mem: Memory, embed: Embed) -> EmbeddingRetriever:
    c = mem.config
    return EmbeddingRetriever("ollama", embed, Vectors.load(vectors_path(mem, c.ollama_model),
                                                            mem.agents_dir),
                              model=canonical(c.ollama_model),
                              document_prefix=prefixes(c.ollama_model)[0])


def _adopt_legacy(mem: Memory, r: EmbeddingRetriever, entries: list[fmt.Entry]) -> None:
    """Vectors an older version cached under the ``:latest`` spelling of the model move
    to the one file of the model (no text is sent again), and that file goes."""
    old = legacy_path(mem, mem.config.ollama_model)
    if old is None:
        return
    legacy = Vectors.load(old, mem.agents_dir)
    if len(legacy) and (not len(r.vectors) or legacy.dim == r.vectors.dim):
        for e in entries:
            text = r.document_prefix + document_text(e)
            v = legacy.get(content_key(mem.config.ollama_model, text))
            key = content_key(r.model, text)
            if v is not None and key not in r.vectors:
                r.vectors.add(key, v)
    try:  # never through a linked folder (ADR 0012); unlink removes a link, not its target
        if check_folders(old.parent, mem.agents_dir):
            old.unlink(missing_ok=True)
    except (OSError, UnsafePath):
        pass  # only a cache: the next embed tries again


def embed_missing(mem: Memory, progress: Callable[[int, int], None] | None = None, *,
                  timeout: float = 120.0, limit: int | None = None) -> tuple[int, int]:
    """Embed every searchable entry (live and archived) that has no vector yet; returns
    (embedded now, searchable entries). Entries that hold a credential are never sent.
    The file is saved after every batch, so an interruption keeps what was done; vectors
    of entries that no longer exist are dropped."""
    c = mem.config
    entries = _searchable(mem)
    r = _offline(mem, client(c, timeout))
    path = vectors_path(mem, c.ollama_model)
    _adopt_legacy(mem, r, entries)
    keep = [r.key(e) for e in entries]
    if limit is not None:  # bounded: the newest first (a put's entry is the newest)
        entries = sorted(reversed(entries), key=lambda e: e.date or "", reverse=True)
    todo = r.todo(entries)[:limit]
    done = 0
    for start in range(0, len(todo), BATCH):
        batch = todo[start:start + BATCH]
        got = r.embed([text for _, text in batch])
        for (key, _), vector in zip(batch, got, strict=True):
            try:
                r.vectors.add(key, vector)
            except ValueError:
                raise OllamaError(f"model {c.ollama_model!r} changed its vectors' dimension; "
                                  f"delete {path.name} and embed again") from None
        done += len(batch)
        r.vectors.save(path, mem.agents_dir, keep)
        if progress is not None:
            progress(done, len(todo))
    if not todo:
        r.vectors.save(path, mem.agents_dir, keep)
    return done, len(entries)


def describe(mem: Memory) -> dict[str, Any]:
    """How many searchable entries have a vector (for ``status``); asks no model."""
    entries = _searchable(mem)
    todo = _offline(mem, lambda texts: []).todo(entries)
    return {"model": mem.config.ollama_model, "entries": len(entries),
            "embedded": len(entries) - len(todo), "last_skipped": last_skip(mem)}


SKIPPED = "retriever 'ollama'"


def last_skip(mem: Memory) -> dict[str, str] | None:
    """When and why the prompt hook last searched without the ``ollama`` retriever (timed
    out or busy, unreachable, failed, entries without a vector), from ``.cache/hook.log``;
    None when it never did. Asks no model."""
    try:
        raw = read_bounded(mem.cache_dir / "hook.log", 1 << 20, mem.agents_dir)
    except (OSError, LeanMemoryError):
        return None
    for line in reversed(raw.decode("utf-8", "replace").splitlines()):
        stamp, _, rest = line.partition(" ")
        _, sep, message = rest.partition(": ")
        if sep and message.startswith(SKIPPED):
            return {"when": stamp, "why": message}
    return None


# The background embedder after a put (ADR 0019): at most this many texts, this long, so
# a memory that never ran `embed` is not embedded whole by its next put.
BACKGROUND_LIMIT = 256
BACKGROUND_S = 120.0
BACKGROUND_TIMEOUT = 30.0


def embed_in_background(mem: Memory) -> None:
    """The process :func:`lean_memory.spawn.embed_soon` starts: embed what puts added
    (again while puts arrive, within the bounds), log a failure where ``status`` finds it,
    and remove the marker."""
    start = time.monotonic()
    left = BACKGROUND_LIMIT
    try:
        while left > 0 and time.monotonic() - start < BACKGROUND_S:
            done, _ = embed_missing(mem, timeout=BACKGROUND_TIMEOUT, limit=left)
            left -= done
            if not done:
                break
    except LeanMemoryError as exc:
        _log_skip(mem, f"{SKIPPED} could not embed after a put ({exc})")
    finally:
        (mem.cache_dir / EMBEDDING).unlink(missing_ok=True)


def _log_skip(mem: Memory, message: str) -> None:
    """A line in ``.cache/hook.log`` (never through a link); never raises."""
    try:
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S")
        append_line(mem.cache_dir / "hook.log", f"{stamp} embed: {quoted(message, 2000)}\n",
                    limit=256 * 1024, root=mem.agents_dir)
    except Exception:  # logging must never fail the embedder
        pass
