"""Tokenizer ablations: each variant switches one design choice of ``lean_memory.bm25.tokenize``.

Variants patch module globals for the duration of a call, which is good enough for a benchmark
and keeps the library free of knobs nobody needs.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

from common import Corpus, lean_ranker

from lean_memory import bm25


@contextlib.contextmanager
def patched(**attrs: Any) -> Iterator[None]:
    old = {k: getattr(bm25, k) for k in attrs}
    for k, v in attrs.items():
        setattr(bm25, k, v)
    bm25.clear_memos()  # tokens memoised under other settings would leak into this variant
    try:
        yield
    finally:
        for k, v in old.items():
            setattr(bm25, k, v)
        bm25.clear_memos()


def s_stem(word: str) -> str:
    """Harman's S-stemmer: plurals only (a lighter alternative to Porter)."""
    if len(word) > 3 and word.endswith("ies") and not word.endswith(("eies", "aies")):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("es") and not word.endswith(("aes", "ees", "oes")):
        return word[:-1]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("us", "ss")):
        return word[:-1]
    return word


def variant(label: str, **attrs: Any) -> tuple[str, str, Callable[[Corpus], Any]]:
    base = lean_ranker()

    def make(corpus: Corpus) -> Any:
        with patched(**attrs):
            search = base(corpus)

        def run(q: str) -> list[int]:
            with patched(**attrs):
                return search(q)

        return run

    return (f"lean_memory {label}", "ablation", make)


def words_only(chunk: str) -> tuple[str, ...]:
    """Parts only: no whole names, path components or joined identifiers."""
    out: list[str] = []
    for segment in bm25._PATH_SEP.split(chunk):
        words = [w.lower() for p in bm25._ALNUM.findall(segment) for w in bm25._CASE_SPLIT.split(p)]
        out.extend(
            bm25._norm_word(w)
            for w in words
            if w not in bm25.STOP_WORDS and (len(w) > 1 or w.isdigit())
        )
    return tuple(out)


def ablation_systems() -> list[tuple[str, str, Any]]:
    import Stemmer

    snowball = Stemmer.Stemmer("english").stemWord
    return [
        variant("no stemmer", _porter_stem=lambda w: w),
        variant("S-stemmer (plurals only)", _porter_stem=s_stem),
        variant("Snowball (PyStemmer) instead of own Porter", _porter_stem=snowball),
        variant("Lucene-33 stop set", STOP_WORDS=bm25.LUCENE_STOP_WORDS),
        variant("no stop words", STOP_WORDS=frozenset()),
        variant("words only (no whole names/joined identifiers)", _chunk_tokens=words_only),
        variant("no bound-prefix rule", _BOUND_PREFIXES=frozenset()),
        ("lean_memory k1=1.5", "lean_memory", lean_ranker(k1=1.5)),
        ("lean_memory k1=0.9 b=0.4", "lean_memory", lean_ranker(k1=0.9, b=0.4)),
    ]
