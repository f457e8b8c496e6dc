"""Typo mending that is safe (ADR 0047): a slip inside a word is mended, a correct word the
memory does not hold is not turned into another one, and a four-letter word is mended
only by two letters swapped inside it, towards a word enough entries hold."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from lean_memory import digest as typos  # the mending lives in digest (ADR 0056)
from lean_memory.bm25 import tokenize


def osa(a: str, b: str) -> int:
    """Optimal string alignment distance (the oracle, written apart from digest.py's mending)."""
    d = [[i + j if i * j == 0 else 0 for j in range(len(b) + 1)] for i in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1,
                          d[i - 1][j - 1] + (a[i - 1] != b[j - 1]))
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
    return d[len(a)][len(b)]


def held(*words: str, df: int = 3) -> dict[str, int]:
    """A vocabulary holding the tokens of ``words`` (as the index would)."""
    return {t: df for w in words for t in tokenize(w)}


def nearest(word: str, vocab: dict[str, int]) -> str | None:
    return typos.nearest(word, lambda t: vocab.get(t, 0))


VOCAB = held("stable", "ccache", "work", "mock", "person", "minimal", "regen", "test",
             "migration", "release", "column", "folder", "attention", "integration")


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=4, max_size=12))
def test_a_mend_is_a_slip_inside_the_word(word: str) -> None:
    """Before: "table" became "stable", "cache" "ccache", "worker" "worke" (an edit at a
    word's first letter, or taking out or changing its last). Whatever is mended now is one
    edit away, keeps the first letter, and keeps the last letter unless it put back a
    left-out last letter; a four-letter word only has two inner letters swapped."""
    got = nearest(word, VOCAB)
    if got is None:
        return
    assert osa(word, got) == 1
    assert got[0] == word[0]
    assert got[-1] == word[-1] or got[:-1] == word
    if len(word) == 4:
        assert sorted(got) == sorted(word) and got[0] == word[0] and got[-1] == word[-1]


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=3))
def test_words_under_four_letters_are_never_mended(word: str) -> None:
    assert typos.mend(f"run the {word}", lambda t: VOCAB.get(t, 0)) == f"run the {word}"


def test_correct_words_the_memory_lacks_stay() -> None:
    """The wrong mends measured on bench/coding's dev prompts before this change."""
    for word in ("table", "cache", "worker", "mockk", "loses", "picker", "sender"):
        assert nearest(word, VOCAB) is None, word
    # a last letter put back that gives a stem the word already begins with: another form
    assert nearest("persona", held("personal")) is None


def test_slips_are_mended() -> None:
    """Before: "regenrate" became "regeneate" (a neighbouring key, the first kind that
    found any held word) although the memory holds "regenerate" far more often; "tets"
    was under the five-letter minimum."""
    vocab = {**held("regen", df=1), **held("regenerate", df=4), **held("tests")}
    assert nearest("regenrate", vocab) == "regenerate"
    assert nearest("tets", vocab) == "test"
    assert nearest("colum", held("column")) == "column"
    assert nearest("migartion", held("migration")) == "migration"
    assert nearest("integraton", held("integration")) == "integration"


def test_a_four_letter_mend_needs_support() -> None:
    """A four-letter word is a swap away from many words: the mend must be held by
    MIN_SUPPORT entries."""
    assert nearest("tets", held("test", df=typos.MIN_SUPPORT)) == "test"
    assert nearest("tets", held("test", df=typos.MIN_SUPPORT - 1)) is None
    assert typos.mend("run the tets", lambda t: held("test").get(t, 0)) == "run the test"


@settings(max_examples=150, deadline=None)
@given(st.lists(st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=4, max_size=9),
                min_size=1, max_size=8))
def test_mend_touches_only_unknown_words(words: list[str]) -> None:
    """A word whose token the memory holds is never replaced; the result is a function of
    the query and the vocabulary."""
    query = " ".join(words)
    out = typos.mend(query, lambda t: VOCAB.get(t, 0))
    assert out == typos.mend(query, lambda t: VOCAB.get(t, 0))
    if out != query:
        for before, after in zip(words, out.split(), strict=True):
            if any(VOCAB.get(t) for t in tokenize(before)):
                assert after == before


# -- one word, one weight (ADR 0047) ------------------------------------------------------

def _top(n_docs: int) -> float:
    """BM25's idf of a term no entry holds (written apart from digest.py)."""
    import math

    return math.log(1 + (n_docs + 0.5) / 0.5)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.text(alphabet="qxzjv", min_size=3, max_size=6), min_size=2, max_size=7,
                unique=True))
def test_an_unknown_identifier_weighs_one_word(parts: list[str]) -> None:
    """Before: each token of an unknown identifier (its joined form and every part) weighed
    UNKNOWN_SPECIFIC times the top idf, so "add a new resource azurerm_container_app_job_
    schedule" had six unknown words against three known ones and the gate never opened
    however well "add a new resource" matched. Now the identifier weighs one word, however
    many parts it has."""
    from lean_memory import digest as dg

    ident = "_".join(parts)
    prompt = f"add a resource {ident}"
    terms = list(dict.fromkeys(tokenize(prompt)))
    known = {"add": 3, "resourc": 5}
    df = [(t, known.get(t, 0)) for t in terms]
    w = dg._term_weights(prompt, 40, df, dg.UNKNOWN_PLAIN)
    ident_terms = set(tokenize(ident))
    total = sum(v for t, v in w.items() if t in ident_terms)
    assert abs(total - dg.UNKNOWN_SPECIFIC * _top(40)) < 1e-9


def test_a_compound_of_known_parts_weighs_its_parts() -> None:
    """Before: "feature:account:settings" added an unknown joined token at the plain weight
    beside its parts, so naming modules the memory knows lowered the coverage."""
    from lean_memory import digest as dg

    prompt = "can feature:account depend on core"
    terms = list(dict.fromkeys(tokenize(prompt)))
    known = {"featur": 2, "account": 1, "depend": 2, "core": 2}
    w = dg._term_weights(prompt, 20, [(t, known.get(t, 0)) for t in terms], 0.5)
    assert w["feature:account"] == 0.0
    assert all(w[t] > 0 for t in known)
