"""Issue 25 item 8: ``python -m lean_memory`` on a Python older than 3.11 says so once and
exits 2 (it used to print "internal error" per failing import and exit 0, or a traceback)."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import ROOT

NEEDS = b"lean_memory needs Python >= 3.11"


def _env() -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("LEAN_MEMORY_ROOT", None)
    return env


def _old_pythons() -> list[str]:
    """Interpreters older than 3.11 found on this machine (PATH, then pyenv's versions)."""
    found = [p for v in ("3.10", "3.9", "3.8") if (p := shutil.which(f"python{v}"))]
    pyenv = shutil.which("pyenv")
    if pyenv:
        root = subprocess.run([pyenv, "root"], capture_output=True, text=True,
                              check=False).stdout.strip()
        for v in ("3.10", "3.9", "3.8"):
            found += sorted(glob.glob(os.path.join(root, "versions", f"{v}.*", "bin", "python")))
    usable = []
    for exe in found:  # a pyenv shim of an inactive version exits 127: not usable
        probe = subprocess.run([exe, "-c", "import sys; print(sys.version_info < (3, 11))"],
                               capture_output=True, text=True, check=False)
        if probe.returncode == 0 and probe.stdout.strip() == "True":
            usable.append(exe)
    return usable


def _check(result: subprocess.CompletedProcess[bytes]) -> None:
    assert result.returncode == 2, result
    assert result.stdout == b""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(NEEDS), result.stderr[-2000:]


@pytest.mark.parametrize("args", [["status"], ["--help"], ["hook", "prompt"]])
def test_an_old_python_is_told_once_with_exit_2(tmp_path: Path, args: list[str]) -> None:
    """A real 3.8-3.10 when the machine has one (3.10 printed the help and exited 0, or
    'internal error' per hook; 3.8 and 3.9 a traceback from __init__.py)."""
    pythons = _old_pythons()
    if not pythons:
        pytest.skip("no Python older than 3.11 on this machine (the patched test covers it)")
    for exe in pythons:
        _check(subprocess.run([exe, "-m", "lean_memory", *args], cwd=tmp_path, env=_env(),
                              input=b"{}", capture_output=True, timeout=60, check=False))


@pytest.mark.parametrize("entry", ["runpy.run_module('lean_memory', run_name='__main__')",
                                   "from lean_memory.cli import main; main(['status'])"])
def test_the_version_check_runs_before_any_command(tmp_path: Path, entry: str) -> None:
    """This Python told it is 3.10: both ways in (``-m`` and the console script's
    ``cli.main``) stop with the one line (they ran the command)."""
    code = f"import runpy, sys; sys.version_info = (3, 10, 14, 'final', 0); {entry}"
    _check(subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=_env(),
                          capture_output=True, timeout=60, check=False))
