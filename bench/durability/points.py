"""Every write step of `compact` and `put --supersedes` as a crash point (SIGKILL-like
exit, or ENOSPC), then the command run again: how many points leave a duplicate or end
in other bytes than a clean run.

    python bench/durability/points.py
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
sys.path.insert(0, str(HERE))

import bench  # noqa: E402
from lean_memory import Memory  # noqa: E402
from tests.crashpoints import COMPLETED, CRASHER  # noqa: E402


def _crash(root: Path, limit: int, mode: str, *args: str) -> int:
    return subprocess.run([sys.executable, "-c", CRASHER, str(limit), mode, *args], cwd=root,
                          capture_output=True, env=bench.env(), timeout=120,
                          check=False).returncode


def _cli(root: Path, *args: str) -> int:
    return subprocess.run([sys.executable, "-m", "lean_memory", *args], cwd=root,
                          capture_output=True, env=bench.env(), check=False).returncode


def _twice(root: Path) -> bool:
    mem = Memory(root)
    entries = [*mem.entries(), *mem.entries(archive=True)]
    texts = Counter(e.text for e in entries if e.get("compacted") is None)
    ids = [e.id for e in entries]
    return any(n > 1 for n in texts.values()) or len(ids) != len(set(ids))


def compaction(work: Path, mode: str) -> str:
    base = bench._over_budget(work / "base").root
    clean = work / "clean"
    shutil.copytree(base, clean)
    _cli(clean, "compact")
    want = bench.snapshot(clean)
    points = twice = diverged = 0
    while True:
        trial = work / f"{mode}{points + 1}"
        shutil.copytree(base, trial)
        if _crash(trial, points + 1, mode, "compact") == COMPLETED:
            break
        points += 1
        _cli(trial, "compact")
        twice += _twice(trial)
        diverged += bench.snapshot(trial) != want
        shutil.rmtree(trial)
    return (f"compact, {mode} at each write step, then compact again: {points} points, "
            f"{twice} left a duplicate, {diverged} diverged from a clean run")


def correction(work: Path) -> str:
    base = work / "correction"
    mem = Memory(base)
    mem.init()
    for i in range(4):
        mem.put_entry("corrections", f"earlier correction {i} about the deploy order",
                      date="2026-01-01")
    wrong = mem.put_entry("quirks", "the api listens on port 8080", date="2026-01-01")
    args = ("put", "--supersedes", wrong.id, "--date", "2026-01-02", "corrections",
            "the api listens on port 8443, not 8080")
    points = twice = 0
    while True:
        trial = work / f"c{points + 1}"
        shutil.copytree(base, trial)
        if _crash(trial, points + 1, "kill", *args) == COMPLETED:
            break
        points += 1
        _cli(trial, *args)
        twice += len([e for e in Memory(trial).entries("corrections") if e.supersedes]) > 1
    return (f"put --supersedes, killed at each write step, then retried: {points} points, "
            f"{twice} stored the correction twice")


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for line in (compaction(work / "kill", "kill"), compaction(work / "full", "full"),
                     correction(work)):
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
