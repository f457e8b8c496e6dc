"""The token estimate's features are counted without ``re`` (translate tables and
``bytes.count``); the regular expressions they were fitted with are the definition, kept here
as the oracle: every count must be theirs, on any text."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from lean_memory import tokens
from lean_memory.tokens import estimate_tokens

_CJK_RANGES = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef"
_HANGUL_RANGES = "\u1100-\u11ff\u3130-\u318f\uac00-\ud7af"
_PLAIN_NON_ASCII = "\u0080-\u024f\u2000-\u206f\u20a0-\u20cf\u2190-\u21ff\u2500-\u257f"
_SCRIPT = f"[^\\W\\d_\\x00-\\u024f{_CJK_RANGES}{_HANGUL_RANGES}]"
WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")
LONG = re.compile(r"[A-Za-z]{7,}")
DIGITS = re.compile(r"[0-9]{1,3}")
PUNCT = re.compile(r"([!-/:-@\[-`{-~])\1*")
SPACE_DIGIT = re.compile(r" [0-9]")
JOINT = re.compile(r"[._#@$](?=[A-Za-z])")
NEWLINES = re.compile(r"[\r\n]+")
INDENT = re.compile(r"[ \t]{2,}")
LATIN_EXT = re.compile(r"[\u00c0-\u024f]")
BEYOND_PLAIN = re.compile(f"[^\x00-\x7f{_PLAIN_NON_ASCII}]")
CJK = re.compile(f"[{_CJK_RANGES}]")
HANGUL = re.compile(f"[{_HANGUL_RANGES}]")
SCRIPT = re.compile(_SCRIPT)
SCRIPT_WORD = re.compile(_SCRIPT + "+")


def oracle(text: str) -> tuple[float, ...]:
    """The features as the regex version (lean_memory 0.x before issue 24) counted them."""
    long_words = LONG.findall(text)
    long_extra = sum(map(len, long_words)) - 6 * len(long_words)
    n_cjk = n_hangul = n_latin_ext = n_script_words = n_symbol_bytes = 0
    if not text.isascii():
        n_latin_ext = len(LATIN_EXT.findall(text))
        n_script = 0
        if BEYOND_PLAIN.search(text) is not None:
            n_cjk = len(CJK.findall(text))
            n_hangul = len(HANGUL.findall(text))
            n_script = len(SCRIPT.findall(text))
            n_script_words = len(SCRIPT_WORD.findall(text))
        extra_bytes = len(text.encode("utf-8", "surrogatepass")) - len(text)
        n_symbol_bytes = max(0, extra_bytes - n_latin_ext - n_script - 2 * (n_cjk + n_hangul))
    return tuple(float(x) for x in (
        len(WORD.findall(text)), long_extra, len(DIGITS.findall(text)),
        len(SPACE_DIGIT.findall(text)), len(PUNCT.findall(text)), len(JOINT.findall(text)),
        len(NEWLINES.findall(text)), len(INDENT.findall(text)), n_cjk, n_hangul, n_latin_ext,
        n_script_words, n_symbol_bytes))


# Characters the features tell apart, and their neighbours: ASCII classes and their edges,
# the plain non-ASCII ranges and the bytes just past them, other scripts, surrogates, emoji.
_EDGES = "".join(chr(c) for lo, hi in (
    (0x00, 0x7F), (0xBF, 0xC1), (0x23F, 0x252), (0x7FF, 0x801), (0x1FFF, 0x2001),
    (0x206E, 0x2071), (0x209F, 0x20A1), (0x20CE, 0x20D1), (0x218F, 0x2191), (0x21FE, 0x2201),
    (0x24FF, 0x2501), (0x257E, 0x2581), (0xD7FF, 0xD801), (0xFFFE, 0xFFFF)) for c in
    range(lo, hi + 1)) + "…—éÉžɏɐ日本語한국어привет😀\U0010ffff"
texts = st.one_of(
    st.text(alphabet=st.sampled_from("aAzZbB09 \t\r\n.-_#@$=*()`~!/:;[]{}|"), max_size=80),
    st.text(alphabet=st.sampled_from(_EDGES), max_size=60),
    st.text(max_size=60),
)


@settings(max_examples=1500, deadline=None)
@given(texts)
def test_the_features_are_the_regular_expressions_counts(text: str) -> None:
    assert tokens._features(text) == oracle(text)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["HTTPServer", "snake_case", "x.py", "  ", "\r\n", "----",
                                 "-=", "3.11", " 2024", "Ab", "aBc", "ABc", "…", "é",
                                 "日本", "привет", "😀", "\ud800", "ɐ", "ɏ"]), max_size=30))
def test_the_features_of_glued_pieces(parts: list[str]) -> None:
    text = "".join(parts)
    assert tokens._features(text) == oracle(text)


def test_every_character_alone_and_doubled() -> None:
    """Each code point below U+3000 (and the surrogates), alone, doubled and between
    letters: the byte classes and the plain-range test agree with the oracle."""
    for cp in [*range(0x3000), *range(0xD7F0, 0xE010)]:
        ch = chr(cp)
        for text in (ch, ch + ch, f"a{ch}b", f" {ch}1"):
            assert tokens._features(text) == oracle(text), hex(cp)


def test_the_estimate_needs_no_re_for_plain_text() -> None:
    import subprocess
    import sys

    code = ("import sys; from lean_memory.tokens import estimate_tokens as e; "
            "e('HTTPServer snake_case x.py 3.11 ---- \\u2026 \\u00e9 \\u2014 \\u2192'); "
            "print('re' in sys.modules)")
    out = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "False"
    assert estimate_tokens("") == 0
