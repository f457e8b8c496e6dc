"""nDCG@10 of BM25, a dense model, and their fusions, through lean_memory's own code.

Every configuration runs ``lean_memory.retrievers.fuse`` (what ``Memory.search`` runs)
with the built-in BM25 index as the first source and an ``EmbeddingRetriever`` (the class
behind the ``ollama`` retriever) as the second, through the retriever protocol and its
time limit. Documents are what the product holds: entries as ``digest.py`` writes them
(title: the first eight words; body: the text), indexed by BM25 with the product's title
weight and embedded as the product embeds them (``document_text``: title + body);
``--body-only`` measures the body alone (title weight 1, no title embedded), as before.

The embeddings come from an Ollama-compatible ``/api/embed`` server, through the product's
own client: ``--embed-host URL``, or ``--embed-python PY`` to start ``embed_server.py``
(wordllama, 256-d, offline); they are cached by content key in ``$LEAN_MEMORY_VECTORS``
(default ``/tmp/lean-memory-semantic``), so re-runs need no model.

    PYTHONPATH=. python bench/retrieval/semantic.py --embed-python PY [--sweep]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from common import Corpus, Metrics, load

from lean_memory.bm25 import BM25, BM25Index
from lean_memory.config import Config
from lean_memory.embedding import EmbeddingRetriever
from lean_memory.retrievers import Fusion, Job, fuse
from lean_memory.vectors import Vectors

MODEL = "wordllama-l2-supercat"
CACHE = Path(os.environ.get("LEAN_MEMORY_VECTORS", "/tmp/lean-memory-semantic"))
SETS = ("locomo", "cranfield")
BODY_ONLY = False  # --body-only: the old measurement
HOST: list[str] = []  # the embedding server, once started


@dataclass(frozen=True)
class Doc:
    id: str
    title: str
    text: str


def as_entry(d: dict) -> Doc:
    """The document as the product holds it (digest.py's layout)."""
    if BODY_ONLY:
        return Doc(d["id"], "", d["text"])
    words = d["text"].split()
    return Doc(d["id"], " ".join(words[:8]) + ("…" if len(words) > 8 else ""), d["text"])


def _model() -> Callable[[list[str]], list[Sequence[float]]]:
    from lean_memory.ollama import Ollama

    return Ollama(HOST[0], MODEL, 600.0)


def vectors_for(name: str, corpora: list[Corpus]) -> Vectors:
    """Every document and query of a set, embedded once and cached by content key."""
    path = CACHE / f"{name}-{MODEL}.bin"
    vectors = Vectors.load(path)
    probe = EmbeddingRetriever("dense", lambda t: [], vectors, model=MODEL)
    texts = [as_entry(d) for c in corpora for d in c.docs]
    texts += [Doc("", "", q["q"]) for c in corpora for q in c.queries]
    todo = probe.todo(texts)
    if todo:
        print(f"{name}: embedding {len(todo)} texts with {MODEL}...", file=sys.stderr)
        embed = _model()
        for start in range(0, len(todo), 256):
            batch = todo[start:start + 256]
            for (key, _), v in zip(batch, embed([t for _, t in batch]), strict=True):
                vectors.add(key, v)
        CACHE.mkdir(parents=True, exist_ok=True)
        vectors.save(path)
    return vectors


def dense(vectors: Vectors) -> EmbeddingRetriever:
    """The retriever, with query vectors read from the cache (documents and queries share
    one content key scheme: no prefixes for this model)."""
    from lean_memory.embedding import content_key

    def embed(texts: list[str]) -> list[Sequence[float]]:
        out = []
        for t in texts:
            v = vectors.get(content_key(MODEL, t))
            if v is None:
                raise KeyError("query not embedded")
            out.append(v)
        return out

    return EmbeddingRetriever("dense", embed, vectors, model=MODEL)


@dataclass(frozen=True)
class Setup:
    label: str
    names: tuple[str, ...]  # "bm25" and/or "dense"
    fusion: Fusion


def evaluate(name: str, setups: Sequence[Setup]) -> dict[str, Metrics]:
    corpora = load(name)
    retriever = dense(vectors_for(name, corpora))
    out = {s.label: Metrics() for s in setups}
    for corpus in corpora:
        _corpus(corpus, retriever, setups, out)
    return out


def _corpus(corpus: Corpus, retriever: EmbeddingRetriever, setups: Sequence[Setup],
            out: dict[str, Metrics]) -> None:
    docs = [as_entry(d) for d in corpus.docs]
    index = BM25Index.build(((d.title, d.text) for d in docs),
                            title_weight=1.0 if BODY_ONLY else BM25().title_weight)
    order = list(range(len(docs)))
    for q in corpus.queries:
        query = q["q"]

        def bm25(depth: int, among: Sequence[int] | None,
                 query: str = query) -> list[tuple[int, float]]:
            mask = None
            if among is not None:
                mask = bytearray(len(docs))
                for n in among:
                    mask[n] = 1
            return index.top(query, depth, allowed=mask)

        for s in setups:
            sources = [(n, None if n == "bm25" else Job(n, lambda _d: retriever))
                       for n in s.names]
            fused, notes = fuse(query, 10, sources, s.fusion, bm25=bm25,
                                numbers=lambda: order,
                                entries=lambda ns: [docs[n] for n in ns],
                                timeout_ms=600_000)
            if notes:
                raise SystemExit(f"{s.label}: {notes}")
            out[s.label].add([docs[n].id for n, _ in fused[:10]], q["relevant"])


def shipped() -> Fusion:
    """The defaults a config with ``retrievers = ["bm25", "dense"]`` gets."""
    return Fusion.of(Config(retrievers=("bm25", "dense")), ["bm25", "dense"])


def setups(sweep: bool, table: bool = True) -> list[Setup]:
    both = ("bm25", "dense")
    out = [
        Setup("BM25 (lean_memory)", ("bm25",), Fusion()),
        Setup("dense alone", ("dense",), Fusion(weights=(1.0,))),
        Setup("RRF 1:1 (k = 60)", both, Fusion("rrf", weights=(1.0, 1.0))),
        Setup("RRF, dense weighted 0.2", both, Fusion("rrf", weights=(1.0, 0.2))),
        Setup("re-rank top 20, 0.5/0.5", both, Fusion("rerank", 20, (0.5, 0.5))),
        Setup("shipped defaults", both, shipped()),
    ]
    if sweep:
        for depth in (10, 20, 30, 50):
            for w in (0.3, 0.4, 0.5, 0.6):
                out.append(Setup(f"re-rank top {depth}, dense {w}", both,
                                 Fusion("rerank", depth, (1 - w, w))))
        for w in (0.1, 0.3, 0.5):
            out.append(Setup(f"RRF, dense weighted {w}", both, Fusion("rrf", weights=(1.0, w))))
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--sweep", action="store_true", help="also a grid of depths and weights")
    p.add_argument("--sets", nargs="*", default=list(SETS), choices=SETS)
    p.add_argument("--rerank", nargs="*", default=[], metavar="DEPTH:W",
                   help="also re-rank the top DEPTH with the dense weight W (e.g. 30:0.4)")
    p.add_argument("--body-only", action="store_true", help="embed and index the body only")
    p.add_argument("--embed-host", default=None)
    p.add_argument("--embed-python", default=None,
                   help="start embed_server.py with this interpreter (wordllama installed)")
    args = p.parse_args()
    global BODY_ONLY
    BODY_ONLY = args.body_only
    server = None
    if args.embed_host:
        HOST.append(args.embed_host)
    elif args.embed_python:
        import subprocess

        script = str(Path(__file__).parent / "embed_server.py")
        server = subprocess.Popen([args.embed_python, script], stdout=subprocess.PIPE, text=True)
        assert server.stdout is not None
        HOST.append(server.stdout.readline().strip())
    try:
        _main(args)
    finally:
        if server is not None:
            server.terminate()
            server.wait()


def _main(args: argparse.Namespace) -> None:
    chosen = setups(args.sweep)
    for spec in args.rerank:
        depth, w = spec.split(":")
        chosen.append(Setup(f"re-rank top {depth}, dense {w}", ("bm25", "dense"),
                            Fusion("rerank", int(depth), (1 - float(w), float(w)))))
    started = time.perf_counter()
    results = {name: evaluate(name, chosen) for name in args.sets}
    print(f"| system | {' | '.join(args.sets)} |")
    print(f"|---|{'---|' * len(args.sets)}")
    base = {name: results[name][chosen[0].label].row()[2] for name in args.sets}
    for s in chosen:
        cells = []
        for name in args.sets:
            ndcg = results[name][s.label].row()[2]
            cells.append(f"{ndcg:.4f} ({ndcg - base[name]:+.4f})")
        print(f"| {s.label} | {' | '.join(cells)} |")
    print(f"\nshipped: {shipped()}; {time.perf_counter() - started:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
