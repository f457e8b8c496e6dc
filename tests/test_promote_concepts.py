"""The developer concept lexicon measured against the promote matcher (issue 34 item 3, ADR
0046: it did not lift held-out recall, so it is a bench experiment, not wired). These guard
that the experiment measures what it says: the lexicon's phrases are found wherever a prompt
says them, a word of a group reads as the group, paraphrases that share no word but a group
link while other values and opposites stay apart, and the matcher is itself again after the
run. Expected groups are written by hand from what the person meant."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from lean_memory import asks as A

from .conftest import load_bench
from .test_asks_anchors import proposed  # (a coding week around the given rules)

concepts = load_bench("promote/concepts.py", "promote_concepts")
lexicon = concepts.lexicon
TABLE = lexicon.table()
# Words no member holds: what a prompt says around a phrase.
AROUND = ["zork", "blip", "quux", "wibble", "frob"]


def test_members_are_written_as_the_matcher_reads_a_prompt() -> None:
    """A member in another spelling than the normalized prompt's ("pull request" for "pr",
    "snake case" for "snakecase") would never be found: the data stays in that form."""
    for name, opposite, same, other in TABLE:
        assert name.isalnum() and (not opposite or opposite.isalpha()), name
        assert not other or opposite, f"{name}: opposite members need an opposite word"
        for m in same + other:
            assert " ".join(A._normalized(m).split()) == m, (name, m)


def test_no_member_stands_for_two_groups() -> None:
    """A member listed in two groups would read as whichever came first: a silent merge."""
    seen: dict[str, str] = {}
    for name, _, same, other in TABLE:
        for m, side in [(m, name) for m in same] + [(m, "!" + name) for m in other]:
            assert seen.setdefault(m, side) == side, (m, seen[m], side)


phrases = [(m, name if m in same else opposite) for name, opposite, same, other in TABLE
           for m in same + other if not (len(m.split()) == 1 and m.isalnum())]


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(phrases), st.lists(st.sampled_from(AROUND), max_size=3),
       st.lists(st.sampled_from(AROUND), max_size=3), st.sampled_from(["", ",", ".", "!"]))
def test_a_phrase_is_read_as_its_group_wherever_it_is_said(
        said: tuple[str, str], before: list[str], after: list[str], mark: str) -> None:
    """A phrase at the head, the tail or the middle of a sentence, punctuation after it, is
    the group's one word; the words around it are untouched."""
    phrase, token = said
    text = " ".join([*before, phrase + mark, *after])
    assert concepts.Table().rewrite(text).split() == [*before, token + mark, *after]


def test_a_word_of_a_group_reads_as_the_group() -> None:
    """"pg", "postgresql" and "postgres" are one term; "concise" and "short" too."""
    with concepts.lexicon_on():
        for word, name in (("pg", "postgres"), ("postgresql", "postgres"), ("k8s", "kubernetes"),
                           ("concise", "short"), ("kurz", "short"), ("squashing", "squash"),
                           ("creds", "secret"), ("annotations", "hint")):
            assert A._term(word) == A._term(name), word


def test_paraphrases_that_share_only_a_group_are_one_proposal() -> None:
    """Each rule is said three times in words that share no distinctive word: without the
    lexicon the matcher proposes none of them (the gap measured), with it each once."""
    rules = {
        "squash": ["Always squash before merging.", "One commit per PR, always.",
                   "We squash-merge everything."],
        "secrets": ["Never commit secrets.", "No API keys in the repo, ever.",
                    "Never check credentials into git."],
        "utc": ["Always store timestamps in UTC.", "Never use naive datetimes.",
                "Use timezone-aware datetimes, always."],
        "money": ["Never use floats for money.", "Always keep amounts in integer cents.",
                  "Use Decimal for prices, always."],
        "mock": ["Always mock the database in unit tests.", "Never hit a real DB in unit tests.",
                 "Unit tests must use mocks, not the database."],
    }
    for name, texts in rules.items():
        assert proposed({name: texts}) == [], name
        with concepts.lexicon_on():
            assert proposed({name: texts}) == [{name}], name


def test_other_values_and_opposites_stay_apart() -> None:
    """Three package managers are three rules; short and long answers are opposites."""
    with concepts.lexicon_on():
        assert proposed({"pnpm": ["Always use pnpm."], "npm": ["Always use npm."],
                         "yarn": ["We always use yarn."]}) == []
        got = proposed({"short": ["Keep answers short.", "Be brief, always.",
                                  "No walls of text, please."],
                        "long": ["I want long detailed answers, always.",
                                 "Always write lengthy answers.", "Verbose answers, always."]})
        assert {"short"} in got and all(len(labels) == 1 for labels in got), got


def test_the_matcher_is_itself_again_after_the_run() -> None:
    """The lexicon is read in for the bench run only: afterwards no word of it is a group."""
    before = A._term("creds"), A._normalized("one commit per pr"), A._signed, A._VALUE_CLASSES
    with concepts.lexicon_on():
        assert A._term("creds") != before[0]
    assert (A._term("creds"), A._normalized("one commit per pr"), A._signed,
            A._VALUE_CLASSES) == before
