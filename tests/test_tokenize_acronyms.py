"""An acronym's plural is one word, not camelCase (GPUs, URLs, getURLs).

The case splitter took the capital before a lowercase "s" for the start of a word, so "GPUs"
gave ``gpu`` + ``gp`` and "URLs" ``url`` + ``ur`` + ``ls``: fragments no memory holds, which
the digest's gate weighed as unknown words (lowering a prompt's coverage) and BM25 scored
as noise. Real identifiers must keep their parts (parseHTTPResponse, XMLHttpRequest,
IOError). The expected tokens below were written by hand from the rule (joined identifier
first, then its parts; Porter stems; stop words and one-letter parts dropped), not read
from the tokenizer; the caches keyed on the tokenizer's version are checked to be rebuilt.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lean_memory
from lean_memory import bm25
from lean_memory import digest as dg
from lean_memory._stem import stem

ORACLE = [
    # acronym plurals: the acronym, as the plain plural stems
    ("GPUs", ["gpu"]),
    ("URLs", ["url"]),
    ("IDs", ["id"]),
    ("APIs", ["api"]),
    ("PRs", ["pr"]),
    ("CIs", ["ci"]),
    ("UUIDs", ["uuid"]),
    ("HTTPs", ["http"]),
    ("two GPUs and three APIs", ["two", "gpu", "three", "api"]),
    ("(see the URLs)", ["see", "url"]),
    ("APIs/GPUs", ["apis/gpus", "api", "gpu"]),
    ("the GPUs' memory", ["gpu", "memori"]),
    # an acronym's plural inside an identifier: the identifier, its parts, the acronym
    ("getURLs", ["geturl", "get", "url"]),
    ("listPRs", ["listpr", "list", "pr"]),
    ("URLsFor", ["urlsfor", "url"]),  # "for" is a stop word
    ("fetchAPIsList", ["fetchapislist", "fetch", "api", "list"]),
    ("max_GPUs", ["maxgpu", "max", "gpu"]),
    # real identifiers keep their parts, as before
    ("parseHTTPResponse", ["parsehttprespons", "pars", "http", "respons"]),
    ("XMLHttpRequest", ["xmlhttprequest", "xml", "http", "request"]),
    ("IOError", ["ioerror", "io", "error"]),
    ("HTTPServer", ["httpserver", "http", "server"]),
    ("HTTPSession", ["httpsession", "http", "session"]),  # capital S starts a word
    ("HTTP2Server", ["http2server", "http2", "server"]),
    ("parseConfig", ["parseconfig", "pars", "config"]),
    ("getURLsByID", ["geturlsbyid", "get", "url", "id"]),  # "by": a stop word
    ("APIService", ["apiservic", "api", "servic"]),
    ("JSONSchema", ["jsonschema", "json", "schema"]),
    # a capital and more than a lone "s" still starts a word
    ("HTTPStatus", ["httpstatu", "http", "statu"]),
    ("AWSSecrets", ["awssecret", "aw", "secret"]),
    # no lowercase letter at all: never split
    ("ECONNREFUSED", ["econnrefus"]),
    ("GPUS", ["gpu"]),
    ("IPv6", ["ipv6"]),
    ("E0502", ["e0502"]),
]


@pytest.mark.parametrize(("text", "expected"), ORACLE, ids=[t for t, _ in ORACLE])
def test_acronym_plurals_and_identifiers_by_hand(text: str, expected: list[str]) -> None:
    """Catches: "GPUs" split as camelCase ("gp"), and a fix that loses real identifiers'
    parts (parseHTTPResponse, XMLHttpRequest, IOError)."""
    bm25.clear_memos()
    assert bm25.tokenize(text) == expected


def test_the_fast_splitter_and_its_regex_agree_on_the_table() -> None:
    """Catches: the str-method case splitter and ``_CASE_SPLIT`` disagreeing on acronym
    plurals (the non-ASCII path uses the regex)."""
    for text, _ in ORACLE:
        for piece in bm25._ALNUM.findall(text):
            assert bm25._case_split(piece) == bm25._CASE_SPLIT.split(piece), piece


acronyms = st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ", min_size=2, max_size=6)
words = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=10)


@given(acronyms)
@settings(max_examples=300, deadline=None)
def test_an_acronym_plural_tokenizes_as_its_lowercase(acronym: str) -> None:
    """Lower-casing a word that is no identifier (one word, whatever its case) never
    changes its tokens: "GPUs" is "gpus" is "GPUS". Catches the camelCase split of an
    acronym's plural."""
    plural = acronym + "s"
    bm25.clear_memos()
    assert bm25.tokenize(plural) == bm25.tokenize(plural.lower()) == bm25.tokenize(
        plural.upper())


@given(words)
@settings(max_examples=300, deadline=None)
def test_letter_case_of_a_plain_word_never_changes_its_tokens(word: str) -> None:
    """A plain word in lower, upper or title case gives the same tokens (ADR 0030: the gate
    is case-free)."""
    bm25.clear_memos()
    expected = bm25.tokenize(word)
    for cased in (word.upper(), word.title(), word.capitalize()):
        assert bm25.tokenize(cased) == expected


