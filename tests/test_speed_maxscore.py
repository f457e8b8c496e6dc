"""MaxScore gives exactly the exhaustive top k: same documents, same order, bit-identical
scores (issue 24, item 4; ADR 0024).

``BM25Index.top`` stops OR-ing postings once the terms left cannot lift an unseen document
into the top k, then rescores the candidates in the query's order. Checked against the
exhaustive scorer on random corpora (one or several segments), queries, masks, tie keys and
k, with the rarity threshold forced low so pruning is tried on every query. Fails on the old
code (no ``_pruned``) and on any bound, margin or rescoring order that changes a result.
"""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lean_memory import bm25
from lean_memory.bm25 import BM25Index

# A skewed vocabulary: a few words in most documents, many in one or two.
_WORDS = [f"common{i}" for i in range(4)] + [f"mid{i}" for i in range(12)] + \
         [f"rare{i}" for i in range(60)]
_WEIGHTS = [40] * 4 + [8] * 12 + [1] * 60


def _skewed(draw: st.DrawFn, n: int) -> str:
    rnd = random.Random(draw(st.integers(0, 2**32)))
    return " ".join(rnd.choices(_WORDS, _WEIGHTS, k=n))


@st.composite
def corpora(draw: st.DrawFn) -> tuple[list[tuple[str, str]], int]:
    n = draw(st.integers(1, 150))
    texts = [(_skewed(draw, 2) if draw(st.booleans()) else "", _skewed(draw, draw(
        st.integers(1, 30)))) for _ in range(n)]
    return texts, draw(st.integers(1, 4))  # documents, segments


@given(corpora(), st.lists(st.sampled_from(_WORDS), min_size=1, max_size=6).map(" ".join),
       st.integers(1, 12), st.sampled_from([1, 2, 8, 64]), st.data())
@settings(max_examples=300, deadline=None)
def test_top_k_equals_exhaustive(corpus: tuple[list[tuple[str, str]], int], query: str,
                                 k: int, rare: int, data: st.DataObject) -> None:
    texts, parts = corpus
    cut = [len(texts) * i // parts for i in range(parts + 1)]
    index = BM25Index.merge([BM25Index.build(texts[a:b]) for a, b in itertools.pairwise(cut)
                             if b > a])
    n = len(index)
    mask = data.draw(st.one_of(st.none(), st.binary(min_size=n, max_size=n).map(
        lambda raw: bytes(x & 1 for x in raw)), st.sets(st.integers(0, n - 1))))
    newer = data.draw(st.one_of(st.none(), st.lists(st.sampled_from(["2026-01", "2026-02"]),
                                                    min_size=n, max_size=n)))
    with pytest.MonkeyPatch.context() as m:
        m.setattr(bm25, "_RARE", rare)
        pruned = index.top(query, k, allowed=mask, newer=newer)
        m.setattr(BM25Index, "_pruned", lambda *_: None)
        exhaustive = index.top(query, k, allowed=mask, newer=newer)
    assert pruned == exhaustive  # ids, order and float scores, bit for bit


def test_pruning_skips_common_postings() -> None:
    """A query with a rare term: the common term's postings are not OR-ed."""
    texts = [("", "common word here")] * 500 + [("rare", "rare common word")] * 3
    index = BM25Index.build(texts)
    terms = index._query_terms("rare common")
    assert index._pruned(terms, 3, None) is not None
    assert index.top("rare common", 3) == \
        sorted(index.score("rare common").items(), key=lambda x: (-x[1], x[0]))[:3]
