"""Entries said again: when a new text is the same fact again, and the "Said again" part.

A ``put`` whose text equals a live entry of the same shard once case and white space are
normalised is an exact duplicate (handled in the store). This module decides the other
case: the same words in another form. Such a text is not added as an entry; it is kept, for
people to read, under a "Said again" part appended to the body of the existing entry::

    The original body.

    <!-- lean-memory said-again -->
    **Said again:**

    > 2026-12-01: the new phrasing, quoted line by line

Search, the digest and exact-duplicate matching read :func:`main_text`, the body without
that part, so a folded text must never carry information the kept text lacks (ADR 0014).
A text therefore folds into an entry only when both have the same **content words in the
same order** (:func:`content_words`, at least one). What may differ:

* case (identifiers included), white space, punctuation, Markdown emphasis;
* inflection: plural/singular and tense endings (Porter's inflectional steps only, so
  "fails"/"failed"/"failing" are one word, "general"/"generic" are two);
* the few words that carry no fact here (``STOP_WORDS``: articles, forms of *be*, *do*
  and *have*, *of*, *and*, *that*/*this*/*it* ...); contractions are spelt out first.

Everything else is content: negations (not, no, never, n't), numbers and number words,
units (``8s``/``8ms``), versions, paths, flags (``-x``), identifiers (kept whole, never
stemmed), operators (``<``, ``>=``, ``%`` ...), and every preposition or adverb that can
turn a fact around (before/after, above/below, on/off, to/from, with/without, only,
except ...). Word order is part of the key: "A before B" never folds into "B before A".
"""

from __future__ import annotations

from ._hash import blake2b
from ._record import replace
from ._stem import _ends_cvc, _has_vowel, _measure, _step1ab
from .format import SAID_AGAIN, Entry
from .format import main_text as main_text  # its home since ADR 0039

MARKER = SAID_AGAIN
HEADER = "**Said again:**"

# Not at run time: collections.abc and functools (with collections, operator, keyword,
# reprlib) cost every put ~2 ms; the memos below are plain dicts (ADR 0040).
TYPE_CHECKING = False  # typing's own costs an import
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import TypeVar

    _V = TypeVar("_V")

# Words that state no fact of their own here: dropping or changing one never changes what
# an entry tells an agent. Deliberately short: modal verbs (must/may/should), pronouns,
# quantifiers and every preposition are content.
_STOP_TEXT = """
a an the am is are was were be been being do does did has have had of and that which
this these those it its there
"""
STOP_WORDS = frozenset(_STOP_TEXT.split())

# Contractions, spelt out before tokenising so "isn't" and "is not" are the same words
# (see _spell_contractions).
# Each starts with a space, so no token spans the seam: every token of a spelt-out ASCII
# text is still a substring of the text, or a word of these (what _cannot_match relies on).
_SPELT = {"ca": " can not", "wo": " will not", "sha": " shall not", "can": " can not",
          "s": " ", "re": " are", "ve": " have", "ll": " will", "d": " would", "m": " am"}
# A token (see _tokens): a word, number, identifier or path (inner . / : @ + - kept, so
# "v1.2", "8ms", "lib/a.py" and "core.autocrlf" are one token each), with a leading flag
# dash, dot, slash, tilde, $ or @ when it starts a token ("-x", ".env", "/etc", "$HOME");
# or an operator.
_JOINERS = frozenset("./:@+-")
_SIGILS = frozenset("~./$@#-")
_OPERATORS = frozenset("<>=\u2264\u2265\u2260\u00b1%+\u00d7\u00f7^\u2192\u2190\u21d2"
                       "\u20ac\u00a3\u00a5\u00b0")
# Words whose plural-looking end is no plural: "news" is not "new", "lens" not "len".
_UNINFLECTED = frozenset({"news", "lens", "series", "species", "ios"})


def said_again_part(text: str) -> str:
    """The "Said again" part of a body ('' when it has none)."""
    return text[len(main_text(text)):]


# Memos of the two pure functions below, emptied when full (their keys repeat: words, and
# the texts a put compares).
_WORD_KEYS: dict[str, str | None] = {}
_WORD_KEYS_MAX = 50_000
_CONTENT_WORDS: dict[str, tuple[str, ...]] = {}
_CONTENT_WORDS_MAX = 4096


def _remembered(memo: dict[str, _V], limit: int, key: str, make: Callable[[str], _V]) -> _V:
    """``make(key)``, kept in ``memo`` (emptied when it holds ``limit``): the bounded memo
    ``functools.lru_cache`` would be, without importing it on a put's path."""
    try:
        return memo[key]
    except KeyError:
        pass
    if len(memo) >= limit:
        memo.clear()
    value = memo[key] = make(key)
    return value


def _word_key(token: str) -> str | None:
    """The content word a token stands for, or None for a stop word. Depends only on the
    token's case-folded form: case never matters, as for an exact repeat."""
    return _remembered(_WORD_KEYS, _WORD_KEYS_MAX, token, _word_key_of)


