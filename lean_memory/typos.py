"""One typo in a longer word, mended against the memory's own vocabulary (ADR 0030).

A prompt word of at least :data:`MIN_LETTERS` letters that the memory has never seen
("migartion", "reelase") is replaced by the word one typo away whose token the memory
holds ("migration", "release"): a letter typed twice or a slip taken out, two neighbours
swapped, a letter slipped to a neighbouring key, one left out, tried in that order (the
first kind that finds any wins; within a kind, the candidate the most entries hold, then
the first). Deterministic, a function of the word and the memory's term counts; case-free
(the word is lower-cased first). It runs on the prompt hook's path: no ``re``, a few
hundred dictionary probes per unknown word at most, and only for the first
:data:`MAX_WORDS` unknown words.
"""

from __future__ import annotations

from .bm25 import tokenize

TYPE_CHECKING = False  # typing's own costs an import
if TYPE_CHECKING:
    from collections.abc import Callable

MIN_LETTERS = 5  # a shorter word is one edit away from too many others ...
SHORT_LETTERS = 4  # ... but two letters swapped inside a word of four ("tets") is a slip
#                   whose mend must be held by MIN_SUPPORT entries (ADR 0047)
MIN_SUPPORT = 2
MAX_WORDS = 3  # unknown words mended per prompt (each costs up to ~26 * (n + 1) probes)
_LETTERS = "abcdefghijklmnopqrstuvwxyz"
_STRIP = "?,.!:;\"'()[]{}<>`*"


_ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm")


def _neighbours() -> dict[str, str]:
    """Each letter's neighbours on a QWERTY keyboard (the keys a finger slips to)."""
    where = {c: (r, i) for r, row in enumerate(_ROWS) for i, c in enumerate(row)}
    out = {}
    for c, (r, i) in where.items():
        near = [(r, i - 1), (r, i + 1), (r - 1, i), (r - 1, i + 1), (r + 1, i - 1), (r + 1, i)]
        out[c] = "".join(_ROWS[x][y] for x, y in near
                         if 0 <= x < len(_ROWS) and 0 <= y < len(_ROWS[x]))
    return out


_NEAR = _neighbours()


def _edits(word: str) -> tuple[list[str], ...]:
    """The words one typo from ``word``, by kind, each in a fixed order: a letter typed
    twice or a slip onto a neighbouring key taken out, two neighbours swapped, one letter
    typed as its keyboard neighbour, one letter left out put back. (Any letter changed,
    or any taken out, would mend correct words the memory does not hold into ones it does:
    "write" into "wait", "readme" into "read".)

    The first letter is never taken out, changed or put before (ADR 0047): a word's first
    letter is rarely mistyped, and an edit there turns a correct word the memory does not
    hold into another word ("table" into "stable", "cache" into "ccache", "loses" into
    "oses"). Neither is the last letter taken out or changed: that is where a word's
    endings are, and an edit there gives another form or a stem the word only begins
    with ("worker" into "worke", "mockk" into "mock", "minimap" into "minimal"). A word
    of :data:`SHORT_LETTERS` letters gets swaps only (``tets``), inside the word."""
    n = len(word)
    if n < MIN_LETTERS:
        return ([], [word[:i] + word[i + 1] + word[i] + word[i + 2:] for i in range(1, n - 1)
                     if word[i] != word[i + 1]], [], [])
    deletions = [word[:i] + word[i + 1:] for i in range(1, n - 1)
                 if word[i - 1] == word[i] or word[i - 1] in _NEAR.get(word[i], "")
                 or word[i + 1] == word[i] or word[i + 1] in _NEAR.get(word[i], "")]
    swaps = [word[:i] + word[i + 1] + word[i] + word[i + 2:] for i in range(n - 1)
             if word[i] != word[i + 1]]
    changes = [word[:i] + c + word[i + 1:] for i in range(1, n - 1)
               for c in _NEAR.get(word[i], "")]
    inserts = [word[:i] + c + word[i:] for i in range(1, n + 1) for c in _LETTERS]
    return deletions, swaps, changes, inserts


def nearest(word: str, df: Callable[[str], int]) -> str | None:
    """The word one edit from ``word`` (lower-case letters) whose one token the memory
    holds (``df(token) > 0``; for a word shorter than :data:`MIN_LETTERS`, at least
    :data:`MIN_SUPPORT`); None when there is none."""
    least = 1 if len(word) >= MIN_LETTERS else MIN_SUPPORT
    best, best_df = None, least - 1
    seen: set[str] = set()
    for kind in _edits(word):
        for cand in kind:
            # the same string as an edit at either end ("ccache" from "cache", "mock"
            # from "mockk"): not a slip inside the word
            if cand in seen or word == cand[1:] or cand in (word[1:], word[:-1]):
                continue
            seen.add(cand)
            tokens = tokenize(cand)
            if len(tokens) != 1 or (word == cand[:-1] and word.startswith(tokens[0])):
                continue  # a last letter put back that gives a stem the word begins with
            f = df(tokens[0])
            if f > best_df:
                best, best_df = cand, f
    return best


def mend(query: str, df: Callable[[str], int]) -> str:
    """``query`` with each unknown word of :data:`SHORT_LETTERS` letters or more replaced by
    :func:`nearest` (when there is one); the same string when nothing was mended."""
    words = query.split()
    out = []
    mended = fixed_any = 0
    for raw in words:
        word = raw.strip(_STRIP).lower()
        if (mended < MAX_WORDS and len(word) >= SHORT_LETTERS and word.isascii()
                and word.isalpha()):
            tokens = tokenize(word)
            if tokens and not any(df(t) for t in tokens):
                # counted whether or not a neighbour is found: bounded cost (a short word
                # costs two probes at most, so it is not counted)
                mended += len(word) >= MIN_LETTERS
                fixed = nearest(word, df)
                if fixed is not None:
                    out.append(fixed)
                    fixed_any = 1
                    continue
        out.append(raw)
    return " ".join(out) if fixed_any else query
