"""MaxScore with one split (ADR 0025) ranks exactly as exhaustive BM25: ids and float scores
bit for bit. Apart from tests/test_index_v2.py: these use no index file, so they need not run
once per way of reading one."""

from __future__ import annotations

import functools
import math

from hypothesis import given, settings
from hypothesis import strategies as st

from lean_memory.bm25 import BM25Index, documents_terms, tokenize

# -- MaxScore -------------------------------------------------------------------------------

COMMON = ["import", "token", "method", "option"]
RARE = [f"rare{i}" for i in range(6)]
MID = [f"mid{i}" for i in range(10)]


@st.composite
def corpora(draw: st.DrawFn) -> list[tuple[str, str]]:
    n = draw(st.integers(64, 260))
    docs = []
    for _ in range(n):
        words = [w for w in COMMON if draw(st.booleans())]
        words += draw(st.lists(st.sampled_from(MID), max_size=4))
        if draw(st.integers(0, 40)) == 0:
            words += draw(st.lists(st.sampled_from(RARE), min_size=1, max_size=3))
        title = " ".join(draw(st.lists(st.sampled_from(COMMON + MID), max_size=2)))
        docs.append((title, " ".join(words) or "empty"))
    return docs


def _textbook_top(counts: list[tuple[dict[str, float], float]], query: str, k: int,
                  allowed: bytes, newer: list[str], k1: float = 1.2,
                  b: float = 0.75) -> list[tuple[int, float]]:
    """Exhaustive BM25 written out, one document at a time, the terms in query order (the
    float operations of the README's formula, in its order), and the tie rules of
    ``BM25Index.top``: no code of the package ranks here."""
    n = len(counts)
    avgdl = math.fsum(length for _, length in counts) / n
    qtfs: dict[str, int] = {}
    for t in tokenize(query):
        qtfs[t] = qtfs.get(t, 0) + 1
    scores: dict[int, float] = {}
    for term, qtf in qtfs.items():
        df = sum(1 for tf, _ in counts if term in tf)
        if not df:
            continue
        idf = math.log(1.0 + (n - df + 0.5) / (df + 0.5))
        for d, (tf, length) in enumerate(counts):
            if term in tf:
                f = tf[term]
                w = idf * f / (f + k1 * (1.0 - b + b * length / avgdl))
                scores[d] = scores.get(d, 0.0) + (w if qtf == 1 else qtf * w)

    def order(x: tuple[int, float], y: tuple[int, float]) -> int:
        if x[1] != y[1]:
            return -1 if x[1] > y[1] else 1
        if newer[x[0]] != newer[y[0]]:
            return -1 if newer[x[0]] > newer[y[0]] else 1
        return x[0] - y[0]

    items = sorted(((d, s) for d, s in scores.items() if allowed[d]),
                   key=functools.cmp_to_key(order))
    return items[:k]


@settings(max_examples=120, deadline=None)
@given(docs=corpora(), data=st.data())
def test_pruned_top_k_is_the_exhaustive_top_k_bit_for_bit(docs: list[tuple[str, str]],
                                                         data: st.DataObject) -> None:
    """Ids and float scores identical to exhaustive BM25 (== on floats), whether MaxScore
    settles or gives up, split into segments or not, with masks and date ties. Catches: a
    bound that ignores qtf, a candidate dropped at a tie with the k-th score, exact scores
    summed in another order than the query's."""
    counts = documents_terms(docs)
    n = len(docs)
    query = " ".join(data.draw(st.lists(st.sampled_from(COMMON + RARE + MID), min_size=1,
                                        max_size=6)))
    k = data.draw(st.integers(1, 12))
    allowed = bytes(data.draw(st.lists(st.sampled_from([0, 1, 1, 1]), min_size=n,
                                       max_size=n)))
    newer = data.draw(st.lists(st.sampled_from(["", "2026-01-01", "2026-02-01"]), min_size=n,
                               max_size=n))
    cut = data.draw(st.integers(0, n))
    whole = BM25Index.from_counts(counts)
    split = BM25Index.merge([BM25Index.from_counts(counts[:cut]),
                             BM25Index.from_counts(counts[cut:])])
    expected = _textbook_top(counts, query, k, allowed, newer)
    for index in (whole, split):
        assert index.top(query, k, allowed=allowed, newer=newer) == expected


def test_maxscore_settles_on_a_query_with_a_rare_term() -> None:
    """The pruned path is taken (and right) where it should be: a rare term among common
    ones; and not on common words alone."""
    docs = [(f"note {i}", "import token method option " + ("zebra " if i % 97 == 0 else "")
             + " ".join(f"w{(i * j) % 50}" for j in range(5))) for i in range(800)]
    counts = documents_terms(docs)
    index = BM25Index.from_counts(counts)
    allowed = b"\x01" * len(docs)
    newer = [""] * len(docs)
    for query in ("zebra import token", "zebra w3 option"):
        terms = index._query_terms(query)
        assert index._pruned(terms, 5, allowed) is not None
        assert index.top(query, 5, allowed=allowed, newer=newer) == \
            _textbook_top(counts, query, 5, allowed, newer)
    assert index._pruned(index._query_terms("import token method option"), 5, allowed) is None
