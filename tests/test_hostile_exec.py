"""A cloned repository is hostile (issue 20): no code of its own runs, nothing outside the
work tree is copied in.

Each hostile clone is built in a temp dir with real git; a ``lean_memory/`` package (and a
``json.py``) at its top level records in a file outside the clone whenever Python imports
it. The real commands run as subprocesses, and every command they write is then run the way
its caller runs it: Claude Code's hook through a shell in the project folder, git's
pre-commit hook on ``git commit``, the merge driver on ``git merge``, the prompt hook's
background index warm-up. The record must stay empty.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from lean_memory import LeanMemoryError, Memory
from lean_memory.spawn import ENTRY, HOME, sh_quote

from .conftest import ROOT, git
from .test_boundary import Outside, _link, _marker, _refused, lm, posix_only

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")

TOKEN = "ghp_" + "aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3fG5"  # built at run time
PROMPT = "how do we deploy to staging with the vpn"
FACT = "The staging deploy needs the VPN up first."
# An interpreter started with -m or -c and no -I puts the current folder first on sys.path
# (with -P too, when PYTHONPATH has an empty entry: ADR 0033).
UNSAFE = re.compile(r"(?<!-I) -(m lean_memory|c )")
# The isolated invocation of what we write, and what versions before ADR 0033 wrote instead.
ISOLATED = f"-I -c {sh_quote(ENTRY)} {sh_quote(HOME)}"


@dataclass
class Clone:
    root: Path
    record: Path  # written by the clone's code if it ever runs

    def ran(self) -> str:
        return self.record.read_text() if self.record.exists() else ""


def _plant(folder: Path, record: Path) -> None:
    """The clone's code: a ``lean_memory`` package and a ``json`` module that say they ran."""
    code = f"import sys\nopen({str(record)!r}, 'a').write(repr(sys.argv) + '\\n')\n"
    (folder / "lean_memory").mkdir()
    (folder / "lean_memory" / "__init__.py").write_text(code)
    (folder / "json.py").write_text(code)


def _env(**extra: str) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "GIT_AUTHOR_NAME": "t",
           "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.com", **extra}
    env.pop("LEAN_MEMORY_ROOT", None)
    env.pop("PYTHONSAFEPATH", None)  # what we write must be safe without it
    return env


def run(cwd: Path, *args: str, python: str = sys.executable,
        stdin: str = "") -> subprocess.CompletedProcess[str]:
    """lean_memory as the ``lean-memory`` script starts it: its own folder first on sys.path,
    never the current one (so that only what lean_memory itself starts is under test)."""
    return subprocess.run([python, "-P", "-m", "lean_memory", *args], cwd=cwd, input=stdin,
                          capture_output=True, text=True, env=_env(), timeout=120, check=False)


def shell(command: str, cwd: Path, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """``command`` run the way Claude Code and git run theirs: ``sh -c`` in ``cwd``."""
    return subprocess.run(command, shell=True, cwd=cwd, input=stdin, capture_output=True,
                          text=True, env=_env(), timeout=120, check=False)


def payload(event: str, cwd: Path) -> str:
    return json.dumps({"hook_event_name": event, "prompt": PROMPT, "cwd": str(cwd),
                       "source": "startup"})


@pytest.fixture
def clone(tmp_path: Path) -> Clone:
    root = tmp_path / "clone"
    root.mkdir()
    c = Clone(root, tmp_path / "ran.txt")
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "commit.gpgsign", "false")
    _plant(root, c.record)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "a repository that ships its own lean_memory")
    return c


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A git work tree with no code of its own (the item 3 tests run ``-m`` in it)."""
    root = tmp_path / "tree"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    return root


@pytest.fixture
def bare_python(tmp_path: Path) -> str:
    """This interpreter seen from a folder without the ``lean-memory`` script (a venv that
    is not active, say): what init writes then starts lean_memory with ``-m``."""
    folder = tmp_path / "bin"
    folder.mkdir()
    link = folder / "python"
    link.symlink_to(sys.executable)
    return str(link)


def _prompt_hook_warming(cwd: Path) -> subprocess.CompletedProcess[str]:
    """The prompt hook, with index building made to look too slow for the hook's time, so
    it answers at once and starts the background warm-up (as for a large memory)."""
    code = ("import sys, lean_memory.search as s; s._BUILD_BYTES_PER_S = 1; "
            "from lean_memory.cli import main; sys.exit(main(['hook', 'user-prompt-submit']))")
    return subprocess.run([sys.executable, "-P", "-c", code], cwd=cwd,
                          input=payload("UserPromptSubmit", cwd), capture_output=True,
                          text=True, env=_env(), timeout=120, check=False)


def _wait_warmed(mem: Memory, clone: Clone) -> None:
    """Until the warm-up process has finished (its marker gone) or the clone's code ran."""
    marker = mem.cache_dir / "search.warming"
    for _ in range(600):
        if clone.ran() or (not marker.exists() and list(mem.cache_dir.glob("search-live-*"))):
            return
        time.sleep(0.1)
    raise AssertionError("the warm-up never finished")


