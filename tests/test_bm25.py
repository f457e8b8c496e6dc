"""Tests of the tokenizer and the BM25 scorer (lean_memory.bm25)."""

from __future__ import annotations

import json
import marshal
import math
from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lean_memory import bm25
from lean_memory._stem import stem
from lean_memory.bm25 import BM25, BM25Index, document_terms, simple_tokenize, tokenize

from .conftest import cpu_seconds

# -- tokenizer ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "lib/vault/digest.js",
            ["lib/vault/digest.js", "digest.js", "lib", "vault", "digest", "js"],
        ),
        ("os.path.join", ["os.path.join", "os", "path", "join"]),
        ("parse_config", ["parseconfig", "pars", "config"]),
        ("parseConfig", ["parseconfig", "pars", "config"]),
        ("parse-config", ["parseconfig", "pars", "config"]),
        ("ParseConfig", ["parseconfig", "pars", "config"]),
        ("HTTPServerError", ["httpservererror", "http", "server", "error"]),
        ("E0502", ["e0502"]),
        ("HTTP 429", ["http", "429"]),
        ("IPv6", ["ipv6"]),
        ("3.11.7", ["3.11.7", "3", "11", "7"]),
    ],
)
def test_tokenize_identifiers_paths_versions(text: str, expected: list[str]) -> None:
    assert tokenize(text) == expected


def test_whole_identifier_and_parts_are_both_tokens() -> None:
    tokens = set(tokenize("Fails with ModuleNotFoundError in os.path.join, see ECONNREFUSED"))
    assert {"os.path.join", "os", "path", "join"} <= tokens
    assert tokenize("ModuleNotFoundError")[0] in tokens  # the whole identifier
    assert {"modul", "not", "found", "error"} <= tokens  # and its words, stemmed
    assert tokenize("ECONNREFUSED") == tokenize("econnrefused")
    assert set(tokenize("ECONNREFUSED")) <= tokens


def test_every_case_style_of_an_identifier_finds_the_others() -> None:
    styles = ["parse_config", "parseConfig", "parse-config", "ParseConfig", "PARSE_CONFIG"]
    assert len({tuple(tokenize(s)) for s in styles}) == 1


def test_prose_is_lowercased_stemmed_and_stop_words_dropped() -> None:
    assert tokenize("When did Caroline's tests start failing?") == ["carolin", "test", "start",
                                                                    "fail"]  # fmt: skip
    assert tokenize("connections connected connecting") == ["connect"] * 3
    assert tokenize("the and of what did you") == []


def test_sentence_punctuation_is_not_part_of_a_name() -> None:
    assert tokenize("See digest.js.") == ["see", "digest.js", "digest", "js"]
    assert tokenize("(parse_config)") == tokenize("parse_config")


def test_unicode_text() -> None:
    assert tokenize("Café naïve 日本語") == ["café", "naïve", "日本語"]
    # NFKC: full-width letters and ligatures match their plain forms.
    assert tokenize("\uff50\uff41\uff52\uff53\uff45 \ufb01le") == tokenize("parse file")


@pytest.mark.parametrize(
    "query", ["", "   ", "?!", "the", "what did you", "***", "((", "\\", "\x00"]
)
def test_empty_or_stopword_queries_give_no_tokens(query: str) -> None:
    assert tokenize(query) == []


def test_simple_tokenize_matches_the_data_readme() -> None:
    assert simple_tokenize("The parse_config() of HTTP-429, é!") == ["parse", "config", "http",
                                                                     "429", "é"]  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.text() | st.text(st.characters(exclude_categories=[])))  # with lone surrogates too
def test_tokenize_never_raises_and_is_deterministic(text: str) -> None:
    tokens = tokenize(text)
    assert tokens == tokenize(text)
    assert all(t and not any(c.isspace() for c in t) for t in tokens)


@pytest.mark.parametrize(
    "text",
    ["a" * 200_000 + "/b", "a-" * 100_000, "a." * 100_000, "aB" * 100_000 + "/c.d"],
    ids=["run-then-slash", "kebab", "dotted", "camel-path"],
)
def test_tokenize_is_linear_on_long_adversarial_input(text: str) -> None:
    """Catches: a tokenizer pattern that backtracks on long runs (quadratic or worse): the
    CPU time of this thread is bounded, not the wall clock, which load moves."""
    assert cpu_seconds(lambda: tokenize(text)) < 2.0


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet=st.characters(categories=["P", "S", "Zs"])))
def test_punctuation_queries_never_raise(query: str) -> None:
    index = BM25Index.build([("Retry policy", "use jitter"), ("Cache", "stale reads")])
    assert isinstance(index.top(query, 5), list)
    assert [d for d, _ in index.top(f"{query} retry {query}", 5)] == [0]


