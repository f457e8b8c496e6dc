"""A gate that knows relevance, not register (issue 33, ADR 0030): the same decision
whatever the letter case, one typo in a longer word mended against the memory's own
vocabulary, the bar calibrated on the memory, all deterministic."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lean_memory
from lean_memory import digest as dg
from lean_memory import digest as typos  # the mending lives in digest (ADR 0056)

ENTRIES = [
    ("conventions", "Run the tests of one package with npm test -w core."),
    ("conventions", "Create a database migration with prisma migrate dev; never edit an "
                    "applied migration."),
    ("quirks", "Release: npm run release on main; changesets bumps the versions and the "
               "workflow publishes to npm."),
    ("failures", "The e2e job fails when Playwright browsers are missing: run npx playwright "
                 "install in the CI image."),
    ("failures", "Celery workers hung on shutdown because the prefetch multiplier was 4."),
    ("insights", "The orders service owns the orders table; other services call its API."),
    ("quirks", "Storybook runs on port 6006 and needs the design tokens built first."),
    ("insights", "Settings come from environment variables with the prefix APP_."),
]
PROMPTS = [
    "run the core package tests only", "add a migration", "why is CI red on e2e",
    "release it", "the celery workers hang", "storybook does not start",
    "what should I cook for dinner", "write a poem about the sea",
    "explain what a monad is", "which prefix do the environment variables need",
]


@pytest.fixture(scope="module")
def mem(tmp_path_factory: pytest.TempPathFactory) -> Iterator[lean_memory.Memory]:
    root = tmp_path_factory.mktemp("gate")
    old = {k: os.environ.get(k) for k in ("XDG_DATA_HOME", "LEAN_MEMORY_GLOBAL")}
    os.environ["XDG_DATA_HOME"] = str(root / "data")
    os.environ["LEAN_MEMORY_GLOBAL"] = str(root / "global")
    m = lean_memory.Memory(root / "repo")
    m.init()
    for shard, text in ENTRIES:
        m.put_entry(shard, text, date="2026-11-01")
    yield m
    for k, v in old.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


def opened(mem: lean_memory.Memory, prompt: str) -> bool:
    return dg.MATCH_HEAD.strip() in mem.digest(prompt)


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(PROMPTS), st.lists(st.sampled_from(["lower", "upper", "title", "same"]),
                                          min_size=12, max_size=12))
def test_letter_case_never_changes_the_decision(mem: lean_memory.Memory, prompt: str,
                                                cases: list[str]) -> None:
    """Before: an unknown capitalised word weighed 20x a lower-case one, so title- or
    upper-casing a prompt flipped the gate on most unrelated prompts. Each word is cased
    at random as a person types it (lower, UPPER, Title); a capital inside a word is an
    identifier's boundary (``parseConfig``), not letter case, and is not varied."""
    words = prompt.split()
    cased = " ".join(getattr(w, c)() if c != "same" else w
                     for w, c in zip(words, cases, strict=False))
    assert opened(mem, cased) == opened(mem, prompt.lower())


@pytest.mark.parametrize("prompt", PROMPTS)
def test_upper_and_title_case(mem: lean_memory.Memory, prompt: str) -> None:
    assert opened(mem, prompt.upper()) == opened(mem, prompt.title()) == opened(mem, prompt)


@pytest.mark.parametrize(("typo", "want"), [
    ("add a migartion", "prisma migrate"),  # two letters swapped
    ("reelase it", "changesets"),  # a letter typed twice
    ("the celery wokers hang", "prefetch"),  # a letter left out
    ("the celery workers hnag", "prefetch"),
    ("storybok does not start", "6006"),
])
def test_one_typo_still_finds_the_entry(mem: lean_memory.Memory, typo: str, want: str) -> None:
    """Before: one typo silenced a short prompt ("add a migartion": nothing)."""
    assert want in mem.digest(typo)


def damerau(a: str, b: str) -> int:
    """Optimal string alignment distance (the oracle, written apart from digest.py's mending)."""
    d = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) + 1):
        d[i][0] = i
    for j in range(len(b) + 1):
        d[0][j] = j
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
    return d[len(a)][len(b)]


VOCAB = {"migrat": 3, "releas": 2, "worker": 1, "storybook": 1, "prefix": 1, "packag": 1}


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=12))
def test_nearest_is_one_edit_away_and_held(word: str) -> None:
    """Whatever it returns is one edit from the word and its token is in the vocabulary;
    the same answer every time."""
    got = typos.nearest(word, lambda t: VOCAB.get(t, 0))
    assert got == typos.nearest(word, lambda t: VOCAB.get(t, 0))
    if got is not None:
        assert damerau(word, got) == 1
        from lean_memory.bm25 import tokenize

        assert [t for t in tokenize(got) if t in VOCAB]


def test_mend_leaves_short_known_and_far_words_alone() -> None:
    """Only unknown words of MIN_LETTERS or more are mended; "write" never becomes "wait"
    (a change to a key far away is not a slip)."""
    df = {"migrat": 3, "wait": 5, "add": 4, "read": 2}.get

    def count(t: str) -> int:
        return df(t) or 0

    assert typos.mend("add a migartion", count) == "add a migration"
    assert typos.mend("ad a migration", count) == "ad a migration"
    assert typos.mend("write a docstring", count) == "write a docstring"
    assert typos.mend("fix the readme", count) == "fix the readme"


def test_the_bar_is_calibrated_and_deterministic(mem: lean_memory.Memory) -> None:
    """The bar is at least the configured floor, at most the cap, and the same when
    computed afresh (no cache) and in another process."""
    value = dg.bar(mem)
    assert mem.config.digest_min_coverage <= value <= max(dg.BAR_CAP,
                                                          mem.config.digest_min_coverage)
    cache = Path(mem._cache) / "digest-gate.marshal"
    assert cache.exists()
    cache.unlink()
    assert dg.bar(lean_memory.Memory(mem.root)) == value
    code = ("import sys, lean_memory; from lean_memory import digest as dg; "
            "print(repr(dg.bar(lean_memory.Memory(sys.argv[1]))))")
    cache.unlink()
    root = Path(lean_memory.__file__).resolve().parent.parent
    out = subprocess.run([sys.executable, "-c", code, str(mem.root)], capture_output=True,
                         text=True, check=True, env={**os.environ, "PYTHONPATH": str(root)})
    assert float(out.stdout) == value


def test_the_decisions_are_the_same_in_a_fresh_process(mem: lean_memory.Memory) -> None:
    here = [mem.digest(p) for p in PROMPTS]
    root = Path(lean_memory.__file__).resolve().parent.parent
    code = ("import sys, json, lean_memory; m = lean_memory.Memory(sys.argv[1]); "
            "print(json.dumps([m.digest(p) for p in json.loads(sys.argv[2])]))")
    import json

    out = subprocess.run([sys.executable, "-c", code, str(mem.root), json.dumps(PROMPTS)],
                         capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": str(root)})
    assert json.loads(out.stdout) == here


def test_explicit_search_is_never_gated(mem: lean_memory.Memory,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """`get --query` answers whatever the gate would say: with a bar no hit reaches, the
    digest has no matches and the search still has them."""
    monkeypatch.setattr(dg, "calibration", lambda *_: (1.01, dg.UNKNOWN_PLAIN))
    assert not opened(mem, "storybook port design tokens")
    assert any("6006" in h.entry.text for h in mem.search("storybook port design tokens"))