# -- item 1: no code from the repository runs ------------------------------------------


def test_claude_hooks_and_instructions_run_no_code_from_the_clone(
        clone: Clone, bare_python: str) -> None:
    """Caught: the hook commands in .claude/settings.local.json and the command in
    CLAUDE.md were ``<python> -m lean_memory``, run in the project folder, so Python
    imported the clone's ``lean_memory/`` first."""
    r = run(clone.root, "init", "--agent", "claude", python=bare_python)
    assert r.returncode == 0, r.stderr
    assert run(clone.root, "put", "quirks", FACT).returncode == 0
    settings = json.loads((clone.root / ".claude" / "settings.local.json").read_text())
    for event in ("SessionStart", "UserPromptSubmit"):
        command = settings["hooks"][event][0]["hooks"][0]["command"]
        r = shell(command, clone.root, payload(event, clone.root))
        assert clone.ran() == ""
        assert r.returncode == 0 and r.stderr == "", r.stderr
        assert not UNSAFE.search(command), command
        assert "hookSpecificOutput" in r.stdout  # the real hook answered
    assert "@AGENTS.md" in (clone.root / "CLAUDE.md").read_text()  # the section, imported
    doc = (clone.root / "AGENTS.md").read_text()
    cmd = re.search(r"Run lean_memory as `([^`]+)`", doc)
    assert cmd is not None and cmd[1] == "lean-memory"  # the console script: its folder first
    r = shell(f"{cmd[1]} get --query staging", clone.root)
    assert clone.ran() == ""
    assert r.returncode == 0 and FACT in r.stdout, r.stderr


def test_pre_commit_hook_runs_no_code_from_the_clone(clone: Clone) -> None:
    """Caught: the pre-commit hook ``cd``s to the top level, then probes with
    ``"$PY" -c "import lean_memory"`` and runs ``"$PY" -m lean_memory``: both imported the
    clone's package."""
    assert run(clone.root, "init", "--git-hook").returncode == 0
    assert run(clone.root, "put", "quirks", FACT).returncode == 0
    git(clone.root, "add", "-A")
    r = git(clone.root, "commit", "-q", "-m", "memory", check=False)
    assert clone.ran() == ""
    assert r.returncode == 0, r.stderr
    (clone.root / "notes.md").write_text(f"deploy with {TOKEN}\n")
    git(clone.root, "add", "notes.md")
    r = git(clone.root, "commit", "-q", "-m", "a secret", check=False)
    assert r.returncode != 0 and "secret" in r.stderr.lower()  # the real scan ran
    assert TOKEN not in r.stdout + r.stderr
    assert clone.ran() == ""
    assert not UNSAFE.search((clone.root / ".git" / "hooks" / "pre-commit").read_text())


def test_merge_driver_runs_no_code_from_the_clone(clone: Clone) -> None:
    """Caught: git ran the registered driver ``<python> -m lean_memory merge-driver`` at the
    top of the work tree, which imported the clone's package (and the merge conflicted)."""
    assert run(clone.root, "init").returncode == 0
    git(clone.root, "add", "-A")
    git(clone.root, "commit", "-q", "-m", "memory")
    git(clone.root, "checkout", "-q", "-b", "a")
    assert run(clone.root, "put", "failures", "The build broke on a stale cache.").returncode == 0
    git(clone.root, "commit", "-q", "-am", "a")
    git(clone.root, "checkout", "-q", "main")
    assert run(clone.root, "put", "failures", "The tests hang without a network.").returncode == 0
    git(clone.root, "commit", "-q", "-am", "main")
    r = git(clone.root, "merge", "-q", "--no-edit", "a", check=False)
    assert clone.ran() == ""
    assert r.returncode == 0, r.stdout + r.stderr
    texts = (clone.root / ".agents" / "memory" / "failures.md").read_text()
    assert "stale cache" in texts and "without a network" in texts
    driver = git(clone.root, "config", "--get", "merge.lean-memory.driver").stdout
    assert driver and not UNSAFE.search(driver)


