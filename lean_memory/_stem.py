"""The Porter (1980) English stemmer, as published by M. F. Porter, in plain Python.

Hand-written so that lean_memory keeps zero run-time dependencies. Input must be a lowercase
ASCII word; anything else is the caller's business (``bm25.tokenize`` only stems such words).

:func:`stem` is the published algorithm (the search index's tokens). :func:`stem_inflected`
is the same with three repairs so every inflection of a word gets one stem, which the ask
matcher needs ("adding" and "add" one rule, not two): Porter undoubles "add"+"ing" to "ad"
while "add" stays "add" (it now keeps a double that is not the tail of a short
consonant-vowel-consonant word, and any "ff"); it turns "tries" into "tri" but keeps "try"
(a final y after a consonant is now always i); and it knows nothing of irregular verbs
("wrote", "written" -> "write": a small table of everyday ones).
"""

from __future__ import annotations

_VOWELS = frozenset("aeiou")


def _is_consonant(word: str, i: int) -> bool:
    ch = word[i]
    if ch in _VOWELS:
        return False
    if ch == "y":
        # 'y' is a vowel after a consonant ("fly"), a consonant at the start or after a vowel.
        return i == 0 or not _is_consonant(word, i - 1)
    return True


# Consonant (c) or vowel (v) per letter; 'y' depends on its left neighbour, resolved in _cv.
_CV_TABLE = str.maketrans("aeioubcdfghjklmnpqrstvwxz", "vvvvv" + "c" * 20)


def _cv(stem: str) -> str:
    """The stem as a string of 'c' and 'v', one per letter, as ``_is_consonant`` classifies."""
    cv = stem.translate(_CV_TABLE)
    if "y" not in cv:
        return cv
    out = []
    prev = "v"  # a leading 'y' is a consonant, as after a vowel
    for ch in cv:
        if ch == "y":
            ch = "c" if prev == "v" else "v"
        out.append(ch)
        prev = ch
    return "".join(out)


def _measure(stem: str) -> int:
    """m in [C](VC)^m[V]: the number of vowel-consonant sequences."""
    # Each VC sequence ends at exactly one vowel-to-consonant step; such steps never overlap.
    return _cv(stem).count("vc")


def _has_vowel(stem: str) -> bool:
    return "v" in _cv(stem)


def _ends_double_consonant(word: str) -> bool:
    return len(word) >= 2 and word[-1] == word[-2] and _is_consonant(word, len(word) - 1)


def _ends_cvc(word: str) -> bool:
    """*o: consonant-vowel-consonant, the last not w, x or y ("hop", not "snow")."""
    n = len(word)
    return (
        n >= 3
        and _is_consonant(word, n - 3)
        and not _is_consonant(word, n - 2)
        and _is_consonant(word, n - 1)
        and word[-1] not in "wxy"
    )


_STEP2 = (
    ("ational", "ate"), ("tional", "tion"), ("enci", "ence"), ("anci", "ance"),
    ("izer", "ize"), ("abli", "able"), ("alli", "al"), ("entli", "ent"), ("eli", "e"),
    ("ousli", "ous"), ("ization", "ize"), ("ation", "ate"), ("ator", "ate"),
    ("alism", "al"), ("iveness", "ive"), ("fulness", "ful"), ("ousness", "ous"),
    ("aliti", "al"), ("iviti", "ive"), ("biliti", "ble"),
)  # fmt: skip
_STEP3 = (
    ("icate", "ic"), ("ative", ""), ("alize", "al"), ("iciti", "ic"), ("ical", "ic"),
    ("ful", ""), ("ness", ""),
)  # fmt: skip
_STEP4 = (
    "al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent",
    "ion", "ou", "ism", "ate", "iti", "ous", "ive", "ize",
)  # fmt: skip

# The paper applies the longest matching suffix of a step, and only that one.
_STEP2_BY_LEN = sorted(_STEP2, key=lambda r: -len(r[0]))
_STEP3_BY_LEN = sorted(_STEP3, key=lambda r: -len(r[0]))
_STEP4_BY_LEN = sorted(_STEP4, key=lambda s: -len(s))
# Most words end in none of a step's suffixes: one endswith() on the tuple rules them out.
_STEP2_ANY = tuple(s for s, _ in _STEP2)
_STEP3_ANY = tuple(s for s, _ in _STEP3)
_STEP4_ANY = tuple(_STEP4)


def _replace_if_m(word: str, rules: list[tuple[str, str]], any_of: tuple[str, ...],
                  min_m: int) -> str:
    if not word.endswith(any_of):
        return word
    for suffix, repl in rules:
        if word.endswith(suffix):
            stem = word[: -len(suffix)]
            return stem + repl if _measure(stem) > min_m else word
    return word


def _step1ab(word: str, keep_double: bool = False) -> str:
    if word.endswith("sses") or word.endswith("ies"):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]

    if word.endswith("eed"):
        if _measure(word[:-3]) > 0:
            word = word[:-1]
        return word
    for suffix in ("ed", "ing"):
        if word.endswith(suffix) and _has_vowel(word[: -len(suffix)]):
            word = word[: -len(suffix)]
            if word.endswith(("at", "bl", "iz")):
                return word + "e"
            if _ends_double_consonant(word) and word[-1] not in "lsz" and not (
                    keep_double and (word[-1] == "f" or not _ends_cvc(word[:-1]))):
                return word[:-1]
            if _measure(word) == 1 and _ends_cvc(word):
                return word + "e"
            return word
    return word


