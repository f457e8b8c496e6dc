"""A fast, standard-library estimate of how many tokens a text costs a model (SPEC section 6).

Real tokenizers (byte-pair encodings such as OpenAI's ``o200k_base`` and ``cl100k_base``, and
Claude's) first cut text into pre-tokens -- words with their leading space, runs of at most three
digits, runs of punctuation, runs of whitespace -- and then merge bytes inside each piece. So a
text's cost is close to a weighted count of such pieces, which a few passes in C (translate
tables and ``bytes.count``, no per-character Python loop and no ``re`` for plain text) can count:

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

from ._record import lazy

TYPE_CHECKING = False  # typing's own costs an import; re is imported on a pattern's first use
if TYPE_CHECKING:
    import re

__all__ = ["estimate_tokens"]

# The features of plain text are counted without ``re`` (its import and a dozen compiles cost
# more than the count itself): the text's UTF-8 bytes are mapped to a class letter each by one
# translate table per feature, then counted with ``bytes.count`` and ``bytes.split`` (in C).
# Every such feature's characters are ASCII, so a non-ASCII character (bytes >= 0x80) counts
# as the regular expressions of the fit saw it: a character of none of the classes. Those
# expressions, the definition, are kept in tests/test_tokens_bytes.py, which checks the counts
# against them on random text:
#   ascii_words        [A-Z]?[a-z]+|[A-Z]+(?![a-z])      long words     [A-Za-z]{7,}
#   digit_groups       [0-9]{1,3}                          spaced_numbers " [0-9]"
#   punctuation        ([!-/:-@\[-`{-~])\1*                joints         [._#@$](?=[A-Za-z])
#   line_breaks        [\r\n]+                              indents        [ \t]{2,}
#   accented_latin     [\u00c0-\u024f]
_CJK_RANGES = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef"
_HANGUL_RANGES = "\u1100-\u11ff\u3130-\u318f\uac00-\ud7af"
# Non-ASCII that none of the script patterns counts: Latin-1 and Latin Extended, general
# punctuation (dashes, curly quotes, "…", "·"), currency, arrows, box drawing. A text whose
# only non-ASCII is of these (our own rendered Markdown, most English notes) skips compiling
# the large Unicode classes; the counts are the same either way (checked by a test).
_PLAIN_NON_ASCII = "\u0080-\u024f\u2000-\u206f\u20a0-\u20cf\u2190-\u21ff\u2500-\u257f"
# letters of other scripts (Cyrillic, Greek, Arabic, Hebrew, Devanagari, ...)
_SCRIPT = f"[^\\W\\d_\\x00-\\u024f{_CJK_RANGES}{_HANGUL_RANGES}]"
_SCRIPT_PATTERNS: list[re.Pattern[str]] = []


def _non_ascii_patterns() -> tuple[re.Pattern[str], ...]:
    """CJK, Hangul, other-script letter and word patterns, compiled on first use.

    Their large Unicode classes take ~15 ms to compile, which ASCII-only users never pay.
    """
    if not _SCRIPT_PATTERNS:
        _SCRIPT_PATTERNS.extend((
            lazy(f"[{_CJK_RANGES}]"),
            lazy(f"[{_HANGUL_RANGES}]"),
            lazy(_SCRIPT),
            lazy(_SCRIPT + "+"),
        ))
    return tuple(_SCRIPT_PATTERNS)


def _table(classes: dict[bytes, bytes], other: bytes = b" ") -> bytes:
    table = bytearray(other * 256)
    for chars, mark in classes.items():
        for byte in chars:
            table[byte] = mark[0]
    return bytes(table)


def _span(first: str, last: str) -> bytes:
    return bytes(range(ord(first), ord(last) + 1))


_LOWER = _span("a", "z")
_UPPER = _span("A", "Z")
_DIGIT = _span("0", "9")
_PUNCT_CHARS = _span("!", "/") + _span(":", "@") + _span("[", "`") + _span("{", "~")
_LETTER = _table({_LOWER + _UPPER: b"\x01"}, b"\x00")
_CASE = _table({_LOWER: b"a", _UPPER: b"A"})  # the runs of a word's case
_DIGITS = _table({_DIGIT: b"0"})
# a space before a digit: numbers do not take the space before them, so it is a token of its own
_SPACED = _table({b" ": b" ", _DIGIT: b"0"}, b"x")
# a punctuation character, or a run of the same one ("----", "====", "**"): merged into one token
_PUNCT = _table({_PUNCT_CHARS: b"\x01"}, b"\x00")
_SAME = _table({b"\x00": b"\x01"}, b"\x00")  # a zero byte (the same as the one before) -> 1
# an identifier or path joint glued to the word after it (".py", "_id", "#define", "@property",
# "$HOME"): the tokenizers' pre-tokens attach one punctuation character to the word after it, and
# these joints are so common that the pair is usually a single token
_JOINT = _table({b"._#@$": b"j", _LOWER + _UPPER: b"a"})
_NEWLINE = _table({b"\r\n": b"n"})
_BLANK = _table({b" \t": b"b"})
# Lead bytes of U+00C0-U+023F (UTF-8 C3-C8); U+0240-U+024F are C9 80-C9 8F.
_NOT_LATIN_EXT = bytes(range(0xC3)) + bytes(range(0xC9, 256))
# What is left of a text's UTF-8 without ASCII, continuation bytes and the leads of
# U+0080-U+023F: the lead bytes of the characters _beyond_plain must look at.
_PLAIN_BYTES = bytes(range(0xC0)) + bytes(range(0xC2, 0xC9))
_PLAIN_RANGES = ((0x2000, 0x206F), (0x20A0, 0x20CF), (0x2190, 0x21FF), (0x2500, 0x257F))


def _runs(marked: bytes, mark: bytes) -> int:
    """How many runs of ``mark`` (one class letter) ``marked`` holds."""
    return (b" " + marked).count(b" " + mark)


def _latin_ext(data: bytes) -> int:
    """Characters in U+00C0-U+024F (accented Latin), from the UTF-8 ``data``."""
    count = len(data.translate(None, _NOT_LATIN_EXT))
    if b"\xc9" in data:
        count += sum(data.count(bytes((0xC9, second))) for second in range(0x80, 0x90))
    return count


def _beyond_plain(data: bytes) -> bool:
    """Whether the UTF-8 ``data`` holds a character outside ASCII and _PLAIN_NON_ASCII."""
    leads = data.translate(None, _PLAIN_BYTES)
    if not leads:
        return False
    if leads.translate(None, b"\xc9\xe2"):
        return True  # a lead byte of no plain character (CJK, Cyrillic, emoji, ...)
    at = data.find(b"\xc9")
    while at >= 0:
        if data[at + 1] >= 0x90:  # U+0250 and above
            return True
        at = data.find(b"\xc9", at + 2)
    at = data.find(b"\xe2")
    while at >= 0:
        cp = 0x2000 | (data[at + 1] & 0x3F) << 6 | data[at + 2] & 0x3F
        if not any(lo <= cp <= hi for lo, hi in _PLAIN_RANGES):
            return True
        at = data.find(b"\xe2", at + 3)
    return False


def _long_word_letters(data: bytes) -> int:
    """Letters past the 6th of each run of letters: how many letters have six letters right
    before them (one bit a byte of a big int, ANDed with itself shifted: no loop per word)."""
    value = int.from_bytes(data.translate(_LETTER), "big")
    two = value & value >> 8  # this byte and the one before are letters
    four = two & two >> 16
    return (four & four >> 24).bit_count()  # and the six before it


def _punctuation(data: bytes) -> int:
    """Runs of one repeated punctuation character (``-----`` is one; ``-=`` two)."""
    marks = data.translate(_PUNCT)
    count = marks.count(1)
    if count:
        value = int.from_bytes(data, "big")
        same = (value ^ (value >> 8)).to_bytes(len(data), "big").translate(_SAME)
        repeated = int.from_bytes(same, "big") & int.from_bytes(marks, "big")
        count -= repeated.bit_count()
    return count


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
    ascii_only = text.isascii()
    data = text.encode("ascii") if ascii_only else text.encode("utf-8", "surrogatepass")
    case = data.translate(_CASE)
    padded = b" " + case
    # a capital joins the lower-case run after it unless it ends a run of capitals
    # ("HTTPServer" is HTTP + Server): lower runs + capital runs - lone capitals before
    # lower case = these four counts
    words = padded.count(b" a") + padded.count(b" A") + padded.count(b"aA") + \
        padded.count(b"AAa")
    long_extra = _long_word_letters(data)
    digit_groups = sum((len(run) + 2) // 3 for run in data.translate(_DIGITS).split())
    n_cjk = n_hangul = n_latin_ext = n_script_words = n_symbol_bytes = 0
    if not ascii_only:  # the non-ASCII passes are skipped for plain ASCII (most texts)
        n_latin_ext = _latin_ext(data)
        n_script = 0
        if _beyond_plain(data):
            cjk, hangul, script_letter, script_word = _non_ascii_patterns()
            n_cjk = len(cjk.findall(text))
            n_hangul = len(hangul.findall(text))
            n_script = len(script_letter.findall(text))
            n_script_words = len(script_word.findall(text))
        # the remaining non-ASCII characters (symbols, emoji, ...) by their extra UTF-8 bytes: the
        # letters above take 1 (Latin, Cyrillic, Greek...) or 2 (CJK, Hangul) extra bytes each
        extra_bytes = len(data) - len(text)
        n_symbol_bytes = max(0, extra_bytes - n_latin_ext - n_script - 2 * (n_cjk + n_hangul))
    return (
        float(words),
        float(long_extra),
        float(digit_groups),
        float(data.translate(_SPACED).count(b" 0")),
        float(_punctuation(data)),
        float(data.translate(_JOINT).count(b"ja")),
        float(_runs(data.translate(_NEWLINE), b"n")),
        float((b" " + data.translate(_BLANK)).count(b" bb")),
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