@pytest.mark.parametrize(
    ("word", "expected"),
    [("caresses", "caress"), ("ponies", "poni"), ("agreed", "agre"), ("hopping", "hop"),
     ("filing", "file"), ("relational", "relat"), ("generalization", "gener"),
     ("adjustment", "adjust"), ("controlling", "control"), ("sky", "sky")],
)  # fmt: skip
def test_porter_stemmer_examples_from_the_paper(word: str, expected: str) -> None:
    assert stem(word) == expected


# -- scorer ------------------------------------------------------------------------------------


def test_hand_computed_bm25() -> None:
    # N = 3, lengths 2, 3, 1 so avgdl = 2; "cat" is in 2 documents.
    index = BM25Index.build([("", "cat sat"), ("", "cat cat dog"), ("", "bird")],
                            tokenizer=simple_tokenize)  # fmt: skip
    idf = math.log(1 + (3 - 2 + 0.5) / (2 + 0.5))
    d0 = idf * 1 / (1 + 1.2 * (1 - 0.75 + 0.75 * 2 / 2))
    d1 = idf * 2 / (2 + 1.2 * (1 - 0.75 + 0.75 * 3 / 2))
    assert index.score("cat") == pytest.approx({0: d0, 1: d1}, rel=1e-12)
    assert d0 == pytest.approx(0.2136380132935, rel=1e-12)
    assert d1 == pytest.approx(0.2575362352031, rel=1e-12)
    top = index.top("cat", 10)
    assert [doc for doc, _ in top] == [1, 0]
    assert [score for _, score in top] == pytest.approx([d1, d0], rel=1e-12)


def test_lucene_idf_formula_and_positive_for_a_term_in_every_doc() -> None:
    docs = [("", "alpha beta"), ("", "alpha"), ("", "alpha gamma"), ("", "alpha delta")]
    index = BM25Index.build(docs, k1=1.2, b=0.0, tokenizer=simple_tokenize)
    # With b = 0 and tf = 1 the saturation is 1 / (1 + k1): only the IDF differs.
    for term, n in (("alpha", 4), ("beta", 1)):
        idf = math.log(1 + (4 - n + 0.5) / (n + 0.5))
        assert index.score(term)[0] == pytest.approx(idf / 2.2, rel=1e-12)
    assert index.score("alpha")[0] > 0


def test_parameters_change_scores() -> None:
    docs = [("", "cat " * 5 + "dog"), ("", "cat mouse")]
    s1 = BM25Index.build(docs, k1=1.2, b=0.75).score("cat")
    s2 = BM25Index.build(docs, k1=2.0, b=0.75).score("cat")
    s3 = BM25Index.build(docs, k1=1.2, b=0.0).score("cat")
    assert s1 != s2 and s1 != s3


def test_repeated_query_terms_count_each_time() -> None:
    index = BM25Index.build([("", "cat"), ("", "dog")])
    assert index.score("cat cat")[0] == pytest.approx(2 * index.score("cat")[0])


def test_title_weighs_more_than_body() -> None:
    docs = [("backoff", "retry jitter"), ("retry", "backoff jitter")]
    index = BM25Index.build(docs)
    assert [d for d, _ in index.top("retry", 2)] == [1, 0]
    assert [d for d, _ in index.top("backoff", 2)] == [0, 1]
    flat = BM25Index.build(docs, title_weight=1.0).score("retry")
    assert flat[0] == flat[1]


def test_title_weight_is_bm25f_like_repeating_the_title() -> None:
    weighted = BM25Index.build([("retry policy", "use jitter"), ("", "retry once")],
                               title_weight=2.0)  # fmt: skip
    repeated = BM25Index.build([("", "retry policy retry policy use jitter"), ("", "retry once")],
                               title_weight=2.0)  # fmt: skip
    assert weighted.score("retry policy jitter") == pytest.approx(
        repeated.score("retry policy jitter"), rel=1e-12
    )


def test_ties_break_by_lower_doc_number_deterministically() -> None:
    docs = [("", "other words"), ("", "flaky test"), ("", "noise"), ("", "flaky test")] * 3
    index = BM25Index.build(docs)
    top = index.top("flaky", 10)
    assert [d for d, _ in top] == [1, 3, 5, 7, 9, 11]
    assert len({s for _, s in top}) == 1
    assert index.top("flaky", 2) == top[:2]


