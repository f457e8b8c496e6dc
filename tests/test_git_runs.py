"""One way to run git (``spawn.git``): every git lean_memory starts has ``spawn.GIT_SAFE``
(no program a repository's config names, such as a file-system monitor, runs), the ones that
read a repository's facts run isolated from the person's config, and the ones that must see
the repository as the person's git does keep it (excludes file, hooks path). Before, five
runners differed: the merge driver's setup, the git hooks' setup, ``init``'s ignore check and
the staged scan ran plain ``git``."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from lean_memory import agents, githook, history, learn, merge, scanfiles, spawn

from .conftest import ROOT, git

SAFE = ["-c", "core.fsmonitor=false", "-c", "core.untrackedCache=false"]  # as ADR 0033 says


@pytest.fixture
def runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A ``git`` first on PATH that logs each run (its words, and whether the person's
    global config was shut out), then runs the real git."""
    real = shutil.which("git")
    assert real is not None
    bin_dir, log = tmp_path / "bin", tmp_path / "git.log"
    bin_dir.mkdir()
    (bin_dir / "git").write_text(
        "#!/bin/sh\n"
        f"{{ [ \"$GIT_CONFIG_GLOBAL\" = /dev/null ] && printf isolated || printf person\n"
        "  for a in \"$@\"; do printf '\\037%s' \"$a\"; done; printf '\\n'; } "
        f">> '{log}'\n"
        f"exec '{real}' \"$@\"\n", "utf-8")
    (bin_dir / "git").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return log


def _logged(log: Path) -> list[tuple[str, list[str]]]:
    out = []
    for line in log.read_text("utf-8").splitlines() if log.exists() else []:
        how, *words = line.split("\037")
        out.append((how, words))
    log.unlink(missing_ok=True)
    return out


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    top = tmp_path / "repo"
    top.mkdir()
    git(top, "init", "-q")
    (top / "a.txt").write_text("hello\n", "utf-8")
    (top / ".agents" / "memory").mkdir(parents=True)
    (top / ".agents" / "memory" / "INDEX.md").write_text("Total ~5 of 100 tokens (5%).\n")
    git(top, "add", "-A")
    git(top, "commit", "-qm", "first")
    return top


def test_every_git_run_has_git_safe(repo: Path, runs: Path) -> None:
    """Guards a git run without GIT_SAFE (a hostile clone's core.fsmonitor would run), and
    the isolation each caller had (facts isolated; the person's view kept where needed)."""
    (repo / ".claude").mkdir()
    (repo / "b.txt").write_text("staged\n", "utf-8")
    git(repo, "add", "b.txt")
    _logged(runs)
    callers: dict[str, tuple[Callable[[], object], str]] = {
        "history": (lambda: history.index_history(str(repo), ".agents/memory/INDEX.md"),
                    "isolated"),
        "learn": (lambda: learn.project_identity(repo), "isolated"),
        "init's ignore check": (lambda: agents._ensure_ignored(
            repo, repo / ".claude" / "settings.local.json"), "person"),
        "merge driver setup": (lambda: merge.setup_merge_driver(repo), "person"),
        "git hook setup": (lambda: githook.install_git_hook(repo), "person"),
        "folder scan": (lambda: scanfiles.scan_paths([str(repo)], all_files=False), "person"),
        "staged scan": (lambda: scanfiles.scan_staged(repo), "person"),
    }
    for name, (call, how) in callers.items():
        call()
        logged = _logged(runs)
        assert logged, name  # the caller reaches git (the fixture reaches the case)
        for got, words in logged:
            assert words[:4] == SAFE, (name, words)
            assert got == how, (name, words)


def test_only_spawn_starts_git() -> None:
    """Guards a sixth runner: a module of ours that starts git by itself."""
    found = []
    for path in sorted((ROOT / "lean_memory").rglob("*.py")):
        text = path.read_text("utf-8")
        for needle in ('(["git"', "('git'", '("git",', "[\"git\","):
            if needle in text and path.name != "spawn.py":
                found.append((path.name, needle))
    assert found == []


def test_the_scan_still_sees_the_person_s_excludes(repo: Path, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Guards the folder scan isolated from the person's config (their global excludes file
    decides what git would add, hence what is scanned)."""
    excludes, config = tmp_path / "excludes", tmp_path / "gitconfig"
    excludes.write_text("personal.txt\n", "utf-8")
    config.write_text(f"[core]\n\texcludesFile = {excludes}\n", "utf-8")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    (repo / "personal.txt").write_text("x\n", "utf-8")
    (repo / "kept.txt").write_text("x\n", "utf-8")
    result = scanfiles.scan_paths([str(repo)], all_files=False)
    assert result.scanned == 3  # a.txt, INDEX.md, kept.txt: not personal.txt
    seen = {os.path.basename(p) for p in scanfiles._git_listing(str(repo)) or []}
    assert "kept.txt" in seen and "personal.txt" not in seen


def test_a_run_that_cannot_start_or_overruns_says_so(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Guards the runner's failures: no git on PATH, or a git past its time limit, give a
    result with no code and one line, never an exception."""
    sleep = shutil.which("sleep")
    monkeypatch.setenv("PATH", str(tmp_path))
    r = spawn.git(str(tmp_path), "status", timeout=5)
    assert r.code is None and not r.ok and r.error.startswith("cannot run git")
    slow = tmp_path / "git"
    slow.write_text(f"#!/bin/sh\nexec {sleep} 60\n", "utf-8")
    slow.chmod(0o755)
    r = spawn.git(str(tmp_path), "-c", "a=b", "log", timeout=0.2)
    assert r.code is None and r.error == "git log took over 0.2 s"
