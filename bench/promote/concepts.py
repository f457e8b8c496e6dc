"""Would a general developer concept lexicon lift the promote matcher's recall? (issue 34 item 3:
no; ADR 0046, docs/learning.md "Tried")

    python bench/promote/concepts.py                         # every set, the lexicon read in
    python bench/promote/concepts.py --set set_c --show set_c

The lexicon (``lexicon.py``: 278 groups of words and phrases that name one thing or one
stance, with their opposites, and value classes of one setting) is read into
``lean_memory.asks`` for this process only, as the matcher's own small tables are read: a
word of a group is taken as the group's name (before its synonyms and stem), a phrase is
rewritten to that name after the prompt is normalized, an opposite is read as the name with
its sign turned ("walls of text" as "short" refused), and the value classes join the
matcher's. This is the in-tree version measured (commit f722f5e) with one repair: a phrase
that ends in brackets ("print()", ".then()", "__()": 12 members) was never found there.
Everything else (reading, direction, control, facts, the cosine and anchored links) is the
matcher's, unchanged. Scoring and the table are ``run.py``'s; its held-out rule holds here
(``--show`` refuses the held-out sets).
"""

from __future__ import annotations

import contextlib
import sys
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))
sys.path.insert(0, str(HERE))

import lexicon  # noqa: E402  (this folder's data)
import run  # noqa: E402  (this folder's scorer)

from lean_memory import asks as A  # noqa: E402

# Closing punctuation may follow a phrase's last word.
_CLOSING = ",.;:!?\"')"
_OPENING = "(\"'"


class Table:
    """Each word of a group -> (the group's name, +1 same / -1 opposite); each phrase by its
    first word -> [(its words, the word it is read as)], longest first."""

    def __init__(self, groups: str = lexicon.GROUPS) -> None:
        self.words: dict[str, tuple[str, int]] = {}
        phrases: dict[str, list[tuple[tuple[str, ...], str]]] = defaultdict(list)
        for name, opposite, same, other in lexicon.table(groups):
            self.words.setdefault(name, (name, 1))
            if opposite:
                self.words.setdefault(opposite, (name, -1))
            for members, token, sign in ((same, name, 1), (other, opposite, -1)):
                for m in members:
                    said = tuple(m.split())
                    if len(said) == 1 and m.isalnum():
                        self.words.setdefault(m, (name, sign))
                        if m.isalpha() and not m.endswith("s"):
                            self.words.setdefault(m + "s", (name, sign))
                    else:
                        phrases[said[0]].append((said, token))
        for got in phrases.values():
            got.sort(key=lambda p: (-len(p[0]), p))
        self.phrases = dict(phrases)

    def rewrite(self, text: str) -> str:
        """``text`` with each phrase of a group said as the group's one word ("walls of text"
        as "long", "one commit per pr" as "squash"); a word at a time, no pattern."""
        said = text.split()
        bare = [w.strip(_OPENING).rstrip(_CLOSING) or w for w in said]
        # a phrase may end in a colon ("feat:") or a call's brackets ("print()")
        ends = [{b, w.strip(_OPENING).rstrip(_CLOSING.replace(":", "")),
                 w.lstrip(_OPENING).rstrip(_CLOSING.replace(":", "").replace(")", ""))}
                for b, w in zip(bare, said, strict=True)]
        if all(self.phrases.keys().isdisjoint(e) for e in ends):
            return text
        out: list[str] = []
        i = 0
        while i < len(said):
            for words, token in sorted(
                    (p for e in ends[i] for p in self.phrases.get(e, ())),
                    key=lambda p: (-len(p[0]), p)):
                n = len(words)
                last = i + n - 1
                # (punctuation may close a phrase's last word, never sit inside it)
                if last < len(said) and tuple(bare[i:last]) == words[:-1] \
                        and all(said[k] == bare[k] for k in range(i + 1, last)) \
                        and words[-1] in ends[last] \
                        and (n == 1 or said[i].endswith(bare[i])):
                    head = said[i][:len(said[i]) - len(said[i].lstrip(_OPENING))]
                    tail = said[last][said[last].find(words[-1]) + len(words[-1]):]
                    out.append(head + token + tail)
                    i += n
                    break
            else:
                out.append(said[i])
                i += 1
        return " ".join(out)


def _clear_memos() -> None:
    A._NORM_MEMO.clear()
    A._WORD_MEMO.clear()
    A._GENERIC_TERMS.clear()
    A._VALUE_TERMS.clear()


@contextlib.contextmanager
def lexicon_on(table: Table | None = None) -> Iterator[Table]:
    """The matcher with the lexicon read in, for the ``with`` block only."""
    table = table or Table()
    normalized, term, signed, values = A._normalized, A._term, A._signed, A._VALUE_CLASSES
    # An opposite is read as its group's name with the sign turned, and only that: unlike the
    # matcher's own antonyms it does not turn a prohibition's other words ("don't return
    # error codes" still refuses returning). Each is read as a stand-in word, then swapped.
    stand_in = {w: f"qzopp{name.replace('_', '')}qz" for w, (name, sign) in table.words.items()
                if sign < 0 and w not in A._ANTONYMS}
    back: dict[str, str] = {}

    def with_phrases(text: str) -> str:
        return table.rewrite(normalized(text))

    def with_words(word: str) -> str:
        got = table.words.get(word)
        return term(got[0] if got is not None else word)

    def with_opposites(words: list[str], replacing: bool) -> tuple[dict[str, int], bool,
                                                                  set[str]]:
        if stand_in.keys().isdisjoint(words):
            return signed(words, replacing)
        for w in words:
            if w in stand_in:
                back.setdefault(with_words(stand_in[w]), with_words(w))
        terms, cue, where = signed([stand_in.get(w, w) for w in words], replacing)
        out: dict[str, int] = {}
        for t, s in terms.items():
            if t in back:
                out.setdefault(back[t], -s)
            else:
                out.setdefault(t, s)
        return out, cue, {back.get(t, t) for t in where}

    try:
        _clear_memos()
        A._normalized = with_phrases
        A._term = with_words
        A._signed = with_opposites
        A._VALUE_CLASSES = values + tuple(
            frozenset(line.split()) for line in lexicon.VALUES.splitlines() if line.strip())
        yield table
    finally:
        A._normalized, A._term, A._signed, A._VALUE_CLASSES = normalized, term, signed, values
        _clear_memos()


def main() -> int:
    with lexicon_on():
        return run.main()


if __name__ == "__main__":
    raise SystemExit(main())