def stem(word: str) -> str:
    """Return the Porter stem of a lowercase ASCII word ("connections" -> "connect")."""
    return _porter(word, False)


# Past tenses and participles of everyday verbs that no suffix rule reaches.
_IRREGULAR = {
    "ate": "eat", "eaten": "eat", "began": "begin", "begun": "begin", "bent": "bend",
    "bound": "bind", "broke": "break", "broken": "break", "brought": "bring",
    "built": "build", "bought": "buy", "caught": "catch", "chose": "choose",
    "chosen": "choose", "came": "come", "did": "do", "done": "do", "drew": "draw",
    "drawn": "draw", "drove": "drive", "driven": "drive", "fed": "feed", "fell": "fall",
    "fallen": "fall", "felt": "feel", "fought": "fight", "found": "find", "forgot": "forget",
    "forgotten": "forget", "froze": "freeze", "frozen": "freeze", "gave": "give",
    "given": "give", "got": "get", "gotten": "get", "went": "go", "gone": "go",
    "grew": "grow", "grown": "grow", "had": "have", "has": "have", "held": "hold",
    "hid": "hide", "hidden": "hide", "kept": "keep", "knew": "know", "known": "know",
    "laid": "lay", "led": "lead", "left": "leave", "lent": "lend", "lost": "lose",
    "made": "make", "meant": "mean", "met": "meet", "paid": "pay", "ran": "run",
    "rebuilt": "rebuild", "redid": "redo", "redone": "redo", "rewrote": "rewrite",
    "rewritten": "rewrite", "overwrote": "overwrite", "overwritten": "overwrite",
    "rode": "ride", "ridden": "ride", "rose": "rise", "risen": "rise", "said": "say",
    "saw": "see", "seen": "see", "sent": "send", "shook": "shake", "shaken": "shake",
    "shown": "show", "slept": "sleep", "sold": "sell", "sought": "seek", "spent": "spend",
    "spoke": "speak", "spoken": "speak", "stood": "stand", "stole": "steal",
    "stolen": "steal", "struck": "strike", "swore": "swear", "sworn": "swear",
    "taught": "teach", "took": "take", "taken": "take", "thought": "think",
    "threw": "throw", "thrown": "throw", "told": "tell", "understood": "understand",
    "undid": "undo", "undone": "undo", "woke": "wake", "woken": "wake", "won": "win",
    "wore": "wear", "worn": "wear", "wrote": "write", "written": "write",
}  # fmt: skip


def stem_inflected(word: str) -> str:
    """The stem of a lowercase ASCII word, one for all its inflections ("adds", "added",
    "adding" -> "add"; "tries", "trying" -> "tri"; "wrote" -> "write")."""
    word = _IRREGULAR.get(word, word)
    if len(word) > 5 and word.endswith("ly") and word[-3] not in "aeioulpb":
        word = word[:-2]  # "directly" is "direct" (Porter keeps "directli")
    got = _porter(word, True)
    if got.endswith("i") and _measure(got[:-1]) > 1:
        # a noun in -y and its verb in -ize ("apology", "apologize" -> "apolog")
        got = got[:-1]
    elif got.endswith("er") and len(got) >= 6 and _measure(got[:-2]) >= 1:
        # the one who does it and what is done: "linter" / "lint", "formatter" / "format"
        # (Porter keeps "-er" after a short stem and doubles "formatt")
        got = got[:-2]
        if got[-1] == got[-2] and got[-1] not in "lsfz":
            got = got[:-1]
    elif word.endswith(("er", "ers")) and len(got) >= 4 and got[-1] == got[-2] \
            and got[-1] not in "lsfz":
        got = got[:-1]
    return got


def _porter(word: str, consistent: bool) -> str:
    if len(word) <= 2:
        return word
    word = _step1ab(word, consistent)
    if word.endswith("y") and (_has_vowel(word[:-1]) or (
            consistent and len(word) > 2 and _is_consonant(word, len(word) - 2))):
        word = word[:-1] + "i"
    word = _replace_if_m(word, _STEP2_BY_LEN, _STEP2_ANY, 0)
    word = _replace_if_m(word, _STEP3_BY_LEN, _STEP3_ANY, 0)
    for suffix in _STEP4_BY_LEN if word.endswith(_STEP4_ANY) else ():
        if word.endswith(suffix):
            stem_ = word[: -len(suffix)]
            if _measure(stem_) > 1 and (suffix != "ion" or stem_.endswith(("s", "t"))):
                word = stem_
            break
    if word.endswith("e"):
        base = word[:-1]
        m = _measure(base)
        if m > 1 or (m == 1 and not _ends_cvc(base)):
            word = base
    if word.endswith("ll") and _measure(word) > 1:
        word = word[:-1]
    return word
