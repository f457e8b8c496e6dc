"""One detached background process per job and memory, off the caller's critical path.

A marker file in ``.cache/`` (created with ``O_EXCL``, never through a link: ADR 0012)
keeps it to one at a time; a marker older than ``stale_s`` is left over from a crash. The
child runs this package's own code with ``python -P`` from the package's parent folder: a
cloned repository may ship a ``lean_memory/`` of its own, and ``-c`` would put the cwd first
on ``sys.path`` (ADR 0012). Its output goes nowhere; the caller never waits for it.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time

TYPE_CHECKING = False  # typing's own costs an import (this runs in the prompt hook)
if TYPE_CHECKING:
    from .store import Memory


def detached(mem: Memory, marker: str, code: str, *args: str, stale_s: float = 600.0) -> bool:
    """Start ``python -P -c code`` detached, unless ``.cache/<marker>`` says one runs; True
    if started. ``code`` runs in the package's parent folder with ``sys.argv[1:]`` = the
    memory's root and ``args``, and must remove the marker when it ends."""
    from .errors import LeanMemoryError
    from .fsutil import ensure_dir

    marker_path = os.path.join(mem._cache, marker)  # strings: no pathlib on the hook's path
    try:
        ensure_dir(mem._cache, mem._agents)
        try:
            if time.time() - os.lstat(marker_path).st_mtime < stale_s:
                return False
            os.unlink(marker_path)
        except FileNotFoundError:
            pass
        # O_EXCL: one winner among racing callers, and never through a link (ADR 0012).
        os.close(os.open(marker_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
    except (OSError, LeanMemoryError):
        return False
    env = dict(os.environ)
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    # Isolated (-I), our package's folder put on the path by hand, and a cwd outside the
    # repository: the caller's PYTHONPATH may name the clone (a plugin hook runs with -I,
    # but its environment still carries it), where a `sitecustomize.py` or `lean_memory/`
    # of its own would run first (ADR 0012). `os` and `sys` are loaded before the code runs.
    argv = [sys.executable, "-I", "-c",
            "import os, sys; sys.path.insert(0, sys.argv.pop(1)); os.chdir(sys.argv.pop(1)); "
            + code, here, here, os.path.abspath(mem.root), *args]
    try:
        if os.name == "nt":
            import subprocess

            subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, cwd=here, env=env,
                             creationflags=0x00000008)  # DETACHED_PROCESS
        else:
            # posix_spawn, not subprocess: subprocess imports threading, and threading first
            # imported in the prompt hook's worker thread takes it for the main thread, so
            # the hook would not exit at its time limit but wait for the worker (seconds at
            # 100k entries). Its own session, and nothing of the caller's stdout: a harness
            # reads that pipe to its end.
            _reap()
            null = [(os.POSIX_SPAWN_OPEN, fd, os.devnull, os.O_RDWR, 0) for fd in (0, 1, 2)]
            _SPAWNED.append(os.posix_spawn(sys.executable, argv, env, file_actions=null,
                                           setsid=True))
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(marker_path)
        return False
    return True


_SPAWNED: list[int] = []  # processes this process started and has not reaped yet


def _reap() -> None:
    """Collect the children that ended (a long-lived caller would keep them as zombies)."""
    for pid in list(_SPAWNED):
        try:
            if os.waitpid(pid, os.WNOHANG)[0] == 0:
                continue
        except ChildProcessError:
            pass
        _SPAWNED.remove(pid)


EMBEDDING = "embed.running"  # the marker of the background embedder
_EMBED = ("import sys; from lean_memory.embedcmd import embed_in_background; "
          "from lean_memory.store import Memory; embed_in_background(Memory(sys.argv[1]))")


def embed_soon(mem: Memory) -> bool:
    """After a put, when the semantic extra is on: give the new entries their vectors in
    a background process (bounded; ``lean-memory embed`` does the rest)."""
    c = mem.config
    if "ollama" not in c.retrievers or not c.ollama_embed_on_put:
        return False
    return detached(mem, EMBEDDING, _EMBED)
