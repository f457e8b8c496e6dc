"""The crash harness reaches every write of the memory's files, wherever its writer lives.

The durability tests kill a command at each of its crash points (just before and after each
``atomic_write``); a writer moved to a module the harness does not patch would silently stop
being one, and those tests would pass while testing less. The number of points each kind of
write meets is pinned here (two per file written): a writer that dropped out of the harness
fails this test.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from lean_memory import Memory

from .crashpoints import copy, points


def _memory(root: Path) -> Memory:
    mem = Memory(root)
    mem.init()
    for i in range(6):
        mem.put_entry("failures", f"the nightly build {i} broke on a full disk; cleaned it",
                      date="2026-01-01")
    return mem


def test_every_put_path_and_compaction_meets_its_crash_points(tmp_path: Path) -> None:
    base = _memory(tmp_path / "base").root
    put = ("put", "--date", "2026-01-02", "failures", "a flaky upload test times out on CI")
    # the quick put (the put state valid): the shard, then INDEX.md
    assert points(copy(base, tmp_path / "quick"), *put) == 4
    # the put from a summary (no put state): the same two files
    trial = copy(base, tmp_path / "summary")
    shutil.rmtree(trial / ".agents" / "memory" / ".cache")
    assert points(trial, *put) == 4
    # the general put (a hand-written entry to stamp): the same two files
    trial = copy(base, tmp_path / "general")
    path = trial / ".agents" / "memory" / "failures.md"
    path.write_text(path.read_text() + "## By hand\nwritten by hand\n")
    assert points(trial, *put) == 4
    # a correction, then one said again: the shard and INDEX.md each time
    first = Memory(base).entries("failures")[0].id
    assert points(copy(base, tmp_path / "fix"), "put", "--supersedes", first, "corrections",
                  "the nightly build broke on a full inode table, not disk") == 4
    assert points(copy(base, tmp_path / "again"), *put[:-1],
                  "the nightly build 3 broke on a full disk; cleaned it") == 4
    # init on a fresh folder: .gitignore, six shards, INDEX.md
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    (fresh / ".git").mkdir()
    assert points(fresh, "init") == 16


def test_a_compaction_meets_its_crash_points(tmp_path: Path) -> None:
    mem = _memory(tmp_path / "base")
    (mem.agents_dir / "config.toml").write_text(
        "[memory]\ntoken_budget = 300\ncompact_at_percent = 50\nkeep_recent = 2\n")
    # the journal, the archive, the shard, INDEX.md
    assert points(copy(mem.root, tmp_path / "c"), "compact") == 8
