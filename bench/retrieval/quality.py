"""Retrieval quality: Recall@5, Recall@10, nDCG@10, MRR@10 of lean_memory beside the references.

    python bench/retrieval/quality.py [--ablations] [--titles] [--store] [--sets locomo,cranfield]

--ablations adds tokenizer/parameter variants; --titles measures the title weight on Cranfield
(whose documents have real titles); --store adds lean_memory's public ``Memory.search`` API.

Every system is measured in the same run, on the data README's metric rules.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import (
    Corpus,
    Metrics,
    bm25s_ranker,
    evaluate,
    lean_ranker,
    rank_bm25_ranker,
)

from lean_memory import bm25


def systems(set_name: str) -> list[tuple[str, str, object]]:
    simple = bm25.simple_tokenize
    return [
        ("rank_bm25 (k1=1.5)", "simple", rank_bm25_ranker(simple)),
        ("bm25s k1=1.2", "simple", bm25s_ranker(simple, k1=1.2)),
        ("bm25s k1=1.5", "simple", bm25s_ranker(simple, k1=1.5)),
        ("bm25s k1=1.2", "bm25s+stem", bm25s_ranker(None, k1=1.2)),
        ("bm25s k1=1.5", "bm25s+stem", bm25s_ranker(None, k1=1.5)),
        ("lean_memory k1=1.2", "simple", lean_ranker(simple)),
        ("lean_memory k1=1.2 b=0.75", "lean_memory", lean_ranker()),
        ("lean_memory k1=1.2 b=0.5 (default, ADR 0049)", "lean_memory", lean_ranker(b=0.5)),
    ]


def titled_ranker(weight: float) -> object:
    """Cranfield documents are "title . abstract": index the title as the title."""
    from lean_memory.bm25 import BM25Index

    def make(corpus: Corpus) -> object:
        docs = []
        for d in corpus.docs:
            title, _, body = d["text"].partition(" . ")
            docs.append((title, body))
        index = BM25Index.build(docs, title_weight=weight)
        return lambda q: [doc for doc, _ in index.top(q, 10)]

    return make


def fmt(m: Metrics) -> str:
    return " | ".join(f"{x:.3f}" for x in m.row())


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sets", default="locomo,cranfield")
    ap.add_argument("--ablations", action="store_true", help="tokenizer/parameter ablations")
    ap.add_argument("--titles", action="store_true", help="title weights on Cranfield")
    ap.add_argument("--store", action="store_true", help="also through Memory.search")
    ap.add_argument("--only-lean", action="store_true", help="skip the reference systems")
    args = ap.parse_args()
    print("| set | system | tokens | R@5 | R@10 | nDCG@10 | MRR@10 |")
    print("|---|---|---|---|---|---|---|")
    for set_name in args.sets.split(","):
        rows = systems(set_name)
        if args.only_lean:
            rows = [r for r in rows if r[1] == "lean_memory"]
        if args.ablations:
            from ablations import ablation_systems

            rows = rows + ablation_systems()
        if args.titles and set_name == "cranfield":
            rows = rows + [
                (f"lean_memory title_weight={w}", "lean_memory, title split", titled_ranker(w))
                for w in (1.0, 1.5, 2.0, 3.0, 4.0, 5.0)
            ]
        if args.store:
            from store_mode import STATS, store_ranker

            rows.append(("lean_memory Memory.search", "lean_memory", store_ranker()))
        for label, tokens, ranker in rows:
            t0 = time.perf_counter()
            res = evaluate(set_name, ranker, split_cat5=set_name == "locomo")  # type: ignore[arg-type]
            dt = time.perf_counter() - t0
            print(f"| {set_name} | {label} | {tokens} | {fmt(res['all'])} |", flush=True)
            if set_name == "locomo":
                for part in ("cat1-4", "cat5"):
                    print(f"| {set_name} {part} | {label} | {tokens} | {fmt(res[part])} |")
            print(f"<!-- {dt:.1f}s -->", file=sys.stderr)
        if args.store:
            print(f"<!-- store ({set_name}): {STATS} -->", file=sys.stderr)
            STATS.update(docs=0, refused=0, put_s=0.0)


if __name__ == "__main__":
    main()