def test_top_k_allowed_and_no_match() -> None:
    index = BM25Index.build([("", "red apple"), ("", "red car"), ("", "green apple")])
    assert [d for d, _ in index.top("red apple", 1)] == [0]
    assert [d for d, _ in index.top("red apple", 10, allowed={1, 2})] == [1, 2]
    assert index.top("red apple", 0) == []
    assert index.top("banana", 5) == []
    assert index.top("", 5) == []
    assert all(s > 0 for s in index.score("red apple green").values())


def test_empty_index() -> None:
    index = BM25Index.build([])
    assert len(index) == 0 and index.top("anything", 3) == []


def test_invalid_parameters_are_refused() -> None:
    with pytest.raises(ValueError):
        BM25Index.build([("", "x")], b=1.5)
    with pytest.raises(ValueError):
        BM25Index.build([("", "x")], k1=-1)


CORPUS = [
    ("Flaky test in parse_config", "tests/test_config.py fails with ECONNREFUSED on CI."),
    ("Use HTTPServerError", "Raise HTTPServerError for HTTP 429 from the API, retry later."),
    ("Python version", "We pin Python 3.11.7; 3.12 breaks lib/vault/digest.js bundling."),
    ("", "os.path.join is wrong on Windows; use pathlib."),
    ("Rust borrow error", "E0502 when borrowing self mutably twice."),
]
QUERIES = ["parse config", "HTTP 429", "ECONNREFUSED", "digest.js", "3.11", "E0502", "windows"]


@pytest.mark.parametrize("codec", ["marshal", "json"])
def test_state_round_trip_gives_identical_scores(codec: str) -> None:
    index = BM25Index.build(CORPUS)
    state = index.to_state()
    if codec == "marshal":
        loaded = BM25Index.from_state(marshal.loads(marshal.dumps(state)))
    else:
        loaded = BM25Index.from_state(json.loads(json.dumps(index.to_state(binary=False))))
    for q in QUERIES:
        assert index.score(q)
        assert loaded.score(q) == index.score(q)
        assert loaded.top(q, 3) == index.top(q, 3)


def test_state_is_marshal_ready_builtins() -> None:
    state = BM25Index.build(CORPUS).to_state()
    assert {type(v) for v in state.values()} <= {str, int, float, bytes, list}
    assert all(type(t) is str for t in state["terms"])
    assert marshal.loads(marshal.dumps(state)) == state
    assert {type(v) for v in BM25Index.build(CORPUS).to_state(binary=False).values()} <= {
        str, int, float, list}  # fmt: skip


def test_from_state_rejects_garbage_and_other_tokenizers() -> None:
    state = BM25Index.build(CORPUS).to_state()
    listed = BM25Index.build(CORPUS).to_state(binary=False)
    for bad in (
        {},
        {**state, "format": "other/1"},
        {**state, "tokenizer": "lean_memory.tokenize/0"},
        {**state, "docs": state["docs"][:-4]},
        {**state, "tfs": state["tfs"][:-3]},
        {**state, "offsets": state["offsets"][:-4]},
        {**listed, "docs": listed["docs"][:-1]},
        {**state, "docs": 3},
    ):
        with pytest.raises(ValueError):
            BM25Index.from_state(bad)
    with pytest.raises(ValueError):
        BM25Index.from_state(state, tokenizer=simple_tokenize)
    simple = BM25Index.build(CORPUS, tokenizer=simple_tokenize).to_state()
    assert BM25Index.from_state(simple, tokenizer=simple_tokenize).top("E0502", 1)[0][0] == 4


def test_search_finds_agent_memory_by_identifier_parts_and_whole() -> None:
    index = BM25Index.build(CORPUS)
    assert index.top("why does parseConfig fail", 1)[0][0] == 0
    assert index.top("HTTPServerError", 1)[0][0] == 1
    assert index.top("server error", 1)[0][0] == 1
    assert index.top("digest.js", 1)[0][0] == 2
    assert index.top("os.path.join?", 1)[0][0] == 3
    assert index.top("error E0502!", 1)[0][0] == 4


def test_merged_indexes_score_exactly_like_one_build() -> None:
    docs = CORPUS * 3 + [("Flaky", "flaky flaky parse_config"), ("", "")]
    whole = BM25Index.build(docs)
    parts = [BM25Index.build(docs[i:j]) for i, j in ((0, 4), (4, 4), (4, 11), (11, len(docs)))]
    merged = BM25Index.merge(parts)
    assert len(merged) == len(whole) and merged.avgdl == whole.avgdl
    for q in [*QUERIES, "flaky parse_config parse_config"]:
        assert merged.score(q) == whole.score(q)  # exactly: same floats, same summation order
        assert merged.top(q, 4) == whole.top(q, 4)
    with pytest.raises(ValueError):
        BM25Index.merge([whole, BM25Index.build(docs, k1=2.0)])


