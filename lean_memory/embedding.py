"""A retriever over embeddings: cosine between the query's vector and cached entry vectors.

It embeds only the query; entries are scored only if their vector is already cached
(``missing`` counts the others, which ``lean-memory embed`` fills). The embedding
function is injected, so the built-in Ollama client and the benchmark's local model run
the same code (ADR 0019).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ._hash import blake2b
from .bm25 import EntryLike
from .dedup import MARKER, main_text
from .errors import LeanMemoryError
from .vectors import Vectors, dot, unit


class EmbeddingError(LeanMemoryError):
    """The embedder answered something unusable (one line, safe to show)."""


# texts -> one vector per text, in order
Embed = Callable[[list[str]], list[Sequence[float]]]


def document_text(e: EntryLike) -> str:
    """What an entry's vector is made from: title, main text (no "Said again"), tags."""
    body = main_text(e.text) if MARKER in e.text else e.text
    tags = getattr(e, "tags", ())
    text = f"{e.title}\n{body}" if e.title else body
    return f"{text}\n{' '.join(tags)}" if tags else text


def content_key(model: str, text: str) -> bytes:
    """The cache key: model and exact input text, so an edited entry gets a new vector."""
    return blake2b(f"{model}\x00{text}".encode("utf-8", "surrogatepass"),
                   digest_size=16).digest()


class EmbeddingRetriever:
    """Ranks entries by cosine similarity to the query (vectors are unit length)."""

    def __init__(self, name: str, embed: Embed, vectors: Vectors, *, model: str,
                 document_prefix: str = "", query_prefix: str = "",
                 floor: float | None = None) -> None:
        self.name = name
        self.embed = embed
        self.vectors = vectors
        self.model = model
        self.document_prefix = document_prefix
        self.query_prefix = query_prefix
        self.missing = 0  # entries of the last rank() without a vector
        # A neighbour below this cosine never fills a short lexical ranking (ADR 0021).
        self.floor = floor

    def key(self, e: EntryLike) -> bytes:
        return content_key(self.model, self.document_prefix + document_text(e))

    def rank(self, query: str, entries: Sequence[EntryLike], k: int) -> list[tuple[str, float]]:
        """The ``k`` entries closest to the query, best first (ties: the given order)."""
        self.missing = 0
        found = [(e.id, v) for e in entries if (v := self.vectors.get(self.key(e))) is not None]
        self.missing = len(entries) - len(found)
        if self.vectors.damaged:  # a chunk failed its check: nothing from the file is used
            raise EmbeddingError("the vector cache failed its check; `lean-memory embed` "
                                 "rebuilds it")
        if not found:
            return []
        vectors = self.embed([self.query_prefix + query])
        try:
            [q] = [unit(v) for v in vectors]
        except ValueError:
            raise EmbeddingError("the embedder returned no usable vector for the query") from None
        if len(q) != self.vectors.dim:
            raise EmbeddingError(f"the query's vector has dimension {len(q)}, the cached ones "
                                 f"{self.vectors.dim} (model changed? run `lean-memory embed`)")
        scored = sorted(((dot(q, v), -i, entry_id) for i, (entry_id, v) in enumerate(found)),
                        reverse=True)
        return [(entry_id, score) for score, _, entry_id in scored[:k]]

    def todo(self, entries: Sequence[EntryLike]) -> list[tuple[bytes, str]]:
        """``(key, text to embed)`` of the entries without a vector, each text once."""
        out: dict[bytes, str] = {}
        for e in entries:
            text = self.document_prefix + document_text(e)
            key = content_key(self.model, text)
            if key not in self.vectors:
                out.setdefault(key, text)
        return list(out.items())
