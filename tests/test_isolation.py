"""Every Python process lean_memory writes or starts runs isolated (issue 36 item 1, ADR 0033).

A hostile clone plants code that records, in a file outside the clone, that it ran: a
``lean_memory/`` package and ``sitecustomize.py``/``usercustomize.py`` in the clone and in a
folder on ``PYTHONPATH``, ``.pth`` files there and in a user site under ``PYTHONUSERBASE``.
``PYTHONPATH`` starts with an empty entry (what ``export PYTHONPATH=$PYTHONPATH:/x`` writes),
which puts the current folder first even under ``python -P``. The real command lines ``init``
writes are run the way their callers run them (the agents' hooks through a shell in the
project, git's pre-commit hook on ``git commit``, the merge driver on ``git merge``), and the
background process ``spawn.detached`` starts is waited for by its effect, never by time.
"""

from __future__ import annotations

import json
import os
import shutil
import site
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lean_memory import Memory, search, spawn
from lean_memory.agents import launcher_path

from .conftest import ROOT

pytestmark = [pytest.mark.skipif(shutil.which("git") is None, reason="git not installed"),
              pytest.mark.skipif(os.name == "nt", reason="POSIX shell commands")]

FACT = "The staging deploy needs the VPN up first."
PROMPT = "how do we deploy to staging with the vpn"


@dataclass
class Hostile:
    clone: Path
    record: Path  # appended to by any planted code that runs
    env: dict[str, str]

    def ran(self) -> str:
        return self.record.read_text() if self.record.exists() else ""


def _plant_code(record: Path, what: str) -> str:
    return f"open({str(record)!r}, 'a').write({what!r} + '\\n')\n"


def _plant(folder: Path, record: Path, where: str) -> None:
    """A ``lean_memory`` package, ``sitecustomize`` and ``usercustomize`` in ``folder``."""
    (folder / "lean_memory").mkdir(parents=True)
    (folder / "lean_memory" / "__init__.py").write_text(
        _plant_code(record, f"lean_memory/ in {where}"))
    for name in ("sitecustomize", "usercustomize"):
        (folder / f"{name}.py").write_text(_plant_code(record, f"{name} in {where}"))
    (folder / "evil.pth").write_text("import os; " + _plant_code(record, f".pth in {where}"))


def _git(repo: Path, env: dict[str, str], *args: str,
         check: bool = True) -> subprocess.CompletedProcess[str]:
    r = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True,
                       env=env, timeout=120, check=False)
    if check and r.returncode != 0:
        raise AssertionError(f"git {' '.join(args)}: {r.stdout}\n{r.stderr}")
    return r


@pytest.fixture
def hostile(tmp_path: Path) -> Iterator[Hostile]:
    record = tmp_path / "PLANTED-CODE-RAN"
    clone = tmp_path / "clone"
    clone.mkdir()
    _plant(clone, record, "the clone")
    on_path = tmp_path / "on-pythonpath"
    on_path.mkdir()
    _plant(on_path, record, "PYTHONPATH")
    userbase = tmp_path / "userbase"
    user_site = userbase / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}" \
        / "site-packages"
    user_site.mkdir(parents=True)
    (user_site / "usercustomize.py").write_text(_plant_code(record, "usercustomize in user site"))
    (user_site / "evil.pth").write_text("import os; " + _plant_code(record, ".pth in user site"))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "LEAN_MEMORY_"))}
    env.update({"PYTHONPATH": os.pathsep + str(on_path), "PYTHONUSERBASE": str(userbase),
                "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
                "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com",
                "GIT_EDITOR": "true", "XDG_DATA_HOME": str(tmp_path / "data")})
    _git(clone, env, "init", "-q", "-b", "main")
    _git(clone, env, "config", "commit.gpgsign", "false")
    _git(clone, env, "add", "-A")
    _git(clone, env, "commit", "-q", "-m", "a repository that ships code of its own")
    yield Hostile(clone, record, env)


