"""A fast, standard-library estimate of how many tokens a text costs a model (SPEC section 6).

Real tokenizers (byte-pair encodings such as OpenAI's ``o200k_base`` and ``cl100k_base``, and
Claude's) first cut text into pre-tokens -- words with their leading space, runs of at most three
digits, runs of punctuation, runs of whitespace -- and then merge bytes inside each piece. So a
text's cost is close to a weighted count of such pieces, which a few compiled regular-expression
passes (no per-character Python loop) can count:

========================  ======================================================================
feature                   why it costs tokens
========================  ======================================================================
ASCII words               one token each for common words (o200k-style split: ``HTTPServer``
                          is ``HTTP`` + ``Server``); ``camelCase`` / ``snake_case`` parts count
                          separately
long-word letters         letters past the 6th in a word: rare/long identifiers split into
                          sub-word pieces of ~4 letters
digit groups              numbers are cut into groups of at most 3 digits, one token each
punctuation               ASCII punctuation characters (``_`` included); common pairs such as
                          ``()`` or ``",`` merge, hence a weight below 1
line breaks, indents      newline runs and runs of 2+ spaces/tabs are (roughly) a token each
CJK characters            Han / kana / Hangul: close to one token per character
other scripts             Cyrillic, Greek, Arabic, accented Latin ...: a fraction per letter
other non-ASCII           symbols and emoji: byte-level, often two or more tokens each
========================  ======================================================================

The weights were fitted by least squares (relative error, each kind of text weighted equally) on
half of a mixed corpus, against the mean of ``o200k_base`` and ``cl100k_base``, then rounded; the
other half is the held-out test. ``bench/tokens`` rebuilds the corpus, reports the error per kind
and per shard against both encodings, and the throughput.
"""

from __future__ import annotations

import re

__all__ = ["estimate_tokens"]

# One compiled pattern per feature; each is counted with ``len(pattern.findall(text))``, which
# runs in C.
_CJK_RANGES = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef"
_HANGUL_RANGES = "\u1100-\u11ff\u3130-\u318f\uac00-\ud7af"
_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")
_LONG = re.compile(r"[A-Za-z]{7,}")
_DIGITS = re.compile(r"[0-9]{1,3}")
# a punctuation character, or a run of up to 8 of the same one ("----", "====", "**")
_PUNCT = re.compile(r"([!-/:-@\[-`{-~])\1{0,7}")
# a punctuation character glued to the word after it ("_id", ".get", "(self", "--name"): the
# tokenizers' pre-tokens attach it to the word, so it often costs little or nothing extra
_PREFIX = re.compile(r"[!-/:-@\[-`{-~](?=[A-Za-z])")
_NEWLINES = re.compile(r"\n+")
_INDENT = re.compile(r"[ \t]{2,}")
_CJK = re.compile(f"[{_CJK_RANGES}]")
_HANGUL = re.compile(f"[{_HANGUL_RANGES}]")
_LATIN_EXT = re.compile(r"[\u00c0-\u024f]")
# letters of other scripts (Cyrillic, Greek, Arabic, Hebrew, Devanagari, ...)
_SCRIPT = f"[^\\W\\d_\\x00-\\u024f{_CJK_RANGES}{_HANGUL_RANGES}]"
_SCRIPT_LETTER = re.compile(_SCRIPT)
_SCRIPT_WORD = re.compile(_SCRIPT + "+")


# the names of the features, in the order of ``_features`` and ``_WEIGHTS``
_FEATURE_NAMES = (
    "ascii_words",
    "long_word_letters",
    "digit_groups",
    "punctuation",
    "glued_punctuation",
    "line_breaks",
    "indents",
    "cjk_chars",
    "hangul_chars",
    "accented_latin",
    "other_script_words",
    "symbol_bytes",
)


def _features(text: str) -> tuple[float, ...]:
    """The feature counts of ``text`` (the order matches ``_WEIGHTS``)."""
    long_words = _LONG.findall(text)
    long_extra = sum(map(len, long_words)) - 6 * len(long_words)
    n_cjk = len(_CJK.findall(text))
    n_hangul = len(_HANGUL.findall(text))
    n_latin_ext = len(_LATIN_EXT.findall(text))
    n_script = len(_SCRIPT_LETTER.findall(text))
    # the remaining non-ASCII characters (symbols, emoji, ...) by their extra UTF-8 bytes: the
    # letters above take 1 (Latin, Cyrillic, Greek...) or 2 (CJK, Hangul) extra bytes each
    extra_bytes = len(text.encode("utf-8", "surrogatepass")) - len(text)
    n_symbol_bytes = max(0, extra_bytes - n_latin_ext - n_script - 2 * (n_cjk + n_hangul))
    return (
        float(len(_WORD.findall(text))),
        float(long_extra),
        float(len(_DIGITS.findall(text))),
        float(len(_PUNCT.findall(text))),
        float(len(_PREFIX.findall(text))),
        float(len(_NEWLINES.findall(text))),
        float(len(_INDENT.findall(text))),
        float(n_cjk),
        float(n_hangul),
        float(n_latin_ext),
        float(len(_SCRIPT_WORD.findall(text))),
        float(n_symbol_bytes),
    )


_WEIGHTS: tuple[float, ...] = (1.0, 0.1, 1.5, 0.5, 1.0, 0.8, 0.9, 0.9, 0.5, 0.3, 1.0, 0.8)


def estimate_tokens(text: str) -> int:
    """Estimate the tokens ``text`` costs: 0 for ``""``, at least 1 for any non-empty text."""
    if not text:
        return 0
    total = sum(w * f for w, f in zip(_WEIGHTS, _features(text), strict=True))
    return max(1, round(total))
