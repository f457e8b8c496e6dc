"""MaxScore with one split (ADR 0025) ranks exactly as exhaustive BM25: ids and float scores
bit for bit. Apart from tests/test_index_v2.py: these use no index file, so they need not run
once per way of reading one."""

from __future__ import annotations

import functools
import math
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lean_memory.bm25 import BM25Index, documents_terms, tokenize

# -- MaxScore -------------------------------------------------------------------------------

COMMON = ["import", "token", "method", "option"]
RARE = [f"rare{i}" for i in range(6)]
MID = [f"mid{i}" for i in range(10)]


def _doc(rng: random.Random) -> tuple[str, str]:
    """One (title, body): each common word or not, up to four mid words, now and then
    (1 in 41) one to three rare ones."""
    words = [w for w in COMMON if rng.random() < 0.5]
    words += rng.choices(MID, k=rng.randint(0, 4))
    if rng.randint(0, 40) == 0:
        words += rng.choices(RARE, k=rng.randint(1, 3))
    title = " ".join(rng.choices(COMMON + MID, k=rng.randint(0, 2)))
    return title, " ".join(words) or "empty"


# The documents a corpus is made of: 256 of them, so that a corpus is ONE draw of bytes (each
# byte picks a document) rather than ten draws per document: Hypothesis spent minutes drawing
# (and shrinking) corpora value by value. The pool is fixed, so each example still mixes
# documents with every common-word subset, repeats (exact score ties) and rare terms.
_rng = random.Random(25)
DOCS = [_doc(_rng) for _ in range(236)] + [
    (" ".join(_rng.choices(COMMON + MID, k=_rng.randint(0, 2))),
     " ".join(_rng.choices(COMMON + MID, k=3) + _rng.choices(RARE, k=_rng.randint(1, 3))))
    for _ in range(20)]
assert len(DOCS) == 256 and sum(any(r in body for r in RARE) for _, body in DOCS) >= 20
corpora = st.binary(min_size=64, max_size=260).map(lambda picks: [DOCS[i] for i in picks])
DATES = ["", "2026-01-01", "2026-02-01"]


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
@given(docs=corpora, data=st.data())
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
    # one draw of n bytes each for the mask (3 in 4 allowed) and the dates (ties likely)
    allowed = bytes(int(b % 4 != 0) for b in data.draw(st.binary(min_size=n, max_size=n)))
    newer = [DATES[b % 3] for b in data.draw(st.binary(min_size=n, max_size=n))]
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


def test_maxscore_settles_when_a_common_term_moves_to_the_light_side(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A word every entry holds, repeated, beside a word half of them hold and a rare one
    (the bench's hook prompt, ADR 0054): with both common words set aside the bound does not
    settle, so the one that can add the most is scored with the light terms, and the split
    settles; the ranking is exhaustive BM25's."""
    docs = [(f"note {i}", "import " + ("move " if i % 2 else "") + ("schema " if i % 5 == 0
             else "") + ("zebra " if i % 97 == 0 else "") + f"w{i % 50}") for i in range(800)]
    counts = documents_terms(docs)
    index = BM25Index.from_counts(counts)
    allowed = b"\x01" * len(docs)
    newer = [""] * len(docs)
    query = "import import import schema import move zebra"
    tried: list[int] = []
    settled = BM25Index._settled

    def spy(self: BM25Index, terms: Any, light: Any, heavy: Any, k: int, allowed: Any) -> Any:
        tried.append(len(heavy))
        return settled(self, terms, light, heavy, k, allowed)

    monkeypatch.setattr(BM25Index, "_settled", spy)
    assert index._pruned(index._query_terms(query), 17, allowed) is not None
    assert tried == [2, 1]
    assert index.top(query, 17, allowed=allowed, newer=newer) == \
        _textbook_top(counts, query, 17, allowed, newer)


def test_sparse_and_dense_segments_score_like_the_textbook() -> None:
    """A segment the query's postings touch sparsely keeps its scores in a dict of the
    documents touched, a dense one in a list over all of them (ADR 0053): both rank and
    score as exhaustive BM25, bit for bit, with masks and ties. Catches: a first weight
    added to something else than 0.0, a touched document lost or counted twice."""
    rng = random.Random(53)
    docs = [_doc(rng) for _ in range(300)]
    counts = documents_terms(docs)
    index = BM25Index.merge([BM25Index.from_counts(counts[:150]),
                             BM25Index.from_counts(counts[150:])])
    allowed = bytes(int(i % 5 != 0) for i in range(len(docs)))
    newer = [DATES[i % 3] for i in range(len(docs))]
    kinds = set()
    for query in ("rare0 rare1 mid2", "import token", "mid3 mid3 rare2 option",
                  "rare4 mid1 mid5 import"):
        accs, _ = index._accumulate(index._query_terms(query))
        kinds.update(type(acc) for acc in accs.values())
        for k in (1, 5, 40):
            assert index.top(query, k, allowed=allowed, newer=newer) == \
                _textbook_top(counts, query, k, allowed, newer)
    assert kinds == {dict, list}
