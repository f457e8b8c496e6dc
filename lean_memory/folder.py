"""The memory folder: where its files are, its config, reading them within bounds, the lock.

The bottom layer of the store: :mod:`lean_memory.summaries` (what is known of the files) and
:mod:`lean_memory.store` (the ``Memory`` facade) build on :class:`Folder`; features take a
memory and read its files through it. No caches here.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from functools import cached_property
from pathlib import Path

from . import format as fmt
from ._lazyre import lazy
from .config import RESERVED, SHARD_NAME, Config, load_config
from .errors import InvalidEntry, LeanMemoryError, NotInitialized, UnknownShard
from .fsutil import file_lock, read_text, sweep

TYPE_CHECKING = False  # typing's own costs an import
if TYPE_CHECKING:
    from .secrets import Allowlist

Entry = fmt.Entry

DESCRIPTIONS = {
    "seed": "What to know before touching this project: purpose, layout, how to build and test.",
    "failures": "What broke, why, and the fix that worked.",
    "corrections": "Things that were believed or done wrong, and what is right instead.",
    "insights": "Lessons and patterns worth reusing.",
    "conventions": "Standing rules of this project (style, naming, process): follow them.",
    "quirks": "Surprises of tools, platforms and dependencies, with their workarounds.",
}
# An entry's tags are metadata: bounded apart from the text's size guards (put and manage).
MAX_TAGS = 32
MAX_TAGS_CHARS = 1_000
TOO_MANY_TAGS = (f"too many tags: at most {MAX_TAGS} tags of {MAX_TAGS_CHARS:,} characters in "
                 "all; put the rest in the text")
GITIGNORE = (".cache/", ".*.tmp")  # the derived cache; temp files a crash left
# The intent journal of an unfinished compaction (lean_memory.compaction): the lock checks for
# it before importing that module (json and the planner), which it needs only then.
COMPACTION_JOURNAL = "compaction.journal"
DATE = lazy(r"\d{4}-\d{2}-\d{2}")


def find_root(start: Path | None = None) -> Path:
    """``LEAN_MEMORY_ROOT``, else the nearest ancestor with ``.agents/memory``, else the
    git top level, else the working directory."""
    env = os.environ.get("LEAN_MEMORY_ROOT")
    if env:
        return Path(env)
    here = (start or Path.cwd()).resolve()
    chain = (here, *here.parents)
    for folder in chain:
        if (folder / ".agents" / "memory").is_dir():
            return folder
    for folder in chain:
        if (folder / ".git").exists():
            return folder
    return here


def today() -> str:
    """The local date, as ``datetime.date.today().isoformat()`` gives it (without importing
    datetime, a few ms on every put)."""
    import time

    now = time.localtime()
    return f"{now.tm_year:04d}-{now.tm_mon:02d}-{now.tm_mday:02d}"


def check_date(date: str) -> str:
    import datetime

    if not isinstance(date, str) or not DATE.fullmatch(date):
        raise InvalidEntry(f"invalid date {date!r}: expected an absolute date YYYY-MM-DD")
    try:
        datetime.date.fromisoformat(date)
    except ValueError:
        raise InvalidEntry(f"invalid date {date!r}: no such day") from None
    return date


class Folder:
    """The memory folder of ``root``: ``<root>/.agents/memory`` and its config."""

    def __init__(self, root: str | os.PathLike[str] | None = None) -> None:
        if root is not None and not isinstance(root, (str, os.PathLike)):
            raise LeanMemoryError(f"root must be a path, not {type(root).__name__}")
        self.root = Path(root) if root is not None else find_root()
        self.agents_dir = self.root / ".agents"
        self.dir = self.agents_dir / "memory"
        self.archive_dir = self.dir / "archive"
        self.cache_dir = self.dir / ".cache"
        self.index_path = self.dir / "INDEX.md"

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self.root)!r})"

    # -- configuration and paths -------------------------------------------------

    @cached_property
    def config(self) -> Config:
        return load_config(self.agents_dir / "config.toml", self.cache_dir / "config.marshal")

    @property
    def shards(self) -> tuple[str, ...]:
        return self.config.shards

    def shard_path(self, shard: str, *, archive: bool = False) -> Path:
        self._check_shard(shard)
        return (self.archive_dir if archive else self.dir) / f"{shard}.md"

    def _check_shard(self, shard: str) -> None:
        if not isinstance(shard, str) or not SHARD_NAME.fullmatch(shard) or shard in RESERVED:
            raise UnknownShard(f"invalid shard name {shard!r}: expected one of "
                               f"{', '.join(self.shards)}")
        if shard not in self.shards:
            raise UnknownShard(f"unknown shard {shard!r}: expected one of {', '.join(self.shards)}")

    def _require_init(self) -> None:
        if not self.dir.is_dir():
            raise NotInitialized(f"no memory at {self.dir}: run `lean-memory init` first")

    @property
    def allowlist(self) -> Allowlist:
        from .secrets import Allowlist

        c = self.config
        return Allowlist(rules=frozenset(c.allow_rules), paths=c.allow_paths,
                         fingerprints=frozenset(c.allow_fingerprints))

    # -- reading ------------------------------------------------------------------

    def read_text(self, path: Path) -> str:
        """A memory file as text ('' when missing); refuses what is not UTF-8, and (as
        UnsafePath) a symbolic link, a special file or a file over the size limit."""
        return read_text(path, self.agents_dir)

    def read_shard(self, shard: str, *, archive: bool = False) -> fmt.Shard:
        return fmt.parse(self.read_text(self.shard_path(shard, archive=archive)), shard)

    def entries(self, shard: str | None = None, *, archive: bool = False) -> list[Entry]:
        """Entries in file order (all shards in config order when ``shard`` is None)."""
        self._require_init()
        names = (shard,) if shard is not None else self.shards
        out: list[Entry] = []
        for name in names:
            out.extend(self.read_shard(name, archive=archive).entries)
        return out

    @staticmethod
    def _preamble(name: str) -> str:
        title = name.replace("-", " ").replace("_", " ").capitalize()
        what = DESCRIPTIONS.get(name, f"Entries about {title.lower()}.")
        return f"# {title}\n\n{what}\n\n"

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        """The writers' lock: hold it around every read-modify-write of the memory.

        On taking it, a symbolic link or special file where lean_memory writes is refused
        before anything is written, temp files of crashed writers are removed (those
        of the cache only when old: readers write the cache without the lock), and a
        compaction a crash interrupted is finished (or its damaged journal set aside).
        """
        root = self.agents_dir
        with file_lock(self.cache_dir / "lock", root=root):  # checks .agents, memory, .cache
            shards = [f"{name}.md" for name in self.shards]
            sweep(self.dir, {"INDEX.md", ".gitignore", *shards}, {"archive"}, root=root)
            sweep(self.archive_dir, shards, root=root)
            sweep(self.cache_dir, older_than=3600.0, root=root)
            if os.path.lexists(self.cache_dir / COMPACTION_JOURNAL):
                self._recover()  # every writer first finishes a compaction a crash interrupted
            yield

    def _recover(self) -> None:
        """Finish the compaction whose journal is in ``.cache``: the facade's to do (it
        imports :mod:`lean_memory.compaction`, which sits above this module)."""
        raise NotImplementedError

