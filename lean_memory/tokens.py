"""A fast, standard-library estimate of how many tokens a text costs a model (SPEC section 6).

Real tokenizers (byte-pair encodings such as OpenAI's ``o200k_base`` and ``cl100k_base``, and
Claude's) first cut text into pre-tokens -- words with their leading space, runs of at most three
digits, runs of punctuation, runs of whitespace -- and then merge bytes inside each piece. So a
text's cost is close to a weighted count of such pieces, which a few compiled regular-expression
passes (``len(pattern.findall(text))``, no per-character Python loop) can count:

====================  ====== ==============================================================
feature               weight why
====================  ====== ==============================================================
ASCII words           1.03   common words are one token; split o200k-style, so ``HTTPServer``
                             is ``HTTP`` + ``Server`` and ``snake_case`` parts count apart
long-word letters     0.07   letters past the 6th of a word: rare or long identifiers split
                             into sub-word pieces
digit groups          1.21   numbers are cut into groups of at most 3 digits
spaced numbers        1.20   a number does not take the space before it: that space is a token
punctuation           0.61   a punctuation character, or a run of one repeated (``-----``);
                             common pairs such as ``()`` or ``",`` merge, hence below 1
joints                -0.43  ``.``, ``_``, ``#``, ``@``, ``$`` right before a word (``.py``,
                             ``_id``, ``#define``): usually merged into the word's token
line breaks           1.17   a run of line breaks (``\\n``, ``\\r\\n``)
indents               0.41   a run of 2+ spaces or tabs
CJK characters        0.87   Han and kana: about one token per character
Hangul characters     0.97
accented Latin        1.41   an accent usually breaks a word into more pieces
other-script words    2.69   Cyrillic, Greek, Arabic, ... words cost a few tokens each
symbol bytes          0.80   other non-ASCII (symbols, emoji): byte-level, per extra UTF-8 byte
====================  ====== ==============================================================

The weights were fitted by least squares on the relative error (each kind of text weighing the
same) on the train half of a mixed corpus, against the geometric mean of ``o200k_base`` and
``cl100k_base`` -- so the estimate sits between the two instead of following one encoding's
quirks -- and rounded. ``bench/tokens`` rebuilds the corpus, refits (``fit.py``) and reports the
error on the held-out half per kind and per shard against both encodings, and the throughput
(``bench.py``). The estimate is weakest on non-English text, where the two encodings themselves
differ by 10-70 %: there it lands near the costlier ``cl100k_base`` count.
"""

from __future__ import annotations

import functools

from ._lazyre import lazy

TYPE_CHECKING = False  # typing's own costs an import; re is imported on a pattern's first use
if TYPE_CHECKING:
    import re

__all__ = ["estimate_tokens"]

