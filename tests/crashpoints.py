"""Run a CLI command that dies (or meets a full disk) at its N-th file-write step.

Every write of the memory's files goes through ``fsutil.atomic_write``; a step is the
moment just before or just after one such write. ``kill`` ends the process there as SIGKILL
would (no cleanup runs); ``full`` raises ENOSPC there instead, as a full disk would, and the
command fails as it would in real life. ``fsutil.atomic_write`` itself is patched, so
every writer is reached wherever it lives (cache files, written through it too, are not
steps); ``count`` runs the command to its end and says how many steps it met (tests pin
those numbers, so a writer that escaped the patch would show).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from .conftest import ROOT, snapshot

CRASHER = """
import errno, os, sys
import lean_memory.fsutil as fsutil

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
    if kw.get("durable") is False and os.path.basename(os.path.dirname(path)) == ".cache":
        return real(path, data, **kw)  # a cache file (fsutil.write_cache): not the memory's
    step()
    written = real(path, data, **kw)
    step()
    return written

# Patched where it is defined, before the commands import it: every writer, wherever it
# lives and however it imports it, writes through the wrapper.
fsutil.atomic_write = atomic_write
from lean_memory.cli import main
for name, module in list(sys.modules.items()):
    if name.startswith("lean_memory.") and getattr(module, "atomic_write", None) is real:
        module.atomic_write = atomic_write
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