def lm(h: Hostile, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """lean_memory as every command we write starts it (spawn.argv), in the clone."""
    return subprocess.run(spawn.argv(*args), cwd=h.clone, env=h.env, input=stdin,
                          capture_output=True, text=True, timeout=120, check=False)


def shell(h: Hostile, command: str, stdin: str) -> subprocess.CompletedProcess[str]:
    """``command`` as Claude Code and Codex run a hook: a shell in the project."""
    return subprocess.run([shutil.which("bash") or "sh", "-c", command], cwd=h.clone,
                          env=h.env, input=stdin, capture_output=True, text=True, timeout=120,
                          check=False)


def payload(event: str, cwd: Path) -> str:
    return json.dumps({"hook_event_name": event, "prompt": PROMPT, "cwd": str(cwd),
                       "session_id": "s1", "source": "startup",
                       "transcript_path": str(cwd.parent / "none.jsonl")})


def test_the_plants_run_under_the_old_form(hostile: Hostile) -> None:
    """The harness can fail: ``python -P -m lean_memory`` (what init wrote before) runs the
    clone's ``sitecustomize.py`` and ``lean_memory/`` through the empty PYTHONPATH entry,
    and the user site's ``.pth``."""
    subprocess.run([sys.executable, "-P", "-m", "lean_memory", "--version"], cwd=hostile.clone,
                   env=hostile.env, capture_output=True, timeout=120, check=False)
    ran = hostile.ran()
    assert "lean_memory/ in the clone" in ran and "sitecustomize in the clone" in ran
    if _user_site_read():  # a virtual environment reads no user site, whatever the form
        assert ".pth in user site" in ran and "usercustomize in" in ran


def _user_site_read() -> bool:
    """Whether this interpreter reads a user site at all (not in a venv, for one)."""
    return bool(site.ENABLE_USER_SITE) and sys.prefix == sys.base_prefix


def test_agent_hooks_run_no_planted_code(hostile: Hostile) -> None:
    """Caught: the Claude hook line (``"PY" -P -m lean_memory``) ran the clone's package;
    Codex's line ran pip's console script, which trusts PYTHONPATH."""
    r = lm(hostile, "init", "--agent", "claude")
    assert r.returncode == 0, r.stderr
    r = lm(hostile, "init", "--agent", "codex")
    assert r.returncode == 0, r.stderr
    assert Path(hostile.env["XDG_DATA_HOME"], "lean-memory", "hook.sh").is_file()
    assert lm(hostile, "put", "quirks", FACT).returncode == 0
    claude = json.loads((hostile.clone / ".claude" / "settings.local.json").read_text())
    codex = json.loads((hostile.clone / ".codex" / "hooks.json").read_text())
    answered = 0
    for config in (claude, codex):
        for event, groups in config["hooks"].items():
            command = groups[0]["hooks"][0]["command"]
            r = shell(hostile, command, payload(event, hostile.clone))
            assert r.returncode == 0 and r.stderr == "", (event, command, r.stderr)
            if event == "UserPromptSubmit":
                context = json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"]
                assert "VPN" in context
                answered += 1
    assert answered == 2
    _wait_for_background(Memory(hostile.clone))
    assert hostile.ran() == ""


def test_git_hook_and_merge_driver_run_no_planted_code(hostile: Hostile) -> None:
    """Caught: the pre-commit hook probed and ran ``"$PY" -P -m lean_memory`` from the top
    of the work tree, the merge driver too: both ran the clone's package."""
    r = lm(hostile, "init", "--git-hook", "--index-hooks")
    assert r.returncode == 0, r.stderr
    _git(hostile.clone, hostile.env, "add", "-A")
    _git(hostile.clone, hostile.env, "commit", "-q", "-m", "memory")  # pre-commit scan ran
    _git(hostile.clone, hostile.env, "checkout", "-q", "-b", "other")
    assert lm(hostile, "put", "failures", "The nightly build broke on a stale cache.",
              ).returncode == 0
    _git(hostile.clone, hostile.env, "commit", "-qam", "other side")
    _git(hostile.clone, hostile.env, "checkout", "-q", "main")
    assert lm(hostile, "put", "failures", "The release failed without a network.",
              ).returncode == 0
    _git(hostile.clone, hostile.env, "commit", "-qam", "this side")
    merged = _git(hostile.clone, hostile.env, "merge", "-q", "--no-edit", "other",
                  check=False)
    assert merged.returncode == 0, merged.stdout + merged.stderr
    text = (hostile.clone / ".agents" / "memory" / "failures.md").read_text()
    assert "stale cache" in text and "without a network" in text and "<<<<" not in text
    # the scan really runs in the hook: a staged credential is refused
    token = "ghp_" + "aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3fG5"
    (hostile.clone / "notes.txt").write_text(f"token = {token}\n")
    _git(hostile.clone, hostile.env, "add", "notes.txt")
    refused = _git(hostile.clone, hostile.env, "commit", "-q", "-m", "x", check=False)
    assert refused.returncode != 0 and "secret" in refused.stderr.lower()
    assert token not in refused.stdout + refused.stderr
    assert hostile.ran() == ""


def _wait_for_background(mem: Memory) -> None:
    """Until no background process of ours runs for ``mem``: each removes its marker as
    its last act, and its marker exists from before it starts. A generous bound only
    against a hang; how long it takes never decides the verdict."""
    markers = [mem.cache_dir / "search.warming", mem.cache_dir / spawn.EMBEDDING]
    deadline = time.monotonic() + 600
    while any(m.exists() for m in markers):
        assert time.monotonic() < deadline, "a background process never finished"
        time.sleep(0.05)
    spawn._reap()


def test_the_background_warm_up_runs_no_planted_code(hostile: Hostile,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Caught: ``spawn.detached`` (``python -P``, PYTHONPATH inherited and extended, the
    caller's folder) ran a planted ``sitecustomize.py`` even under an isolated parent."""
    assert lm(hostile, "init").returncode == 0
    assert lm(hostile, "put", "quirks", FACT).returncode == 0
    mem = Memory(hostile.clone)
    index = mem.cache_dir
    for path in index.glob("*"):  # nothing built yet: the warm-up has work to do
        if path.is_file():
            path.unlink()
    monkeypatch.chdir(hostile.clone)
    for key, value in hostile.env.items():
        monkeypatch.setenv(key, value)
    assert search._start_warming(mem)
    _wait_for_background(mem)
    assert hostile.ran() == ""
    # its effect: the index it built, there before anything here searched
    assert [p for p in index.iterdir() if p.is_file() and p.stat().st_size], list(index.iterdir())


def test_the_codex_launcher_is_isolated_and_names_this_install() -> None:
    """The launcher ``init`` writes for Codex starts this interpreter with -I and this
    install, never pip's console script (which imports ``re`` and trusts PYTHONPATH)."""
    from lean_memory.agents import launcher_text

    text = launcher_text()
    assert f"{spawn.sh_quote(Path(sys.executable).as_posix())} -I -c " in text
    assert spawn.sh_quote(spawn.HOME) in text and "lean-memory " not in text.split("\n")[-2]
    assert Path(spawn.HOME).resolve() == ROOT
    assert launcher_path().endswith(os.path.join("lean-memory", "hook.sh"))


@settings(max_examples=40, deadline=None)
@given(st.text(st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",)),
               max_size=20))
def test_sh_quote_is_one_word_to_sh(value: str) -> None:
    """Paths in the lines we write (interpreter, install folder) may hold spaces, quotes or
    ``$``: quoted, ``sh`` gives back exactly the value, as one word."""
    r = subprocess.run(["sh", "-c", f"printf '%s|' {spawn.sh_quote(value)}"], capture_output=True,
                       timeout=60, check=True)
    assert r.stdout.decode("utf-8", "surrogateescape") == value + "|"
