"""Fit the weights of ``lean_memory.tokens`` on the TRAIN half of the corpus (stdlib only).

Least squares on the relative error: for every training text, ``sum(w_i * f_i) / target ~ 1``,
where the target is the geometric mean of the ``o200k_base`` and ``cl100k_base`` counts (so the
estimate sits between the two encodings), and each kind of text (and the training shards, as one
more kind) weighs the same in total, whatever its number of entries. Prints the weights to paste
into ``_WEIGHTS``.

    python bench/tokens/fit.py
"""

from __future__ import annotations

import math
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parents[1])]

import corpus  # noqa: E402
from bpe_openai import get_encoding  # noqa: E402

from lean_memory import tokens  # noqa: E402


def solve(a: list[list[float]], b: list[float]) -> list[float]:
    """Solve the square system a x = b by Gaussian elimination with partial pivoting."""
    n = len(b)
    m = [[*row, bi] for row, bi in zip(a, b, strict=True)]
    for col in range(n):
        piv = max(range(col, n), key=lambda r: abs(m[r][col]))
        m[col], m[piv] = m[piv], m[col]
        for r in range(n):
            if r != col and m[col][col]:
                f = m[r][col] / m[col][col]
                m[r] = [x - f * y for x, y in zip(m[r], m[col], strict=True)]
    return [m[i][n] / m[i][i] if m[i][i] else 0.0 for i in range(n)]


def main() -> None:
    o200k, cl100k = get_encoding("o200k_base"), get_encoding("cl100k_base")
    entries = corpus.build()
    train = [e for e in entries if e.split == "train"]
    samples = [(e.kind, e.text) for e in train]
    samples += [("shard", t) for _, t in corpus.make_shards(train, 40, "train")]
    per_kind = Counter(k for k, _ in samples)
    nf = len(tokens._FEATURE_NAMES)
    ata = [[0.0] * nf for _ in range(nf)]
    atb = [0.0] * nf
    for kind, text in samples:
        target = math.sqrt(len(o200k.encode(text)) * len(cl100k.encode(text)))
        if target == 0:
            continue
        wt = 1.0 / per_kind[kind]
        row = [f / target for f in tokens._features(text)]
        for i in range(nf):
            atb[i] += wt * row[i]
            for j in range(nf):
                ata[i][j] += wt * row[i] * row[j]
    weights = solve(ata, atb)
    for name, w in zip(tokens._FEATURE_NAMES, weights, strict=True):
        print(f"{name:20s} {w:7.3f}")
    print("_WEIGHTS = (" + ", ".join(f"{w:.2f}" for w in weights) + ")")


if __name__ == "__main__":
    main()
