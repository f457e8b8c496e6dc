"""One detached background process per job and memory, off the caller's critical path.

A marker file in ``.cache/`` (created with ``O_EXCL``, never through a link: ADR 0012)
keeps it to one at a time; a marker older than ``stale_s`` is left over from a crash. The
child runs this package's own code with ``python -P`` from the package's parent folder: a
cloned repository may ship a ``lean_memory/`` of its own, and ``-c`` would put the cwd first
on ``sys.path`` (ADR 0012). Its output goes nowhere; the caller never waits for it.
"""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .store import Memory


def detached(mem: Memory, marker: str, code: str, *, stale_s: float = 600.0) -> bool:
    """Start ``python -P -c code <memory root>`` detached, unless ``.cache/<marker>`` says
    one runs; True if started. ``code`` must remove the marker when it ends."""
    import subprocess
    import sys

    from .errors import LeanMemoryError
    from .fsutil import ensure_dir

    path = mem.cache_dir / marker
    try:
        ensure_dir(mem.cache_dir, mem.agents_dir)
        try:
            if time.time() - os.lstat(path).st_mtime < stale_s:
                return False
            os.unlink(path)
        except FileNotFoundError:
            pass
        # O_EXCL: one winner among racing callers, and never through a link (ADR 0012).
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
    except (OSError, LeanMemoryError):
        return False
    env = dict(os.environ)
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env["PYTHONPATH"] = os.pathsep.join(p for p in (here, env.get("PYTHONPATH")) if p)
    detach: dict[str, Any] = ({"creationflags": 0x00000008} if os.name == "nt"  # DETACHED
                              else {"start_new_session": True})
    try:
        subprocess.Popen([sys.executable, "-P", "-c", code, os.path.abspath(mem.root)],
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, cwd=here, env=env, **detach)
    except OSError:
        path.unlink(missing_ok=True)
        return False
    return True


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
