"""Run a CLI command that dies (or meets a full disk) at its N-th file-write step.

Every durable write of the store and of compaction goes through ``atomic_write``; a step
is the moment just before or just after one such write. ``kill`` ends the process there
as SIGKILL would (no cleanup runs); ``full`` raises ENOSPC there instead, as a full disk
would, and the command fails as it would in real life.
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
import lean_memory.compaction as compaction
import lean_memory.fsutil as fsutil
import lean_memory.store as store
from lean_memory.cli import main

limit, mode = int(sys.argv[1]), sys.argv[2]
steps = [0]
real = fsutil.atomic_write

def step():
    steps[0] += 1
    if steps[0] == limit:
        if mode == "kill":
            os._exit(137)
        raise OSError(errno.ENOSPC, "No space left on device")

def atomic_write(path, data, **kw):
    step()
    written = real(path, data, **kw)
    step()
    return written

compaction.atomic_write = store.atomic_write = atomic_write
code = main(sys.argv[3:])
sys.stdout.flush()
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


def copy(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst, symlinks=True)
    return dst


def memory_files(root: Path) -> dict[str, bytes]:
    """The memory's files as bytes (the cache excluded)."""
    return snapshot(root / ".agents" / "memory")
