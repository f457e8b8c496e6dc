"""What a prompt in a session keeps once the gate opened (ADR 0030, amended by ADR 0042):
the first five matches, then those scoring nearly as well as the best, at most sixteen. A
prompt whose words tell no entry apart ("run the tests" over many projects' memory) gets
many; one whose best match stands out gets few."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lean_memory
from lean_memory import digest as dg
from lean_memory.format import Entry
from lean_memory.learn import hook_text
from lean_memory.search import Hit
from lean_memory.tokens import estimate_tokens

PROJECTS = ("alder", "birch", "cedar", "dogwood", "elm", "fir", "ginkgo", "hazel", "ivy",
            "juniper", "kapok", "larch", "maple", "nutmeg", "oak", "pine", "quince", "rowan",
            "spruce", "tamarack")


def _hit(i: int, base: float) -> Hit:
    text = f"entry {i}"
    return Hit(Entry(f"e{i}", "quirks", text, text), "quirks", base, False, base, 0)


def _session_cut(bases: list[float]) -> list[str]:
    kept, _ = dg.trimmed([_hit(i, b) for i, b in enumerate(bases)], dg.SESSION_KEEP,
                         dg.SESSION_RATIO, dg.SESSION_MAX)
    return [h.entry.id for h in kept]


def test_many_matches_that_score_alike_are_kept_past_eight() -> None:
    """Before: at most 8 matches in a session, so a generic prompt over a memory of fifteen
    projects ("run the tests") showed 8 of 15 equally good answers (ADR 0042)."""
    kept = _session_cut([10.0] + [9.0] * 25)
    assert len(kept) == 16
    assert kept == [f"e{i}" for i in range(16)]  # the best ones, in order


def test_a_best_match_that_stands_out_keeps_the_weak_tail_out() -> None:
    """Past the first five, a match scoring under 0.7 of the best is not shown: before,
    0.5 let weak word matches ride a specific prompt in a pooled memory (ADR 0042)."""
    kept = _session_cut([10.0, 6.9, 6.9, 6.5, 6.5, 6.5, 6.5, 6.5, 6.5, 3.0])
    assert kept == ["e0", "e1", "e2", "e3", "e4"]
    assert _session_cut([10.0] + [7.0] * 9) == [f"e{i}" for i in range(10)]


@given(st.lists(st.floats(0.01, 50.0), max_size=40))
@settings(max_examples=200, deadline=None)
def test_the_session_cut_is_a_prefix_of_the_ranking(bases: list[float]) -> None:
    """Whatever the scores: the first five stay, never more than sixteen, and every kept
    match past the fifth scores at least 0.7 of the best (oracle written from the rule)."""
    bases.sort(reverse=True)
    kept = _session_cut(bases)
    n = len(kept)
    assert kept == [f"e{i}" for i in range(n)]
    assert min(len(bases), 5) <= n <= 16
    assert all(bases[i] >= 0.7 * bases[0] for i in range(5, n))
    if n < min(len(bases), 16):
        assert bases[n] < 0.7 * bases[0]


@pytest.fixture
def pooled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> lean_memory.Memory:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("LEAN_MEMORY_GLOBAL", str(tmp_path / "global"))
    mem = lean_memory.Memory(tmp_path / "repo")
    mem.init()
    for name in PROJECTS:
        mem.put_entry("seed", f"To run the tests of the {name} service, use make check-{name} "
                              "from its folder.", title=f"Tests of {name}")
    return mem


def _shown(text: str) -> list[str]:
    return [name for name in PROJECTS if f"make check-{name}" in text]


def _prompt(mem: lean_memory.Memory, session: str, text: str, budget: int = 1200) -> Any:
    return hook_text(mem, "UserPromptSubmit", {"session_id": session}, text, budget)


def test_a_generic_prompt_in_a_session_gets_many_alike_answers(
        pooled: lean_memory.Memory) -> None:
    """Through the prompt hook: "run the tests" over twenty services' test commands shows
    sixteen of them (was eight), and a second time, nothing again (pay-once)."""
    hook_text(pooled, "SessionStart", {"session_id": "s1", "source": "startup"}, "", 1200)
    first = _prompt(pooled, "s1", "run the tests")
    assert len(_shown(first)) == 16
    again = _prompt(pooled, "s1", "run the tests")
    assert _shown(again) == []


def test_the_session_cut_never_breaks_the_budget(pooled: lean_memory.Memory) -> None:
    """Sixteen matches may not fit a small budget: the block stays within it."""
    for budget in (60, 120, 200, 400):
        text = _prompt(pooled, f"b{budget}", "run the tests", budget)
        assert estimate_tokens(text) <= budget
        assert 1 <= len(_shown(text)) <= 16 or budget < 120


def test_a_session_prompt_fetches_only_what_the_cut_can_keep(
        pooled: lean_memory.Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    """The session cut keeps at most sixteen, so the search asks for seventeen (one more
    says the cut fell), not the ~75 that would fill the budget: at 10k entries that was
    two fifths of the hook's work (ADR 0050, amended). Twenty alike answers: sixteen shown."""
    asked: list[int] = []
    real = dg.find

    def find(*args: Any, **kw: Any) -> Any:
        asked.append(kw["k"])
        return real(*args, **kw)

    monkeypatch.setattr(dg, "find", find)
    text = _prompt(pooled, "s2", "run the tests")
    assert len(_shown(text)) == 16
    assert asked == [dg.SESSION_MAX + 1]
    asked.clear()
    outside = hook_text(pooled, "UserPromptSubmit", {}, "run the tests", 1200)
    assert len(_shown(outside)) == 20 and max(asked) > dg.SESSION_MAX + 1
