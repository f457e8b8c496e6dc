"""The gate weighs a word it has never seen by what the memory knows (issue 33, ADR 0041):
a memory that holds most everyday words (a pooled memory, a paper collection) takes an
unknown word for what the prompt is about; a small project memory, which never needed
most everyday words, does not. Case-free and deterministic like the rest of the gate."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lean_memory
from lean_memory import digest as dg

# One entry the prompts below share exactly one word with ("orders").
ORDERS = "The orders service owns its table; other services call its API."
# Jargon that shares no word with everyday text (nor with the probes).
JARGON = [
    "Terraform state lives in the tfstate bucket; run tflint before plan.",
    "Kubelet evictions: raise kube-reserved when pods get OOMKilled.",
    "Gradle daemon: org.gradle.jvmargs=-Xmx4g in gradle.properties.",
]
# Three words, one the memory holds: with an unknown word weighing half the top idf the
# held word is ~40 % of the prompt's weight; weighing the whole top idf, ~25 %.
PROMPT = "orders ledger reconciliation"


def _isolated(root: Path) -> dict[str, str | None]:
    old = {k: os.environ.get(k) for k in ("XDG_DATA_HOME", "LEAN_MEMORY_GLOBAL")}
    os.environ["XDG_DATA_HOME"] = str(root / "data")
    os.environ["LEAN_MEMORY_GLOBAL"] = str(root / "global")
    return old


def _restore(old: dict[str, str | None]) -> None:
    for k, v in old.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


def _memory(root: Path, texts: list[str]) -> lean_memory.Memory:
    mem = lean_memory.Memory(root)
    mem.init()
    for i, text in enumerate(texts):
        mem.put_entry(("insights", "quirks", "seed")[i % 3], text, date="2026-11-01")
    return mem


@pytest.fixture(scope="module")
def memories(tmp_path_factory: pytest.TempPathFactory
             ) -> Iterator[tuple[lean_memory.Memory, lean_memory.Memory]]:
    """(broad, narrow): the same two topics, one memory also holding everyday text."""
    root = tmp_path_factory.mktemp("calibration")
    old = _isolated(root)
    # Everyday text the memory holds: the probes' own sentences (so every probe word is
    # known) — what a pooled memory or a collection of papers looks like to the gate.
    broad = _memory(root / "broad", [ORDERS, *JARGON, *dg.PROBES])
    narrow = _memory(root / "narrow", [ORDERS, *JARGON])
    yield broad, narrow
    _restore(old)


def opened(mem: lean_memory.Memory, prompt: str) -> bool:
    return dg.MATCH_HEAD.strip() in mem.digest(prompt)


@given(st.floats(0, 1), st.floats(0, 1))
def test_the_unknown_weight_is_bounded_and_grows_with_what_memory_knows(a: float,
                                                                        b: float) -> None:
    """An unknown word never weighs more than a word no entry holds (BM25's top idf) nor
    less than the case-free gate's half; a memory that knows more everyday words never
    weighs an unknown one less."""
    low, high = sorted((a, b))
    assert dg.UNKNOWN_PLAIN <= dg.unknown_weight(low) <= dg.unknown_weight(high)
    assert dg.unknown_weight(high) <= dg.UNKNOWN_MOST <= 1.0


def test_a_project_memory_keeps_the_half_weight_a_broad_one_gets_the_whole() -> None:
    """A project's memory holds about a quarter of everyday words (bench/coding: 12-32 %):
    its decisions must not move. Three quarters (a pooled memory, Cranfield: 77 %): an
    unknown word weighs what a word in no entry weighs."""
    assert dg.unknown_weight(0.0) == dg.unknown_weight(0.25) == dg.UNKNOWN_PLAIN
    assert dg.unknown_weight(0.75) == dg.unknown_weight(1.0) == dg.UNKNOWN_MOST


def test_the_calibration_reads_what_the_memory_knows(
        memories: tuple[lean_memory.Memory, lean_memory.Memory]) -> None:
    """Built so the oracle is known: the broad memory holds every probe word, the narrow
    one none of them."""
    broad, narrow = memories
    assert dg.calibration(broad)[1] == dg.UNKNOWN_MOST
    assert dg.calibration(narrow)[1] == dg.UNKNOWN_PLAIN


def test_one_held_word_beside_unknown_ones_opens_only_where_unknown_words_are_common(
        memories: tuple[lean_memory.Memory, lean_memory.Memory]) -> None:
    """Before, a pooled memory opened for "add a foreign key from orders" on the one word
    it held ("orders"), whatever else the prompt named; a project memory, where most
    words of any prompt are unknown, must still answer a prompt that names its topic."""
    broad, narrow = memories
    assert not opened(broad, PROMPT)
    assert opened(narrow, PROMPT)
    assert opened(broad, "which service owns the orders table")


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(["lower", "upper", "title"]), min_size=3, max_size=3),
       st.booleans())
def test_letter_case_never_changes_the_calibrated_decision(
        memories: tuple[lean_memory.Memory, lean_memory.Memory], cases: list[str],
        use_broad: bool) -> None:
    mem = memories[0] if use_broad else memories[1]
    cased = " ".join(getattr(w, c)() for w, c in zip(PROMPT.split(), cases, strict=True))
    assert opened(mem, cased) == opened(mem, PROMPT)


def test_the_calibration_is_the_same_without_its_cache(
        memories: tuple[lean_memory.Memory, lean_memory.Memory]) -> None:
    """Cached once per shard state; recomputed it gives the same two numbers."""
    broad, _ = memories
    first = dg.calibration(broad)
    cache = Path(broad._cache) / "digest-gate.marshal"
    assert cache.exists()
    cache.unlink()
    assert dg.calibration(lean_memory.Memory(broad.root)) == first
    assert dg.bar(lean_memory.Memory(broad.root)) == first[0]