def test_prompt_hook_warm_up_runs_no_code_from_the_clone(clone: Clone) -> None:
    """Caught: the warm-up process was ``<python> -c ...`` with the repository as its
    current folder, so it imported the clone's package, even from the console script."""
    assert run(clone.root, "init").returncode == 0
    assert run(clone.root, "put", "quirks", FACT).returncode == 0
    mem = Memory(clone.root)
    for p in mem.cache_dir.glob("search*"):
        p.unlink()
    r = _prompt_hook_warming(clone.root)
    assert r.returncode == 0, r.stderr
    _wait_warmed(mem, clone)
    assert clone.ran() == ""
    assert list(mem.cache_dir.glob("search-live-quirks*"))  # the warm-up did its work


def test_a_project_under_a_folder_with_memory_and_a_package_runs_none_of_it(
        tmp_path: Path) -> None:
    """Caught: a project with no memory of its own is served the memory of a folder above
    it; the warm-up then ran with that folder as its current folder and imported the
    ``lean_memory/`` package that folder holds."""
    parent = tmp_path / "parent"
    project = parent / "project"
    project.mkdir(parents=True)
    c = Clone(parent, tmp_path / "ran.txt")
    _plant(parent, c.record)
    assert run(parent, "init", "--no-git").returncode == 0
    assert run(parent, "put", "quirks", FACT).returncode == 0
    git(project, "init", "-q", "-b", "main")
    r = _prompt_hook_warming(project)
    assert r.returncode == 0, r.stderr
    _wait_warmed(Memory(parent), c)
    assert c.ran() == ""


def test_init_refreshes_what_older_versions_wrote(clone: Clone, bare_python: str) -> None:
    """Caught: installs written by an older version (hooks, merge driver, agent settings)
    kept their unsafe commands, since ``init`` left a hook of its own alone when it
    looked installed."""
    assert run(clone.root, "init", "--git-hook", "--agent", "claude",
               python=bare_python).returncode == 0
    hook = clone.root / ".git" / "hooks" / "pre-commit"
    settings = clone.root / ".claude" / "settings.local.json"
    driver = git(clone.root, "config", "--get", "merge.lean-memory.driver").stdout.strip()
    # What versions before -P wrote (their interpreter quoted in the agent's settings).
    hook.write_text(hook.read_text().replace(ISOLATED, "-m lean_memory"))
    settings.write_text(settings.read_text().replace(f"{bare_python} {ISOLATED}",
                                                     f'\\"{bare_python}\\" -m lean_memory'))
    git(clone.root, "config", "merge.lean-memory.driver",
        driver.replace(ISOLATED, "-m lean_memory"))
    for text in (hook.read_text(), settings.read_text(),
                 git(clone.root, "config", "--get", "merge.lean-memory.driver").stdout):
        assert UNSAFE.search(text), text  # the old forms are there to refresh
    r = run(clone.root, "init", python=bare_python)
    assert r.returncode == 0, r.stderr
    assert run(clone.root, "put", "quirks", FACT).returncode == 0
    git(clone.root, "add", "-A")
    committed = git(clone.root, "commit", "-q", "-m", "memory", check=False)
    command = json.loads(settings.read_text())["hooks"]["UserPromptSubmit"][0]["hooks"][0]
    hooked = shell(command["command"], clone.root, payload("UserPromptSubmit", clone.root))
    assert clone.ran() == ""
    assert committed.returncode == 0 and hooked.returncode == 0, committed.stderr
    for text in (hook.read_text(), settings.read_text(),
                 git(clone.root, "config", "--get", "merge.lean-memory.driver").stdout):
        assert not UNSAFE.search(text), text
    again = run(clone.root, "init", python=bare_python)
    assert "updated" not in again.stdout and "refreshed" not in again.stdout  # idempotent


# -- item 3: nothing outside the work tree is copied in ----------------------------------

