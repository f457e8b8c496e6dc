"""Entries said again: near-duplicate detection and the "Said again" part of a body.

A ``put`` whose text equals a live entry of the same shard once case and white space are
normalised is an exact duplicate (handled in the store). This module decides the other
case, a *near* duplicate: the same fact in a new phrasing. The new phrasing is not added as
an entry; it is kept, for people to read, under a "Said again" part appended to the body of
the existing entry::

    The original body.

    <!-- lean-memory said-again -->
    **Said again:**

    > 2026-12-01: the new phrasing, quoted line by line

Search, the digest and exact-duplicate matching read :func:`main_text`, the body without
that part. Quoting every line of a phrasing means nothing in it can start an entry, open a
code fence or fake the marker.

The similarity is deliberately conservative (a wrong merge hides a fact; a missed merge
only costs a few tokens). Two texts are near duplicates when **all** of these hold:

* each has at least ``MIN_WORDS`` (4) distinct content words (stop words removed, Porter
  stemmed): a short text is only ever merged as an exact duplicate;
* the Jaccard similarity of their content-word sets is at least ``THRESHOLD`` (0.75);
* the content words come in much the same order: the ``difflib.SequenceMatcher`` ratio of
  the two word sequences is at least ``ORDER_THRESHOLD`` (0.75), so "the login service
  calls the billing service" does not merge with "the billing service calls the login
  service" (the same word set);
* their *anchors* are identical: every token with a digit, an inner ``_ . / : -`` or a
  camelCase capital (numbers, versions, ports, paths, identifiers, error codes); "port
  5432" never merges with "port 5433";
* both or neither contain a negation (not, no, never, without, ``n't`` …).

See ``tests/test_dedup.py`` for examples on each side of every rule.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import lru_cache

from ._stem import stem
from .format import Entry

THRESHOLD = 0.75
ORDER_THRESHOLD = 0.75
MIN_WORDS = 4

MARKER = "<!-- lean-memory said-again -->"
HEADER = "**Said again:**"
_MARKER_AT = re.compile(r"(?:\r\n\r\n|\n\n)" + re.escape(MARKER) + r"(?=\r?\n|\Z)")
_NOT = re.compile(r"(?i)n't\b")
_ANCHOR_CHAR = re.compile(r"[\d_./:-]")
# Each match lies inside one word of _WORD and makes it an anchor: a digit, a lower-upper
# step (parseConfig), or path/identifier punctuation between word characters.
_ANY_ANCHOR = re.compile(r"\d|[a-z][A-Z]|[^\W_][_./:-]+[^\W_]")
_WORD = re.compile(r"[^\W_](?:[\w./:-]*[^\W_])?|_\w+")
_NEGATIONS = frozenset({"not", "no", "never", "none", "nothing", "neither", "nor", "without",
                        "cannot", "nobody", "nowhere"})
_STOP_WORDS = """
a about above after again all also am an and any are as at be because been before being
below between both but by can could did do does doing down during each few for from further
had has have having he her here hers him his how i if in into is it its itself just let me
more most my of off on once only or other our out over own same she should so some such
than that the their them then there these they this those through to too under until up
us very was we were what when where which while who whom why will with would you your
"""
_STOP = frozenset(_STOP_WORDS.split())


def main_text(text: str) -> str:
    """The body without its "Said again" part (the whole body when it has none)."""
    if MARKER not in text:  # the common case, at C speed
        return text
    m = _MARKER_AT.search(text)
    return text if m is None else text[: m.start()]


def said_again_part(text: str) -> str:
    """The "Said again" part of a body ('' when it has none)."""
    return text[len(main_text(text)):]


class _Shape:
    """What the similarity looks at in one text."""

    __slots__ = ("anchors", "negated", "sequence", "words")

    def __init__(self, text: str) -> None:
        # Runs once per live entry of the shard on every put: string methods and one
        # compiled regex per word, no per-character Python loops.
        if not text.isascii():
            text = unicodedata.normalize("NFKC", text).replace("\u2019", "'")
        text = _NOT.sub(" not", text)
        words: list[str] = []
        anchors: set[str] = set()
        negated = False
        for raw in _WORD.findall(text):
            low = raw.casefold()
            # digits, path/identifier punctuation, or mixed case (parseConfig, not HTTP)
            if _ANCHOR_CHAR.search(raw) or (raw[1:].lower() != raw[1:] and raw != raw.upper()):
                anchors.add(low)
                words.append(low)
            elif low in _NEGATIONS:
                negated = True
            elif low not in _STOP:
                words.append(_stem_word(low))
        self.words = frozenset(words)
        self.sequence = tuple(words)
        self.anchors = frozenset(anchors)
        self.negated = negated


@lru_cache(maxsize=50_000)
def _stem_word(word: str) -> str:
    return stem(word) if word.isascii() and word.isalpha() else word


@lru_cache(maxsize=4096)
def _shape(text: str) -> _Shape:
    return _Shape(text)


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)


def similarity(a: str, b: str) -> float:
    """The score :func:`find_near_duplicate` compares with ``THRESHOLD``: the Jaccard
    similarity of content words, or 0.0 when a guard (length, anchors, negation, word
    order) rules the pair out. Bodies are compared without their "Said again" part."""
    sa, sb = _shape(main_text(a)), _shape(main_text(b))
    if len(sa.words) < MIN_WORDS or len(sb.words) < MIN_WORDS:
        return 0.0
    if sa.anchors != sb.anchors or sa.negated != sb.negated:
        return 0.0
    small, large = sorted((len(sa.words), len(sb.words)))
    if small < THRESHOLD * large:  # Jaccard <= small / large: cannot pass
        return 0.0
    score = _jaccard(sa.words, sb.words)
    if score < THRESHOLD:
        return score
    from difflib import SequenceMatcher  # only paid for by a likely pair

    order = SequenceMatcher(None, sa.sequence, sb.sequence, autojunk=False).ratio()
    return score if order >= ORDER_THRESHOLD else 0.0


def signature(text: str) -> bytes:
    """What :func:`candidate_test` needs of a body: b"" when it can never be a near
    duplicate (too few content words), else a digest of its anchors and negation, its
    content-word count and a 128-bit set of its words (one bit per word)."""
    shape = _shape(main_text(text))
    if len(shape.words) < MIN_WORDS:
        return b""
    return _anchor_key(shape) + len(shape.words).to_bytes(4, "big") + _bits(
        shape.words).to_bytes(16, "big")


def candidate_test(text: str) -> Callable[[bytes], bool]:
    """A test of stored signatures: False when that body can never be a near duplicate
    of ``text``. Sound: it applies :func:`similarity`'s guards, and bounds the shared
    words by the words of ``text`` whose bit the other body has set."""
    shape = _shape(main_text(text))
    n = len(shape.words)
    if n < MIN_WORDS:
        return lambda sig: False
    key = _anchor_key(shape)
    word_bits = [1 << _bit(w) for w in shape.words]

    def may_match(sig: bytes) -> bool:
        if not sig or sig[:8] != key:
            return False
        m = int.from_bytes(sig[8:12], "big")
        if min(n, m) < THRESHOLD * max(n, m):
            return False
        bits = int.from_bytes(sig[12:], "big")
        shared = sum(1 for b in word_bits if bits & b)  # >= the words really shared
        return shared >= THRESHOLD * (n + m) / (1 + THRESHOLD)  # Jaccard >= THRESHOLD

    return may_match


def _anchor_key(shape: _Shape) -> bytes:
    import hashlib

    seed = "\0".join(sorted(shape.anchors)) + ("\0!" if shape.negated else "")
    return hashlib.blake2b(seed.encode("utf-8", "surrogatepass"), digest_size=8).digest()


def _bit(word: str) -> int:
    import zlib

    return zlib.crc32(word.encode("utf-8", "surrogatepass")) & 127


def _bits(words: frozenset[str]) -> int:
    out = 0
    for w in words:
        out |= 1 << _bit(w)
    return out


def _cannot_match(anchors: frozenset[str], text: str) -> bool:
    """A cheap, sound test that ``text`` has other anchors than ``anchors`` (so the pair
    scores 0): it spares building the shape of nearly every entry of a large shard."""
    if not text.isascii():
        return False  # NFKC may change what the shape sees: decide the slow way
    if anchors:
        low = text.casefold()
        return not all(a in low for a in anchors)
    return _ANY_ANCHOR.search(text) is not None


def find_near_duplicate(text: str, candidates: Sequence[Entry]) -> Entry | None:
    """The candidate that says the same as ``text`` in other words, or None.

    The best score at or above ``THRESHOLD`` wins; ties go to the earliest candidate.
    Compacted entries (metadata ``compacted``) are summaries, never matched.
    """
    best: Entry | None = None
    best_score = THRESHOLD
    anchors = _shape(main_text(text)).anchors
    for entry in candidates:
        if entry.get("compacted") is not None or _cannot_match(anchors, entry.text):
            continue
        score = similarity(text, entry.text)
        if score >= best_score and (best is None or score > best_score):
            best, best_score = entry, score
    return best


def _quote(phrasing: str, date: str) -> str:
    lines = phrasing.strip("\r\n").replace("\r\n", "\n").replace("\r", "\n").split("\n")
    out = [f"> {date + ': ' if date else ''}{lines[0].rstrip()}".rstrip()]
    out.extend(f"> {line.rstrip()}".rstrip() for line in lines[1:])
    return "\n".join(out)


def _phrasings(part: str) -> set[str]:
    """The normalised phrasings already quoted in a "Said again" part."""
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