def _word_key_of(token: str) -> str | None:
    low = token.casefold()
    if not low.isascii() or not all(part.isalpha() for part in low.split("-")):
        return low  # numbers, versions, paths, flags, identifiers, other scripts: whole
    if low in STOP_WORDS:
        return None
    if "-" in low or low in _UNINFLECTED or (low[-1] == "s" and len(low) > 1 and not any(
            c in "aeiouy" for c in low[:-1])):
        return low  # hyphenated words, and "https", "gcs", "dns": no plurals
    key = inflection(low)
    # "used" -> "us" must not meet the word "us"
    return key + "+" if len(key) <= 2 < len(low) else key


def inflection(word: str) -> str:
    """``word`` (lowercase ASCII) without its inflection: Porter's steps 1a-c and 5, which
    undo plural, tense and final-e spelling but none of the derivational suffixes
    ("generic" and "general" stay apart; full Porter makes both "gener")."""
    if len(word) <= 2:
        return word
    word = _step1ab(word)
    if word.endswith("y") and _has_vowel(word[:-1]):
        word = word[:-1] + "i"
    if word.endswith("e"):
        m = _measure(word[:-1])
        if m > 1 or (m == 1 and not _ends_cvc(word[:-1])):
            word = word[:-1]
    if word.endswith("ll") and _measure(word) > 1:
        word = word[:-1]
    return word


def content_words(text: str) -> tuple[str, ...]:
    """The content words of ``text`` in order: what must be equal for a fold."""
    return _remembered(_CONTENT_WORDS, _CONTENT_WORDS_MAX, text, _content_words)


def _content_words(text: str) -> tuple[str, ...]:
    if not text.isascii():
        import unicodedata  # not for ASCII text, nearly all of it

        text = unicodedata.normalize("NFKC", text).replace("\u2019", "'")
    if "'" in text or "annot" in text.lower():
        text = _spell_contractions(text)
    return tuple(filter(None, map(_word_key, _tokens(text))))  # keys are never ""


def _is_word(c: str) -> bool:
    """Whether the character ``c`` is a regex ``\\w`` (Unicode letters and digits, ``_``)."""
    return c.isalnum() or c == "_"


def _ascii_lower(text: str) -> str:
    """``text`` up to its first character outside ASCII, lower-cased (no other character
    lower-cases to the letters of a contraction)."""
    if not text.isascii():
        text = text[:next(i for i, c in enumerate(text) if not c.isascii())]
    return text.lower()


def _spelt_at(text: str, at: int) -> tuple[int, str] | None:
    """(end, spelt out) of the contraction at ``at``, or None: the first alternative of the
    regex ``(?i)\\b(?:(ca|wo|sha)n't|(can)not)\\b|n't\\b|'(s|re|ve|ll|d|m)\\b`` to match
    there (``text`` is NFKC: the regex's only other case match, U+017F for ``s``, is gone)."""
    end = None
    spelt = ""
    low = _ascii_lower(text[at:at + 6])
    if at == 0 or not _is_word(text[at - 1]):
        for head in ("ca", "wo", "sha"):
            if low.startswith(head + "n't"):
                end, spelt = at + len(head) + 3, _SPELT[head]
                break
        else:
            if low.startswith("cannot"):
                end, spelt = at + 6, _SPELT["can"]
        if end is not None and (end == len(text) or not _is_word(text[end])):
            return end, spelt
    if low.startswith("n't"):
        end, spelt = at + 3, " not"
    elif low.startswith("'"):
        short = next((h for h in ("s", "re", "ve", "ll", "d", "m") if low.startswith(h, 1)),
                     None)
        if short is None:
            return None
        end, spelt = at + 1 + len(short), _SPELT[short]
    else:
        return None
    return (end, spelt) if end == len(text) or not _is_word(text[end]) else None


def _spell_contractions(text: str) -> str:
    """``text`` with its contractions spelt out ("isn't" -> "is not", "can't" -> "can
    not", "'re" -> " are"), left to right as ``re.sub`` replaces."""
    out: list[str] = []
    last = at = 0
    while at < len(text):
        found = _spelt_at(text, at) if text[at] in "'cCwWsSnN" else None
        if found is None:
            at += 1
            continue
        out.append(text[last:at])
        out.append(found[1])
        last = at = found[0]
    out.append(text[last:])
    return "".join(out)


def _token_end(chunk: str, at: int) -> int:
    """Where the token made of the word run at ``at`` ends: runs of ``\\w`` joined by runs
    of ``. / : @ + -`` (regex ``\\w+(?:[./:@+-]+\\w+)*``)."""
    n = len(chunk)
    while True:
        while at < n and _is_word(chunk[at]):
            at += 1
        joined = at
        while joined < n and chunk[joined] in _JOINERS:
            joined += 1
        if joined in (at, n) or not _is_word(chunk[joined]):
            return at
        at = joined


