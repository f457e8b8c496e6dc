"""The digest's standing-rule cache is keyed by what the rules depend on (the conventions
shard's bytes and the memory's correction links), not by every shard file: an ordinary put
to another shard keeps it, a correction of a rule voids it."""

from __future__ import annotations

from pathlib import Path

import pytest

import lean_memory
from lean_memory import digest as digest_module


def _memory(root: Path) -> lean_memory.Memory:
    mem = lean_memory.Memory(root)
    mem.init()
    mem.put_entry("conventions", "Always run ruff before a commit.", date="2026-01-01")
    mem.put_entry("conventions", "Name branches after the issue they fix.", date="2026-01-01")
    return mem


def test_an_ordinary_put_keeps_the_rule_cache(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """On 09d408f any put voided the cache (its key held every shard's signature), so the
    next prompt parsed the rules and clipped each one again."""
    mem = _memory(tmp_path)
    assert "Always run ruff" in lean_memory.Memory(mem.root).digest("ruff")
    mem.put_entry("failures", "The nightly build broke on a full disk.", date="2026-01-02")

    def refused(*args: object, **kwargs: object) -> list[str]:
        raise AssertionError("the rules were fitted again")

    monkeypatch.setattr(digest_module, "_fit_rules", refused)
    after = lean_memory.Memory(mem.root).digest("ruff")
    assert "Always run ruff" in after and "Name branches" in after


def test_a_correction_of_a_rule_voids_the_rule_cache(tmp_path: Path) -> None:
    mem = _memory(tmp_path)
    rule = mem.entries("conventions")[0]
    assert "Always run ruff" in lean_memory.Memory(mem.root).digest("commit")
    mem.put_entry("corrections", "Run ruff and mypy before a commit, not ruff alone.",
                  supersedes=rule.id, date="2026-01-03")
    after = lean_memory.Memory(mem.root).digest("commit")
    assert "Always run ruff" not in after
    assert "Name branches after the issue" in after
