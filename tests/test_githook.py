"""The plain git pre-commit hook: install, chain to a hook already there, run for real, fail
closed."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from lean_memory.errors import HookNotInstalled
from lean_memory.githook import CHAINED, MARKER, SCAN_LINE, install_git_hook, install_index_hooks

from .conftest import git, run_cli

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
    assert " -I -c " in text and "scan --staged" in text
    assert os.access(path, os.X_OK)
    assert install_git_hook(repo) == "git pre-commit hook already installed"
    assert path.read_text(encoding="utf-8") == text


def test_updates_its_own_hook(repo: Path) -> None:
    install_git_hook(repo)
    path = hook(repo)
    path.write_text(path.read_text(encoding="utf-8").replace("PY=", "PY='/old/python' #"),
                    encoding="utf-8")
    assert install_git_hook(repo).startswith("updated git pre-commit hook")


def _foreign(repo: Path, body: str, executable: bool = True) -> Path:
    path = hook(repo)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
    path.chmod(0o755 if executable else 0o644)
    return path


def _stage_secret(repo: Path) -> None:
    (repo / "notes.md").write_text(f"deploy with {TOKEN}\n", encoding="utf-8")
    git(repo, "add", "notes.md")


def test_chains_to_a_hook_already_there_and_both_must_pass(repo: Path) -> None:
    # The existing hook passes or fails on a flag file, and records that it ran.
    _foreign(repo, 'echo ran >> "$(git rev-parse --show-toplevel)/.ran"\n'
                   '[ ! -e "$(git rev-parse --show-toplevel)/.lint-fails" ]')
    message = install_git_hook(repo)
    assert message.startswith("installed git pre-commit hook") and CHAINED in message
    chained = hook(repo).parent / CHAINED
    assert "echo ran" in chained.read_text(encoding="utf-8") and os.access(chained, os.X_OK)
    assert MARKER in hook(repo).read_text(encoding="utf-8")
    assert install_git_hook(repo) == "git pre-commit hook already installed"  # idempotent
    (repo / ".gitignore").write_text(".ran\n.lint-fails\n", encoding="utf-8")
    git(repo, "add", ".gitignore")
    git(repo, "commit", "-q", "-m", "both pass")
    assert (repo / ".ran").read_text() == "ran\n"
    # the old hook fails: the commit is blocked, even though there is no secret
    (repo / ".lint-fails").touch()
    (repo / "a.txt").write_text("clean\n", encoding="utf-8")
    git(repo, "add", "a.txt")
    assert git(repo, "commit", "-q", "-m", "lint fails", check=False).returncode != 0
    # the old hook passes, the scan fails: blocked
    (repo / ".lint-fails").unlink()
    _stage_secret(repo)
    r = git(repo, "commit", "-q", "-m", "secret", check=False)
    assert r.returncode != 0 and "github-pat" in r.stderr and TOKEN not in r.stdout + r.stderr
    assert (repo / ".ran").read_text() == "ran\n" * 3


def test_a_non_executable_hook_stays_ignored_as_git_ignores_it(repo: Path) -> None:
    _foreign(repo, "exit 1", executable=False)
    install_git_hook(repo)
    (repo / "a.txt").write_text("clean\n", encoding="utf-8")
    git(repo, "add", "a.txt")
    git(repo, "commit", "-q", "-m", "ok")


def test_refuses_with_the_line_to_add_when_it_cannot_chain(repo: Path) -> None:
    path = _foreign(repo, "exec make lint")
    (path.parent / CHAINED).write_text("#!/bin/sh\n", encoding="utf-8")
    with pytest.raises(HookNotInstalled) as err:
        install_git_hook(repo)
    assert SCAN_LINE in str(err.value) and "\n" not in str(err.value)
    assert path.read_text(encoding="utf-8") == "#!/bin/sh\nexec make lint\n"
    # the CLI says so and exits non-zero, never "installed"
    r = run_cli("init", "--git-hook", cwd=repo)
    assert r.returncode == 2, r.stderr
    assert SCAN_LINE.encode() in r.stderr and b"installed git pre-commit" not in r.stdout
    # the index hooks are separate files: installing them leaves pre-commit alone
    assert all(m.startswith(("installed git post-", "git post-"))
               for m in install_index_hooks(repo))
    assert path.read_text(encoding="utf-8") == "#!/bin/sh\nexec make lint\n"


def test_cli_chains_and_exits_zero(repo: Path) -> None:
    _foreign(repo, "exit 0")
    r = run_cli("init", "--git-hook", cwd=repo)
    assert r.returncode == 0, r.stderr
    assert b"installed git pre-commit hook" in r.stdout and CHAINED.encode() in r.stdout


def test_not_a_repository(tmp_path: Path) -> None:
    with pytest.raises(HookNotInstalled, match="not inside a git work tree"):
        install_git_hook(tmp_path)
    assert not (tmp_path / ".git").exists()


def test_hook_manager_with_hooks_path(repo: Path) -> None:
    git(repo, "config", "core.hooksPath", ".husky")
    with pytest.raises(HookNotInstalled) as err:
        install_git_hook(repo)
    assert "core.hooksPath" in str(err.value) and SCAN_LINE in str(err.value)
    assert not hook(repo).exists()
    assert run_cli("init", "--git-hook", cwd=repo).returncode == 2


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


def test_fails_closed_when_lean_memory_is_gone(repo: Path) -> None:
    install_git_hook(repo)
    path = hook(repo)
    text = path.read_text(encoding="utf-8")
    start = text.index("PY=")
    end = text.index("\n", start)
    path.write_text(text[:start] + "PY='/nonexistent/python3'" + text[end:], encoding="utf-8")
    (repo / "notes.md").write_text("nothing secret\n", encoding="utf-8")
    git(repo, "add", "notes.md")
    git_dir = os.path.dirname(shutil.which("git") or "/usr/bin/git")
    r = git(repo, "commit", "-q", "-m", "no scanner", env={"PATH": f"{git_dir}:/bin"},
            check=False)
    assert r.returncode != 0, "a commit the scan could not check must be blocked"
    assert "commit blocked" in r.stderr and "lean-memory init --git-hook" in r.stderr
    assert "git commit --no-verify" in r.stderr
    assert git(repo, "rev-parse", "-q", "--verify", "HEAD", check=False).returncode != 0
    # bypassing knowingly works
    git(repo, "commit", "-q", "--no-verify", "-m", "knowingly", env={"PATH": f"{git_dir}:/bin"})


def test_real_commit_of_a_large_log_with_a_token_is_blocked(repo: Path) -> None:
    install_git_hook(repo)
    line = "INFO request served in 12 ms by worker 3 of the pool\n"
    (repo / "build.log").write_text(line * (2_100_000 // len(line)) + f"token {TOKEN}\n",
                                    encoding="utf-8")
    (repo / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0" + TOKEN.encode())
    git(repo, "add", "build.log", "logo.png")
    r = git(repo, "commit", "-q", "-m", "logs", check=False)
    assert r.returncode != 0 and "build.log:" in r.stdout + r.stderr
    assert TOKEN not in r.stdout + r.stderr and "1 binary file" in r.stderr
