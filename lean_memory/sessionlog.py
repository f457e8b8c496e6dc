"""Where the personal layers live, their private files, and the log of writes (ADR 0022, 0023).

Only the environment and the platform decide where: ``<data>/lean-memory`` where ``<data>``
is ``$XDG_DATA_HOME`` (absolute), else the platform's per-user data folder. A project's
session layer is ``<data>/lean-memory/projects/<slug>-<hash of its real path>/``: personal,
local, never in a folder that is committed. Its files are readable by their owner only and
never opened through a link.

**The write log** (written by :mod:`lean_memory.writelog`, read here). Every entry a memory
stores (a put, a correction, an edit, the memory tool's writes) is noted with the time in
``writes.jsonl`` of that memory's session layer: what a distilled session "decided" is what
was written between its first ask and its end (:mod:`lean_memory.learn`). One JSON line a
write: ``{"at", "id", "shard", "title"}``, no entry text (the memory holds it; a forgotten
entry is not kept here). Noting never fails a write: any error is swallowed. Bounded: past
:data:`MAX_LOG_BYTES` the older half goes.
"""

from __future__ import annotations

import os
import sys
import time

from ._hash import blake2b
from .errors import LeanMemoryError
from .folder import pure_path
from .fsutil import _parent

TYPE_CHECKING = False  # typing's own import costs the hot path
if TYPE_CHECKING:
    from pathlib import Path

    from .fsutil import StrPath

WRITES = "writes.jsonl"
MAX_LOG_BYTES = 512 * 1024  # ~4,000 writes; then the older half is dropped
MAX_READ = 4 * 1024 * 1024


class SessionLayerError(LeanMemoryError):
    """A file of the session layer cannot be used (not a folder, a link)."""


def data_home() -> Path:
    """The per-user data folder: ``$XDG_DATA_HOME`` (absolute), else the platform's."""
    from pathlib import Path

    return Path(_data_home())


def _data_home() -> str:
    # strings (os.path): the hot commands never import pathlib

    xdg = os.environ.get("XDG_DATA_HOME", "")
    if xdg and os.path.isabs(xdg):
        return pure_path(xdg)
    if sys.platform == "win32" and os.environ.get("APPDATA"):
        return pure_path(os.environ["APPDATA"])
    home = os.path.expanduser("~")  # as Path.home(), which raises when there is none
    if home.startswith("~"):
        raise RuntimeError("Could not determine home directory.")
    home = pure_path(home)
    if sys.platform == "darwin":
        return os.path.join(home, "Library", "Application Support")
    return os.path.join(home, ".local", "share")


def app_home() -> Path:
    return data_home() / "lean-memory"


def project_key(root: StrPath) -> str:
    """The session layer's folder name of a project: a readable slug and a hash of the
    project's real path (two clones of one repository are two projects)."""
    real = os.path.realpath(root)
    # the regex [^a-z0-9]+ -> "-", told without importing re (every put notes its write)
    name = os.path.basename(real).lower()
    slug = "-".join("".join(c if c in _SLUG_CHARS else " " for c in name).split())[:40]
    digest = blake2b(real.encode("utf-8", "surrogatepass"), digest_size=6).hexdigest()
    return f"{slug or 'root'}-{digest}"


_SLUG_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")


def session_home(root: StrPath) -> Path:
    """Where this project's session layer lives (asks, summaries, decisions, writes)."""
    return app_home() / "projects" / project_key(root)


def _session_home(root: StrPath) -> str:
    """:func:`session_home` as a string."""
    return os.path.join(_data_home(), "lean-memory", "projects", project_key(root))


# -- private files --------------------------------------------------------------------------


def private_dir(path: StrPath) -> None:
    """``mkdir -p`` whose new folders only their owner may open (asks are personal)."""
    missing = []
    path = os.fspath(path)
    while not os.path.exists(path) and path != _parent(path):
        missing.append(path)
        path = _parent(path)
    for folder in reversed(missing):
        if not os.path.isdir(folder):  # a racing creator is no error
            try:
                os.mkdir(folder, 0o700)
            except FileExistsError:
                continue
    for folder in (*missing, path):
        if os.path.islink(folder) or not os.path.isdir(folder):
            raise SessionLayerError(f"{folder} is not a folder")


def read_private(path: StrPath, limit: int = MAX_READ) -> str:
    """A session-layer file ('' when missing); never through a link."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError:
        return ""
    with os.fdopen(fd, "rb") as fh:
        return fh.read(limit).decode("utf-8", "replace")


def write_private(path: StrPath, text: str, *, durable: bool = True) -> None:
    """Replace ``path`` atomically, readable by its owner only. ``durable=False`` skips the
    fsync, for a cache a crash may cost (the pay-once record: ADR 0039)."""
    private_dir(_parent(path))
    tmp = os.path.join(_parent(path), f".{os.path.basename(path)}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0),
                 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
        if durable:
            fh.flush()
            os.fsync(fh.fileno())
    os.replace(tmp, path)


def append_private(path: StrPath, line: str) -> None:
    private_dir(_parent(path))
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | getattr(os, "O_NOFOLLOW", 0),
                 0o600)
    with os.fdopen(fd, "a", encoding="utf-8") as fh:
        fh.write(line)


# -- the write log --------------------------------------------------------------------------


def now_utc() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def append_bounded(path: StrPath, lines: str, limit: int = MAX_LOG_BYTES) -> None:
    """Append ``lines`` to the private log at ``path``; past ``limit`` bytes the older
    half of its lines is dropped."""
    append_private(path, lines)
    if os.stat(path).st_size > limit:
        kept = read_private(path).splitlines(keepends=True)
        write_private(path, "".join(kept[len(kept) // 2:]))


def load_writes(root: StrPath) -> list[tuple[str, str, str, str]]:
    """The writes noted for the memory at ``root``: (at, id, shard, title), in time order."""
    from ._jsonc import loads

    out = []
    for line in read_private(os.path.join(_session_home(root), WRITES)).splitlines():
        try:
            d = loads(line)
            row = (d["at"], d["id"], d["shard"], d["title"])
        except (ValueError, TypeError, KeyError, AttributeError):
            continue
        if all(isinstance(x, str) for x in row):
            out.append(row)
    return sorted(out)
