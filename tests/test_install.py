"""The distribution as a user gets it: built wheel and sdist, installed into a fresh venv
that is never activated, the console script run by its absolute path."""

from __future__ import annotations

import email.parser
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from .conftest import ROOT

pytest.importorskip("build", reason="the test extra installs `build`")


def _run(*args: str | Path, cwd: Path | None = None,
         env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(a) for a in args], cwd=cwd, capture_output=True, text=True,
                          timeout=600, env=env, check=False)


@pytest.fixture(scope="module")
def dists(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    out = tmp_path_factory.mktemp("dist")
    r = _run(sys.executable, "-m", "build", "--wheel", "--sdist", "--outdir", out, ROOT)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    wheel = next(out.glob("*.whl"))
    sdist = next(out.glob("*.tar.gz"))
    return wheel, sdist


def _metadata(wheel: Path) -> email.message.Message:
    with zipfile.ZipFile(wheel) as zf:
        name = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
        return email.parser.Parser().parsestr(zf.read(name).decode())


def test_wheel_metadata_names_our_project_and_no_runtime_dependency(
        dists: tuple[Path, Path]) -> None:
    meta = _metadata(dists[0])
    assert meta["Name"] == "lean-memory-md"  # "lean-memory" on the index is another project
    assert meta["License-Expression"] == "MIT"
    assert "LICENSE" in (meta.get_all("License-File") or [])
    runtime = [r for r in meta.get_all("Requires-Dist") or [] if "extra ==" not in r]
    assert runtime == []
    # No public home yet: no address is invented (add [project.urls] with the real one).
    assert meta.get_all("Project-URL") is None and meta.get("Home-page") is None
    with zipfile.ZipFile(dists[0]) as zf:
        names = zf.namelist()
    assert "lean_memory/py.typed" in names
    assert not any(n.startswith("tests/") for n in names)


@dataclass(frozen=True)
class Venv:
    """A fresh venv, never activated: its bin is not on PATH; ``env`` is a user's shell."""

    root: Path
    python: Path
    script: Path
    env: dict[str, str]


def _fresh_venv(where: Path) -> Venv:
    r = _run(sys.executable, "-m", "venv", where)
    assert r.returncode == 0, r.stderr
    bindir = where / ("Scripts" if os.name == "nt" else "bin")
    env = {k: v for k, v in os.environ.items()
           if k not in {"PYTHONPATH", "VIRTUAL_ENV", "LEAN_MEMORY_ROOT", "PYTHONHOME"}}
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep)
                                  if p and Path(p) != bindir)
    env["PYTHONNOUSERSITE"] = "1"
    return Venv(where, bindir / ("python.exe" if os.name == "nt" else "python"),
                bindir / ("lean-memory.exe" if os.name == "nt" else "lean-memory"), env)


def _check_installed(venv: Venv, tmp_path: Path) -> None:
    """What a user does first, from a folder that is not this checkout."""
    work = tmp_path / "elsewhere"
    work.mkdir()
    r = _run(venv.script, "--version", cwd=work, env=venv.env)
    assert r.returncode == 0 and r.stdout.split()[-1] == _version(), r.stderr
    r = _run(venv.script, "demo", cwd=work, env=venv.env)
    assert r.returncode == 0, r.stderr
    assert "refused" in r.stdout.lower()
    r = _run(venv.python, "-c", "import lean_memory; print(lean_memory.__file__)",
             cwd=work, env=venv.env)
    assert Path(r.stdout.strip()).is_relative_to(venv.root), r.stdout + r.stderr
    _check_agent(venv, tmp_path / "claude", "claude", venv.env)
    _check_agent(venv, tmp_path / "codex", "codex", venv.env)
    # pipx puts a link to the venv's script on PATH: the shared Codex hooks run as written
    onpath = tmp_path / "pipx-bin"
    onpath.mkdir()
    (onpath / venv.script.name).symlink_to(venv.script)
    env = {**venv.env, "PATH": os.pathsep.join([str(onpath), venv.env["PATH"]])}
    _check_agent(venv, tmp_path / "codex-pipx", "codex", env)


_SHOWN = re.compile(r"`([^`]+)`")


