"""Shared helpers of the retrieval benchmarks: data loading, reference systems, metrics.

The data lives outside the repository (``$LEAN_MEMORY_DATA``, else ``../shared/data/retrieval``
relative to the repo root or, from a git worktree, to the main checkout's root) and is never
copied into it.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _main_checkout(repo: Path) -> Path:
    """The root of the checkout whose ``.git`` folder ``repo`` shares: ``repo`` itself, or for
    a worktree (whose ``.git`` is a file ``gitdir: <common>/worktrees/<name>``) the parent
    of the common git folder. Read from the files, so no git needs to be installed."""
    try:
        gitdir = Path((repo / ".git").read_text(encoding="utf-8").partition("gitdir:")[2].strip())
        if not gitdir.is_absolute():
            gitdir = repo / gitdir
        common = gitdir / (gitdir / "commondir").read_text(encoding="utf-8").strip()
        return common.resolve().parent
    except OSError:  # a plain checkout (.git is a folder) or no git at all
        return repo


def _data_dir() -> Path:
    """``$LEAN_MEMORY_DATA``, else the first ``shared/data/retrieval`` beside the repository or
    beside the main checkout of this worktree."""
    if os.environ.get("LEAN_MEMORY_DATA"):
        return Path(os.environ["LEAN_MEMORY_DATA"])
    found = [root.parent / "shared" / "data" / "retrieval"
             for root in dict.fromkeys((REPO, _main_checkout(REPO)))]
    return next((p for p in found if p.is_dir()), found[0])


DATA = _data_dir()
SETS = {"locomo": "locomo_turns.jsonl", "cranfield": "cranfield.jsonl"}


@dataclass
class Corpus:
    conv: str
    docs: list[dict]
    queries: list[dict]


def load(name: str) -> list[Corpus]:
    with open(DATA / SETS[name], encoding="utf-8") as fh:
        return [Corpus(o["conv"], o["docs"], o["queries"]) for o in map(json.loads, fh)]


# A ranker takes a corpus and returns a function: query text -> ranked doc positions (best first,
# score > 0 only, ties by position), at least 10 long when that many docs match.
Ranker = Callable[[Corpus], Callable[[str], list[int]]]


def rank_scores(scores: Sequence[float], k: int = 10) -> list[int]:
    """Positions with score > 0, by score descending then position (the data README's rule)."""
    pos = [i for i, s in enumerate(scores) if s > 0]
    pos.sort(key=lambda i: (-scores[i], i))
    return pos[:k]


@dataclass
class Metrics:
    n: int = 0
    r5: float = 0.0
    r10: float = 0.0
    ndcg10: float = 0.0
    mrr10: float = 0.0
    per_query: list[float] = field(default_factory=list)

    def add(self, ranked_ids: Sequence[str], relevant: Sequence[str]) -> None:
        rel = set(relevant)
        top = list(ranked_ids[:10])
        self.n += 1
        if not rel:
            return
        self.r5 += len(rel & set(top[:5])) / len(rel)
        self.r10 += len(rel & set(top)) / len(rel)
        dcg = sum(1 / math.log2(i + 2) for i, d in enumerate(top) if d in rel)
        idcg = sum(1 / math.log2(i + 2) for i in range(min(len(rel), 10)))
        self.ndcg10 += dcg / idcg
        self.per_query.append(dcg / idcg)
        self.mrr10 += next((1 / (i + 1) for i, d in enumerate(top) if d in rel), 0.0)

    def row(self) -> tuple[float, float, float, float]:
        n = max(self.n, 1)
        return (self.r5 / n, self.r10 / n, self.ndcg10 / n, self.mrr10 / n)


def evaluate(name: str, ranker: Ranker, split_cat5: bool = False) -> dict[str, Metrics]:
    """Run every query of a set in its own corpus; returns metrics for "all" (and cat 5 apart)."""
    out = {"all": Metrics()}
    if split_cat5:
        out["cat1-4"] = Metrics()
        out["cat5"] = Metrics()
    for corpus in load(name):
        search = ranker(corpus)
        ids = [d["id"] for d in corpus.docs]
        for q in corpus.queries:
            ranked = [ids[i] for i in search(q["q"])[:10]]
            out["all"].add(ranked, q["relevant"])
            if split_cat5:
                out["cat5" if q.get("category") == 5 else "cat1-4"].add(ranked, q["relevant"])
    return out


# -- rankers -----------------------------------------------------------------------------------


def lean_ranker(
    tokenizer: Callable[[str], list[str]] | None = None, *, k1: float = 1.2, b: float = 0.75
) -> Ranker:
    from lean_memory.bm25 import BM25Index, tokenize

    tok = tokenizer or tokenize

    def make(corpus: Corpus) -> Callable[[str], list[int]]:
        index = BM25Index.build(
            (("", d["text"]) for d in corpus.docs), k1=k1, b=b, title_weight=1.0, tokenizer=tok
        )
        return lambda q: [doc for doc, _ in index.top(q, 10)]

    return make


def rank_bm25_ranker(tokenizer: Callable[[str], list[str]]) -> Ranker:
    from rank_bm25 import BM25Okapi

    def make(corpus: Corpus) -> Callable[[str], list[int]]:
        bm = BM25Okapi([tokenizer(d["text"]) for d in corpus.docs])  # k1=1.5 b=.75 eps=.25
        return lambda q: rank_scores(bm.get_scores(tokenizer(q)))

    return make


def bm25s_ranker(
    tokenizer: Callable[[str], list[str]] | None, *, k1: float = 1.2, b: float = 0.75
) -> Ranker:
    """bm25s "lucene"; tokenizer None = bm25s's own with English stop words + Snowball stemmer."""
    import bm25s

    if tokenizer is None:
        import Stemmer

        stemmer = Stemmer.Stemmer("english")

        def tokenizer(text: str) -> list[str]:
            return bm25s.tokenize(
                [text], stopwords="en", stemmer=stemmer, return_ids=False, show_progress=False
            )[0]

    tok = tokenizer

    def make(corpus: Corpus) -> Callable[[str], list[int]]:
        model = bm25s.BM25(method="lucene", k1=k1, b=b)
        model.index([tok(d["text"]) for d in corpus.docs], show_progress=False)
        vocab = model.vocab_dict

        def search(q: str) -> list[int]:
            qt = [t for t in tok(q) if t in vocab]
            if not qt:
                return []
            return rank_scores(model.get_scores(qt))

        return search

    return make


def bm25s_scores(
    corpus: Corpus, tok: Callable[[str], list[str]], k1: float, b: float
) -> Iterator[tuple[dict, list[float]]]:
    """(query, bm25s score of every doc) for each query of the corpus, for parity checks."""
    import bm25s

    model = bm25s.BM25(method="lucene", k1=k1, b=b)
    model.index([tok(d["text"]) for d in corpus.docs], show_progress=False)
    vocab = model.vocab_dict
    for q in corpus.queries:
        qt = [t for t in tok(q["q"]) if t in vocab]
        scores = [float(s) for s in model.get_scores(qt)] if qt else [0.0] * len(corpus.docs)
        yield q, scores