@given(words.filter(lambda w: len(w) > 1), acronyms)
@settings(max_examples=300, deadline=None)
def test_a_camel_case_name_with_an_acronym_plural_keeps_the_acronym(head: str,
                                                                   acronym: str) -> None:
    """``getURLs``: the joined name, the head word, the acronym's plural stemmed, and no
    fragment of the acronym (written from the rule, with the stemmer, the stop words and
    the bound prefixes such as "re", which are no words of their own)."""
    name = head + acronym + "s"
    parts = [head, (acronym + "s").lower()]
    expected = [stem(name.lower())] + [stem(p) for p in parts if p not in bm25.STOP_WORDS
                                       and p not in bm25._BOUND_PREFIXES]
    bm25.clear_memos()
    assert bm25.tokenize(name) == expected


texts = st.text(alphabet="aAbBsSgGpPuU0_-./ '", max_size=40)


@given(texts, texts)
@settings(max_examples=300, deadline=None)
def test_tokens_are_a_function_of_the_text_alone(first: str, text: str) -> None:
    """Memo tables (warmed by whatever was tokenized before) never change the tokens, and
    a text's tokens are its whitespace-separated pieces' tokens in turn."""
    bm25.clear_memos()
    cold = bm25.tokenize(text)
    bm25.tokenize(first)
    assert bm25.tokenize(text) == cold
    bm25.clear_memos()
    assert [t for piece in text.split() for t in bm25.tokenize(piece)] == cold


# -- caches keyed on the tokenizer's output -------------------------------------------------

# What the version pins: the tokens of texts that every tokenizer change so far touched.
_PINNED = " ".join(t for t, _ in ORACLE) + (
    " lib/vault/digest.js os.path.join 3.11.7 parse_config re-entry don't Caroline's x-ray"
    " caf\u00e9 \uff21\uff30\uff29s")
_PIN = ("lean_memory.tokenize/2",
        "0ff6286248552897349589a186343e3b52fe1812dfb50808c3487c3fecb465f2")


def test_the_tokenizer_version_changes_with_its_output() -> None:
    """Catches: a tokenizer change without a new TOKENIZER_VERSION, which would leave
    search indexes and the gate's calibration built by the old tokens in use. If this
    fails after a deliberate change, bump TOKENIZER_VERSION and the pin together."""
    bm25.clear_memos()
    got = hashlib.sha256("\n".join(bm25.tokenize(_PINNED)).encode()).hexdigest()
    assert (bm25.TOKENIZER_VERSION, got) == _PIN


@pytest.fixture
def memory(tmp_path: Path) -> Iterator[lean_memory.Memory]:
    old = {k: os.environ.get(k) for k in ("XDG_DATA_HOME", "LEAN_MEMORY_GLOBAL")}
    os.environ["XDG_DATA_HOME"] = str(tmp_path / "data")
    os.environ["LEAN_MEMORY_GLOBAL"] = str(tmp_path / "global")
    mem = lean_memory.Memory(tmp_path / "repo")
    mem.init()
    mem.put_entry("quirks", "The CI runners have two GPUs; CUDA tests skip without them.",
                  date="2026-11-01")
    mem.put_entry("conventions", "Build URLs with urljoin, never by string concatenation.",
                  date="2026-11-01")
    yield mem
    for k, v in old.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


def test_a_calibration_cached_under_another_tokenizer_is_not_used(
        memory: lean_memory.Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Catches: the gate's calibration cache keyed without the tokenizer's version, so an
    upgrade kept the bar computed from the old tokens."""
    first = dg.calibration(memory)
    assert (Path(memory._cache) / "digest-gate.marshal").exists()
    calls: list[int] = []
    real = dg._probe_coverages

    def counted(*args: object, **kwargs: object) -> object:
        calls.append(1)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(dg, "_probe_coverages", counted)
    assert dg.calibration(lean_memory.Memory(memory.root)) == first
    assert calls == []  # same tokenizer: the cache serves
    monkeypatch.setattr(dg, "TOKENIZER_VERSION", "lean_memory.tokenize/0")
    assert dg.calibration(lean_memory.Memory(memory.root)) == first
    assert calls == [1]  # another tokenizer: calibrated afresh


def test_an_acronym_plural_finds_its_note_in_any_case(memory: lean_memory.Memory) -> None:
    """The prompt's "GPUs", "gpus" and "GPU" all find the note that says "GPUs", and the
    gate decides the same for each spelling (no fragment weighs as an unknown word)."""
    found = {q: [h.entry.title for h in memory.search(q)]
             for q in ("GPUs", "gpus", "GPU", "gpu")}
    assert all(titles and titles == found["gpu"] for titles in found.values()), found
    prompts = ["why do the CUDA tests skip on the GPUs", "why do the cuda tests skip on the gpus"]
    assert len({memory.digest(p) for p in prompts}) == 1
