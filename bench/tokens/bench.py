"""Accuracy and speed of ``lean_memory.tokens.estimate_tokens`` vs o200k_base and cl100k_base.

Needs the ``bench`` extra (``bpe-openai`` ships both encodings offline). Reports, on the TEST half
of the corpus only (the weights were fitted on the train half by ``fit.py``):

* per kind of text: mean and max absolute relative error, and the signed bias, vs each encoding;
* per mixed shard (Markdown memory files of ~2-40 KB built from test entries): the error against
  each encoding, and how many shards are within 10 % of both;
* throughput in MB/s of ``estimate_tokens`` and of the real encoders on the same shards.

    python bench/tokens/bench.py [--shards N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parents[1])]

import corpus  # noqa: E402
from bpe_openai import get_encoding  # noqa: E402

from lean_memory.tokens import estimate_tokens  # noqa: E402


def rel(est: int, ref: int) -> float:
    return (est - ref) / ref


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shards", type=int, default=40)
    args = ap.parse_args()
    enc = {"o200k": get_encoding("o200k_base"), "cl100k": get_encoding("cl100k_base")}
    entries = corpus.build()
    test = [e for e in entries if e.split == "test"]
    print(
        f"corpus: {len(entries)} entries, {sum(len(e.text) for e in entries) / 1e6:.2f} MB; "
        f"test half: {len(test)} entries, {sum(len(e.text) for e in test) / 1e6:.2f} MB\n"
    )

    errs: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for e in test:
        if not e.text:
            continue
        est = estimate_tokens(e.text)
        for name, en in enc.items():
            errs[e.kind][name].append(rel(est, len(en.encode(e.text))))
    cols = [f"{n} {what}" for n in enc for what in ("mean abs", "max abs", "bias")]
    print("| kind | n | " + " | ".join(cols) + " |")
    print("|---|--:|--:|--:|--:|--:|--:|--:|")
    for kind in sorted(errs):
        cells = []
        for name in enc:
            v = errs[kind][name]
            cells += [
                f"{100 * statistics.fmean(map(abs, v)):.1f} %",
                f"{100 * max(map(abs, v)):.1f} %",
                f"{100 * statistics.fmean(v):+.1f} %",
            ]
        print(f"| {kind} | {len(errs[kind]['o200k'])} | " + " | ".join(cells) + " |")

    shards = corpus.make_shards(test, args.shards, "test")
    print("\n| shard | KB | o200k tokens | cl100k tokens | estimate | vs o200k | vs cl100k |")
    print("|---|--:|--:|--:|--:|--:|--:|")
    worst = {name: 0.0 for name in enc}
    within = 0
    groups: dict[str, list[bool]] = {"with non-English entries": [], "English only": []}
    for name, text in shards:
        est = estimate_tokens(text)
        ref = {n: len(en.encode(text)) for n, en in enc.items()}
        e = {n: rel(est, r) for n, r in ref.items()}
        for n in enc:
            worst[n] = max(worst[n], abs(e[n]))
        ok = all(abs(x) <= 0.10 for x in e.values())
        within += ok
        group = "with non-English entries" if "nonenglish_" in text else "English only"
        groups[group].append(ok)
        print(
            f"| {name} | {len(text) / 1024:.1f} | {ref['o200k']} | {ref['cl100k']} | {est} | "
            f"{100 * e['o200k']:+.1f} % | {100 * e['cl100k']:+.1f} % |"
        )
    print(
        f"\nshards within 10 % of both: {within}/{len(shards)}; "
        + ", ".join(f"max abs error vs {n}: {100 * w:.1f} %" for n, w in worst.items())
    )

    for group, oks in groups.items():
        print(f"  {group}: {sum(oks)}/{len(oks)} within 10 % of both")

    texts = [t for _, t in shards]
    size_mb = sum(len(t.encode()) for t in texts) / 1e6

    def rate(fn: object, reps: int) -> float:
        best = float("inf")
        for _ in range(reps):
            t0 = time.perf_counter()
            for t in texts:
                fn(t)  # type: ignore[operator]
            best = min(best, time.perf_counter() - t0)
        return size_mb / best

    print(f"\nthroughput on the {len(texts)} shards ({size_mb:.2f} MB), best of 5:")
    r_est = rate(estimate_tokens, 5)
    print(f"  estimate_tokens     {r_est:7.1f} MB/s  ({1000 / (r_est * 1000):.3f} ms per KB)")
    for n, en in enc.items():
        print(f"  bpe_openai {n:8s} {rate(en.encode, 5):7.1f} MB/s")


if __name__ == "__main__":
    main()