def _check_agent(venv: Venv, work: Path, agent: str, env: dict[str, str]) -> None:
    """``init --agent``: every command its instructions show and every hook it writes runs
    as written, in a shell, in this setup."""
    work.mkdir()
    assert _run("git", "init", "-q", cwd=work).returncode == 0
    r = _run(venv.script, "init", "--agent", agent, cwd=work, env=env)
    assert r.returncode == 0, r.stderr
    doc = (work / "AGENTS.md").read_text("utf-8")  # the one section; CLAUDE.md imports it
    if agent == "claude":
        assert "@AGENTS.md" in (work / "CLAUDE.md").read_text("utf-8")
    assert "python -m lean_memory" not in doc  # fails where the venv is not active
    named = re.search(r"Run lean_memory as `([^`]+)`", doc)
    assert named is not None, doc
    cmd = named.group(1)
    assert cmd == "lean-memory"  # the team shares the file: one command, no machine path
    found_on_path = shutil.which("lean-memory", path=env["PATH"])  # maybe another install's
    on_path = found_on_path is not None and Path(found_on_path).resolve() == venv.script.resolve()
    if found_on_path is None:  # init said how to put it there
        assert "not on PATH" in r.stdout and "pipx install" in r.stdout, r.stdout
    shown = [c for c in _SHOWN.findall(doc) if c.startswith(cmd + " ") and "<" not in c]
    assert len(shown) >= 4, shown
    for command in shown:  # where lean-memory is not on PATH, as the person would type it
        if not on_path:
            command = f"{venv.script}{command[len(cmd):]}"
        r = subprocess.run(["sh", "-c", command], cwd=work, env=env, capture_output=True,
                           text=True, input="Read from standard input\n", timeout=120,
                           check=False)
        assert r.returncode == 0, (command, r.stderr)
    r = _run("sh", "-c", f"{venv.script} get --query 'what broke'", cwd=work, env=env)
    assert r.returncode == 0 and "What broke, why" in r.stdout, r.stderr
    # the hooks, as the agent runs them: a shell command, the event's JSON on stdin
    settings = work / (".claude/settings.local.json" if agent == "claude"
                       else ".codex/hooks.json")
    hooks = json.loads(settings.read_text("utf-8"))["hooks"]
    prompt = json.dumps({"session_id": "s", "cwd": str(work), "prompt": "what broke",
                         "hook_event_name": "UserPromptSubmit"})
    (command,) = [h["command"] for g in hooks["UserPromptSubmit"] for h in g["hooks"]]
    r = subprocess.run(["sh", "-c", command], cwd=work, env=env, capture_output=True,
                       text=True, input=prompt, timeout=120, check=False)
    if agent == "codex" and not on_path:
        # portable on purpose (the file is shared, it names no path): it runs this user's
        # launcher, which init wrote (ADR 0033), so it serves with no lean-memory on PATH;
        # without the launcher too, it fails open with one line on how to install
        bare = os.pathsep.join(p for p in env["PATH"].split(os.pathsep)
                               if not (Path(p) / venv.script.name).exists())
        # another agent run: its own session (a session is shown an entry once)
        again = prompt.replace('"session_id": "s"', '"session_id": "s2"')
        r = subprocess.run(["sh", "-c", command], cwd=work, env={**env, "PATH": bare},
                           capture_output=True, text=True, input=again, timeout=120,
                           check=False)
        assert r.returncode == 0 and "What broke, why" in r.stdout, (command, r.stderr)
        xdg = env.get("XDG_DATA_HOME", "")
        launcher = (Path(xdg) if xdg.startswith("/") else Path(env["HOME"]) / ".local"
                    / "share") / "lean-memory" / "hook.sh"
        launcher.unlink()
        r = subprocess.run(["sh", "-c", command], cwd=work, env={**env, "PATH": bare},
                           capture_output=True, text=True, input=prompt, timeout=120,
                           check=False)
        assert (r.returncode, r.stdout) == (0, "") and "pipx install" in r.stderr, r.stderr
        return
    assert r.returncode == 0 and "What broke, why" in r.stdout, (command, r.stderr)
    if agent == "claude":  # the personal settings file (it names this venv) stays out of git
        status = _run("git", "status", "--porcelain", "--untracked-files=all", cwd=work).stdout
        assert "settings.local.json" not in status and ".claude/.gitignore" in status


def test_wheel_in_a_fresh_venv_that_is_not_activated(dists: tuple[Path, Path],
                                                     tmp_path: Path) -> None:
    venv = _fresh_venv(tmp_path / "venv")
    r = _run(venv.python, "-m", "pip", "install", "--no-deps", "--no-index", "-q", dists[0],
             env=venv.env)
    assert r.returncode == 0, r.stderr
    _check_installed(venv, tmp_path)


def _version() -> str:
    import tomllib

    with open(ROOT / "pyproject.toml", "rb") as fh:
        version: str = tomllib.load(fh)["project"]["version"]
    return version


# The sdist's own tests that exercise the installed package end to end (the CLI in
# subprocesses, the agent hooks, the API): about a minute. The whole suite takes ~4 min.
SDIST_TESTS = ("tests/test_api.py", "tests/test_cli.py", "tests/test_agents.py")


def test_sdist_in_a_fresh_venv_runs_and_passes_its_tests(dists: tuple[Path, Path],
                                                         tmp_path: Path) -> None:
    """pip builds the sdist (its build backend from the index, as `python -m build` gets
    it) into a venv that is never activated; then the sdist's tests run against that
    installation, with the unpacked source moved out of the way."""
    venv = _fresh_venv(tmp_path / "venv")
    r = _run(venv.python, "-m", "pip", "install", "--no-deps", "-q", dists[1], env=venv.env)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    _check_installed(venv, tmp_path)

    unpacked = tmp_path / "unpacked"
    with tarfile.open(dists[1]) as tf:
        tf.extractall(unpacked, filter="data")
    top = next(unpacked.iterdir())
    for needed in ("LICENSE", "CHANGELOG.md", "README.md", "tests/__init__.py",
                   "tests/conftest.py", "lean_memory/py.typed", "pyproject.toml"):
        assert (top / needed).is_file(), needed
    shutil.rmtree(top / "lean_memory")  # the tests must import the installed package
    r = _run(venv.python, "-m", "pip", "install", "-q", "pytest", "hypothesis", env=venv.env)
    assert r.returncode == 0, r.stderr[-2000:]
    env = {**venv.env, "PYTHONPATH": str(top)}  # as conftest's run_cli sets it
    r = _run(venv.python, "-c", "import lean_memory; print(lean_memory.__file__)",
             cwd=top, env=env)
    assert Path(r.stdout.strip()).is_relative_to(venv.root), r.stdout + r.stderr
    r = _run(venv.python, "-m", "pytest", "-p", "no:cacheprovider", "--collect-only", "-q",
             cwd=top, env=env)  # every module imports (extras it lacks are skipped)
    assert r.returncode == 0, r.stdout[-3000:]
    r = _run(venv.python, "-m", "pytest", "-x", "-p", "no:cacheprovider", *SDIST_TESTS,
             cwd=top, env=env)
    assert r.returncode == 0, r.stdout[-3000:]
    assert " passed" in r.stdout and " failed" not in r.stdout