def _tokens(text: str) -> list[str]:
    """The tokens of ``text``, as the regex ``\\w+(?:[./:@+-]+\\w+)*|(?<![\\w~./$@#-])``
    ``[~./$@#-]+\\w+(?:[./:@+-]+\\w+)*|[<>=!]=|`` (an operator) finds them, without ``re``:
    no token holds white space, so each white-space-free chunk is read alone."""
    out: list[str] = []
    for chunk in text.split():
        if chunk.isalnum():  # one word, the common case
            out.append(chunk)
            continue
        n = len(chunk)
        at = 0
        while at < n:
            c = chunk[at]
            if _is_word(c):
                end = _token_end(chunk, at)
            elif c in _SIGILS and (at == 0 or not (_is_word(chunk[at - 1])
                                                   or chunk[at - 1] in _SIGILS)):
                end = at + 1
                while end < n and chunk[end] in _SIGILS:
                    end += 1
                end = _token_end(chunk, end) if end < n and _is_word(chunk[end]) else at
            elif c in "<>=!" and chunk.startswith("=", at + 1):
                end = at + 2
            else:
                end = at + 1 if c in _OPERATORS else at
            if end > at:
                out.append(chunk[at:end])
                at = end
            else:
                at += 1
    return out


def folds(new: str, old: str) -> bool:
    """Whether ``new`` is ``old`` said again: the same content words, in the same order
    (bodies compared without their "Said again" part)."""
    words = content_words(main_text(new))
    return bool(words) and words == content_words(main_text(old))


def signature(text: str) -> bytes:
    """A body's said-again signature: b"" when nothing can fold into it (no content word),
    else a digest of its content words. Sound: a fold needs equal content words, hence equal
    signatures."""
    words = content_words(main_text(text))
    if not words:
        return b""
    joined = "\0".join(words).encode("utf-8", "surrogatepass")
    return blake2b(joined, digest_size=16).digest()


# Content words a contraction spells out: the text itself may not contain them.
_SPELT_WORDS = frozenset(" ".join(_SPELT.values()).split())


def _needles(words: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Substrings every ASCII body with these content words contains, once lowercased:
    whole tokens with a digit or ``. _ / $``, and the longest ordinary words but their
    last letter (inflection only changes a word's end)."""
    exact = tuple({w for w in words if any(c.isdecimal() or c in "._/$" for c in w)})
    stems = sorted({w.lower()[:-1] for w in words if len(w) >= 5 and w.isascii()
                    and w.isalpha() and w not in _SPELT_WORDS}, key=len, reverse=True)
    return exact, tuple(stems[:3])


def _cannot_match(needles: tuple[tuple[str, ...], tuple[str, ...]], text: str) -> bool:
    """A cheap, sound test that ``text`` lacks a content word of the new text: it spares
    tokenising nearly every entry of a large shard."""
    if not text.isascii():
        return False  # NFKC may change what the tokens see: decide the slow way
    exact, stems = needles
    low = text.lower()
    return any(w not in low for w in exact) or any(s not in low for s in stems)


def find_near_duplicate(text: str, candidates: Sequence[Entry]) -> Entry | None:
    """The first candidate ``text`` folds into (:func:`folds`), or None.

    Compacted entries (metadata ``compacted``) are summaries, never matched.
    """
    words = content_words(main_text(text))
    if not words:
        return None
    needles = _needles(words)
    for entry in candidates:
        if entry.get("compacted") is not None or _cannot_match(needles, entry.text):
            continue
        if content_words(main_text(entry.text)) == words:
            return entry
    return None


def _quote(phrasing: str, date: str) -> str:
    lines = phrasing.strip("\r\n").replace("\r\n", "\n").replace("\r", "\n").split("\n")
    out = [f"> {date + ': ' if date else ''}{lines[0].rstrip()}".rstrip()]
    out.extend(f"> {line.rstrip()}".rstrip() for line in lines[1:])
    return "\n".join(out)


def _phrasings(part: str) -> set[str]:
    """The normalised phrasings already quoted in a "Said again" part."""
    import re

    found: set[str] = set()
    for block in re.split(r"\n\s*\n", part.replace("\r\n", "\n")):
        lines = [ln[1:].lstrip() if ln.startswith(">") else None for ln in block.split("\n")]
        if not lines or any(ln is None for ln in lines):
            continue
        first = re.sub(r"^\d{4}-\d{2}-\d{2}: ?", "", lines[0] or "")
        found.add(" ".join(" ".join([first, *(ln or "" for ln in lines[1:])]).casefold().split()))
    return found


def add_said_again(entry: Entry, text: str, date: str) -> Entry:
    """``entry`` with ``text`` quoted under the "Said again" part of its body, dated ``date``.

    The main text is untouched. A phrasing already quoted there (after normalising case and
    white space) is not quoted twice, so the entry comes back unchanged.
    """
    key = " ".join(text.casefold().split())
    part = said_again_part(entry.text)
    if key == " ".join(main_text(entry.text).casefold().split()) or key in _phrasings(part):
        return entry
    nl = "\r\n" if "\r\n" in entry.text else "\n"
    quote = _quote(text, date).replace("\n", nl)
    if part:
        body = entry.text.rstrip("\r\n") + nl + nl + quote
    else:  # the main text stays exactly as it was; main_text() finds it again
        body = entry.text + nl + nl + MARKER + nl + HEADER + nl + nl + quote
    return replace(entry, text=body)