def test_counts_round_trip_rebuilds_the_same_index() -> None:
    index = BM25Index.build(CORPUS)
    again = BM25Index.from_counts(index.counts())
    assert index.counts() == [document_terms(t, b) for t, b in CORPUS]
    for q in QUERIES:
        assert again.score(q) == index.score(q)
    assert BM25Index.from_state(index.to_state()).counts() == index.counts()


def test_document_terms_weigh_the_title() -> None:
    tf, length = document_terms("Flaky test", "the test is flaky on CI", title_weight=2.0)
    assert tf == {"flaki": 3.0, "test": 3.0, "ci": 1}
    assert length == 3 + 2 * 2


def test_newer_breaks_ties_before_the_doc_number() -> None:
    index = BM25Index.build([("", "flaky test")] * 4 + [("", "flaky")])
    dates = ["2024-01-01", "2024-03-01", "", "2024-03-01", "2025-01-01"]
    assert [d for d, _ in index.top("test", 4, newer=dates)] == [1, 3, 0, 2]
    assert [d for d, _ in index.top("test", 2, newer=dates)] == [1, 3]
    mask = bytearray([1, 0, 1, 1, 1])
    assert [d for d, _ in index.top("test", 9, allowed=mask, newer=dates)] == [3, 0, 2]


def test_memo_tables_do_not_change_tokens() -> None:
    texts = ["parse_config, (see lib/vault/digest.js) HTTPServerError's E0502",
             "Caroline's re-entry: don't use os.path.join!"]
    expected = [tokenize(t) for t in texts]
    bm25.clear_memos()
    assert [tokenize(t) for t in reversed(texts)][::-1] == expected


# -- retriever ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class E:
    id: str
    title: str
    text: str
    date: str = ""


def test_bm25_retriever_ranks_ids_and_breaks_ties_newest_then_file_order() -> None:
    entries = [E("a", "x", "flaky test", "2024-01-01"), E("b", "y", "flaky test", "2024-03-01"),
               E("c", "z", "flaky test", "2024-03-01"), E("d", "w", "unrelated")]  # fmt: skip
    retriever = BM25()
    assert retriever.name == "bm25"
    ranked = retriever.rank("flaky", entries, 10)
    assert [i for i, _ in ranked] == ["b", "c", "a"]
    assert retriever.rank("flaky", entries, 1) == ranked[:1]
    assert retriever.rank("", entries, 5) == []
    # A changed entry list is re-indexed, not served from the cache.
    assert [i for i, _ in retriever.rank("flaky", entries[:1], 10)] == ["a"]


def test_bm25_retriever_parameters() -> None:
    entries = [E("a", "", "cat " * 5 + "dog"), E("b", "", "cat mouse")]
    assert BM25(k1=1.2).rank("cat", entries, 2) != BM25(k1=3.0, b=0.0).rank("cat", entries, 2)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.lists(st.sampled_from(["ab", "cd", "ef", "gh", "ij"]), max_size=6), max_size=25),
    st.lists(st.sampled_from(["ab", "cd", "ef", "gh", "zz"]), min_size=1, max_size=4),
    st.integers(min_value=1, max_value=30),
)
def test_top_is_the_prefix_of_the_full_ranking(
    bodies: list[list[str]], query_words: list[str], k: int
) -> None:
    index = BM25Index.build([("", " ".join(b)) for b in bodies])
    query = " ".join(query_words)
    full = sorted(index.score(query).items(), key=lambda item: (-item[1], item[0]))
    assert index.top(query, k) == full[:k]
    allowed = set(range(0, len(bodies), 2))
    assert index.top(query, k, allowed=allowed) == [i for i in full if i[0] in allowed][:k]


WORDS = ["docker", "build", "cache", "flaky", "windows", "pytest", "timeout", "redis", "port"]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(st.tuples(st.lists(st.sampled_from(WORDS), max_size=3),
                                   st.lists(st.sampled_from(WORDS), max_size=12)),
                         min_size=1, max_size=6), min_size=1, max_size=3),
       st.lists(st.sampled_from(WORDS), min_size=1, max_size=4), st.data())
def test_scores_of_gives_exactly_what_score_gives(
        parts: list[list[tuple[list[str], list[str]]]], query: list[str],
        data: st.DataObject) -> None:
    index = BM25Index.merge([BM25Index.build((" ".join(t), " ".join(b)) for t, b in docs)
                             for docs in parts])
    q = " ".join(query)
    numbers = data.draw(st.lists(st.integers(0, len(index) - 1), max_size=8))
    every = index.score(q)
    assert index.scores_of(q, numbers) == [every.get(n, 0.0) for n in numbers]
