"""The distribution as a user gets it: built wheel and sdist, installed into a fresh venv
that is never activated, the console script run by its absolute path."""

from __future__ import annotations

import email.parser
import os
import re
import subprocess
import sys
import tarfile
import zipfile
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
    with zipfile.ZipFile(dists[0]) as zf:
        names = zf.namelist()
    assert "lean_memory/py.typed" in names
    assert not any(n.startswith("tests/") for n in names)


def test_wheel_in_a_fresh_venv_that_is_not_activated(dists: tuple[Path, Path],
                                                     tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    r = _run(sys.executable, "-m", "venv", venv)
    assert r.returncode == 0, r.stderr
    bindir = venv / ("Scripts" if os.name == "nt" else "bin")
    python = bindir / ("python.exe" if os.name == "nt" else "python")
    r = _run(python, "-m", "pip", "install", "--no-deps", "--no-index", "-q", dists[0])
    assert r.returncode == 0, r.stderr
    # Not activated: the venv's bin is not on PATH and nothing points at this checkout.
    env = {k: v for k, v in os.environ.items()
           if k not in {"PYTHONPATH", "VIRTUAL_ENV", "LEAN_MEMORY_ROOT"}}
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep)
                                  if Path(p) != bindir)
    work = tmp_path / "elsewhere"
    work.mkdir()
    script = bindir / ("lean-memory.exe" if os.name == "nt" else "lean-memory")
    r = _run(script, "--version", cwd=work, env=env)
    assert r.returncode == 0 and r.stdout.split()[-1] == _version(), r.stderr
    r = _run(script, "demo", cwd=work, env=env)
    assert r.returncode == 0, r.stderr
    assert "refused" in r.stdout.lower()
    r = _run(python, "-c", "import lean_memory, sys; print(lean_memory.__file__)",
             cwd=work, env=env)
    assert Path(r.stdout.strip()).is_relative_to(venv)

    # The instructions that init writes for an agent run as written in this setup.
    assert _run("git", "init", "-q", cwd=work).returncode == 0
    r = _run(script, "init", "--agent", "claude", cwd=work, env=env)
    assert r.returncode == 0, r.stderr
    doc = (work / "CLAUDE.md").read_text(encoding="utf-8")
    command = re.search(r"Run lean_memory as `([^`]+)`", doc)
    assert command is not None, doc
    assert "python -m lean_memory" not in doc  # fails where the venv is not active
    r = _run("sh", "-c", f"{command.group(1)} put quirks 'installed wheels run' && "
             f"{command.group(1)} get --query 'installed wheels'", cwd=work, env=env)
    assert r.returncode == 0 and "installed wheels run" in r.stdout, r.stderr
    # the personal settings file (it names this venv) is kept out of git
    status = _run("git", "status", "--porcelain", "--untracked-files=all", cwd=work).stdout
    assert "settings.local.json" not in status and ".claude/.gitignore" in status


def _version() -> str:
    import tomllib

    with open(ROOT / "pyproject.toml", "rb") as fh:
        version: str = tomllib.load(fh)["project"]["version"]
    return version


def test_sdist_carries_what_its_tests_need_and_they_pass(dists: tuple[Path, Path],
                                                         tmp_path: Path) -> None:
    with tarfile.open(dists[1]) as tf:
        tf.extractall(tmp_path, filter="data")
    top = next(tmp_path.iterdir())
    for needed in ("LICENSE", "CHANGELOG.md", "tests/__init__.py", "tests/conftest.py",
                   "lean_memory/py.typed", "pyproject.toml"):
        assert (top / needed).is_file(), needed
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "LEAN_MEMORY_ROOT"}}
    env["PYTHONPATH"] = str(top)
    # Every test module imports from the unpacked tree; a few run in full.
    r = _run(sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--collect-only",
             cwd=top, env=env)
    assert r.returncode == 0, r.stdout[-3000:]
    r = _run(sys.executable, "-m", "pytest", "-x", "-p", "no:cacheprovider",
             "tests/test_format.py", "tests/test_api.py", "tests/test_cli.py", cwd=top, env=env)
    assert r.returncode == 0, r.stdout[-3000:]
    assert " passed" in r.stdout
