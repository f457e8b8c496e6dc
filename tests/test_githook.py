"""The plain git pre-commit hook: install, refuse foreign hooks, run for real, fail open."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from lean_memory.githook import MARKER, install_git_hook, install_index_hooks

from .conftest import git

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")

# Built at run time so this file never holds a token-shaped string.
TOKEN = "ghp_" + "aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3fG5"



@pytest.fixture
def repo(tmp_path: Path) -> Path:
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "config", "commit.gpgsign", "false")
    return tmp_path


def hook(repo: Path) -> Path:
    return repo / ".git" / "hooks" / "pre-commit"


def test_installs_once_and_is_idempotent(repo: Path) -> None:
    message = install_git_hook(repo)
    assert message.startswith("installed git pre-commit hook")
    path = hook(repo)
    text = path.read_text(encoding="utf-8")
    assert text.startswith("#!/bin/sh\n") and MARKER in text
    assert "-m lean_memory" in text and "scan --staged" in text
    assert os.access(path, os.X_OK)
    assert install_git_hook(repo) == "git pre-commit hook already installed"
    assert path.read_text(encoding="utf-8") == text


def test_updates_its_own_hook(repo: Path) -> None:
    install_git_hook(repo)
    path = hook(repo)
    path.write_text(path.read_text(encoding="utf-8").replace("PY=", "PY='/old/python' #"),
                    encoding="utf-8")
    assert install_git_hook(repo).startswith("updated git pre-commit hook")


def test_refuses_a_foreign_hook(repo: Path) -> None:
    path = hook(repo)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\nexec make lint\n", encoding="utf-8")
    message = install_git_hook(repo)
    assert "not ours" in message and "lean-memory scan --staged" in message
    assert path.read_text(encoding="utf-8") == "#!/bin/sh\nexec make lint\n"
    # the index hooks are separate files: installing them leaves pre-commit alone
    assert all(m.startswith("installed git post-") for m in install_index_hooks(repo))
    assert path.read_text(encoding="utf-8") == "#!/bin/sh\nexec make lint\n"


def test_not_a_repository(tmp_path: Path) -> None:
    assert "not inside a git work tree" in install_git_hook(tmp_path)
    assert not (tmp_path / ".git").exists()


def test_hook_manager_with_hooks_path(repo: Path) -> None:
    git(repo, "config", "core.hooksPath", ".husky")
    assert "core.hooksPath" in install_git_hook(repo)
    assert not hook(repo).exists()


def test_real_commit_is_blocked_on_a_secret_and_allowed_without(repo: Path) -> None:
    install_git_hook(repo)
    (repo / "notes.md").write_text(f"deploy with {TOKEN}\n", encoding="utf-8")
    git(repo, "add", "notes.md")
    r = git(repo, "commit", "-q", "-m", "oops", check=False)
    assert r.returncode != 0
    assert "github" in (r.stdout + r.stderr).lower()
    assert TOKEN not in r.stdout + r.stderr
    (repo / "notes.md").write_text("deploy with the token from the vault\n", encoding="utf-8")
    git(repo, "add", "notes.md")
    git(repo, "commit", "-q", "-m", "clean")


def test_fails_open_when_lean_memory_is_gone(repo: Path, tmp_path: Path) -> None:
    install_git_hook(repo)
    path = hook(repo)
    text = path.read_text(encoding="utf-8")
    start = text.index("PY=")
    end = text.index("\n", start)
    path.write_text(text[:start] + "PY='/nonexistent/python3'" + text[end:], encoding="utf-8")
    (repo / "notes.md").write_text(f"deploy with {TOKEN}\n", encoding="utf-8")
    git(repo, "add", "notes.md")
    git_dir = os.path.dirname(shutil.which("git") or "/usr/bin/git")
    r = git(repo, "commit", "-q", "-m", "no scanner", env={"PATH": f"{git_dir}:/bin"},
            check=False)
    assert r.returncode == 0, r.stderr
    lines = [ln for ln in r.stderr.splitlines() if "lean-memory" in ln]
    assert len(lines) == 1 and "skipped" in lines[0]
