"""The query tokenizer's str-method splits give exactly what the regexes gave (issue 24, item 2).

``bm25`` finds chunks, identifier parts, case boundaries and path segments of ASCII text with
str methods so that a query imports no ``re``; each helper is checked against the regex it
replaces, and ``tokenize`` end to end against itself with the regexes patched back in. Fails
on the old code (no such helpers) and on any split that differs from the regex by one token.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lean_memory import bm25

from .conftest import ROOT

# Letters of both cases, digits (ASCII, other decimal, numeric only), the connectors, the
# apostrophes, punctuation and a few non-ASCII letters: every class the splits look at.
_ALPHABET = "aAbBzZqQxX0159_-./\\:@+#'\u2019,;()[]{}\"!?=*&%$<>|~`^" \
            "\u00e9\u00c9\u0663\u2167\u00b2\u4e2d\u00df"
_ASCII = "".join(c for c in _ALPHABET if c.isascii())
texts = st.text(alphabet=_ALPHABET + " \n\t", max_size=60)
ascii_pieces = st.text(alphabet=_ASCII, min_size=1, max_size=30)
alnum = st.text(alphabet=[c for c in _ALPHABET if c.isalnum()], min_size=1, max_size=20)
segments = st.text(alphabet=[c for c in _ALPHABET if c.isalnum() or c in "_-"], min_size=1,
                   max_size=20)


@given(ascii_pieces)
@settings(max_examples=400, deadline=None)
def test_chunks_match_the_chunk_regex(piece: str) -> None:
    assert bm25._ascii_chunks(piece) == bm25._CHUNK.findall(piece)


@given(alnum)
@settings(max_examples=400, deadline=None)
def test_case_split_matches_the_regex(piece: str) -> None:
    assert bm25._case_split(piece) == bm25._CASE_SPLIT.split(piece)


@given(segments)
@settings(max_examples=300, deadline=None)
def test_identifier_parts_match_the_alnum_regex(segment: str) -> None:
    assert bm25._alnum_runs(segment) == bm25._ALNUM.findall(segment)


@given(texts)
@settings(max_examples=300, deadline=None)
def test_path_segments_match_the_separator_regex(text: str) -> None:
    for chunk in bm25._CHUNK.findall(text):
        assert bm25._path_segments(chunk) == bm25._PATH_SEP.split(chunk)


@contextmanager
def _regexes() -> Iterator[None]:
    """The tokenizer as it was: every split by its regex."""
    with pytest.MonkeyPatch.context() as m:
        m.setattr(bm25, "_ascii_chunks", bm25._CHUNK.findall)
        m.setattr(bm25, "_alnum_runs", bm25._ALNUM.findall)
        m.setattr(bm25, "_path_segments", bm25._PATH_SEP.split)
        m.setattr(bm25, "_case_split", bm25._CASE_SPLIT.split)
        bm25.clear_memos()
        try:
            yield
        finally:
            bm25.clear_memos()


@given(texts)
@settings(max_examples=300, deadline=None)
def test_tokenize_matches_the_regex_tokenizer(text: str) -> None:
    bm25.clear_memos()
    ours = bm25.tokenize(text)
    with _regexes():
        assert ours == bm25.tokenize(text)


def test_an_ascii_query_imports_no_re() -> None:
    """Tokenising an ASCII query (identifiers, paths, versions, camelCase) compiles nothing."""
    code = ("import sys; sys.modules['re'] = None\n"  # any import of re now raises
            "from lean_memory import bm25\n"
            "print(bm25.tokenize('why does parse_config fail with ECONNREFUSED after the "
            "upgrade to 3.11, see lib/vault/digest.js and HTTPServer.parseConfig()?'))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, check=False, env={"PYTHONPATH": str(ROOT)})
    assert proc.returncode == 0, proc.stderr[-300:]
    assert "'lib/vault/digest.js'" in proc.stdout