# One compiled pattern per feature, counted with ``len(pattern.findall(text))`` (runs in C).
_CJK_RANGES = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef"
_HANGUL_RANGES = "\u1100-\u11ff\u3130-\u318f\uac00-\ud7af"
_WORD = lazy(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")
_LONG = lazy(r"[A-Za-z]{7,}")
_DIGITS = lazy(r"[0-9]{1,3}")
# a punctuation character, or a run of the same one ("----", "====", "**"): merged into one token
_PUNCT = lazy(r"([!-/:-@\[-`{-~])\1*")
# a space before a digit: numbers do not take the space before them, so it is a token of its own
_SPACE_DIGIT = lazy(r" [0-9]")
# an identifier or path joint glued to the word after it (".py", "_id", "#define", "@property",
# "$HOME"): the tokenizers' pre-tokens attach one punctuation character to the word after it, and
# these joints are so common that the pair is usually a single token
_JOINT = lazy(r"[._#@$](?=[A-Za-z])")
_NEWLINES = lazy(r"[\r\n]+")
_INDENT = lazy(r"[ \t]{2,}")
_LATIN_EXT = lazy(r"[\u00c0-\u024f]")
# Non-ASCII that none of the script patterns counts: Latin-1 and Latin Extended, general
# punctuation (dashes, curly quotes, "…", "·"), currency, arrows, box drawing. A text whose
# only non-ASCII is of these (our own rendered Markdown, most English notes) skips compiling
# the large Unicode classes; the counts are the same either way (checked by a test).
_PLAIN_NON_ASCII = "\u0080-\u024f\u2000-\u206f\u20a0-\u20cf\u2190-\u21ff\u2500-\u257f"
_BEYOND_PLAIN = lazy(f"[^\x00-\x7f{_PLAIN_NON_ASCII}]")
# letters of other scripts (Cyrillic, Greek, Arabic, Hebrew, Devanagari, ...)
_SCRIPT = f"[^\\W\\d_\\x00-\\u024f{_CJK_RANGES}{_HANGUL_RANGES}]"


@functools.cache
def _non_ascii_patterns() -> tuple[re.Pattern[str], ...]:
    """CJK, Hangul, other-script letter and word patterns, compiled on first use.

    Their large Unicode classes take ~15 ms to compile, which ASCII-only users never pay.
    """
    return (
        lazy(f"[{_CJK_RANGES}]"),
        lazy(f"[{_HANGUL_RANGES}]"),
        lazy(_SCRIPT),
        lazy(_SCRIPT + "+"),
    )


# the names of the features, in the order of ``_features`` and ``_WEIGHTS``
_FEATURE_NAMES = (
    "ascii_words",
    "long_word_letters",
    "digit_groups",
    "spaced_numbers",
    "punctuation",
    "joints",
    "line_breaks",
    "indents",
    "cjk_chars",
    "hangul_chars",
    "accented_latin",
    "other_script_words",
    "symbol_bytes",
)


def _features(text: str) -> tuple[float, ...]:
    """The feature counts of ``text`` (the order matches ``_FEATURE_NAMES`` and ``_WEIGHTS``)."""
    long_words = _LONG.findall(text)
    long_extra = sum(map(len, long_words)) - 6 * len(long_words)
    n_cjk = n_hangul = n_latin_ext = n_script_words = n_symbol_bytes = 0
    if not text.isascii():  # the non-ASCII passes are skipped for plain ASCII (most texts)
        n_latin_ext = len(_LATIN_EXT.findall(text))
        n_script = 0
        if _BEYOND_PLAIN.search(text) is not None:
            cjk, hangul, script_letter, script_word = _non_ascii_patterns()
            n_cjk = len(cjk.findall(text))
            n_hangul = len(hangul.findall(text))
            n_script = len(script_letter.findall(text))
            n_script_words = len(script_word.findall(text))
        # the remaining non-ASCII characters (symbols, emoji, ...) by their extra UTF-8 bytes: the
        # letters above take 1 (Latin, Cyrillic, Greek...) or 2 (CJK, Hangul) extra bytes each
        extra_bytes = len(text.encode("utf-8", "surrogatepass")) - len(text)
        n_symbol_bytes = max(0, extra_bytes - n_latin_ext - n_script - 2 * (n_cjk + n_hangul))
    return (
        float(len(_WORD.findall(text))),
        float(long_extra),
        float(len(_DIGITS.findall(text))),
        float(len(_SPACE_DIGIT.findall(text))),
        float(len(_PUNCT.findall(text))),
        float(len(_JOINT.findall(text))),
        float(len(_NEWLINES.findall(text))),
        float(len(_INDENT.findall(text))),
        float(n_cjk),
        float(n_hangul),
        float(n_latin_ext),
        float(n_script_words),
        float(n_symbol_bytes),
    )


# fitted by bench/tokens/fit.py (train half), rounded to 2 decimals
_WEIGHTS: tuple[float, ...] = (
    1.03,  # ascii_words
    0.07,  # long_word_letters
    1.21,  # digit_groups
    1.20,  # spaced_numbers
    0.61,  # punctuation
    -0.43,  # joints
    1.17,  # line_breaks
    0.41,  # indents
    0.87,  # cjk_chars
    0.97,  # hangul_chars
    1.41,  # accented_latin
    2.69,  # other_script_words
    0.80,  # symbol_bytes
)


def estimate_tokens(text: str) -> int:
    """Estimate the tokens ``text`` costs: 0 for ``""``, at least 1 for any non-empty text."""
    if not text:
        return 0
    total = sum(w * f for w, f in zip(_WEIGHTS, _features(text), strict=True))
    return max(1, round(total))
