"""The global store's INDEX.md speaks of the global layer and gives the commands that reach
it (``--global``): it said "before touching this project" and ``lean-memory get <shard>``,
which an agent would run against the project instead."""

from __future__ import annotations

from pathlib import Path

import pytest

from lean_memory import Memory, layers
from lean_memory.putstate import ShardStatus, Status, render_index


@pytest.fixture
def global_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "global"
    monkeypatch.setenv("LEAN_MEMORY_GLOBAL", str(root))
    return root


def _commands(text: str) -> list[str]:
    """The ``lean-memory …`` commands quoted in backticks (an oracle of its own)."""
    quoted = text.split("`")[1::2]
    return [q for q in quoted if q.startswith("lean-memory ")]


def _says_global(text: str) -> None:
    assert "this project" not in text
    commands = _commands(text)
    assert commands, text  # the fixture reaches the case: the index gives commands
    assert all("--global" in c.split() for c in commands), commands


def test_a_new_global_store_s_index_says_global(global_root: Path) -> None:
    """Guards the global INDEX.md describing a project and omitting ``--global``."""
    g = layers.global_memory(create=True)
    g.put_entry("conventions", "Answer in British English.")
    _says_global((global_root / ".agents" / "memory" / "INDEX.md").read_text("utf-8"))
    assert "this project" not in (global_root / ".agents" / "memory" / "seed.md").read_text()


def test_an_older_global_store_s_index_says_global(global_root: Path) -> None:
    """Guards a global store made by an older version: its seed.md still holds the project's
    description, which INDEX.md must not pass on (the shard file itself is left as is)."""
    Memory(global_root).init()  # as an older version made it: a project's layout
    seed = global_root / ".agents" / "memory" / "seed.md"
    assert "before touching this project" in seed.read_text("utf-8")
    g = layers.global_memory()
    g.index()
    _says_global((global_root / ".agents" / "memory" / "INDEX.md").read_text("utf-8"))
    assert "before touching this project" in seed.read_text("utf-8")  # a file of the person's


def test_the_compaction_line_names_global_too() -> None:
    """Guards `lean-memory compact` (the project's) in an over-budget global index."""
    status = Status((ShardStatus("quirks", "Surprises.", 1, 0, 90),), 90, 100, 80)
    assert status.compaction_due
    text = render_index(status, 2000, layer="global")
    assert "`lean-memory compact --global`" in text
    _says_global(text)


def test_a_project_s_index_is_unchanged(tmp_path: Path, global_root: Path) -> None:
    """Guards the project's INDEX.md picking up the global wording."""
    mem = Memory(tmp_path / "p")
    mem.init()
    text = (tmp_path / "p" / ".agents" / "memory" / "INDEX.md").read_text("utf-8")
    assert "before touching this project" in text
    assert "--global" not in text
    assert "Pull a shard with `lean-memory get <shard>`" in text
