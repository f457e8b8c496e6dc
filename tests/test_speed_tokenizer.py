"""The query tokenizer's str-method splits give exactly what the regexes gave (issue 24, item 2).

``bm25`` finds chunks, identifier parts, case boundaries and path segments of ASCII text with
str methods so that a query imports no ``re``; each helper is checked against the regex it
replaces, and ``tokenize`` end to end against itself with the regexes patched back in. Fails
on the old code (no such helpers) and on any split that differs from the regex by one token.
"""

from __future__ import annotations

import re
import subprocess
import sys
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lean_memory import bm25
from lean_memory._stem import stem

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


# -- an oracle of the whole tokenizer, sharing no code path with it (issue 37) ----------------
# The tokenizer as the regexes first wrote it (before the plain-word and identifier
# shortcuts): every chunk goes through the same identifier rule, so a word of one letter is
# dropped the same way on every path. Only data is shared (the stop words, the bound
# prefixes) and the Porter stemmer, which no shortcut touches.

_O_CHUNK = re.compile(r"\w+(?:[./\\:@+#-]+\w+)*")
_O_POSSESSIVE = re.compile(r"(?<=\w)['\u2019\u02bc][sS]\b")
_O_APOSTROPHE = re.compile(r"(?<=\w)['\u2019\u02bc](?=\w)")
_O_ALNUM = re.compile(r"[^\W_]+")
_O_PATH_SEP = re.compile(r"[./\\:@+#]+")
_O_COMPONENT_SEP = re.compile(r"[/\\:@]+")
# A word after a run of capitals or a digit starts with a capital and a lowercase letter, but
# a capital and a lone "s" is an acronym's plural (GPUs), not a word.
_O_WORD_START = r"[A-Z](?:[a-rt-z]|s[a-z])"
_O_CASE = re.compile(
    rf"(?<=[a-z])(?=[A-Z])|(?<=[A-Z]{{2}})(?={_O_WORD_START})|(?<=\d)(?={_O_WORD_START})")
_O_STEMMABLE = re.compile(r"[a-z]+")


def _o_stem(word: str) -> str:
    return stem(word) if _O_STEMMABLE.fullmatch(word) else word


def oracle_tokenize(text: str) -> list[str]:
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text)
    text = _O_APOSTROPHE.sub("", _O_POSSESSIVE.sub("", text))
    out: list[str] = []
    for chunk in _O_CHUNK.findall(text):
        segments = _O_PATH_SEP.split(chunk)
        if len(segments) > 1:
            out.append(chunk.lower())
            components = _O_COMPONENT_SEP.split(chunk.lower())
            if len(components) > 1:
                out += [c for c in components if "." in c]
        for segment in segments:
            words = [w.lower() for piece in _O_ALNUM.findall(segment)
                     for w in _O_CASE.split(piece)]
            if len(words) > 1:
                out.append(_o_stem("".join(words)))
                words = [w for w in words if w not in bm25._BOUND_PREFIXES]
            out += [_o_stem(w) for w in words
                    if w not in bm25.STOP_WORDS and (len(w) > 1 or w.isdigit())]
    return out


# Words of one to three letters (every case style), digits and names, so that one-letter
# words come up on every path: alone, capitalised, in identifiers and in paths.
_WORDS = ["a", "b", "x", "Q", "é", "É", "7", "I", "ab", "Ab", "AB", "xyz", "deploy", "Deploy",
          "parseConfig", "x_y", "a-b", "x.y", "lib/x.js", "v2", "3.11", "ß", "中", "ⅷ", "it's"]
word_texts = st.lists(st.one_of(st.sampled_from(_WORDS), texts), max_size=12).map(" ".join)


@pytest.mark.parametrize(("text", "expected"), [
    ("x", []), ("Q", []), ("é", []), ("É", []), ("x y z", []), ("b deploy", ["deploi"]),
    ("7", ["7"]), ("x-ray", ["xrai", "rai"]), ("x_y", ["xy"]), ("lib/x.js", ["lib/x.js", "x.js",
                                                                             "lib", "js"]),
])
def test_one_letter_words_are_not_tokens_on_any_path(text: str, expected: list[str]) -> None:
    """Catches: a one-letter word kept as a token on the plain-word path (or any other): it
    would match every note that has the letter as a word, by hand and by the oracle."""
    bm25.clear_memos()
    assert bm25.tokenize(text) == expected == oracle_tokenize(text)


@given(st.one_of(texts, word_texts))
@settings(max_examples=400, deadline=None)
def test_tokenize_matches_an_independent_oracle(text: str) -> None:
    """Catches: a shortcut (plain words, identifiers, paths) that tokenises differently from
    the rule every path once shared; the oracle above shares no code path with bm25."""
    bm25.clear_memos()
    assert bm25.tokenize(text) == oracle_tokenize(text)
