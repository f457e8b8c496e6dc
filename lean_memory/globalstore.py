"""Where the layers live (ADR 0022): the global store's root, what opens a memory (to read:
a :class:`~lean_memory.summaries.Summaries`; to write: the facade's class, ADR 0050), and
the checks a write makes against the global store; below :mod:`lean_memory.layers`, which
searches the layers. A ``put`` needs these and nothing of the search (bm25, the index,
the withholding): it imports this module, not layers (tests/test_put_path.py).
"""

from __future__ import annotations

import os

from .errors import LeanMemoryError
from .folder import pure_path
from .sessionlog import _data_home
from .summaries import Summaries

TYPE_CHECKING = False  # typing's own costs an import
if TYPE_CHECKING:
    from pathlib import Path
    from typing import TypeVar

    from ._protocols import MemoryLike, Writable
    from .fsutil import StrPath

    M = TypeVar("M", bound=MemoryLike)  # check_project hands back what it was given

GLOBAL_ENV = "LEAN_MEMORY_GLOBAL"
GLOBAL = "global"
PROJECT = "project"
SESSION = "session"
LAYERS = (GLOBAL, PROJECT, SESSION)  # precedence: the first wins a said-twice
OVERRIDES = "supersedes-global:"  # the tag of a project entry that corrects a global one


class LayerError(LeanMemoryError):
    """A layer cannot be used as asked (e.g. a project folder that is the global store)."""


# -- where the layers live ------------------------------------------------------------------


def global_root() -> Path:
    """The global store's root (its files are under ``<root>/.agents/memory``)."""
    from pathlib import Path

    return Path(_global_root())


def _global_root() -> str:
    env = os.environ.get(GLOBAL_ENV, "")
    if env:
        path = os.path.expanduser(pure_path(env))  # as Path(env).expanduser()
        if not os.path.isabs(path):
            raise LayerError(f"{GLOBAL_ENV} must be an absolute path")
        return pure_path(path)
    return os.path.join(_data_home(), "lean-memory", GLOBAL)


def _real(path: StrPath) -> str:
    return os.path.normcase(os.path.realpath(path))


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


# The facade's class, set by lean_memory.store when it is imported: the features that
# write to a store (the global one, the session layer's) build one of it without importing
# the facade, which imports them (ADR 0034). What only reads opens a Summaries: the
# prompt hook and the warm query never load the facade's module (ADR 0050).
FACADE: list[type[Writable]] = []


def memory_at(root: StrPath | None) -> Writable:
    """A memory rooted at ``root`` to write to, of the facade's class."""
    if not FACADE:  # nothing made a store yet (a caller of this module alone): the facade
        # registers itself when its module loads; by name, so layers stays below it
        __import__(__package__ + ".store")  # __import__: importlib is not loaded here
    return FACADE[0](root)


def reader_at(root: StrPath | None) -> MemoryLike:
    """A memory rooted at ``root`` to read (search, digest, status, the caches it keeps)."""
    return Summaries(root)


def writable(mem: MemoryLike) -> Writable:
    """``mem`` as the facade, to write to (a reader's folder opened again as one)."""
    if not FACADE:
        __import__(__package__ + ".store")
    if isinstance(mem, FACADE[0]):
        return mem
    out = FACADE[0](mem._root)
    out.layer, out._retrievers = mem.layer, mem._retrievers
    return out


def global_memory(*, create: bool = False) -> Writable:
    """The global store, to write to; with ``create``, initialised first (``put --global``)."""
    mem = memory_at(_global_root())
    mem.layer = GLOBAL  # its files and INDEX.md speak of every project, commands --global
    if create and not os.path.isdir(mem._dir):
        mem.init()
    return mem


def open_global(*, facade: bool = False) -> MemoryLike | None:
    """The global store when it exists (to read; the facade with ``facade``), else None (no
    global layer to show)."""
    try:
        mem = global_memory() if facade else reader_at(_global_root())
        mem.layer = GLOBAL
        return mem if os.path.isdir(mem._dir) else None
    except (LeanMemoryError, OSError, RuntimeError):
        return None  # no home folder: no global layer


def check_project(mem: M) -> M:
    """``mem`` when it is a project's memory; refuses the global store reached as a project
    (a repository's ``.agents`` linked to it, or run from inside it): a repository can
    never write the global store by pointing at it."""
    try:
        g_dir, g_root = _real(reader_at(_global_root())._dir), _real(_global_root())
    except (LeanMemoryError, OSError, RuntimeError):
        return mem
    p_dir, p_root = _real(mem._dir), _real(mem._root)
    if _inside(p_dir, g_dir) or _inside(g_dir, p_dir) or _inside(p_root, g_root) or \
            p_root == g_root:
        raise LayerError(f"{mem._root} leads to the global store; use --global to act on it")
    return mem


def overrides_global(project: MemoryLike, entry_id: str) -> bool:
    """Whether ``entry_id`` names no entry of the project but one of the global store: a
    project correcting a global entry records it as a tag (the global store is never edited
    from a project)."""
    from .manage import UnknownEntry, find_entry

    try:
        find_entry(project, entry_id)
        return False
    except UnknownEntry:
        pass
    g = open_global()
    if g is None:
        return False
    try:
        find_entry(g, entry_id)
    except UnknownEntry:
        return False
    return True
