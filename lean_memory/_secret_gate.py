"""Whether the secret scanner could find anything in a text, told without loading it.

The prompt hook keeps every prompt as an ask, redacted first; importing the scanner
(:mod:`lean_memory.secrets`, 1,700 lines) and running its rule loop cost ~2 ms of every
prompt (ADR 0039). Every rule of the scanner runs only where one of its keywords occurs:
a rule of scope ``token`` or ``runs`` in the runs of 16+ token characters, the others
(``keyed``, ``text``) and the generic assignments (their spellings) anywhere, and the
Kubernetes manifest check where ``Secret`` occurs; a ``runs`` rule with a ``shape`` also
needs that shape of hex digits in the runs. :func:`may_hold` is False only when
none of that can happen: then the scanner finds nothing, and redacting changes nothing
(``tests/test_hot_lines.py`` holds this against the scan).

A keyword is looked for by its pieces between spaces: the scanner also scans a copy with
punctuation blanked to spaces, where ``bcp:`` reads ``bcp `` (every piece is still there,
unchanged, in the text itself). Text beyond ASCII is always scanned (its lower case may
shift offsets).
"""

from __future__ import annotations

from ._secret_rules import GENERIC_SPELLINGS, RULES

# The runs of token characters the scanner's ``token`` and ``runs`` rules look in.
_RUN_CHARS = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-.+/=~%:$"
# ASCII bytes to b"a" (a character of a run: [A-Za-z0-9_\-.+/=~%:$]) or b" " (any other).
_RUN_TABLE = bytes(0x61 if c in _RUN_CHARS else 0x20 for c in range(256))
_RUN_SEED = b"a" * 16


def run_spans(text: str) -> list[tuple[int, int]]:
    """The spans of the runs of 16 or more token characters in ``text``, found by
    ``bytes.find`` on the text mapped to two bytes: several times faster than a regex, and
    nothing to compile. A character outside ASCII (in no run) becomes one ``?`` (so offsets
    hold), then a space."""
    marks = text.encode("ascii", "replace").translate(_RUN_TABLE)
    spans: list[tuple[int, int]] = []
    start = marks.find(_RUN_SEED)
    while start >= 0:
        # The first 16 marks in a row after the last run start a run (a shorter run
        # before them would end on a non-mark); the run goes on to the next non-mark.
        end = marks.find(b" ", start + 16)
        end = len(marks) if end < 0 else end
        spans.append((start, end))
        start = marks.find(_RUN_SEED, end)
    return spans


def _pieces(keywords: list[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The keywords' pieces between spaces: (looked for in the lower-cased text, looked
    for as they are), as the scanner looks for a keyword (lower case, or as it is)."""
    low: set[str] = set()
    cased: set[str] = set()
    for keyword in keywords:
        (low if keyword.islower() else cased).update(p for p in keyword.split(" ") if p)
    return tuple(sorted(low)), tuple(sorted(cased))


_ALWAYS = any(not r.keywords for r in RULES)  # a rule without keywords runs on every text
_RUNS = _pieces([k for r in RULES if r.scope == "token" or (r.scope == "runs" and not r.shape)
                 for k in r.keywords])
# A ``runs`` rule with a shape runs only where its shape of hex digits occurs too.
_SHAPED = [(_pieces(list(r.keywords)), r.shape) for r in RULES if r.scope == "runs" and r.shape]
_HEX_SHAPE = str.maketrans(dict.fromkeys("0123456789abcdef", "h"))
_TEXT = _pieces([*(k for r in RULES if r.scope not in ("token", "runs") for k in r.keywords),
                 *(s for spellings in GENERIC_SPELLINGS.values() for s in spellings),
                 "Secret"])  # the Kubernetes manifest check


def may_hold(text: str) -> bool:
    """Whether the scanner could report a credential in ``text`` (False: it reports none)."""
    if _ALWAYS or not text.isascii():
        return True
    if _held(_TEXT, text, text.lower()):
        return True
    spans = run_spans(text)
    if not spans:
        return False
    joined = "\n".join([text[a:b] for a, b in spans])
    lower = joined.lower()
    if _held(_RUNS, joined, lower):
        return True
    shaped = joined.translate(_HEX_SHAPE) if _SHAPED else ""
    return any(shape in shaped and _held(pieces, joined, lower) for pieces, shape in _SHAPED)


def _held(pieces: tuple[tuple[str, ...], tuple[str, ...]], text: str, lower: str) -> bool:
    low, cased = pieces
    return any(map(lower.__contains__, low)) or any(map(text.__contains__, cased))
