"""Run a CLI command that dies (or meets a full disk) at its N-th file-write step.

Every write of the memory's files goes through ``fsutil.atomic_write``; a step is the
moment just before or just after one such write. ``kill`` ends the process there as SIGKILL
would (no cleanup runs); ``full`` raises ENOSPC there instead, as a full disk would, and the
command fails as it would in real life. Every module of the package is imported, and
patched where it imported ``atomic_write``, wherever a writer lives; ``count`` runs the
command to its end and says how many steps it met (tests pin those numbers, so a writer
that escaped the patch would show).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from .conftest import ROOT, snapshot

CRASHER = """
import errno, importlib, os, pkgutil, sys
import lean_memory
import lean_memory.fsutil as fsutil
from lean_memory.cli import main

for info in pkgutil.iter_modules(lean_memory.__path__):
    if info.name != "__main__":
        importlib.import_module(f"lean_memory.{info.name}")

limit, mode = int(sys.argv[1]), sys.argv[2]
steps = [0]
real = fsutil.atomic_write

def step():
    steps[0] += 1
    if steps[0] == limit and mode != "count":
        if mode == "kill":
            os._exit(137)
        raise OSError(errno.ENOSPC, "No space left on device")

def atomic_write(path, data, **kw):
    step()
    written = real(path, data, **kw)
    step()
    return written

patched = 0
for name, module in list(sys.modules.items()):
    # fsutil's own stays: its cache writes (write_cache) are not the memory's
    if name.startswith("lean_memory.") and name != "lean_memory.fsutil" and \
            getattr(module, "atomic_write", None) is real:
        module.atomic_write = atomic_write
        patched += 1
assert patched, "no writer imports atomic_write"
code = main(sys.argv[3:])
sys.stdout.flush()
if mode == "count":
    sys.stderr.write(f"\\ncrash points: {steps[0]} exit {code}\\n")
    sys.stderr.flush()
os._exit(100 if steps[0] < limit else code)
"""

COMPLETED = 100  # the command ran to its end before the crash point


def run(root: Path, limit: int, mode: str, *args: str) -> int:
    """Exit code of ``lean-memory ARGS`` in ``root`` crashing at step ``limit``;
    ``COMPLETED`` when the command finished first."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("LEAN_MEMORY_ROOT", None)
    r = subprocess.run([sys.executable, "-c", CRASHER, str(limit), mode, *args], cwd=root,
                       capture_output=True, env=env, timeout=120, check=False)
    return r.returncode


def points(root: Path, *args: str) -> int:
    """How many crash points ``lean-memory ARGS`` meets in ``root`` (run to its end, and
    exiting 0)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("LEAN_MEMORY_ROOT", None)
    r = subprocess.run([sys.executable, "-c", CRASHER, str(1 << 30), "count", *args],
                       cwd=root, capture_output=True, env=env, timeout=120, check=False)
    last = r.stderr.decode().strip().splitlines()[-1].split()
    assert r.returncode == COMPLETED and last[-1] == "0", r.stderr.decode()
    return int(last[2])


def copy(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst, symlinks=True)
    return dst


def memory_files(root: Path) -> dict[str, bytes]:
    """The memory's files as bytes (the cache excluded)."""
    return snapshot(root / ".agents" / "memory")
