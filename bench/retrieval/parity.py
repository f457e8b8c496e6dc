"""Parity: lean_memory's scorer vs bm25s "lucene" with the same (simple) tokens and parameters.

    python bench/retrieval/parity.py

For every query of both sets, the ordered top-10 must be identical and every top-10 score equal
within 1e-6 relative (bm25s computes in float32). Exit status 1 on any mismatch.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import bm25s_scores, load, rank_scores

from lean_memory.bm25 import BM25Index, simple_tokenize

TOL = 1e-6


def main() -> int:
    failures = 0
    print(
        "| set | k1 | b | queries | identical top-10 | max rel. score diff (top-10) |"
        " max rel. diff (all matches) |"
    )
    print("|---|---|---|---|---|---|---|")
    for set_name in ("locomo", "cranfield"):
        for k1, b in ((1.2, 0.75), (1.5, 0.75), (0.9, 0.4)):
            n = same = 0
            worst_top = worst_all = 0.0
            for corpus in load(set_name):
                index = BM25Index.build(
                    (("", d["text"]) for d in corpus.docs),
                    k1=k1,
                    b=b,
                    title_weight=1.0,
                    tokenizer=simple_tokenize,
                )
                for q, ref in bm25s_scores(corpus, simple_tokenize, k1, b):
                    n += 1
                    ours = index.score(q["q"])
                    ref_top = rank_scores(ref)
                    our_top = [d for d, _ in index.top(q["q"], 10)]
                    if our_top == ref_top:
                        same += 1
                    else:
                        failures += 1
                        print(
                            f"MISMATCH {set_name} {q['qid']}: {our_top} vs {ref_top}",
                            file=sys.stderr,
                        )
                    if set(ours) != {i for i, s in enumerate(ref) if s > 0}:
                        failures += 1
                        print(f"MATCH SET DIFFERS {set_name} {q['qid']}", file=sys.stderr)
                    for i, s in ours.items():
                        rel = abs(s - ref[i]) / abs(ref[i]) if ref[i] else float("inf")
                        worst_all = max(worst_all, rel)
                        if i in ref_top:
                            worst_top = max(worst_top, rel)
            if worst_top > TOL:
                failures += 1
            print(
                f"| {set_name} | {k1} | {b} | {n} | {same}/{n} | {worst_top:.1e} |"
                f" {worst_all:.1e} |",
                flush=True,
            )
    print("PASS" if not failures else f"FAIL ({failures})")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
