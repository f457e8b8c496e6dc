"""End to end: the real pre-commit framework runs this repository's `lean-memory-secrets` hook.

The hook is installed by pre-commit itself (a virtualenv and `pip install` of a snapshot of this
checkout), so the test needs the `pre-commit` package and a package index; without them it is
skipped, never failed. The secret is built at run time.
"""

from __future__ import annotations

import os
import random
import shutil
import string
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_IGNORE = shutil.ignore_patterns(
    ".git", ".cache", ".hypothesis", "__pycache__", ".mypy_cache", ".ruff_cache",
    ".pytest_cache", "*.egg-info", "build", "dist", ".venv",
)  # fmt: skip


def _run(
    args: list[str], cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


def _git(cwd: Path, *args: str) -> None:
    _run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", *args], cwd
    ).check_returncode()


def _snapshot(dest: Path) -> Path:
    """A committed copy of the working tree: try-repo needs a git repository with a commit."""
    shutil.copytree(ROOT, dest, ignore=_IGNORE)
    _git(dest, "init", "-q")
    _git(dest, "add", "-A")
    _git(dest, "commit", "-q", "-m", "snapshot")
    return dest


def _try_repo(hook_repo: Path, work: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    args = [sys.executable, "-m", "pre_commit", "try-repo", str(hook_repo), "lean-memory-secrets"]
    return _run(args, work, env)


def _environment_failure(proc: subprocess.CompletedProcess[str]) -> bool:
    """pre-commit could not build the hook's environment (no network, no index, no pip).

    A broken manifest or a crashing hook is not an environment failure and must fail the test.
    """
    out = proc.stdout + proc.stderr
    return "CalledProcessError" in out and any(w in out for w in ("pip", "virtualenv", "venv"))


def test_pre_commit_hook_blocks_a_staged_secret_and_passes_a_clean_change(tmp_path: Path) -> None:
    pytest.importorskip("pre_commit")
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    hook_repo = _snapshot(tmp_path / "hook-repo")
    work = tmp_path / "work"
    work.mkdir()
    _git(work, "init", "-q")
    env = dict(os.environ)
    env.setdefault("PRE_COMMIT_HOME", str(Path.home() / ".cache" / "pre-commit"))
    env.pop("PRE_COMMIT", None)

    rng = random.Random()
    value = (
        "ghp" + "_" + "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(36))
    )
    (work / "notes.md").write_text(f"# deploy notes\nGITHUB_TOKEN={value}\n")
    _git(work, "add", "notes.md")
    blocked = _try_repo(hook_repo, work, env)
    if _environment_failure(blocked):
        pytest.skip(
            "pre-commit could not install the hook environment (network or pip unavailable)"
        )
    output = blocked.stdout + blocked.stderr
    assert blocked.returncode == 1, "a staged secret must fail the hook"
    assert "notes.md:2: github-pat: ghp_" in output
    assert value not in output and value[4:20] not in output

    (work / "notes.md").write_text(
        "# deploy notes\nGITHUB_TOKEN is read from the CI secret store.\n"
    )
    _git(work, "add", "notes.md")
    passed = _try_repo(hook_repo, work, env)
    assert passed.returncode == 0, "a clean change must pass the hook"
    assert "Passed" in passed.stdout