EDITED = [  # (the file, the init that edits it)
    (".gitattributes", ("init",)),
    ("CLAUDE.md", ("init", "--agent", "claude")),
    ("AGENTS.md", ("init", "--agent", "codex")),
    (".claude/settings.local.json", ("init", "--agent", "claude")),
    (".codex/hooks.json", ("init", "--agent", "codex")),
    (".claude/.gitignore", ("init", "--agent", "claude")),
]


def _tree_text(root: Path) -> str:
    return "".join(p.read_text(errors="replace") for p in root.rglob("*")
                   if p.is_file() and not p.is_symlink() and ".git" not in p.parts)


@pytest.mark.parametrize(("name", "args"), EDITED)
def test_init_copies_no_file_linked_outside(tree: Path, tmp_path: Path,
                                            name: str, args: tuple[str, ...]) -> None:
    """Caught: init read the link's target, and for ``.gitattributes``, CLAUDE.md,
    AGENTS.md and ``.claude/.gitignore`` wrote its content back as a regular file, ready to
    commit; the hook settings were read through the link (now each is refused, exit 2)."""
    outside = Outside(tmp_path / "outside.md")
    target = tree / name
    target.parent.mkdir(exist_ok=True)
    _link(target, outside.path)
    _refused(lm(tree, *args))
    assert target.is_symlink() and outside.untouched()
    assert _marker() not in _tree_text(tree)


@posix_only
@pytest.mark.parametrize(("name", "args"), EDITED)
def test_init_reads_no_device_linked_in(tree: Path, name: str, args: tuple[str, ...]) -> None:
    """Caught: a link to /dev/zero was read to the end (MemoryError, or a child killed at its
    address-space cap)."""
    target = tree / name
    target.parent.mkdir(exist_ok=True)
    _link(target, "/dev/zero")
    r = lm(tree, *args)
    _refused(r)
    assert r.peak_rss < 200 << 20, r.peak_rss


@posix_only
@pytest.mark.parametrize("name", [".gitattributes", "CLAUDE.md"])
def test_init_never_blocks_on_a_fifo(tree: Path, name: str) -> None:
    """Caught: a FIFO where init edits a file hung init for good."""
    os.mkfifo(tree / name)
    _refused(lm(tree, "init", "--agent", "claude", timeout=20), "not a regular file")


@pytest.mark.parametrize("folder", [".claude", ".codex"])
def test_init_writes_nothing_through_a_linked_folder(tree: Path, tmp_path: Path,
                                                     folder: str) -> None:
    """Caught: with ``.claude`` (``.codex``) a link to a folder outside, the hook settings
    (and a .gitignore) were written there."""
    outside = tmp_path / "outside-folder"
    outside.mkdir()
    _link(tree / folder, outside)
    _refused(lm(tree, "init", "--agent", folder[1:]))
    assert list(outside.iterdir()) == []


@posix_only
@pytest.mark.parametrize("kind", ["/dev/zero", "fifo"])
def test_git_hook_install_reads_no_device_or_fifo(tree: Path, kind: str) -> None:
    """Caught: ``init --git-hook`` read ``.git/hooks/pre-commit`` whole to see whether it is
    ours: a link to /dev/zero ran it out of memory, a FIFO hung it. A link (a hook
    manager's, say) is now chained unread; a FIFO is refused."""
    hook = tree / ".git" / "hooks" / "pre-commit"
    hook.parent.mkdir(exist_ok=True)
    if kind == "fifo":
        os.mkfifo(hook)
        _refused(lm(tree, "init", "--git-hook", timeout=20), "not a regular file")
        return
    _link(hook, kind)
    r = lm(tree, "init", "--git-hook")
    assert r.code == 0 and "Traceback" not in r.err, r
    assert r.peak_rss < 200 << 20, r.peak_rss
    assert (hook.parent / "pre-commit.before-lean-memory").is_symlink()


# -- item 8: init on a plain file ------------------------------------------------------


def test_init_on_a_plain_file_says_so(tmp_path: Path) -> None:
    """Caught: ``Memory(file).init()`` raised a bare NotADirectoryError, and the command
    line said only "Not a directory: f/.agents"."""
    plain = tmp_path / "notes.txt"
    plain.write_text("not a folder\n")
    with pytest.raises(LeanMemoryError, match="not a folder"):
        Memory(plain).init()
    r = lm(tmp_path, "--root", "notes.txt", "init")
    assert r.code == 2 and r.err.count("\n") == 1 and "notes.txt is a file, not a folder" in r.err
    assert "Traceback" not in r.err
